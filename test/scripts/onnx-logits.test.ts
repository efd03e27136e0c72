import { spawnSync } from "node:child_process";
import { readdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { tempDir } from "../fixtures/temp-dir.ts";
import { repoRoot, runScript } from "./run-script.ts";

const dir = tempDir("cardgym-logits-");
const model = "models/builtin/dcg-ppo-v1.onnx";

describe("onnx-logits: an unreadable observations file", () => {
  it("is one line naming the file and why, and exit 2, never a bare JSON or fs message", () => {
    const cut = join(dir, "cut.json");
    writeFileSync(cut, "[[0, 1");
    const cases: [string, RegExp][] = [
      [join(dir, "missing.json"), /^error: --obs: cannot read .*missing\.json \(ENOENT\)$/],
      [cut, /^error: --obs: .*cut\.json is not JSON \(/],
      [dir, /^error: --obs: cannot read .* \(EISDIR\)$/],
    ];
    for (const [file, message] of cases) {
      const run = runScript("onnx-logits.ts", ["--game", "dcg", "--model", model, "--obs", file]);
      expect(run.code, file).toBe(2);
      expect(run.stderr.trim().split("\n"), file).toHaveLength(1);
      expect(run.stderr.trim(), file).toMatch(message);
    }
  });
});

describe("onnx-logits: running a model", () => {
  it("leaves nothing in the temp directory (ONNX Runtime's telemetry, which writes mat-debug-<pid>.log and .ses there, is off)", () => {
    const tmp = tempDir("cardgym-logits-tmp-");
    const obs = join(dir, "zeros.json");
    writeFileSync(obs, JSON.stringify([Array.from({ length: 3378 }, () => 0)]));
    const run = spawnSync(process.execPath, ["--import", "tsx", "scripts/onnx-logits.ts", "--game", "dcg", "--model", model, "--obs", obs], {
      cwd: repoRoot,
      encoding: "utf8",
      env: { ...process.env, TMPDIR: tmp, ORT_DISABLE_TELEMETRY: undefined },
    });
    expect(run.status, run.stderr).toBe(0);
    expect(JSON.parse(run.stdout).logits.length).toBeGreaterThan(0);
    // tsx-<uid> is tsx's own compile cache, reused by later runs.
    expect(readdirSync(tmp).filter((name) => !name.startsWith("tsx-"))).toEqual([]);
  });
});
