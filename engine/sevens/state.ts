import type { RngState } from "../core/index.ts";
import type { Card } from "./cards.ts";
import type { SevensConfig } from "./config.ts";

/** Play one card from hand onto its cell. */
export interface PlayDecision {
  readonly kind: "play";
  readonly card: Card;
}
/**
 * Pass. Also the forced pass that a runner applies when the turn timer runs out: it is then
 * accepted through expectation().defaultDecision even where legal() does not list it.
 */
export interface PassDecision {
  readonly kind: "pass";
}
export type SevensDecision = PlayDecision | PassDecision;

export const PASS: PassDecision = Object.freeze({ kind: "pass" as const });

export interface SevensState {
  readonly config: SevensConfig;
  /** Where each card is (index = card id = cell); encoding in board.ts. */
  readonly cells: number[];
  readonly handSize: number[];
  /** Cards of this seat killed (each scores -1 and worsens the rank). */
  readonly killed: number[];
  /** Opponents' cards killed by this seat's moves (dense shaping and statistics only). */
  readonly kills: number[];
  readonly passes: number[];
  /** Seats in the order their hands became empty (not eliminations). */
  readonly finishOrder: number[];
  /** Seats eliminated by exceeding passLimit, in order. */
  readonly eliminated: number[];
  /** Seat to move; -1 once the game is over. */
  readonly current: number;
  readonly rng: RngState;
}
