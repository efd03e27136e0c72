import { describe, expect, it } from "vitest";
import { deriveSeed, Rng, unwrap } from "../../engine/core/index.ts";
import { sevens, type SevensDecision, type SevensState } from "../../engine/sevens/index.ts";
import { expectedReturn } from "../../agents/arena/sevens-ceiling.ts";
import { mostVisited, searchRoot } from "../../agents/evaluators/sevens-search.ts";
import { playoutScore } from "../../agents/evaluators/sevens-plan.ts";
import { agentCost } from "../../agents/cost.ts";
import { createAgent } from "../../agents/spec.ts";
import type { DecisionRequest } from "../../agents/facilitatee.ts";

const config = unwrap(sevens.parseConfig({}));

/** States of 5-seat games played at random, in order, where `keep` holds. */
function positions(count: number, keep: (s: SevensState, legal: readonly SevensDecision[]) => boolean, salt: string): SevensState[] {
  const out: SevensState[] = [];
  for (let g = 0; out.length < count && g < 3000; g++) {
    const rng = Rng.seeded(deriveSeed(21, `${salt}:${g}`));
    let s = sevens.setup(config, deriveSeed(22, `${salt}:${g}`));
    while (s.current >= 0) {
      const legal = sevens.legal(s);
      if (keep(s, legal)) {
        out.push(s);
        break;
      }
      s = sevens.applyTrusted(s, legal[rng.int(legal.length)]!);
    }
  }
  return out;
}

/** True when `seat` never again has more than one legal move from `s`, whatever the others play. */
function noLaterChoice(s: SevensState, seat: number): boolean {
  if (s.current < 0) return true;
  const legal = sevens.legal(s);
  if (s.current === seat && legal.length > 1) return false;
  return legal.every((d) => noLaterChoice(sevens.applyTrusted(s, d), seat));
}

const cardsLeft = (s: SevensState): number => s.handSize.reduce((a, b) => a + b, 0);

/**
 * The value for `seat` of a position where it has no choice left, the other seats choosing as
 * `chance` says: "uniform" over their legal moves, or "first" (always the first legal move).
 */
function chanceValue(s: SevensState, seat: number, chance: "uniform" | "first"): number {
  if (s.current < 0) return playoutScore(s, seat);
  const legal = sevens.legal(s);
  if (s.current === seat || chance === "first") return chanceValue(sevens.applyTrusted(s, legal[0]!), seat, chance);
  return legal.reduce((sum, d) => sum + chanceValue(sevens.applyTrusted(s, d), seat, chance), 0) / legal.length;
}

/**
 * Endgames where the seat to move chooses now and never again, so its moves' values are pure
 * expectations over the other seats' choices, and where the chance model matters: for some move,
 * uniform choices of the others give a value far from what always-the-first-move would.
 */
const lastChoices = positions(
  6,
  (s, legal) =>
    legal.length >= 2 &&
    cardsLeft(s) <= 14 &&
    legal.every((d) => noLaterChoice(sevens.applyTrusted(s, d), s.current)) &&
    legal.some(
      (d) => Math.abs(chanceValue(sevens.applyTrusted(s, d), s.current, "uniform") - chanceValue(sevens.applyTrusted(s, d), s.current, "first")) > 0.2,
    ),
  "last-choice",
);

const request = (s: SevensState): DecisionRequest => ({ game: sevens, seat: s.current, view: sevens.view(s, s.current), legal: sevens.legal(s), step: 0 });

const midGame = positions(8, (s, legal) => legal.length >= 3 && cardsLeft(s) >= 25 && cardsLeft(s) <= 35, "mid-game");

