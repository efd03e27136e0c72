import { describe, expect, it } from "vitest";
import { Rng, stateHash, type AnyGame } from "../../engine/core/index.ts";
import { dcg } from "../../engine/dcg/index.ts";
import { randomPlayout } from "../../agents/evaluators/index.ts";
import { configOf } from "../dcg/pools.ts";

/**
 * randomPlayout picks through Game.sampleLegal where the game has it. The search agents' results
 * must not depend on that: from the same state and stream it must reach the state a pick from
 * legal() reaches, and leave the stream where that leaves it (the rng is drawn only when there is
 * a choice), on both of its paths (applyTrusted for short playouts, applyInPlace on an owned copy
 * for long ones).
 */
let sampled = 0;
const withSample: AnyGame = {
  ...(dcg as unknown as AnyGame),
  sampleLegal: (s: unknown, pick: (n: number) => number) => {
    sampled++;
    return dcg.sampleLegal(s as never, pick);
  },
};
// The same game without sampleLegal: randomPlayout falls back to picking from legal().
const listOnly: AnyGame = { ...(dcg as unknown as AnyGame), sampleLegal: undefined };

const cfg = configOf(dcg, {});

/** dcg states `steps` random decisions into the games of a few seeds. */
function positions(steps: readonly number[]): unknown[] {
  const out: unknown[] = [];
  for (let seed = 1; seed <= 4; seed++) {
    const rng = Rng.seeded(seed);
    let s = dcg.setup(cfg, seed);
    for (let i = 0; i <= Math.max(...steps) && dcg.actor(s) !== "terminal"; i++) {
      if (steps.includes(i)) out.push(s);
      const legal = dcg.legal(s);
      s = dcg.applyTrusted(s, legal[rng.int(legal.length)]!);
    }
  }
  return out;
}

describe("randomPlayout through sampleLegal", () => {
  it("reaches the state a pick from legal() reaches and leaves the stream in the same place, short and long playouts", () => {
    const bound = dcg.maxDecisions(cfg);
    let compared = 0;
    for (const [p, start] of positions([0, 12, 40, 90]).entries()) {
      for (const depth of [1, 4, 15, 16, 60, 0]) {
        const before = JSON.stringify(start);
        const a = Rng.seeded(1000 + p);
        const b = Rng.seeded(1000 + p);
        const viaSample = randomPlayout(withSample, start, a, depth, bound);
        const viaList = randomPlayout(listOnly, start, b, depth, bound);
        expect(stateHash(viaSample)).toBe(stateHash(viaList));
        expect(a.nextU32()).toBe(b.nextU32());
        expect(JSON.stringify(start)).toBe(before);
        compared++;
      }
    }
    expect(compared).toBe(96);
    // ... and it did pick through sampleLegal.
    expect(sampled).toBeGreaterThan(1000);
  });
});
