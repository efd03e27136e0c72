import { asObject, enumField, intField, ok, type BaseConfig, type Result } from "../core/index.ts";

/** Both Lives reach 0 at once: current rules (9.1.2) = the turn player loses; 6th edition = draw. */
export type BothLivesZero = "turnPlayerLoses" | "draw";
/** Draw: current = 2 cards (1 if Life <= 2); sixth = 1 card, then optionally 1 more. */
export type DrawRule = "current" | "sixth";
/** After a normal request: opponent = the requester auto-passes (rules doc); requester = keeps the chance (official simulator). */
export type ChanceAfterRequest = "opponent" | "requester";

export interface BlackpokerConfig extends BaseConfig {
  readonly seats: number;
  readonly bothLivesZero: BothLivesZero;
  readonly drawRule: DrawRule;
  readonly chanceAfterRequest: ChanceAfterRequest;
  /** Turn cap: when an End would start turn maxTurns+1 the game ends as a draw. */
  readonly maxTurns: number;
}

export const SEATS = 2;
export const DEFAULT_MAX_TURNS = 60;
const FIELDS = ["seats", "bothLivesZero", "drawRule", "chanceAfterRequest", "maxTurns"] as const;

export function parseBlackpokerConfig(raw: unknown): Result<BlackpokerConfig> {
  const obj = asObject(raw, FIELDS);
  if (!obj.ok) return obj;
  const o = obj.value;
  const seats = intField(o, "seats", SEATS, SEATS, SEATS);
  if (!seats.ok) return seats;
  const bothLivesZero = enumField<BothLivesZero>(o, "bothLivesZero", "turnPlayerLoses", ["turnPlayerLoses", "draw"]);
  if (!bothLivesZero.ok) return bothLivesZero;
  const drawRule = enumField<DrawRule>(o, "drawRule", "current", ["current", "sixth"]);
  if (!drawRule.ok) return drawRule;
  const chanceAfterRequest = enumField<ChanceAfterRequest>(o, "chanceAfterRequest", "opponent", ["opponent", "requester"]);
  if (!chanceAfterRequest.ok) return chanceAfterRequest;
  const maxTurns = intField(o, "maxTurns", DEFAULT_MAX_TURNS, 1, 1000);
  if (!maxTurns.ok) return maxTurns;
  return ok({
    seats: seats.value,
    bothLivesZero: bothLivesZero.value,
    drawRule: drawRule.value,
    chanceAfterRequest: chanceAfterRequest.value,
    maxTurns: maxTurns.value,
  });
}

/** Most units one player can have on the field (one card each at least). */
export const MAX_UNITS = 16;
/** Cards in both decks together. */
const TOTAL_CARDS = 32;

/**
 * A true upper bound on decisions (docs/rules/blackpoker.md, "Length"): every card leaves a hand at
 * most once (nothing returns to a hand except from Life), so requests that spend a card are <= 32;
 * End and Attack are <= 1 per turn; turns T <= min(maxTurns, 34) because each turn after the first
 * starts with a Draw that removes >= 1 card from a Life that never grows. A request takes <= 7
 * decisions (declare, 2 keys, target, 2 bulwarks, 1 discard); stage entries P <= R + 3T (Draw, Block,
 * DamageJudge); passes <= 2 per request or stage resolution; in-resolution choices: attackers and
 * blockers <= 17 per turn each, discards/twists/searches <= 32 each, extra-draw choices <= T.
 */
export function blackpokerMaxDecisions(config: BlackpokerConfig): number {
  const t = Math.min(config.maxTurns, TOTAL_CARDS + 2);
  const requests = TOTAL_CARDS + 2 * t;
  const pushes = requests + 3 * t;
  const passes = 2 * (requests + pushes);
  const inResolution = t * 2 * (MAX_UNITS + 1) + 3 * TOTAL_CARDS + t;
  return 7 * requests + passes + inResolution;
}
