import { fail, ok, type Result } from "../core/index.ts";
import { compileAbility, type Ability } from "./ability.ts";
import { CardDataError } from "./card-data-error.ts";
import { compileEffect, type Effect } from "./effect.ts";
import { guardJson } from "./json-guard.ts";
import { isPositional } from "./targeting.ts";
import { TRIGGER_KINDS, type TriggerKind } from "./trigger.ts";

export type CardKind = "rubric" | "object" | "feint";

/** A card as written in JSON (engine/dcg/cards/*.json). */
export interface CardJson {
  readonly id: string;
  /** The dcg design's card number, where the card comes from the design's examples. */
  readonly no?: number;
  readonly name: string;
  readonly kind: CardKind;
  readonly cost: number;
  readonly attack?: number;
  readonly life?: number;
  /** Base move cost (default 1). */
  readonly move?: number;
  readonly abilities?: readonly unknown[];
  readonly feint?: { readonly on: "enter" | "attack"; readonly effect?: unknown };
}

export interface CardDef {
  readonly index: number;
  readonly id: string;
  readonly no: number;
  readonly name: string;
  readonly kind: CardKind;
  readonly cost: number;
  readonly attack: number;
  readonly life: number;
  readonly move: number;
  /** Ids of its own abilities, in JSON order. */
  readonly abilities: readonly number[];
  readonly triggerAbilities: readonly number[];
  /** Own ParameterAbilities, attached when the card enters the Field. */
  readonly paramAbilities: readonly number[];
  readonly areaAbilities: readonly number[];
  /** Its NightmareAbility, or -1. */
  readonly nightmare: number;
  readonly feint: { readonly on: "enter" | "attack"; readonly effect: Effect | null } | null;
}

export interface Pool {
  readonly cards: readonly CardDef[];
  readonly abilities: readonly Ability[];
  readonly byId: ReadonlyMap<string, number>;
  /** listens[kind]: some ability could match this trigger kind (else matching is skipped). */
  readonly listens: Readonly<Record<TriggerKind, boolean>>;
  /** answers[kind]: some TriggerAbility could answer this trigger kind. */
  readonly answers: Readonly<Record<TriggerKind, boolean>>;
  /** lifetimes[kind]: some ParameterAbility lifetime could end on this trigger kind. */
  readonly lifetimes: Readonly<Record<TriggerKind, boolean>>;
  readonly hasAreas: boolean;
  /** Some card has an AreaAbility or a NightmareAbility (else refresh never has work). */
  readonly hasRefresh: boolean;
  /** Every AreaAbility reach reads only positions and printed card data (PhraseHandler.positional). */
  readonly areasPositional: boolean;
  /** The card JSON it was compiled from (a card set extends it). */
  readonly source: readonly unknown[];
}

const CARD_FIELDS = ["id", "no", "name", "kind", "cost", "attack", "life", "move", "abilities", "feint"];
export const MAX_CARDS = 1000;

/**
 * Compiles card JSON into a pool; errors name the card and the JSON path. `label` names a card's
 * place in the user's document (a card set's cards follow the shipped ones in the pool).
 */
export function loadPool(raw: unknown, label: (index: number) => string = (i) => `cards[${i}]`): Result<Pool> {
  try {
    return ok(compilePool(raw, label));
  } catch (e) {
    if (e instanceof CardDataError) return fail("invalid_config", e.message);
    throw e;
  }
}

