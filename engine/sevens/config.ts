import { boolOption, fail, intOption, nullableIntOption, ok, oneOfOption, parseFields, type ConfigOf, type Result } from "../core/index.ts";

export type StartPlayer = SevensConfig["startPlayer"];

export const MIN_SEATS = 3;
export const MAX_SEATS = 6;
export const DEFAULT_SEATS = 5;
export const MAX_PASS_LIMIT = 20;
export const MAX_TURN_TIMEOUT_SEC = 86_400;

/** The config's fields (TypeBox: the SevensConfig type, configSchema's JSON Schema and the check). */
export const SEVENS_CONFIG_FIELDS = {
  seats: intOption(DEFAULT_SEATS, MIN_SEATS, MAX_SEATS),
  /** null: passes are unlimited (lets-csharp). n: the (n+1)th pass eliminates (traditional: 3). */
  passLimit: nullableIntOption(null, 0, MAX_PASS_LIMIT),
  /** false: Pass only without a playable card. true: also by choice while passes remain (needs a passLimit). */
  voluntaryPass: boolOption(false),
  /** 'seat0': 7s removed, 48 dealt, seat 0 starts. 'diamond7': all 52 dealt, 7s put out by holders, ♦7's holder starts. */
  startPlayer: oneOfOption(["seat0", "diamond7"], "seat0"),
  /** Real-time play: seconds per turn; when time runs out the runner applies the forced pass. */
  turnTimeoutSec: nullableIntOption(null, 1, MAX_TURN_TIMEOUT_SEC),
  /** Dense shaping in returns() before the end (the final returns are always the rank reward). */
  shaping: boolOption(false),
};

export type SevensConfig = ConfigOf<typeof SEVENS_CONFIG_FIELDS>;

export function parseSevensConfig(raw: unknown): Result<SevensConfig> {
  const parsed = parseFields(raw, SEVENS_CONFIG_FIELDS);
  if (!parsed.ok) return parsed;
  const c = parsed.value.value;
  // Unlimited voluntary passes would let a game go on forever (no maxDecisions bound).
  if (c.voluntaryPass && c.passLimit === null) {
    return fail("invalid_config", "voluntaryPass: true needs a passLimit (an integer); with unlimited passes a game need not end", "voluntaryPass");
  }
  return ok(c);
}

/**
 * Plays are at most 48 (each removes at least one card from the hands). Without voluntary passes a
 * seat passes only when it cannot play, and some active seat can always play, so at most N-1
 * passes come between two board changes: 48N without a pass limit, (48+N)N with one (eliminations
 * are board changes too). With a pass limit every seat passes at most passLimit+1 times, forced
 * passes included, so 48 + N(passLimit+1) holds even with a turn timer. A turn timer without a
 * pass limit has no bound (a table of absent players can pass forever, as in lets-csharp): 48N then
 * bounds only games played through legal decisions; see docs/rules/sevens.md.
 */
export function sevensMaxDecisions(config: SevensConfig): number {
  const n = config.seats;
  if (config.passLimit === null) return 48 * n;
  const byLimit = 48 + n * (config.passLimit + 1);
  // Timed-out passes may be taken with a playable card in hand, which voids the (48+N)N argument.
  return config.voluntaryPass || config.turnTimeoutSec !== null ? byLimit : Math.min(byLimit, (48 + n) * n);
}
