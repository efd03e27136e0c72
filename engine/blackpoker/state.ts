import type { RngState } from "../core/index.ts";
import type { FlowState } from "../core/interrupt/index.ts";
import type { ActionName } from "./actions.ts";
import type { Card } from "./cards.ts";
import type { BlackpokerConfig } from "./config.ts";

/**
 * A character on the field: a soldier (face up; several cards once Mounted) or a bulwark (one
 * face-down card, defence only). `uid` is public and stable while the unit is on the field.
 *
 * Controller and owner (docs/rules/blackpoker.md, "Owner and controller"): the seat whose field
 * array holds the unit controls it (decides for it, attacks and blocks with it, pays costs with it,
 * gets the triggers of its leaving). Each card's owner is the seat whose deck it belongs to (its
 * cards go to that seat's Grave).
 */
export interface Unit {
  readonly uid: number;
  readonly bulwark: boolean;
  /** Base card first, then Mounted cards. */
  readonly cards: readonly Card[];
  /** Charged (upright, usable) vs Driven (sideways). */
  readonly charged: boolean;
  /** Up/Down modifiers until the end of the turn. */
  readonly mod: number;
  /** Turn number it entered the field (0 = preset at setup). */
  readonly entered: number;
  /**
   * The owner of each card of `cards` (same order), present only when some card is owned by a seat
   * other than the controller. Absent, every card is the controller's own: the case in all normal
   * play, so states (and their hashes) are those of the engine before ownership was recorded.
   */
  readonly owners?: readonly number[];
}

export interface PlayerZones {
  /** Life = library and hit points, face down; the top is the LAST element. */
  readonly life: readonly Card[];
  readonly hand: readonly Card[];
  readonly grave: readonly Card[];
  /** Turn-duration markers (Up/Down keys), to the Grave at End. */
  readonly fog: readonly Card[];
  readonly field: readonly Unit[];
}

/** What a request carries on the stage: its action, key cards (public), target (uid or rid, -1 none). */
export interface BpPayload {
  readonly rid: number;
  readonly action: ActionName;
  readonly keys: readonly Card[];
  readonly target: number;
}

/** Attack -> Block -> DamageJudge bookkeeping: attacker uids, and blockers with their attacker. */
export interface Combat {
  readonly attackers: readonly number[];
  readonly blockers: readonly number[];
  readonly blocked: readonly number[];
}

/** A pending choice: composing a request, or a decision inside a resolution. */
export type Pending =
  | {
      readonly kind: "compose";
      readonly seat: number;
      readonly action: ActionName;
      readonly keys: readonly Card[];
      readonly target: number;
      readonly bulwarks: readonly number[];
      readonly discards: readonly Card[];
    }
  | { readonly kind: "attackers"; readonly seat: number; readonly chosen: readonly number[] }
  | { readonly kind: "blockers"; readonly seat: number; readonly blockers: readonly number[]; readonly blocked: readonly number[] }
  | { readonly kind: "endDiscard"; readonly seat: number }
  | { readonly kind: "twist"; readonly seat: number; readonly uid: number }
  | { readonly kind: "drawMore"; readonly seat: number }
  | { readonly kind: "search"; readonly seat: number };
export type PendingKind = Pending["kind"];

export interface BlackpokerState {
  readonly config: BlackpokerConfig;
  readonly flow: FlowState<BpPayload>;
  readonly players: readonly PlayerZones[];
  /** Turn number, 1 = the first player's first turn. */
  readonly turn: number;
  /** Usage limits this turn (Attack 1/turn, SetBulwark 1/turn). */
  readonly attacked: boolean;
  readonly bulwarkSet: boolean;
  readonly combat: Combat | null;
  readonly pending: Pending | null;
  readonly nextUid: number;
  readonly nextRid: number;
  /** Final returns once the game is over, else null. */
  readonly result: readonly number[] | null;
  readonly rng: RngState;
}

export type BlackpokerDecision =
  | { readonly kind: "pass" }
  | { readonly kind: "declare"; readonly action: ActionName }
  | { readonly kind: "chooseCard"; readonly card: Card }
  | { readonly kind: "targetUnit"; readonly unit: number }
  | { readonly kind: "targetRequest"; readonly request: number }
  | { readonly kind: "payBulwark"; readonly unit: number }
  | { readonly kind: "payDiscard"; readonly card: Card }
  | { readonly kind: "selectAttacker"; readonly unit: number }
  | { readonly kind: "finishAttack" }
  | { readonly kind: "assignBlocker"; readonly unit: number; readonly attacker: number }
  | { readonly kind: "finishBlock" }
  | { readonly kind: "discard"; readonly card: Card }
  | { readonly kind: "twist"; readonly charged: boolean }
  | { readonly kind: "drawMore"; readonly more: boolean }
  | { readonly kind: "searchTake"; readonly card: Card }
  /** Which of the actor's triggered requests (by request id) to take from the buffer first. */
  | { readonly kind: "chooseTrigger"; readonly request: number };
export type DecisionKind = BlackpokerDecision["kind"];
export const DECISION_KINDS: readonly DecisionKind[] = [
  "pass",
  "declare",
  "chooseCard",
  "targetUnit",
  "targetRequest",
  "payBulwark",
  "payDiscard",
  "selectAttacker",
  "finishAttack",
  "assignBlocker",
  "finishBlock",
  "discard",
  "twist",
  "drawMore",
  "searchTake",
  "chooseTrigger",
];
