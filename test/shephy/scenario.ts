import { expect } from "vitest";
import { CARD_COPIES, CARD_TYPES, RANKS, shephy } from "../../engine/shephy/index.ts";
import type { ShephyDecision, ShephyMode, ShephyPending, ShephyState } from "../../engine/shephy/index.ts";
import { Rng } from "../../engine/core/index.ts";

/** A rule-test scenario, written in printed values: field [1, 3, 100], hand [Card.Storm]. */
export interface ScenarioOptions {
  /** Sheep values on the field (1, 3, 10, ... 1000). Default [1]. */
  field?: number[];
  /** Stock counts per value; default 7 minus what is on the field. */
  stock?: Partial<Record<number, number>>;
  hand?: number[];
  /** Deck, top card LAST. Default: every card not in hand, discard or exile, in type order. */
  deck?: number[];
  discard?: number[];
  exile?: number[];
  enemy?: number;
  mode?: ShephyMode;
  pending?: ShephyPending | null;
  seed?: number;
}

export function rankIndex(value: number): number {
  const k = (RANKS as readonly number[]).indexOf(value);
  if (k < 0) throw new Error(`no sheep rank ${value}`);
  return k;
}

export function scenario(o: ScenarioOptions = {}): ShephyState {
  const field = (o.field ?? [1]).map(rankIndex).sort((a, b) => a - b);
  const stock = RANKS.map((v, k) => o.stock?.[v] ?? 7 - field.filter((r) => r === k).length);
  const hand = (o.hand ?? []).slice().sort((a, b) => a - b);
  const discard = o.discard ?? [];
  const exile = o.exile ?? [];
  let deck = o.deck;
  if (deck === undefined) {
    const left = CARD_COPIES.slice();
    for (const c of [...hand, ...discard, ...exile]) left[c]!--;
    deck = [];
    for (let t = 0; t < CARD_TYPES; t++) for (let i = 0; i < left[t]!; i++) deck.push(t);
  }
  return {
    config: { seats: 1, mode: o.mode ?? "basic" },
    rng: Rng.seeded(o.seed ?? 1).save(),
    field,
    stock,
    deck: deck.slice(),
    hand,
    discard: discard.slice(),
    exile: exile.slice(),
    enemy: o.enemy ?? 1,
    pending: o.pending ?? null,
    result: null,
  };
}

/** Checked apply; fails the test when the decision is refused. */
export function act(s: ShephyState, d: ShephyDecision): ShephyState {
  const out = shephy.apply(s, d);
  if (!out.ok) throw new Error(`refused ${JSON.stringify(d)}: ${out.error.message}\n${shephy.render(s)}`);
  return out.state;
}

function find(s: ShephyState, pred: (d: ShephyDecision) => boolean, what: string): ShephyDecision {
  const d = shephy.legal(s).find(pred);
  if (d === undefined) throw new Error(`no legal decision to ${what}; legal: ${JSON.stringify(shephy.legal(s))}\n${shephy.render(s)}`);
  return d;
}

export function play(s: ShephyState, card: number): ShephyState {
  return act(
    s,
    find(s, (d) => d.kind === "play" && s.hand[d.index] === card, `play card ${card}`),
  );
}

/** ChooseFieldCard on a sheep of this value. */
export function chooseSheep(s: ShephyState, value: number): ShephyState {
  const k = rankIndex(value);
  return act(
    s,
    find(s, (d) => d.kind === "chooseField" && s.field[d.index] === k, `choose sheep ${value}`),
  );
}

/** ToggleSelect the next unselected sheep of this value. */
export function selectSheep(s: ShephyState, value: number): ShephyState {
  const k = rankIndex(value);
  return act(
    s,
    find(s, (d) => d.kind === "select" && s.field[d.index] === k, `select sheep ${value}`),
  );
}

export function chooseHand(s: ShephyState, card: number): ShephyState {
  return act(
    s,
    find(s, (d) => d.kind === "chooseHand" && s.hand[d.index] === card, `choose hand card ${card}`),
  );
}

export function chooseDeck(s: ShephyState, card: number): ShephyState {
  return act(
    s,
    find(s, (d) => d.kind === "chooseDeck" && s.deck[d.index] === card, `choose deck card ${card}`),
  );
}

export const confirm = (s: ShephyState) => act(s, { kind: "confirm" });
export const gainOne = (s: ShephyState) => act(s, { kind: "gainOne" });
export const stop = (s: ShephyState) => act(s, { kind: "stop" });

/** The field in printed values, ascending. */
export const values = (s: ShephyState): number[] => s.field.map((k) => RANKS[k]!);

export function stockOf(s: ShephyState, value: number): number {
  return s.stock[rankIndex(value)]!;
}

/** Back to choosing a card to play, effect fully resolved. */
export function expectResolved(s: ShephyState): void {
  expect(s.pending).toBeNull();
  expect(s.result).toBeNull();
  expect(shephy.legal(s).every((d) => d.kind === "play")).toBe(true);
}

export const kinds = (s: ShephyState): string[] => shephy.legal(s).map((d) => d.kind);

/** Play a random game from a state with a seeded policy; returns the decisions taken and the final state. */
export function randomGame(s: ShephyState, seed: number, onStep?: (before: ShephyState, d: ShephyDecision, after: ShephyState) => void) {
  const rng = Rng.seeded(seed);
  let n = 0;
  const limit = shephy.maxDecisions(s.config);
  while (shephy.actor(s) !== "terminal") {
    if (n > limit) throw new Error("game exceeded maxDecisions");
    const legal = shephy.legal(s);
    const d = legal[rng.int(legal.length)]!;
    const next = shephy.applyTrusted(s, d);
    onStep?.(s, d, next);
    s = next;
    n++;
  }
  return { state: s, decisions: n };
}
