import { describe, expect, it } from "vitest";
import { deriveSeed, Rng, unwrap, type AnyGame } from "../../engine/core/index.ts";
import { registry } from "../../engine/games.ts";
import { agentCost } from "../../agents/cost.ts";
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
