/**
 * Decision kinds that mean "do nothing now" across our games: passing, ending a turn or phase,
 * stopping an optional effect, confirming an empty choice. Sandbag prefers them; tutorial avoids
 * them while it has anything else to do.
 */
export const PASSIVE_KINDS: ReadonlySet<string> = new Set([
  "pass",
  "endTurn",
  "turnFinish",
  "reactNone",
  "feintPass",
  "strategyConfirm",
  "endPhase",
  "end",
  "stall",
  "skip",
  "stop",
  "decline",
  "done",
  "noop",
  "wait",
  "confirm",
]);

export function isPassive(decision: unknown): boolean {
  if (decision === null || typeof decision !== "object") return false;
  const kind = (decision as { kind?: unknown }).kind;
  return typeof kind === "string" && PASSIVE_KINDS.has(kind);
}

/** Number of leaf values that differ between two plain-data values (a crude "how much changed"). */
export function changeCount(a: unknown, b: unknown, depth = 0): number {
  if (a === b) return 0;
  if (depth > 64 || a === null || b === null || typeof a !== "object" || typeof b !== "object") return 1;
  if (Array.isArray(a) !== Array.isArray(b)) return 1;
  let n = 0;
  if (Array.isArray(a)) {
    const x = a as unknown[];
    const y = b as unknown[];
    const len = Math.max(x.length, y.length);
    for (let i = 0; i < len; i++) n += i < x.length && i < y.length ? changeCount(x[i], y[i], depth + 1) : 1;
    return n;
  }
  const x = a as Record<string, unknown>;
  const y = b as Record<string, unknown>;
  for (const k of Object.keys(x)) n += k in y ? changeCount(x[k], y[k], depth + 1) : 1;
  for (const k of Object.keys(y)) if (!(k in x)) n++;
  return n;
}
