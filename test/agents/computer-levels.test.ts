import { describe, expect, it } from "vitest";
import { deriveSeed, Rng, unwrap, type AnyGame } from "../../engine/core/index.ts";
import { registry } from "../../engine/games.ts";
import { agentCost } from "../../agents/cost.ts";
import { computerLevels, COMPUTER_LEVELS, type ComputerLevel } from "../../agents/levels.ts";
import { createAgent } from "../../agents/spec.ts";
import type { DecisionRequest } from "../../agents/facilitatee.ts";

const sevens = unwrap(registry.get("sevens")) as AnyGame;
const ctx = { seed: 1, seat: 0, game: "sevens" };

/** Sevens positions with a real choice, reached by random play. */
function positions(count: number): DecisionRequest[] {
  const out: DecisionRequest[] = [];
  const config = unwrap(sevens.parseConfig({}));
  for (let g = 0; out.length < count; g++) {
    const rng = Rng.seeded(deriveSeed(3, `levels:${g}`));
    let state = sevens.setup(config, deriveSeed(4, `levels:${g}`));
    for (let step = 0; sevens.actor(state) !== "terminal"; step++) {
      const seat = sevens.actor(state) as number;
      const legal = sevens.legal(state);
      if (legal.length >= 3 && step % 7 === 0 && out.length < count) out.push({ game: sevens, seat, view: sevens.view(state, seat), legal, step });
      state = sevens.applyTrusted(state, legal[rng.int(legal.length)]);
    }
  }
  return out;
}

describe("computer difficulty levels", () => {
  it("reads level=1..5, refuses others, and lets explicit parameters override the level's", () => {
    for (const level of [1, 2, 3, 4, 5]) expect(createAgent(`computer:level=${level}`, ctx).ok).toBe(true);
    const bad = createAgent("computer:level=6", ctx);
    expect(!bad.ok && bad.error.message).toMatch(/agent "computer": level must be an integer between 1 and 5, got "6"/);
    expect(agentCost("computer:level=3")).toEqual(agentCost("computer"));
    expect(unwrap(agentCost("computer:level=5"))).toBeGreaterThan(unwrap(agentCost("computer")));
    expect(unwrap(agentCost("computer:level=1"))).toBeLessThan(unwrap(agentCost("computer")));
    expect(agentCost("computer:level=5,dets=4,rollouts=1")).toEqual(agentCost("computer"));
  });

  it("refuses levels outside 1..5 and non-integers, for every game", () => {
    for (const game of ["sevens", "shephy", "dcg"]) {
      for (const level of ["0", "6", "-1", "2.5", "abc", ""]) {
        const made = createAgent(`computer:level=${level}`, { seed: 1, seat: 0, game });
        expect(!made.ok && made.error.message).toMatch(/agent "computer": level must be an integer between 1 and 5/);
      }
    }
  });

  it("games with their own table (sevens, shephy) grow monotonically with the level; others use the generic table", () => {
    expect(computerLevels("dcg")).toBe(COMPUTER_LEVELS);
    expect(computerLevels(undefined)).toBe(COMPUTER_LEVELS);
    for (const game of ["sevens", "shephy", "dcg"]) {
      const table = computerLevels(game);
      for (const level of [2, 3, 4, 5] as ComputerLevel[]) {
        const [lo, hi] = [table[(level - 1) as ComputerLevel], table[level]];
        expect(hi.dets * hi.rollouts * hi.beam).toBeGreaterThan(lo.dets * lo.rollouts * lo.beam);
        expect(hi.blunder).toBeLessThanOrEqual(lo.blunder);
      }
    }
    // Sevens' default runs the planner with 32 samples of 2 playouts; shephy's samples 8 deck orders with a beam of 12.
    expect(computerLevels("sevens")[3]).toMatchObject({ dets: 32, rollouts: 2, blunder: 0 });
    expect(computerLevels("shephy")[3]).toMatchObject({ dets: 8, beam: 12, blunder: 0 });
  });

  it("prices a computer seat by its game's level table when the game is named", () => {
    expect(unwrap(agentCost("computer", "sevens"))).toBe(32 * 2 * 16);
    expect(unwrap(agentCost("computer", "dcg"))).toBe(unwrap(agentCost("computer")));
    expect(unwrap(agentCost("computer:level=5", "sevens"))).toBeGreaterThan(unwrap(agentCost("computer", "sevens")));
    expect(unwrap(agentCost("computer:dets=4,rollouts=1", "sevens"))).toBe(unwrap(agentCost("computer")));
  });

  it("level 1 often plays a decision the default computer would not; level 3 is the default computer", () => {
    const requests = positions(40);
    const decide = (spec: string) => {
      const agent = unwrap(createAgent(spec, ctx));
      return requests.map((r) => agent.decide(r) as number);
    };
    const base = decide("computer");
    expect(decide("computer:level=3")).toEqual(base);
    const weak = decide("computer:level=1");
    const differs = weak.filter((d, i) => d !== base[i]).length;
    expect(differs).toBeGreaterThan(8);
  });
});
