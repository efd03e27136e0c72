import { canonicalJson } from "./hash.ts";
import type { Actor, Expectation, Outcome } from "./game.ts";

/** Stable identity of a decision (plain data), used to match untrusted input against legal(). */
export function decisionKey(decision: unknown): string {
  return canonicalJson(decision);
}

/**
 * The checked apply every game shares: refuses decisions at a terminal state, anything that is not
 * plain data, and anything not in legal(state); otherwise applies the engine's own copy of the
 * matching legal decision (never the caller's object) through the trusted path.
 */
export function applyChecked<S, D>(
  state: S,
  decision: unknown,
  actor: (s: S) => Actor,
  legal: (s: S) => readonly D[],
  applyTrusted: (s: S, d: D) => S,
  expectation?: (s: S) => Expectation<D> | null,
): Outcome<S> {
  if (actor(state) === "terminal") {
    return { ok: false, error: { code: "game_over", message: "the game is over; no decision can be applied" } };
  }
  let key: string;
  try {
    key = decisionKey(decision);
  } catch (e) {
    return { ok: false, error: { code: "malformed_decision", message: `decision is not plain data: ${(e as Error).message}` } };
  }
  if (decision === null || typeof decision !== "object" || Array.isArray(decision)) {
    return { ok: false, error: { code: "malformed_decision", message: `decision must be an object, got ${truncate(key)}` } };
  }
  const options = legal(state);
  for (const option of options) {
    if (decisionKey(option) === key) return { ok: true, state: applyTrusted(state, option) };
  }
  // A deadline's default decision (e.g. Killing Sevens' forced pass) is accepted even where it is
  // not a voluntary option: runners apply it when time runs out, and records carry it.
  const fallback = expectation?.(state)?.defaultDecision;
  if (fallback !== undefined && decisionKey(fallback) === key) return { ok: true, state: applyTrusted(state, fallback) };
  return {
    ok: false,
    error: { code: "illegal_decision", message: `decision ${truncate(key)} is not legal now (${options.length} legal options)` },
  };
}

function truncate(text: string): string {
  return text.length > 200 ? `${text.slice(0, 200)}...` : text;
}
