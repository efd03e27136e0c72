import { Rng, type Seat, type Viewer } from "../core/index.ts";
import { CARD_COPIES, CARD_TYPES } from "./cards.ts";
import { decisionKind, type DecisionKind } from "./legal.ts";
import type { ShephyMode, ShephyPending, ShephyResult, ShephyState } from "./state.ts";

/**
 * What the player (and a spectator, who watches over the solitaire player's shoulder) sees:
 * everything but the deck order. The deck's contents are revealed only while Inspiration asks for
 * a deck card (sorted, the order is reshuffled afterwards anyway).
 */
export interface ShephyView {
  readonly viewer: Viewer;
  readonly mode: ShephyMode;
  readonly actor: 0 | "terminal";
  readonly decision: DecisionKind;
  readonly field: readonly number[];
  readonly stock: readonly number[];
  readonly hand: readonly number[];
  readonly deckSize: number;
  /** The deck's cards during Inspiration's choice, else null. */
  readonly deck: readonly number[] | null;
  readonly discard: readonly number[];
  readonly exile: readonly number[];
  readonly enemy: number;
  readonly pending: ShephyPending | null;
  readonly result: ShephyResult | null;
}

export function viewOf(s: ShephyState, viewer: Viewer): ShephyView {
  const kind = decisionKind(s);
  return {
    viewer,
    mode: s.config.mode,
    actor: s.result === null ? 0 : "terminal",
    decision: kind,
    field: s.field.slice(),
    stock: s.stock.slice(),
    hand: s.hand.slice(),
    deckSize: s.deck.length,
    deck: kind === "chooseDeck" ? s.deck.slice() : null,
    discard: s.discard.slice(),
    exile: s.exile.slice(),
    enemy: s.enemy,
    pending: s.pending === null ? null : { ...s.pending, selected: s.pending.selected.slice() },
    result: s.result,
  };
}

/** The deck's contents as counts per type: all 22 cards minus those in view. Public knowledge. */
export function unseenCounts(v: Pick<ShephyView, "hand" | "discard" | "exile">): number[] {
  const counts = CARD_COPIES.slice();
  for (const c of [...v.hand, ...v.discard, ...v.exile]) {
    const left = counts[c];
    if (left === undefined) throw new Error(`shephy view: ${c} is not a card type (0..${CARD_TYPES - 1})`);
    counts[c] = left - 1;
  }
  return counts;
}

/** A full state consistent with the view: the hidden deck order is re-dealt with `rng`. */
export function determinize(v: ShephyView, _seat: Seat, rng: Rng): ShephyState {
  let deck: number[];
  if (v.deck !== null) {
    deck = v.deck.slice();
  } else {
    const counts = unseenCounts(v);
    deck = [];
    counts.forEach((count, t) => {
      for (let c = 0; c < count; c++) deck.push(t);
    });
    rng.shuffle(deck);
  }
  return {
    config: { seats: 1, mode: v.mode },
    rng: Rng.seeded(rng.nextU32()).save(),
    field: v.field.slice(),
    stock: v.stock.slice(),
    deck,
    hand: v.hand.slice(),
    discard: v.discard.slice(),
    exile: v.exile.slice(),
    enemy: v.enemy,
    pending: v.pending === null ? null : { ...v.pending, selected: v.pending.selected.slice() },
    result: v.result,
  };
}
