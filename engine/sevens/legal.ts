import type { Actor, Expectation } from "../core/index.ts";
import { CARD_COUNT } from "./cards.ts";
import { collectPlayable } from "./board.ts";
import { PASS, type PlayDecision, type SevensDecision, type SevensState } from "./state.ts";
import { must } from "../core/index.ts";

export function sevensActor(s: SevensState): Actor {
  return s.current < 0 ? "terminal" : s.current;
}

/** Cards of `seat` that may be played now, ascending: in hand, cell 8-adjacent to a Placed or Dead cell. */
export function playableCards(cells: readonly number[], seat: number): number[] {
  const out: number[] = [];
  collectPlayable(cells, seat, CARD_IDS, out);
  return out;
}

/**
 * Whether a Pass is allowed as a choice (not as the forced pass on timeout): always without a
 * playable card; with one, only under voluntaryPass while passes remain (a voluntary pass never
 * eliminates its own seat).
 */
export function passAllowed(s: SevensState, seat: number, hasPlayable: boolean): boolean {
  if (!hasPlayable) return true;
  const { voluntaryPass, passLimit } = s.config;
  return voluntaryPass && (passLimit === null || must(s.passes[seat], "sevens: the pass count of the seat to move") < passLimit);
}

/** Card ids 0..51, as collectPlayable's items for a list of cards. */
export const CARD_IDS: readonly number[] = Array.from({ length: CARD_COUNT }, (_, card) => card);

/** One shared, frozen decision object per card: legal() allocates only its list. */
const PLAYS: readonly PlayDecision[] = Array.from({ length: CARD_COUNT }, (_, card) => Object.freeze({ kind: "play" as const, card }));

/** Stable order: plays by ascending card id, then Pass. */
export function sevensLegal(s: SevensState): SevensDecision[] {
  const seat = s.current;
  if (seat < 0) return [];
  const out: SevensDecision[] = [];
  collectPlayable(s.cells, seat, PLAYS, out);
  if (passAllowed(s, seat, out.length > 0)) out.push(PASS);
  return out;
}

/** With a turn timer, every turn has a deadline whose default is the forced pass. */
export function sevensExpectation(s: SevensState): Expectation<SevensDecision> | null {
  const sec = s.config.turnTimeoutSec;
  if (sec === null || s.current < 0) return null;
  return { seat: s.current, timeoutMs: sec * 1000, defaultDecision: PASS };
}
