import type { Seat } from "./battle-data.ts";
import type { Draft } from "./draft.ts";
import type { TProperties } from "typebox";
import { HEAD_FIELDS, HEADS, headHandlers, type HeadKind, type HeadPhrase } from "./heads.ts";
import { PIPE_FIELDS, pipeHandlers, type PipeKind, type PipePhrase } from "./pipes.ts";
import type { Trigger, TriggerKind } from "./trigger.ts";
import { checkFields, MAX_PHRASES } from "./validate.ts";
import { fuse, type Fused } from "./fused.ts";
import { InvariantError } from "../core/index.ts";

/**
 * Targeting (docs/cards.md): a query sentence, one Head followed by Pipes, all JSON. Used for
 * TriggerAbility conditions, ParameterAbility lifetimes, AreaAbility reach, NightmareAbility
 * conditions and every Effect's target. A condition holds when its sentence yields a non-empty result.
 * The Heads live in heads.ts, the Pipes in pipes.ts; this file assembles and runs them.
 */
export type Phrase = HeadPhrase | PipePhrase;
export type PhraseKind = Phrase["kind"];
export type Targeting = readonly Phrase[];
export type { HeadKind, PipeKind };
export { HEADS };

/** Who is asking: the card carrying the ability, who produced it, and the trigger being matched. */
export interface Scope {
  readonly consumer: number;
  readonly producer: number;
  readonly owner: Seat;
  /** Ability id, or -1 for a feint's effect. */
  readonly ability: number;
  readonly trigger: Trigger | null;
}

export type ItemKind = "any" | "card" | "player" | "cell" | "ability";
export interface Items {
  kind: ItemKind;
  ids: number[];
}

/** One Head or Pipe: what it reads, and how it runs (its JSON fields: HEAD_FIELDS, PIPE_FIELDS). */
export interface PhraseHandler<P extends Phrase> {
  /**
   * Its result depends only on what stands where and on printed card data: an AreaAbility whose
   * reach is all positional is recomputed only after board changes.
   */
  readonly positional: boolean | ((p: P) => boolean);
  /** It reads only player records: a NightmareAbility made of these is re-checked only when players change. */
  readonly playerOnly: boolean;
  /** A condition containing this phrase can only hold for these trigger kinds. */
  readonly triggerKinds?: (p: P) => readonly TriggerKind[];
  readonly run: (p: P, d: Draft, scope: Scope, items: Items) => Items;
}

/** Every phrase's fields (TypeBox), by kind. */
export const PHRASE_FIELDS: Readonly<Record<PhraseKind, TProperties>> = { ...HEAD_FIELDS, ...PIPE_FIELDS };

export const phraseHandlers = { ...headHandlers, ...pipeHandlers } satisfies { [K in PhraseKind]: PhraseHandler<Extract<Phrase, { kind: K }>> };

type AnyHandler = PhraseHandler<Phrase>;
const handlerOf = (kind: PhraseKind): AnyHandler => phraseHandlers[kind] as unknown as AnyHandler;

const NONE: Items = { kind: "any", ids: [] };

type Run = (p: Phrase, d: Draft, scope: Scope, items: Items) => Items;

/** How a sentence runs: its handlers' run functions, phrase by phrase, or one fused function. */
export interface Plan {
  readonly runs: readonly Run[];
  readonly fused: Fused | null;
}

// Each sentence's plan, made once per DcgCache: sentences are immutable card data (compiled pools
// never change), so the handlers found for a sentence's kinds are always the same. This replaces
// two megamorphic lookups per phrase (handler by kind, then .run) with an array read.
function planOf(plans: WeakMap<Targeting, Plan>, sentence: Targeting): Plan {
  let plan = plans.get(sentence);
  if (plan === undefined) {
    const runs: Run[] = [];
    for (const phrase of sentence) runs.push(handlerOf(phrase.kind).run);
    plan = { runs, fused: fuse(sentence) };
    plans.set(sentence, plan);
  }
  return plan;
}

export function evaluate(d: Draft, scope: Scope, sentence: Targeting): Items {
  const plan = planOf(d.cache.plans, sentence);
  if (plan.fused !== null) return plan.fused(d, scope);
  return runPhrases(plan.runs, d, scope, sentence);
}

/** A sentence run phrase by phrase, never fused (what every fused run must equal: fused.ts). */
export function evaluatePhrases(d: Draft, scope: Scope, sentence: Targeting): Items {
  const runs: Run[] = [];
  for (const phrase of sentence) runs.push(handlerOf(phrase.kind).run);
  return runPhrases(runs, d, scope, sentence);
}

function runPhrases(runs: readonly Run[], d: Draft, scope: Scope, sentence: Targeting): Items {
  let items: Items = NONE;
  for (let i = 0; i < sentence.length; i++) {
    const run = runs[i];
    const phrase = sentence[i];
    if (run === undefined || phrase === undefined) throw new InvariantError("dcg targeting: a sentence's plan is shorter than the sentence");
    items = run(phrase, d, scope, items);
    if (items.ids.length === 0 && i > 0) return items;
  }
  return items;
}

/** Every sentence yields something (an empty list of conditions always holds). */
export function holds(d: Draft, scope: Scope, conditions: readonly Targeting[]): boolean {
  for (const condition of conditions) if (evaluate(d, scope, condition).ids.length === 0) return false;
  return true;
}

export function checkTargeting(raw: unknown, path: string): string | null {
  if (!Array.isArray(raw)) return `${path}: a targeting must be an array of phrases`;
  if (raw.length === 0) return `${path}: a targeting needs at least a head`;
  if (raw.length > MAX_PHRASES) return `${path}: a targeting has at most ${MAX_PHRASES} phrases`;
  for (let i = 0; i < raw.length; i++) {
    const p = raw[i] as Record<string, unknown> | null;
    const at = `${path}[${i}]`;
    if (p === null || typeof p !== "object" || Array.isArray(p)) return `${at}: a phrase must be an object`;
    const kind = p.kind;
    if (typeof kind !== "string" || !Object.hasOwn(phraseHandlers, kind)) return `${at}.kind: unknown phrase ${JSON.stringify(kind)}`;
    if (i === 0 && !(HEADS as readonly string[]).includes(kind)) return `${at}.kind: a targeting must start with a head (${HEADS.join(", ")})`;
    const err = checkFields(p, PHRASE_FIELDS[kind as PhraseKind], at);
    if (err) return err;
  }
  return null;
}

/** Trigger kinds a condition list can match at all (null = any): lets resolve skip most abilities fast. */
export function triggerKindsOf(conditions: readonly Targeting[]): readonly TriggerKind[] | null {
  let kinds: TriggerKind[] | null = null;
  for (const c of conditions) {
    for (const p of c) {
      const f = handlerOf(p.kind).triggerKinds;
      if (!f) continue;
      const allowed = f(p);
      kinds = kinds === null ? [...allowed] : kinds.filter((k) => allowed.includes(k));
    }
  }
  return kinds;
}

/** The sentence reads only what stands where and printed card data. */
export function isPositional(t: Targeting): boolean {
  return t.every((p) => {
    const pos = handlerOf(p.kind).positional;
    return typeof pos === "boolean" ? pos : pos(p);
  });
}

/** The sentence reads only player records. */
export function isPlayerOnly(t: Targeting): boolean {
  return t.every((p) => handlerOf(p.kind).playerOnly);
}
