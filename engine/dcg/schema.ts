import { MAX_CONDITIONS } from "./ability.ts";
import { SHIPPED_CARDS } from "./cards.ts";
import { MAX_CARDS } from "./pool.ts";
import { MAX_SET_BOOKS } from "./card-set.ts";
import { CALCULATOR_MODES } from "./calculator.ts";
import { COMPARATORS } from "./comparator.ts";
import { effectHandlers } from "./effect.ts";
import { HEADS } from "./heads.ts";
import { PARAMETERS } from "./params.ts";
import { phraseHandlers } from "./targeting.ts";
import { TRIGGER_KINDS, TRIGGER_TYPES } from "./trigger.ts";
import { DIRECTIONS, LAYERS, REACHES, ROW_NAMES, type FieldSpec, type FieldType } from "./validate.ts";

/**
 * The JSON Schema (draft 2020-12) of card sets, cards, abilities and books, generated from the
 * handler registries: every Head, Pipe and Effect contributes the fields it declares, so the
 * schema cannot drift from the loader. docs/card-schema.json is this object (a test keeps them
 * equal; `npx tsx scripts/card-schema.ts` rewrites it). The loader (pool.ts) remains the
 * authority for rules a schema cannot say (ability references, one NightmareAbility, book rules).
 */
type Schema = Record<string, unknown>;

const ref = (name: string): Schema => ({ $ref: `#/$defs/${name}` });
const int = (minimum: number, maximum: number): Schema => ({ type: "integer", minimum, maximum });
const oneOfStrings = (values: readonly string[]): Schema => ({ type: "string", enum: [...values] });
const listOf = (values: readonly string[]): Schema => ({ type: "array", minItems: 1, items: oneOfStrings(values) });

const FIELD: { [K in FieldType]: Schema } = {
  boolean: { type: "boolean" },
  int: int(-1000, 1000),
  count: int(1, 1000),
  draws: int(0, 7),
  distance: int(0, 6),
  comparator: ref("comparator"),
  cardKind: oneOfStrings(["rubric", "object", "feint"]),
  ailment: oneOfStrings(["poison", "none"]),
  ailmentFilter: oneOfStrings(["poison", "any", "none"]),
  layer: oneOfStrings(LAYERS),
  layers: listOf(LAYERS),
  row: oneOfStrings(ROW_NAMES),
  reach: oneOfStrings(REACHES),
  direction: oneOfStrings(DIRECTIONS),
  takeMode: oneOfStrings(["first", "random"]),
  triggerKinds: listOf(TRIGGER_KINDS),
  triggerTypes: listOf(TRIGGER_TYPES),
  cells: { type: "array", maxItems: 35, items: { type: "array", prefixItems: [int(0, 4), int(0, 6)], minItems: 2, maxItems: 2, items: false } },
  targeting: ref("targeting"),
  // AttachAbility: what works attached (a TriggerAbility or a ParameterAbility), or a reference
  // to one of the card's earlier abilities (the loader checks that it names one of those types).
  ability: { anyOf: [ref("triggerAbility"), ref("parameterAbility"), ref("abilityRef")] },
};

/** An object with a constant tag and the declared fields ("x?" optional), nothing else. */
function tagged(tag: "kind" | "type", value: string, fields: FieldSpec, extra: Record<string, Schema> = {}, required: string[] = []): Schema {
  const properties: Record<string, Schema> = { [tag]: { const: value } };
  const req = [tag, ...required];
  for (const [name, spec] of Object.entries(fields)) {
    const optional = spec.endsWith("?");
    properties[name] = FIELD[(optional ? spec.slice(0, -1) : spec) as FieldType];
    if (!optional) req.push(name);
  }
  Object.assign(properties, extra);
  return { type: "object", properties, required: req, additionalProperties: false };
}

const byTag = (tag: "kind" | "type", branches: Schema[]): Schema => ({ type: "object", required: [tag], discriminator: { propertyName: tag }, oneOf: branches });
const lifetime: Schema = { type: "array", maxItems: MAX_CONDITIONS, items: ref("targeting") };
const conditions: Schema = { ...lifetime, minItems: 1 };
// A TriggerAbility says which trigger kinds it answers: some condition holds a FilterTriggerKind.
const triggerConditions: Schema = { ...conditions, contains: { type: "array", contains: { type: "object", properties: { kind: { const: "FilterTriggerKind" } }, required: ["kind"] } } };
const parameterAbility = tagged(
  "type",
  "ParameterAbility",
  {},
  {
    parameter: oneOfStrings(PARAMETERS),
    calc: { type: "object", properties: { mode: oneOfStrings(CALCULATOR_MODES), amount: int(-1000, 1000) }, required: ["mode", "amount"], additionalProperties: false },
    lifetime,
  },
  ["parameter", "calc"],
);

