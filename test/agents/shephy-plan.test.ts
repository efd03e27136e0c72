import { describe, expect, it } from "vitest";
import { deriveSeed, Rng } from "../../engine/core/index.ts";
import { Card, CARD_COPIES, CARD_TYPES, shephy, type ShephyDecision, type ShephyState } from "../../engine/shephy/index.ts";
import { ComputerAgent } from "../../agents/computer.ts";
import { runMatch } from "../../agents/match.ts";
import { createAgent } from "../../agents/spec.ts";
import type { Facilitatee } from "../../agents/facilitatee.ts";

const BASIC = { seats: 1, mode: "basic" } as const;

/**
 * A consistent basic-mode position built by hand: every event card not in the hand, discard or
 * exile is in the deck, shuffled by `deckSeed` (the hidden order the agent must not depend on).
 */
function position(parts: { field: number[]; hand: number[]; discard?: number[]; exile?: number[]; enemy?: number; deckSeed?: number }): ShephyState {
  const stock = [7, 7, 7, 7, 7, 7, 7];
  for (const r of parts.field) stock[r]!--;
  const left = CARD_COPIES.slice();
  for (const c of [...parts.hand, ...(parts.discard ?? []), ...(parts.exile ?? [])]) left[c]!--;
  const deck: number[] = [];
  for (let t = 0; t < CARD_TYPES; t++) for (let k = 0; k < left[t]!; k++) deck.push(t);
  expect(left.every((n) => n >= 0)).toBe(true);
  Rng.seeded(parts.deckSeed ?? 1).shuffle(deck);
  return {
    config: BASIC,
    rng: Rng.seeded(99).save(),
    field: parts.field,
    stock,
    deck,
    hand: parts.hand.slice().sort((a, b) => a - b),
    discard: parts.discard ?? [],
    exile: parts.exile ?? [],
    enemy: parts.enemy ?? 1,
    pending: null,
    result: null,
  };
}

function decideOn(agent: ComputerAgent, s: ShephyState, step = 0): ShephyDecision {
  const legal = shephy.legal(s);
  return legal[agent.decide({ game: shephy, seat: 0, view: shephy.view(s, 0), legal, step })]!;
}

/** Plays the real game with the agent until `stop` holds or the game ends; checked apply only. */
function playUntil(agent: ComputerAgent, s: ShephyState, stop: (s: ShephyState) => boolean, max = 200): { state: ShephyState; decisions: ShephyDecision[] } {
  const decisions: ShephyDecision[] = [];
  for (let i = 0; i < max && s.result === null && !stop(s); i++) {
    const d = decideOn(agent, s, i);
    const out = shephy.apply(s, d);
    if (!out.ok) throw new Error(out.error.message);
    decisions.push(d);
    s = out.state;
  }
  return { state: s, decisions };
}

describe("shephy planner (the computer agent's default for shephy)", () => {
  it("takes the winning line: Dominion on a flock summing to 1000", () => {
    // [100, 300, 300, 300]: only Dominion on all four makes a [1000]; the rest of the hand is disasters.
    const s = position({ field: [4, 5, 5, 5], hand: [Card.Storm, Card.Dominion, Card.Lightning, Card.Wolves, Card.Meteor] });
    const { state, decisions } = playUntil(new ComputerAgent(1), s, () => false, 8);
    expect(decisions[0]).toEqual({ kind: "play", index: s.hand.indexOf(Card.Dominion) });
    expect(state.result).toBe("win");
  });

  it("wins through All-purpose Sheep standing in for a Dominion held with it", () => {
    const s = position({ field: [4, 5, 5, 5], hand: [Card.AllPurposeSheep, Card.Dominion, Card.Storm, Card.Lightning, Card.Plague] });
    const { state } = playUntil(new ComputerAgent(2), s, () => false, 10);
    expect(state.result).toBe("win");
  });

  it("exiles Shephion with Planning Sheep instead of playing it", () => {
    // Last two cards of the round: playing Shephion first empties the field and loses.
    const discard: number[] = [];
    const left = CARD_COPIES.slice();
    left[Card.PlanningSheep]!--;
    left[Card.Shephion]!--;
    for (let t = 0; t < CARD_TYPES; t++) for (let k = 0; k < left[t]!; k++) discard.push(t);
    const s = position({ field: [0, 1, 2], hand: [Card.PlanningSheep, Card.Shephion], discard });
    expect(s.deck).toEqual([]);
    const { state, decisions } = playUntil(new ComputerAgent(3), s, (x) => !x.hand.includes(Card.Shephion));
    expect(decisions).toEqual([
      { kind: "play", index: 0 },
      { kind: "chooseHand", index: 0 },
    ]);
    expect(state.exile).toEqual([Card.Shephion]);
    expect(state.result).toBeNull();
    expect(state.enemy).toBe(10);
  });

  it("counters Shephion held in a full hand early in a round", () => {
    for (const seed of [1, 2]) {
      const s = position({ field: [0, 1, 1], hand: [Card.Multiply, Card.PlanningSheep, Card.Shephion, Card.Storm, Card.FillTheEarth], deckSeed: seed });
      const { state } = playUntil(new ComputerAgent(seed), s, (x) => !x.hand.includes(Card.Shephion));
      expect(state.result).not.toBe("loss");
      expect(state.field.length).toBeGreaterThan(0);
      expect([...state.exile, ...state.discard]).toContain(Card.Shephion);
    }
  });

  it("never peeks: a different hidden deck order behind the same view gives the same decisions", () => {
    // Positions along a real game; each is re-dealt with another deck order and RNG.
    let s = shephy.setup(BASIC, 4242);
    const driver = new ComputerAgent(7, { dets: 2, beam: 4 });
    for (let step = 0; step < 25 && s.result === null; step++) {
      // During Inspiration's choice the (sorted) deck is part of the view; only the RNG differs then.
      const revealed = shephy.view(s, 0).deck !== null;
      const deck = revealed ? s.deck : Rng.seeded(step + 1).shuffle(s.deck.slice());
      const other: ShephyState = { ...s, deck, rng: Rng.seeded(step + 500).save() };
      expect(shephy.view(other, 0)).toEqual(shephy.view(s, 0));
      const a = decideOn(new ComputerAgent(11, { dets: 2, beam: 4 }), s, step);
      const b = decideOn(new ComputerAgent(11, { dets: 2, beam: 4 }), other, step);
      expect(b).toEqual(a);
      s = shephy.applyTrusted(s, decideOn(driver, s, step));
    }
  });

  it("is deterministic for a seed and only makes legal decisions over full games", async () => {
    const play = async (deal: number, agent: Facilitatee) =>
      // runMatch applies with the checked apply: an illegal decision throws.
      runMatch({ game: shephy, config: BASIC, seed: deriveSeed(31, `deal:${deal}`), agents: [agent] });
    const made = () => {
      const m = createAgent("computer:dets=1,beam=4", { seed: 5, seat: 0, game: "shephy" });
      if (!m.ok) throw new Error(m.error.message);
      return m.value;
    };
    const bad = createAgent("computer:beam=0", { seed: 5, seat: 0, game: "shephy" });
    expect(bad.ok ? "" : bad.error.message).toMatch(/beam must be an integer between 1 and 10000/);
    const first = await play(0, made());
    const again = await play(0, made());
    expect(again.finalHash).toBe(first.finalHash);
    expect(again.record.decisions).toEqual(first.record.decisions);
    for (let deal = 1; deal < 5; deal++) {
      const r = await play(deal, new ComputerAgent(deal, { dets: 1, beam: 2 }));
      expect((r.finalState as ShephyState).result).not.toBeNull();
    }
  });
});
