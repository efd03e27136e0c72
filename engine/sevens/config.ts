import { asObject, boolField, enumField, fail, intField, nullableIntField, ok, type BaseConfig, type Result } from "../core/index.ts";

export type StartPlayer = "seat0" | "diamond7";

export interface SevensConfig extends BaseConfig {
  readonly seats: number;
  /** null: passes are unlimited (lets-csharp). n: the (n+1)th pass eliminates (traditional: 3). */
  readonly passLimit: number | null;
  /** false: Pass only without a playable card. true: also by choice while passes remain (needs a passLimit). */
  readonly voluntaryPass: boolean;
  /** 'seat0': 7s removed, 48 dealt, seat 0 starts. 'diamond7': all 52 dealt, 7s put out by holders, ♦7's holder starts. */
  readonly startPlayer: StartPlayer;
  /** Real-time play: seconds per turn; when time runs out the runner applies the forced pass. */
  readonly turnTimeoutSec: number | null;
  /** Dense shaping in returns() before the end (the final returns are always the rank reward). */
  readonly shaping: boolean;
}

export const MIN_SEATS = 3;
export const MAX_SEATS = 6;
export const DEFAULT_SEATS = 5;
export const MAX_PASS_LIMIT = 20;
export const MAX_TURN_TIMEOUT_SEC = 86_400;

const FIELDS = ["seats", "passLimit", "voluntaryPass", "startPlayer", "turnTimeoutSec", "shaping"] as const;

export function parseSevensConfig(raw: unknown): Result<SevensConfig> {
  const obj = asObject(raw, FIELDS);
  if (!obj.ok) return obj;
  const o = obj.value;
  const seats = intField(o, "seats", DEFAULT_SEATS, MIN_SEATS, MAX_SEATS);
  if (!seats.ok) return seats;
  const passLimit = nullableIntField(o, "passLimit", null, 0, MAX_PASS_LIMIT);
  if (!passLimit.ok) return passLimit;
  const voluntaryPass = boolField(o, "voluntaryPass", false);
  if (!voluntaryPass.ok) return voluntaryPass;
  const startPlayer = enumField<StartPlayer>(o, "startPlayer", "seat0", ["seat0", "diamond7"]);
  if (!startPlayer.ok) return startPlayer;
  const turnTimeoutSec = nullableIntField(o, "turnTimeoutSec", null, 1, MAX_TURN_TIMEOUT_SEC);
  if (!turnTimeoutSec.ok) return turnTimeoutSec;
  const shaping = boolField(o, "shaping", false);
  if (!shaping.ok) return shaping;
  // Unlimited voluntary passes would let a game go on forever (no maxDecisions bound).
  if (voluntaryPass.value && passLimit.value === null) {
    return fail("invalid_config", "voluntaryPass: true needs a passLimit (an integer); with unlimited passes a game need not end", "voluntaryPass");
  }
  return ok({
    seats: seats.value,
    passLimit: passLimit.value,
    voluntaryPass: voluntaryPass.value,
    startPlayer: startPlayer.value,
    turnTimeoutSec: turnTimeoutSec.value,
    shaping: shaping.value,
  });
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
