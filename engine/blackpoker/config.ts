import { intOption, ok, oneOfOption, parseFields, type ConfigOf, type Result } from "../core/index.ts";

/** Both Lives reach 0 at once: current rules (9.1.2) = the turn player loses; 6th edition = draw. */
export type BothLivesZero = BlackpokerConfig["bothLivesZero"];
/** Draw: current = 2 cards (1 if Life <= 2); sixth = 1 card, then optionally 1 more. */
export type DrawRule = BlackpokerConfig["drawRule"];
/** After a normal request: opponent = the requester auto-passes (rules doc); requester = keeps the chance (official simulator). */
export type ChanceAfterRequest = BlackpokerConfig["chanceAfterRequest"];

export const SEATS = 2;
export const DEFAULT_MAX_TURNS = 60;

/** The config's fields (TypeBox: the BlackpokerConfig type, configSchema's JSON Schema and the check). */
export const BLACKPOKER_CONFIG_FIELDS = {
  seats: intOption(SEATS, SEATS, SEATS),
  bothLivesZero: oneOfOption(["turnPlayerLoses", "draw"], "turnPlayerLoses"),
  drawRule: oneOfOption(["current", "sixth"], "current"),
  chanceAfterRequest: oneOfOption(["opponent", "requester"], "opponent"),
  /** Turn cap: when an End would start turn maxTurns+1 the game ends as a draw. */
  maxTurns: intOption(DEFAULT_MAX_TURNS, 1, 1000),
};

export type BlackpokerConfig = ConfigOf<typeof BLACKPOKER_CONFIG_FIELDS>;

export function parseBlackpokerConfig(raw: unknown): Result<BlackpokerConfig> {
  const parsed = parseFields(raw, BLACKPOKER_CONFIG_FIELDS);
  return parsed.ok ? ok(parsed.value.value) : parsed;
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