describe("sevens deep search (open-loop UCT over the seat's own moves, the other seats as chance)", () => {
  it("models the other seats as uniform chance: a move's mean converges to the exact expectimax over their uniform choices", () => {
    expect(lastChoices.length).toBe(6);
    let separated = 0;
    for (const [i, s] of lastChoices.entries()) {
      const seat = s.current;
      const legal = sevens.legal(s);
      // A large exploration constant spreads the iterations over every move.
      const stats = searchRoot(() => s, seat, legal, { iterations: 12_000, exploration: 100 }, Rng.seeded(deriveSeed(23, `uniform:${i}`)));
      const exact = legal.map((d) => expectedReturn(sevens.applyTrusted(s, d), seat));
      legal.forEach((d, k) => {
        // The reference is right: the ceiling's expectimax is the plain uniform expectation here.
        expect(exact[k]).toBeCloseTo(chanceValue(sevens.applyTrusted(s, d), seat, "uniform"), 12);
        expect(stats.visits[k]).toBeGreaterThan(12_000 / legal.length / 2);
        // Values lie in [-1.1, 1]; with thousands of samples per move the error is about a hundredth.
        expect(Math.abs(stats.means[k]! - exact[k]!)).toBeLessThan(0.04);
      });
      if (Math.max(...exact) - Math.min(...exact) > 0.2) separated++;
    }
    // Positions where the moves' values differ, so a wrong chance model would show.
    expect(separated).toBeGreaterThan(1);
  });

  it("with one world, it plays a move of the highest exact value when no later choice is left", () => {
    for (const [i, s] of lastChoices.entries()) {
      const legal = sevens.legal(s);
      const exact = legal.map((d) => expectedReturn(sevens.applyTrusted(s, d), s.current));
      const pick = mostVisited(searchRoot(() => s, s.current, legal, { iterations: 6000, exploration: 0.7 }, Rng.seeded(deriveSeed(24, `best:${i}`))));
      expect(exact[pick]!).toBeGreaterThan(Math.max(...exact) - 0.05);
    }
  });

  it("is deterministic: the same seed gives the same decisions", () => {
    const decide = (seed: number) =>
      midGame.map((s) => unwrap(createAgent("computer:search=300", { seed, seat: s.current, game: "sevens" })).decide(request(s)));
    const first = decide(5);
    expect(decide(5)).toEqual(first);
    expect(first.every((d, k) => typeof d === "number" && d >= 0 && d < sevens.legal(midGame[k]!).length)).toBe(true);
  });

  it("never peeks: the same view with the other hands dealt differently gets the same decision", () => {
    let compared = 0;
    for (const [i, real] of midGame.entries()) {
      const seat = real.current;
      const other = sevens.determinize(sevens.view(real, seat), seat, Rng.seeded(deriveSeed(25, `redeal:${i}`)));
      if (other.cells.every((v, c) => v === real.cells[c])) continue;
      const decide = (s: SevensState) => unwrap(createAgent("computer:search=200", { seed: 9, seat, game: "sevens" })).decide(request(s));
      expect(decide(other)).toBe(decide(real));
      compared++;
    }
    expect(compared).toBeGreaterThan(5);
  });

  it("search=0 is the one-ply planner; bad values are refused with the parameter's range; its cost counts its iterations", () => {
    const decide = (spec: string) => midGame.map((s) => unwrap(createAgent(spec, { seed: 3, seat: s.current, game: "sevens" })).decide(request(s)));
    expect(decide("computer:search=0")).toEqual(decide("computer"));
    for (const bad of ["-1", "100001", "1.5", "abc", ""]) {
      const made = createAgent(`computer:search=${bad}`, { seed: 1, seat: 0, game: "sevens" });
      expect(made.ok).toBe(false);
      if (!made.ok) expect(made.error.message).toBe(`agent "computer": search must be an integer between 0 and 100000, got ${JSON.stringify(bad)}`);
    }
    expect(unwrap(agentCost("computer:search=5000", "sevens"))).toBe(5000);
    expect(unwrap(agentCost("computer:search=10", "sevens"))).toBe(unwrap(agentCost("computer", "sevens")));
  });
});