export function buildCardSchema(): Schema {
  const phrases = Object.entries(phraseHandlers).map(([kind, h]) => tagged("kind", kind, h.fields));
  const heads = phrases.filter((p) => (HEADS as readonly string[]).includes(((p.properties as Schema).kind as { const: string }).const));
  return {
    $schema: "https://json-schema.org/draft/2020-12/schema",
    $id: "https://cardgym.dev/schemas/dcg-card-set.json",
    title: "cardgym dcg card set",
    description:
      "A card set: cards and books for the dcg game (docs/cards.md). Generated from engine/dcg/schema.ts; the loader (loadPool, config.cardSet) also checks what a schema cannot: ability references, at most one NightmareAbility, and the book rules.",
    type: "object",
    properties: { cards: ref("cardList"), books: ref("bookList") },
    additionalProperties: false,
    $defs: {
      // The pool's limit counts the shipped cards: a set adds at most MAX_CARDS - shipped.
      cardList: { type: "array", maxItems: MAX_CARDS - SHIPPED_CARDS.length, items: ref("card") },
      bookList: { type: "array", maxItems: MAX_SET_BOOKS, items: ref("book") },
      card: {
        type: "object",
        properties: {
          id: { type: "string", pattern: "^[a-z0-9-]{1,40}$" },
          no: int(0, 100000),
          name: { type: "string", minLength: 1, maxLength: 60 },
          kind: oneOfStrings(["rubric", "object", "feint"]),
          cost: int(0, 8),
          attack: int(0, 20),
          life: int(0, 30),
          move: int(0, 8),
          abilities: { type: "array", maxItems: 8, items: ref("ability") },
          feint: { type: "object", properties: { on: oneOfStrings(["enter", "attack"]), effect: ref("effect") }, required: ["on"], additionalProperties: false },
        },
        required: ["id", "name", "kind", "cost"],
        additionalProperties: false,
        allOf: [
          { if: { properties: { kind: { const: "rubric" } } }, then: { required: ["attack", "life"], properties: { cost: int(0, 3), life: int(1, 30), feint: false } } },
          { if: { properties: { kind: { const: "object" } } }, then: { required: ["life"], properties: { attack: { const: 0 }, life: int(1, 30), feint: false } } },
          { if: { properties: { kind: { const: "feint" } } }, then: { required: ["feint"], properties: { attack: { const: 0 }, life: { const: 0 }, abilities: { type: "array", maxItems: 0 } } } },
        ],
      },
      ability: byTag("type", [
        ref("triggerAbility"),
        ref("parameterAbility"),
        tagged("type", "AreaAbility", {}, { reach: ref("targeting"), ability: ref("parameterAbility") }, ["reach", "ability"]),
        tagged("type", "NightmareAbility", {}, { conditions: lifetime }, ["conditions"]),
      ]),
      triggerAbility: tagged("type", "TriggerAbility", {}, { conditions: triggerConditions, effect: ref("effect") }, ["conditions", "effect"]),
      parameterAbility,
      abilityRef: { type: "object", properties: { ref: int(0, 7) }, required: ["ref"], additionalProperties: false },
      effect: byTag("kind", Object.entries(effectHandlers).map(([kind, h]) => tagged("kind", kind, h.fields))),
      targeting: { type: "array", minItems: 1, maxItems: 32, prefixItems: [ref("head")], items: ref("phrase") },
      head: byTag("kind", heads),
      phrase: byTag("kind", phrases),
      comparator: oneOfStrings(COMPARATORS),
      book: {
        type: "object",
        properties: {
          id: { type: "string", pattern: "^[a-z0-9-]{1,40}$" },
          name: { type: "string", minLength: 1, maxLength: 100 },
          strategy: { type: "array", minItems: 5, maxItems: 5, items: { type: "string" } },
          cards: { type: "array", maxItems: 100, items: { type: "string" } },
        },
        required: ["id", "name", "strategy", "cards"],
        additionalProperties: false,
      },
    },
  };
}
