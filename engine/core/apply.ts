import { canonicalEqual, canonicalJson, canonicalProblem } from "./hash.ts";
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
  explain?: (s: S, decision: unknown) => string | null,
): Outcome<S> {
  if (actor(state) === "terminal") {
    return { ok: false, error: { code: "game_over", message: "the game is over; no decision can be applied" } };
  }
  // Validated without writing its text: the text is only needed for an error message.
  let problem: string | null;
  try {
    problem = canonicalProblem(decision);
  } catch (e) {
    // A getter or proxy that throws: not plain data either.
    problem = (e as Error).message;
  }
  if (problem !== null) return { ok: false, error: { code: "malformed_decision", message: `decision is not plain data: ${problem}` } };
  if (decision === null || typeof decision !== "object" || Array.isArray(decision)) {
    return { ok: false, error: { code: "malformed_decision", message: `decision must be an object, got ${truncate(decisionKey(decision))}` } };
  }
  const options = legal(state);
  // Equal canonical JSON, compared without writing each option's text.
  for (const option of options) {
    if (canonicalEqual(option, decision)) return { ok: true, state: applyTrusted(state, option) };
  }
  // A deadline's default decision (e.g. Killing Sevens' forced pass) is accepted even where it is
  // not a voluntary option: runners apply it when time runs out, and records carry it.
  const fallback = expectation?.(state)?.defaultDecision;
  if (fallback !== undefined && canonicalEqual(fallback, decision)) return { ok: true, state: applyTrusted(state, fallback) };
  // The explanation only words a refusal: one that trips over a strange decision (a kind named
  // like an inherited property, say) falls back to the generic one instead of turning it into a throw.
  let why: string | null;
  try {
    why = explain?.(state, decision) ?? null;
  } catch {
    why = null;
  }
  why ??= explainFromLegal(options, decision);
  return {
    ok: false,
    error: { code: "illegal_decision", message: `decision ${truncate(decisionKey(decision))} is not legal now: ${why}` },
  };
}

function truncate(text: string): string {
  return text.length > 200 ? `${text.slice(0, 200)}...` : text;
}

/**
 * The "why not" every game gets without an explain() of its own, read off legal(): a decision of a
 * kind that is not asked for now names the kinds that are; one of the right kind but with other
 * arguments says how many of that kind are legal.
 */
export function explainFromLegal(options: readonly unknown[], decision: unknown): string {
  const kindOf = (d: unknown): string | undefined => {
    const k = d !== null && typeof d === "object" ? (d as { kind?: unknown }).kind : undefined;
    return typeof k === "string" ? k : undefined;
  };
  const kinds = [...new Set(options.map(kindOf).filter((k): k is string => k !== undefined))];
  const kind = kindOf(decision);
  if (kinds.length === 0) return "no decision is possible now";
  if (kind === undefined || !kinds.includes(kind)) {
    return `${kind === undefined ? "a decision without a kind" : `a ${kind} decision`} is not asked for now; the legal kinds are ${kinds.join(", ")}`;
  }
  const same = options.filter((o) => kindOf(o) === kind);
  return `${kind} is possible now, but not with these arguments (${same.length} legal ${kind} decision${same.length === 1 ? "" : "s"}, e.g. ${truncate(decisionKey(same[0]))})`;
}
