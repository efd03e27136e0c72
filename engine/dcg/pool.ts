import { fail, InvariantError, ok, type Result } from "../core/index.ts";
import { compileAbility, type Ability } from "./ability.ts";
import { CardDataError } from "./card-data-error.ts";
import { compileEffect, type Effect } from "./effect.ts";
import { guardJson } from "./json-guard.ts";
import { PARAMETERS, type Parameter } from "./params.ts";
import { isPositional } from "./targeting.ts";
import { checkFields, F, int, oneOf } from "./validate.ts";
import Type, { type Static, type TObject, type TProperties } from "typebox";
import { TRIGGER_KINDS, type TriggerKind } from "./trigger.ts";

export type CardKind = "rubric" | "object" | "feint";

export const CARD_ID = Type.String({ pattern: "^[a-z0-9-]{1,40}$" });
const abilityList = (maxItems: number) => Type.Optional(Type.Unsafe<readonly unknown[]>({ type: "array", maxItems, items: { $ref: "#/$defs/ability" } }));
const COMMON = {
  id: CARD_ID,
  /** The dcg design's card number, where the card comes from the design's examples. */
  no: Type.Optional(int(0, 100000)),
  name: Type.String({ minLength: 1, maxLength: 60 }),
  /** Base move cost (default 1). */
  move: Type.Optional(int(0, 8)),
};

/**
 * A card's JSON fields by kind (TypeBox: the CardJson type, the published schema's card and the
 * loader's check). Abilities are checked by their own compiler.
 */
export const CARD_FIELDS = {
  rubric: { ...COMMON, kind: Type.Literal("rubric"), cost: int(0, 3), attack: int(0, 20), life: int(1, 30), abilities: abilityList(8) },
  object: { ...COMMON, kind: Type.Literal("object"), cost: int(0, 8), attack: Type.Optional(Type.Literal(0)), life: int(1, 30), abilities: abilityList(8) },
  feint: {
    ...COMMON,
    kind: Type.Literal("feint"),
    cost: int(0, 8),
    attack: Type.Optional(Type.Literal(0)),
    life: Type.Optional(Type.Literal(0)),
    abilities: abilityList(0),
    feint: Type.Object({ on: oneOf(["enter", "attack"]), effect: Type.Optional(F.effect) }, { additionalProperties: false }),
  },
} as const satisfies Record<CardKind, TProperties>;

/** A card as written in JSON (engine/dcg/cards/*.json). */
export type CardJson = { [K in CardKind]: Readonly<Static<TObject<(typeof CARD_FIELDS)[K]>>> }[CardKind];

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
  /** params[p]: some ParameterAbility changes parameter p (else reading it is reading the printed value). */
  readonly params: Readonly<Record<Parameter, boolean>>;
  /** Some card has an AreaAbility or a NightmareAbility (else refresh never has work). */
  readonly hasRefresh: boolean;
  /** Every AreaAbility reach reads only positions and printed card data (PhraseHandler.positional). */
  readonly areasPositional: boolean;
  /**
   * What refresh must look at when the board did not change: sealsOnPlayers, some NightmareAbility
   * reads only player records (re-checked when a player changed); sealsAlways, some reads other
   * state (life, hands...) and is re-checked after every write.
   */
  readonly sealsOnPlayers: boolean;
  readonly sealsAlways: boolean;
  /** The card JSON it was compiled from (a card set extends it). */
  readonly source: readonly unknown[];
}

export const MAX_CARDS = 1000;

/** Card definition `def` of a pool; an index outside the pool is a bug. */
export function defIn(pool: { readonly cards: readonly CardDef[] }, def: number): CardDef {
  const card = pool.cards[def];
  if (card === undefined) throw new InvariantError(`dcg: no card definition ${def} in the pool`);
  return card;
}

/** Ability `id` of a pool; an index outside the pool is a bug. */
export function abilityIn(pool: { readonly abilities: readonly Ability[] }, id: number): Ability {
  const ability = pool.abilities[id];
  if (ability === undefined) throw new InvariantError(`dcg: no ability ${id} in the pool`);
  return ability;
}

/** The index of card id `id` in a pool whose cards were already checked to contain it. */
export function defIndex(pool: { readonly byId: ReadonlyMap<string, number> }, id: string): number {
  const def = pool.byId.get(id);
  if (def === undefined) throw new InvariantError(`dcg: card "${id}" is not in the pool`);
  return def;
}

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
    if (r.kind !== "rubric" && r.kind !== "object" && r.kind !== "feint") throw new CardDataError(`${at}.kind: expected rubric, object or feint`);
    const kind: CardKind = r.kind;
    const bad = checkFields(r, CARD_FIELDS[kind], at, "");
    if (bad) throw new CardDataError(bad);
    const card = r as unknown as CardJson;
    if (byId.has(card.id)) throw new CardDataError(`${at}.id: duplicate card id ${card.id}`);
    const cost = card.cost;
    const attack = card.attack ?? 0;
    const life = card.life ?? 0;
    const move = card.move ?? 1;

    const own: number[] = [];
    const compiler = {
      ability: (rawAb: unknown, path: string): number => {
        const ref = (rawAb as Record<string, unknown> | null)?.ref;
        if (ref !== undefined) {
          for (const k of Object.keys(rawAb as object)) if (k !== "ref") throw new CardDataError(`${path}.${k}: unknown field (a reference is {"ref": n})`);
          const earlier = Number.isInteger(ref) ? own[ref as number] : undefined;
          if (earlier === undefined) throw new CardDataError(`${path}.ref: must name an earlier ability of this card`);
          return earlier;
        }
        const compiled = compileAbility(rawAb, compiler, path);
        const id = abilities.length;
        abilities.push({ ...compiled, id } as Ability);
        return id;
      },
      effect: (rawEf: unknown, path: string): Effect => compileEffect(rawEf, path, compiler),
      typeOf: (id: number): Ability["type"] => abilityIn({ abilities }, id).type,
    };
    (card.abilities ?? []).forEach((ab, i) => own.push(compiler.ability(ab, `${at}.abilities[${i}]`)));

    let feint: CardDef["feint"] = null;
    if (card.kind === "feint") {
      const f = card.feint;
      feint = { on: f.on, effect: f.effect === undefined ? null : compiler.effect(f.effect, `${at}.feint.effect`) };
    }

    const byType = (t: Ability["type"]) => own.filter((id) => abilityIn({ abilities }, id).type === t);
    const nightmares = byType("NightmareAbility");
    if (nightmares.length > 1) throw new CardDataError(`${at}.abilities: at most one NightmareAbility`);
    cards.push({
      index,
      id: card.id,
      no: card.no ?? 0,
      name: card.name,
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
    byId.set(card.id, index);
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
  const params = Object.fromEntries(PARAMETERS.map((p) => [p, abilities.some((a) => a.type === "ParameterAbility" && a.parameter === p)])) as Record<
    Parameter,
    boolean
  >;
  const hasRefresh = hasAreas || abilities.some((a) => a.type === "NightmareAbility");
  const sealsOnPlayers = abilities.some((a) => a.type === "NightmareAbility" && a.playersOnly);
  const sealsAlways = abilities.some((a) => a.type === "NightmareAbility" && !a.playersOnly && !a.positional);
  return { cards, abilities, byId, listens, answers, lifetimes, hasAreas, params, hasRefresh, areasPositional, sealsOnPlayers, sealsAlways, source: raw };
}
