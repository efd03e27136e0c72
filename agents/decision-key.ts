import { decisionKey } from "../engine/core/index.ts";

/**
 * decisionKey (canonical JSON) for the hot loops of search agents. Decisions are almost always
 * flat objects of a few primitive fields; for those the canonical text is built directly (keys
 * sorted, the same text canonicalJson writes), which is several times cheaper than the general
 * recursive writer. Anything else falls back to decisionKey itself, so keys always agree with it.
 */
export function fastDecisionKey(decision: unknown): string {
  if (decision === null || typeof decision !== "object" || Array.isArray(decision)) return decisionKey(decision);
  if (!Object.isFrozen(decision)) return flatKey(decision as Record<string, unknown>) ?? decisionKey(decision);
  let key = frozenKeys.get(decision);
  if (key === undefined) {
    const flat = flatKey(decision as Record<string, unknown>);
    if (flat === null) return decisionKey(decision);
    key = flat;
    frozenKeys.set(decision, key);
  }
  return key;
}

/**
 * The keys of frozen flat decisions, by object: such an object never changes, so neither does its
 * key, and the games that hand out shared frozen decisions from legal() (dcg, sevens) give search
 * the same objects in every iteration. Held weakly: a memo, never a reason to keep one alive.
 */
const frozenKeys = new WeakMap<object, string>();

/** The canonical text of a flat object of primitive fields, or null when it is not one. */
function flatKey(obj: Record<string, unknown>): string | null {
  const keys = Object.keys(obj);
  if (keys.length > 1) keys.sort();
  let out = "{";
  let first = true;
  for (const k of keys) {
    const v = obj[k];
    if (v === undefined) continue;
    let text: string;
    if (typeof v === "number") {
      if (!Number.isFinite(v)) return null;
      text = Object.is(v, -0) ? "0" : String(v);
    } else if (typeof v === "string") text = JSON.stringify(v);
    else if (typeof v === "boolean") text = v ? "true" : "false";
    else if (v === null) text = "null";
    else return null;
    out += (first ? "" : ",") + quoted(k) + ":" + text;
    first = false;
  }
  return out + "}";
}

const quotedNames = new Map<string, string>();
function quoted(name: string): string {
  let q = quotedNames.get(name);
  if (q === undefined) {
    q = JSON.stringify(name);
    if (quotedNames.size < 1024) quotedNames.set(name, q);
  }
  return q;
}
