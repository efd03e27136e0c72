/**
 * The goldens catch what breaks a trained policy: a sevens encoder that differs in one float (the
 * last one, seatCount) fails them, regeneration under the same version is refused, and once the
 * version is bumped a model stamped with the old version is refused by the ONNX model contract.
 */
import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { contractViolations } from "../../agents/onnx/contract.ts";
import { readModelInfo } from "../../agents/onnx/model-info.ts";
import { writeMlp } from "../../agents/onnx/write-mlp.ts";
import type { GameAdapter } from "../../env/codec.ts";
import { sevensAdapter } from "../../env/games/sevens.ts";
import { specOf } from "../../env/spec.ts";
import { goldenDifferences, goldenFile, unversionedChanges, type GoldenFile } from "../../scripts/golden-format.ts";

const committed = JSON.parse(readFileSync(new URL("../golden/sevens.json", import.meta.url), "utf8")) as GoldenFile;
const last = sevensAdapter.observation.size - 1;

/** The sevens adapter whose encoder writes seats/7 instead of seats/6 into its last float. */
function mutant(version: string): GameAdapter {
  const base = sevensAdapter.observation;
  return {
    ...sevensAdapter,
    observation: {
      ...base,
      version,
      encode(view, out) {
        base.encode(view, out);
        out[last] = (out[last] ?? 0) * (6 / 7);
      },
    },
  };
}

describe("goldens pin the observation encoder, not only the rules", () => {
  it("the committed sevens goldens pass with the real encoder", () => {
    expect(goldenDifferences(committed, sevensAdapter)).toEqual([]);
  });

  it("one changed float under the same version fails every playthrough at its first step", () => {
    const problems = goldenDifferences(committed, mutant(sevensAdapter.observation.version));
    expect(problems.length).toBe(committed.playthroughs.length);
    for (const p of problems) expect(p).toMatch(/step 0: the observation of seat 0, 1, 2.* differs \(an encoder change\)/);
  });

  it("regenerating under the same version is refused; a bumped version regenerates", () => {
    const same = mutant(sevensAdapter.observation.version);
    expect(unversionedChanges(committed, goldenFile(same))[0]).toMatch(/same state gives other observations, but the encoder is still "sevens-obs-v1"/);
    const bumped = mutant("sevens-obs-v2");
    expect(unversionedChanges(committed, goldenFile(bumped))).toEqual([]);
    // ... and the old goldens then fail on the version before any hash is compared.
    expect(goldenDifferences(committed, bumped)[0]).toMatch(/recorded for observation encoder "sevens-obs-v1", the game has "sevens-obs-v2"/);
  });

  it("after the bump, a model exported for the old encoder is refused at load", () => {
    const old = specOf(sevensAdapter);
    const model = writeMlp({
      obsSize: old.observation.size,
      hidden: 4,
      actionSize: old.action.size,
      metadata: { game: "sevens", obs_version: old.observation.version, action_spec_hash: old.actionSpecHash },
      seed: 1,
    });
    const info = readModelInfo(model);
    const now = specOf(mutant("sevens-obs-v2"));
    const want = {
      game: "sevens",
      obsVersion: now.observation.version,
      obsSize: now.observation.size,
      actionSize: now.action.size,
      actionSpecHash: now.actionSpecHash,
    };
    const problems = contractViolations(info, want);
    expect(problems.join("\n")).toMatch(/wrong observation encoder version: the model says obs_version="sevens-obs-v1", expected "sevens-obs-v2"/);
    expect(problems.join("\n")).toMatch(/wrong action-spec hash/);
    expect(contractViolations(info, { ...want, obsVersion: old.observation.version, actionSpecHash: old.actionSpecHash })).toEqual([]);
  });
});
