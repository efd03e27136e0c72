import { intOption, oneOfOption, type ConfigOf, type RngState } from "../core/index.ts";

/** The config's fields (TypeBox: the ShephyConfig type, configSchema's JSON Schema and the check in config.ts). */
export const SHEPHY_CONFIG_FIELDS = {
  /** Always 1: Shephy is a solitaire. */
  seats: intOption(1, 1, 1),
  /** basic: win on a [1000], +1/-1. challenge: play all three rounds, score = field sum / 7000. */
  mode: oneOfOption(["basic", "challenge"], "basic"),
};

export type ShephyConfig = ConfigOf<typeof SHEPHY_CONFIG_FIELDS>;
export type ShephyMode = ShephyConfig["mode"];

/** A card effect in the middle of its resolution (a multi-step effect asks one small decision at a time). */
export interface ShephyPending {
  /** The effect being resolved (a card type id). */
  readonly card: number;
  /** The physical card that was played: `card` itself, or All-purpose Sheep resolving it. */
  readonly source: number;
  /** Sheep still to release (Crowding, Falling Rock, Meteor, Slump, Storm); 0 otherwise. */
  readonly left: number;
  /** Field indices selected so far (Golden Hooves, Dominion). Selection only grows. */
  readonly selected: readonly number[];
}

/** win/loss end a basic game; "over" ends a challenge game (scored by the field). */
export type ShephyResult = "win" | "loss" | "over";

export interface ShephyState {
  readonly config: ShephyConfig;
  readonly rng: RngState;
  /** Sheep on the field as rank indices (0..6), kept sorted ascending; at most 7. */
  readonly field: readonly number[];
  /** Cards left in the sheep stock, per rank index. */
  readonly stock: readonly number[];
  /** The event deck; the top card is the LAST element. Its order is hidden. */
  readonly deck: readonly number[];
  /** The hand, kept sorted by card type; at most 5. */
  readonly hand: readonly number[];
  /** Played and discarded cards, in the order they arrived. */
  readonly discard: readonly number[];
  /** Cards removed from the game. */
  readonly exile: readonly number[];
  /** The enemy sheep card: 1, then x10 at each deck exhaustion; 1000 ends the game. */
  readonly enemy: number;
  readonly pending: ShephyPending | null;
  readonly result: ShephyResult | null;
}

export type ShephyDecision =
  | { readonly kind: "play"; readonly index: number }
  | { readonly kind: "chooseField"; readonly index: number }
  | { readonly kind: "select"; readonly index: number }
  | { readonly kind: "confirm" }
  | { readonly kind: "gainOne" }
  | { readonly kind: "stop" }
  | { readonly kind: "chooseHand"; readonly index: number }
  | { readonly kind: "chooseDeck"; readonly index: number };

/** A working copy owned by one apply call: every array is fresh, so it may be mutated in place. */
export interface Draft {
  config: ShephyConfig;
  rng: RngState;
  field: number[];
  stock: number[];
  deck: number[];
  hand: number[];
  discard: number[];
  exile: number[];
  enemy: number;
  pending: { card: number; source: number; left: number; selected: number[] } | null;
  result: ShephyResult | null;
}

export function draft(s: ShephyState): Draft {
  const p = s.pending;
  return {
    config: s.config,
    rng: s.rng,
    field: s.field.slice(),
    stock: s.stock.slice(),
    deck: s.deck.slice(),
    hand: s.hand.slice(),
    discard: s.discard.slice(),
    exile: s.exile.slice(),
    enemy: s.enemy,
    pending: p === null ? null : { card: p.card, source: p.source, left: p.left, selected: p.selected.slice() },
    result: s.result,
  };
}
