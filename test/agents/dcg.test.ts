import { describe, expect, it } from "vitest";
import { createRegistry, deriveSeed, replay } from "../../engine/core/index.ts";
import { dcg, type BattleData } from "../../engine/dcg/index.ts";
import { runMatch } from "../../agents/match.ts";
import { createAgent } from "../../agents/spec.ts";
import { dcgEvaluator, dcgValue, WIN } from "../../agents/evaluators/dcg.ts";
import { Rng } from "../../engine/core/index.ts";

const config = (() => {
  const parsed = dcg.parseConfig({});
  if (!parsed.ok) throw new Error(parsed.error.message);
  return parsed.value;
})();

async function play(specs: readonly [string, string], seed: number) {
  const agents = specs.map((spec, seat) => {
    const made = createAgent(spec, { seed: deriveSeed(seed, "dcg-agents"), seat, game: "dcg" });
    if (!made.ok) throw new Error(made.error.message);
    return made.value;
  });
  return runMatch({ game: dcg, config, seed, agents });
}

describe("agents in dcg", () => {
  it("the computer (dcg evaluator) beats random in every one of 4 seat-swapped games", async () => {
    for (const seed of [1, 2]) {
      const a = await play(["computer", "random"], seed);
      const b = await play(["random", "computer"], seed);
      expect(a.returns).toEqual([1, -1]);
      expect(b.returns).toEqual([-1, 1]);
    }
  });

  it("sandbag, tutorial and a small mcts play legal whole games that replay without them", async () => {
    for (const specs of [
      ["sandbag", "random"],
      ["tutorial", "sandbag"],
      ["mcts:iters=20", "random"],
    ] as const) {
      const result = await play(specs, 3);
      const again = replay(createRegistry([dcg]), JSON.parse(JSON.stringify(result.record)));
      expect(again.ok && again.value.finalHash, specs.join(" vs ")).toBe(result.finalHash);
    }
  });

  it("the evaluator scores a won battle above anything else and damage to the enemy as a gain", () => {
    const s = dcg.setup(config, 5) as BattleData;
    const hurt = { ...s, players: [s.players[0], { ...s.players[1], hp: s.players[1].hp - 3 }] } as BattleData;
    const won = { ...s, finished: true, winner: 0 } as BattleData;
    expect(dcgValue(won, 0)).toBe(WIN);
    expect(dcgValue(won, 1)).toBe(-WIN);
    const e = dcgEvaluator({ rollouts: 1, depth: 0 });
    expect(e.evaluate({ game: dcg, before: s, after: hurt, seat: 0, rng: Rng.seeded(1) })).toBeGreaterThan(0);
    expect(e.evaluate({ game: dcg, before: s, after: hurt, seat: 1, rng: Rng.seeded(1) })).toBeLessThan(0);
    expect(e.value!(dcg, won, 0)).toBe(1);
  });
});
