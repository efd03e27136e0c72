import type { Actor, Expectation } from "../core/index.ts";
import { CARD_COUNT } from "./cards.ts";
import { touchesFilled } from "./board.ts";
import { PASS, type PlayDecision, type SevensDecision, type SevensState } from "./state.ts";

export function sevensActor(s: SevensState): Actor {
  return s.current < 0 ? "terminal" : s.current;
}

/** Cards of `seat` that may be played now, ascending: in hand, cell 8-adjacent to a Placed or Dead cell. */
export function playableCards(cells: readonly number[], seat: number): number[] {
  const out: number[] = [];
  for (let card = 0; card < CARD_COUNT; card++) {
    if (cells[card] === seat && touchesFilled(cells, card)) out.push(card);
  }
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
  return voluntaryPass && (passLimit === null || s.passes[seat]! < passLimit);
}

/** One shared, frozen decision object per card: legal() allocates only its list. */
const PLAYS: readonly PlayDecision[] = Array.from({ length: CARD_COUNT }, (_, card) => Object.freeze({ kind: "play" as const, card }));

/** Stable order: plays by ascending card id, then Pass. */
export function sevensLegal(s: SevensState): SevensDecision[] {
  const seat = s.current;
  if (seat < 0) return [];
  const out: SevensDecision[] = [];
  const cells = s.cells;
  for (let card = 0; card < CARD_COUNT; card++) {
    if (cells[card] === seat && touchesFilled(cells, card)) out.push(PLAYS[card]!);
  }
  if (passAllowed(s, seat, out.length > 0)) out.push(PASS);
  return out;
}

/** With a turn timer, every turn has a deadline whose default is the forced pass. */
export function sevensExpectation(s: SevensState): Expectation<SevensDecision> | null {
  const sec = s.config.turnTimeoutSec;
  if (sec === null || s.current < 0) return null;
  return { seat: s.current, timeoutMs: sec * 1000, defaultDecision: PASS };
}
