import { describe, expect, it } from "vitest";
import { createAgent } from "../../agents/spec.ts";
import { Rng } from "../../engine/core/index.ts";
import { adapters } from "../../env/games/index.ts";
import { LearningFacilitator, type EnvBatch } from "../../env/learning-facilitator.ts";

/**
 * reuseReplies (what the server's session host and the in-process runtime ask for): every reply is
 * written into one buffer, cleared first, so a reply must read exactly as the fresh one a
 * non-reusing session gives, whatever the previous reply held (ended episodes, rewards, agent rows).
 */
const FIELDS = ["obs", "mask", "reward", "returns", "terminated", "truncated", "seat", "episode", "episodeStep", "learnerSeat"] as const;

function copyOf(b: EnvBatch): Record<string, number[]> {
  return Object.fromEntries(FIELDS.map((k) => [k, Array.from(b[k])]));
}

function session(game: string, seats: string[], numEnvs: number, reuseReplies: boolean): LearningFacilitator {
  const adapter = adapters.get(game);
  if (!adapter) throw new Error(`no ${game} adapter`);
  return LearningFacilitator.create({ adapter, seats, numEnvs, seed: 3, maxDecisions: null, createAgent, modelRoot: "", reuseReplies });
}

describe("reuseReplies", () => {
  for (const [game, seats] of [
    ["dcg", ["learner", "random"]],
    ["sevens", ["external", "random", "external", "random"]],
  ] as const) {
    it(`${game}: replies share one buffer and read as a fresh session's, step after step`, () => {
      const fresh = session(game, [...seats], 4, false);
      const reused = session(game, [...seats], 4, true);
      let a = fresh.resetNow(3) as EnvBatch;
      let b = reused.resetNow(3) as EnvBatch;
      const buffer = b.obs.buffer;
      const rng = Rng.seeded(8);
      const size = a.mask.length / 4;
      let ended = 0;
      for (let t = 0; t < 300; t++) {
        expect(copyOf(b), `step ${t}`).toEqual(copyOf(a));
        expect(b.obs.buffer).toBe(buffer);
        ended += a.terminated.reduce((x, y) => x + y, 0);
        const actions = Array.from({ length: 4 }, (_, i) => {
          const ids: number[] = [];
          for (let k = 0; k < size; k++) if (a.mask[i * size + k]) ids.push(k);
          return ids.length === 0 ? 0 : ids[rng.int(ids.length)]!;
        });
        const next = fresh.stepNow(actions) as EnvBatch;
        expect(next.obs.buffer).not.toBe(a.obs.buffer);
        a = next;
        b = reused.stepNow(actions) as EnvBatch;
      }
      expect(ended).toBeGreaterThan(0);
    });
  }
});
