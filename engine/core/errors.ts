/** Errors are values: rules never throw on bad input, they return one of these. */
export type GameErrorCode =
  | "illegal_decision" // well-formed, but not among legal(state)
  | "malformed_decision" // not a decision of this game at all
  | "game_over" // a decision sent to a terminal state
  | "invalid_config"
  | "invalid_record"
  | "unknown_game"
  | "hash_mismatch";

export interface GameError {
  readonly code: GameErrorCode;
  readonly message: string;
  /** JSON path of the offending field, where there is one ("config.seats", "decisions[12]"). */
  readonly path?: string;
}

export type Result<T> = { readonly ok: true; readonly value: T } | { readonly ok: false; readonly error: GameError };

export const ok = <T>(value: T): Result<T> => ({ ok: true, value });
export const fail = (code: GameErrorCode, message: string, path?: string): { ok: false; error: GameError } => ({
  ok: false,
  error: path === undefined ? { code, message } : { code, message, path },
});

/** Thrown only at program boundaries (CLI, server) to carry a GameError through `catch`. */
export class GameFailure extends Error {
  readonly error: GameError;
  constructor(error: GameError) {
    super(error.message);
    this.name = "GameFailure";
    this.error = error;
  }
}

export function unwrap<T>(result: Result<T>): T {
  if (!result.ok) throw new GameFailure(result.error);
  return result.value;
}

/**
 * A broken invariant: a value the code's own bookkeeping guarantees is not there (a bug, never bad
 * input; bad input gets a Result). The message names what was missing.
 */
export class InvariantError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "InvariantError";
  }
}

/** `value`, or an InvariantError naming `what` when it is undefined: for lookups whose absence is a bug. */
export function must<T>(value: T | undefined, what: string): T {
  if (value === undefined) throw new InvariantError(`${what} is missing`);
  return value;
}

/** Longest quoted value an error message carries (QUOTE_MAX characters of its JSON). */
export const QUOTE_MAX = 80;

/**
 * `v` as JSON for an error message, cut to QUOTE_MAX characters with how long it was: a refused
 * value can be as large as its input allows (a 900 KB book name), and the message that names it
 * should stay a line.
 */
export function quoted(v: unknown): string {
  const text = JSON.stringify(v) ?? String(v);
  return text.length > QUOTE_MAX ? `${text.slice(0, QUOTE_MAX)}... (${text.length} characters)` : text;
}