function compilePool(raw: unknown, label: (index: number) => string): Pool {
  if (!Array.isArray(raw)) throw new CardDataError("cards: expected an array of cards");
  if (raw.length > MAX_CARDS) throw new CardDataError(`cards: at most ${MAX_CARDS} cards`);
  const abilities: Ability[] = [];
  const cards: CardDef[] = [];
  const byId = new Map<string, number>();
  raw.forEach((rc, index) => {
    if (rc === null || typeof rc !== "object" || Array.isArray(rc)) throw new CardDataError(`${label(index)}: a card must be an object`);
    const r = rc as Record<string, unknown>;
    const at = `${label(index)}${typeof r.id === "string" ? ` (${r.id.slice(0, 40)})` : ""}`;
    const unsafe = guardJson(r, at);
    if (unsafe) throw new CardDataError(unsafe);
    for (const k of Object.keys(r)) if (!CARD_FIELDS.includes(k)) throw new CardDataError(`${at}.${k}: unknown card field`);
    if (typeof r.id !== "string" || !/^[a-z0-9-]{1,40}$/.test(r.id)) throw new CardDataError(`${at}.id: expected a kebab-case id`);
    if (byId.has(r.id)) throw new CardDataError(`${at}.id: duplicate card id ${r.id}`);
    if (typeof r.name !== "string" || r.name.length === 0 || r.name.length > 60) throw new CardDataError(`${at}.name: expected a name`);
    if (r.kind !== "rubric" && r.kind !== "object" && r.kind !== "feint") throw new CardDataError(`${at}.kind: expected rubric, object or feint`);
    const int = (k: string, def: number | null, min: number, max: number): number => {
      const v = r[k];
      if (v === undefined && def !== null) return def;
      if (typeof v !== "number" || !Number.isInteger(v) || v < min || v > max) throw new CardDataError(`${at}.${k}: expected an integer in ${min}..${max}`);
      return v;
    };
    const kind = r.kind;
    const cost = int("cost", null, 0, kind === "rubric" ? 3 : 8);
    const attack = kind === "rubric" ? int("attack", null, 0, 20) : int("attack", 0, 0, 0);
    const life = kind === "feint" ? int("life", 0, 0, 0) : int("life", null, 1, 30);
    const move = int("move", 1, 0, 8);

    const own: number[] = [];
    const compiler = {
      ability: (rawAb: unknown, path: string): number => {
        const ref = (rawAb as Record<string, unknown> | null)?.ref;
        if (ref !== undefined) {
          for (const k of Object.keys(rawAb as object)) if (k !== "ref") throw new CardDataError(`${path}.${k}: unknown field (a reference is {"ref": n})`);
          if (!Number.isInteger(ref) || (ref as number) < 0 || (ref as number) >= own.length) throw new CardDataError(`${path}.ref: must name an earlier ability of this card`);
          return own[ref as number]!;
        }
        const compiled = compileAbility(rawAb, compiler, path);
        const id = abilities.length;
        abilities.push({ ...compiled, id } as Ability);
        return id;
      },
      effect: (rawEf: unknown, path: string): Effect => compileEffect(rawEf, path, compiler),
      typeOf: (id: number): Ability["type"] => abilities[id]!.type,
    };
    const rawAbilities = r.abilities ?? [];
    if (!Array.isArray(rawAbilities) || rawAbilities.length > 8) throw new CardDataError(`${at}.abilities: expected at most 8 abilities`);
    if (kind === "feint" && rawAbilities.length > 0) throw new CardDataError(`${at}.abilities: a feint has an effect, not abilities`);
    rawAbilities.forEach((ab, i) => own.push(compiler.ability(ab, `${at}.abilities[${i}]`)));

    let feint: CardDef["feint"] = null;
    if (kind === "feint") {
      const f = r.feint as Record<string, unknown> | undefined;
      if (!f || typeof f !== "object" || Array.isArray(f) || (f.on !== "enter" && f.on !== "attack")) throw new CardDataError(`${at}.feint.on: expected "enter" or "attack"`);
      for (const k of Object.keys(f)) if (k !== "on" && k !== "effect") throw new CardDataError(`${at}.feint.${k}: unknown field (allowed: on, effect)`);
      feint = { on: f.on, effect: f.effect === undefined ? null : compiler.effect(f.effect, `${at}.feint.effect`) };
    } else if (r.feint !== undefined) throw new CardDataError(`${at}.feint: only feints have a feint trigger`);

    const byType = (t: Ability["type"]) => own.filter((id) => abilities[id]!.type === t);
    const nightmares = byType("NightmareAbility");
    if (nightmares.length > 1) throw new CardDataError(`${at}.abilities: at most one NightmareAbility`);
    cards.push({
      index,
      id: r.id,
      no: int("no", 0, 0, 100000),
      name: r.name,
      kind,
      cost,
      attack,
      life,
      move,
      abilities: own,
      triggerAbilities: byType("TriggerAbility"),
      paramAbilities: byType("ParameterAbility"),
      areaAbilities: byType("AreaAbility"),
      nightmare: nightmares[0] ?? -1,
      feint,
    });
    byId.set(r.id, index);
  });
  const listens = Object.fromEntries(TRIGGER_KINDS.map((k) => [k, false])) as Record<TriggerKind, boolean>;
  const lifetimes = { ...listens };
  const answers = { ...listens };
  for (const ab of abilities) {
    if (ab.type !== "TriggerAbility" && ab.type !== "ParameterAbility") continue;
    const marks = ab.type === "TriggerAbility" ? [listens, answers] : [listens, lifetimes];
    for (const m of marks) {
      if (ab.kinds === null) for (const k of TRIGGER_KINDS) m[k] = true;
      else for (const k of ab.kinds) m[k] = true;
    }
  }
  const hasAreas = abilities.some((a) => a.type === "AreaAbility");
  const areasPositional = abilities.every((a) => a.type !== "AreaAbility" || isPositional(a.reach));
  const hasRefresh = hasAreas || abilities.some((a) => a.type === "NightmareAbility");
  return { cards, abilities, byId, listens, answers, lifetimes, hasAreas, hasRefresh, areasPositional, source: raw };
}
