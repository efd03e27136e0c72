import { describe, expect, it } from "vitest";
import { decisionKey } from "../../engine/core/index.ts";
import { Card, shephy, type ShephyState } from "../../engine/shephy/index.ts";
import { ComputerAgent } from "../../agents/computer.ts";
import { fastDecisionKey } from "../../agents/decision-key.ts";
import { shephyEvaluator, shephyValue } from "../../agents/evaluators/shephy.ts";

/** A basic-mode state built by hand: the deck holds every card not placed elsewhere. */
function state(parts: { field: number[]; hand: number[]; discard?: number[]; exile?: number[]; deck?: number[] }): ShephyState {
  const base = shephy.setup({ seats: 1, mode: "basic" }, 1);
  const stock = [7, 7, 7, 7, 7, 7, 7];
  for (const r of parts.field) stock[r]!--;
  return {
    ...base,
    field: parts.field,
    stock,
    hand: parts.hand,
    discard: parts.discard ?? [],
    exile: parts.exile ?? [],
    deck: parts.deck ?? [],
    pending: null,
    result: null,
  };
}

function choose(s: ShephyState, seed = 1) {
  const legal = shephy.legal(s);
  const agent = new ComputerAgent(seed);
  const i = agent.decide({ game: shephy, seat: 0, view: shephy.view(s, 0), legal, step: 0 });
  return { decision: legal[i]!, after: shephy.applyTrusted(s, legal[i]!) };
}

describe("shephy evaluator and the computer agent", () => {
  it("exiles Shephion with Planning Sheep rather than spending it on another card", () => {
    let s = state({ field: [0, 1, 1], hand: [Card.Multiply, Card.PlanningSheep, Card.Shephion, Card.Storm], deck: [Card.BeFruitful, Card.Lightning] });
    const first = choose(s);
    expect(first.decision).toEqual({ kind: "play", index: s.hand.indexOf(Card.PlanningSheep) });
    s = first.after;
    const second = choose(s);
    expect(second.decision).toEqual({ kind: "chooseHand", index: s.hand.indexOf(Card.Shephion) });
    expect(second.after.exile).toContain(Card.Shephion);
  });

  it("keeps its only counter while Shephion is still to come this round", () => {
    // Shephion is in the deck; Sheep Dog is the last counter of the round. Playing Multiply keeps it.
    const s = state({ field: [0, 1], hand: [Card.Multiply, Card.SheepDog], deck: [Card.Shephion, Card.BeFruitful, Card.FallingRock] });
    expect(choose(s).decision).toEqual({ kind: "play", index: s.hand.indexOf(Card.Multiply) });
  });

  it("finishes a pending effect with its best completion: Dominion on a flock worth 1000 wins", () => {
    // [300, 300, 300, 100] sums to 1000: Dominion must select all four.
    let s = state({ field: [4, 5, 5, 5], hand: [Card.Dominion, Card.Storm], deck: [Card.BeFruitful] });
    for (let i = 0; i < 8 && shephy.actor(s) !== "terminal"; i++) s = choose(s).after;
    expect(s.result).toBe("win");
  });

  it("scores wins, losses and flocks in order, and never plays Shephion when anything else is legal", () => {
    const grown = state({ field: [2, 3, 3], hand: [Card.Multiply], deck: [] });
    const small = state({ field: [0], hand: [Card.Multiply], deck: [] });
    expect(shephyValue(grown)).toBeGreaterThan(shephyValue(small));
    expect(shephyValue({ ...grown, result: "win" })).toBeGreaterThan(shephyValue(grown));
    expect(shephyValue({ ...grown, result: "loss" })).toBeLessThan(shephyValue(small));
    const s = state({ field: [0, 1, 2], hand: [Card.Shephion, Card.Storm], deck: [Card.Multiply] });
    expect(choose(s).decision).toEqual({ kind: "play", index: s.hand.indexOf(Card.Storm) });
    const e = shephyEvaluator({ rollouts: 1, depth: 0 });
    const v = e.value!(shephy, grown, 0);
    expect(v).toBeGreaterThan(-1);
    expect(v).toBeLessThan(1);
  });
});

describe("fastDecisionKey", () => {
  it("is exactly decisionKey (canonical JSON) for flat, nested and odd decisions", () => {
    const cases: unknown[] = [
      { kind: "play", index: 3 },
      { index: 3, kind: "play" },
      { kind: "summon", card: 12, cell: -0, charge: false },
      { kind: "x", label: 'a "quoted" name', n: null },
      { kind: "weird key", 'a"b': 1, undef: undefined },
      { kind: "nested", at: [1, 2, { b: 1, a: 2 }] },
      { kind: "pass" },
      [1, 2],
      "text",
      7,
    ];
    for (const d of cases) expect(fastDecisionKey(d)).toBe(decisionKey(d));
  });
});
