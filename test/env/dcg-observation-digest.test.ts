import { createHash } from "node:crypto";
import { describe, expect, it } from "vitest";
import { createAgent } from "../../agents/spec.ts";
import { adapters } from "../../env/games/index.ts";
import { LearningFacilitator, type EnvBatch } from "../../env/learning-facilitator.ts";
import { Rng } from "../../engine/core/index.ts";

/**
 * dcg's observations, masks and rewards, byte for byte, over seeded learning sessions (one env and
 * several, a learner against random, two learners, the learner second), every seat's observation
 * of every env at each step too. The digest pins them: a change made for speed (the encoder, the
 * reply writer, the engine's memos) must leave every byte a trainer reads as it was. A change that
 * means to change them (a new observation version) updates the digest and says why.
 */
const DIGEST = "a2a864cebf7887f12b72cb58bf0c3ba9ef508e0fd196eb85aebc4ba79514036c";

function bytes(a: ArrayBufferView): Uint8Array {
  return new Uint8Array(a.buffer, a.byteOffset, a.byteLength);
}

function sessionDigest(): string {
  const adapter = adapters.get("dcg");
  if (!adapter) throw new Error("no dcg adapter");
  const h = createHash("sha256");
  const sessions: [number, string[]][] = [
    [1, ["learner", "random"]],
    [5, ["learner", "random"]],
    [2, ["learner", "learner"]],
    [2, ["random", "learner"]],
  ];
  for (const [numEnvs, seats] of sessions) {
    const f = LearningFacilitator.create({ adapter, seats, numEnvs, seed: 7, maxDecisions: null, createAgent, modelRoot: "" });
    let b = f.resetNow(7) as EnvBatch;
    const rng = Rng.seeded(99);
    const actions = new Int32Array(numEnvs);
    const A = adapter.actions.size;
    for (let t = 0; t < 250; t++) {
      for (const a of [b.obs, b.mask, b.reward, b.returns, b.terminated, b.truncated, b.seat, b.episode, b.episodeStep]) h.update(bytes(a));
      for (let i = 0; i < numEnvs; i++) for (let s = 0; s < seats.length; s++) h.update(bytes(f.observation(i, s)));
      for (let i = 0; i < numEnvs; i++) {
        const ids: number[] = [];
        for (let a = 0; a < A; a++) if (b.mask[i * A + a]) ids.push(a);
        actions[i] = ids.length === 0 ? 0 : ids[rng.int(ids.length)]!;
      }
      b = f.stepNow(actions) as EnvBatch;
    }
    h.update(JSON.stringify(f.hashes()));
  }
  return h.digest("hex");
}

describe("dcg observations in learning sessions", () => {
  it("are byte for byte what they were (observations, masks, rewards, flags, state hashes)", () => {
    expect(sessionDigest()).toBe(DIGEST);
  });
});
