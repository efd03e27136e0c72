import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { tempDir } from "../fixtures/temp-dir.ts";
import { readModelInfo } from "../../agents/onnx/model-info.ts";
import { metadataEntries, withMetadata } from "../../agents/onnx/stamp.ts";
import { writeMlp } from "../../agents/onnx/write-mlp.ts";
import { sevensAdapter } from "../../env/games/sevens.ts";
import { specOf } from "../../env/spec.ts";
import { runScript } from "./run-script.ts";

const spec = specOf(sevensAdapter);
const dir = tempDir("cardgym-stamp-");
const model = (obsSize: number, metadata: Record<string, string>) => writeMlp({ obsSize, hidden: 4, actionSize: spec.action.size, metadata, seed: 3 });

describe("re-stamping a model's metadata (scripts/stamp-model.ts)", () => {
  it("replaces metadata_props only: every other field is copied byte for byte", () => {
    const bytes = model(spec.observation.size, { game: "sevens", obs_version: "old", action_spec_hash: "x", author: "me" });
    const out = withMetadata(bytes, { game: "sevens", obs_version: "new", author: "me" });
    expect(metadataEntries(out)).toEqual([
      ["game", "sevens"],
      ["obs_version", "new"],
      ["author", "me"],
    ]);
    const strip = (b: Uint8Array) => withMetadata(b, {});
    expect(Buffer.from(strip(out)).equals(Buffer.from(strip(bytes)))).toBe(true);
    expect(readModelInfo(out).inputs).toEqual(readModelInfo(bytes).inputs);
  });

  it("stamps the game's current version and hash, keeping other keys", () => {
    const path = join(dir, "ok.onnx");
    writeFileSync(path, model(spec.observation.size, { game: "sevens", obs_version: "sevens-obs-v0", action_spec_hash: "0", trainer: "ppo" }));
    const run = runScript("stamp-model.ts", [path, "sevens"]);
    expect(run.stderr).not.toMatch(/error/);
    expect(run.code).toBe(0);
    expect(readModelInfo(new Uint8Array(readFileSync(path))).metadata).toEqual({
      game: "sevens",
      obs_version: spec.observation.version,
      action_spec_hash: spec.actionSpecHash,
      trainer: "ppo",
    });
  });

  it("refuses a model whose input size or game differs, leaving the file alone", () => {
    for (const [name, bytes] of [
      ["size.onnx", model(spec.observation.size - 1, { game: "sevens" })],
      ["game.onnx", model(spec.observation.size, { game: "dcg" })],
    ] as const) {
      const path = join(dir, name);
      writeFileSync(path, bytes);
      const run = runScript("stamp-model.ts", [path, "sevens"]);
      expect(run.code).toBe(1);
      expect(run.stderr).toMatch(/not stamped/);
      expect(Buffer.from(readFileSync(path)).equals(Buffer.from(bytes))).toBe(true);
    }
  });

  it("a missing, empty, cut-short or non-ONNX file, or a directory, is one line of error and exit 1, never a stack trace", () => {
    const good = model(spec.observation.size, { game: "sevens" });
    const files: [string, Uint8Array | null, RegExp][] = [
      ["missing.onnx", null, /cannot read .*missing\.onnx \(ENOENT\)/],
      ["empty.onnx", new Uint8Array(0), /empty\.onnx is empty: not an ONNX model/],
      ["cut.onnx", good.subarray(0, Math.floor(good.length / 2)), /cut\.onnx: the file is truncated/],
      ["text.onnx", new TextEncoder().encode('{"not": "a model"}'), /text\.onnx: not an ONNX model/],
    ];
    for (const [name, bytes, message] of files) {
      const path = join(dir, name);
      if (bytes) writeFileSync(path, bytes);
      const run = runScript("stamp-model.ts", [path, "sevens"]);
      expect(run.code, name).toBe(1);
      expect(run.stderr.trim().split("\n"), name).toHaveLength(1);
      expect(run.stderr, name).toMatch(message);
    }
    const run = runScript("stamp-model.ts", [dir, "sevens"]);
    expect(run.code).toBe(1);
    expect(run.stderr.trim()).toMatch(/^error: cannot read .* \(EISDIR\)$/);
  });
});
