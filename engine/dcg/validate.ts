import Type, { IsOptional, type Static, type TObject, type TProperties, type TSchema } from "typebox";
import Value from "typebox/value";
import { COMPARATORS } from "./comparator.ts";
import type { Targeting } from "./targeting.ts";
import { TRIGGER_KINDS, TRIGGER_TYPES } from "./trigger.ts";

/**
 * The card vocabulary's field types, as TypeBox schemas: one definition per shape gives the
 * TypeScript type (Static), the published JSON Schema (schema.ts assembles docs/card-schema.json
 * from these very objects) and the loader's runtime check (checkFields). Each Head, Pipe, Effect
 * and Ability declares its fields with them next to its code.
 *
 * Nested documents (a targeting, an ability) are fields too, but their schema is a reference in
 * the published schema; at run time their own compiler checks them (checkFields checks only the
 * list itself: its size), so every message names the exact JSON path.
 */
export const LAYERS = ["Book", "Hand", "Strategy", "Field", "Grave"] as const;
export const ROW_NAMES = ["back", "middle", "front", "centre", "enemyFront", "enemyMiddle", "enemyBack"] as const;
export type RowName = (typeof ROW_NAMES)[number];
export const REACHES = ["D1", "D2", "S1", "Row", "Column"] as const;
export type Reach = (typeof REACHES)[number];
export const DIRECTIONS = ["forward", "back", "left", "right"] as const;
export type Direction = (typeof DIRECTIONS)[number];

/** A string out of a fixed list. */
export const oneOf = <const T extends readonly string[]>(values: T) => Type.Unsafe<T[number]>({ type: "string", enum: [...values] });
/** A non-empty list of strings out of a fixed list. */
export const listOf = <const T extends readonly string[]>(values: T) =>
  Type.Unsafe<readonly T[number][]>({ type: "array", minItems: 1, items: { type: "string", enum: [...values] } });
export const int = (minimum: number, maximum: number) => Type.Integer({ minimum, maximum });

/** A field whose contents a nested compiler checks: a reference, or a list of references. */
const nestedRef = <T>(schema: Record<string, unknown>) => Type.Unsafe<T>(schema);
function isNested(s: TSchema): boolean {
  const o = s as Record<string, unknown>;
  return o.$ref !== undefined || o.anyOf !== undefined || (o.type === "array" && (o.items as Record<string, unknown> | undefined)?.$ref !== undefined);
}

/** At most this many sentences in a conditions or lifetime list. */
export const MAX_CONDITIONS = 8;
/** At most this many phrases in a sentence. */
export const MAX_PHRASES = 32;

const targeting = nestedRef<Targeting>({ $ref: "#/$defs/targeting" });

export const F = {
  boolean: Type.Boolean(),
  /** An effect's amount: a negative one runs the twin effect (docs/rules/dcg.md). */
  amount: int(-1000, 1000),
  /** A comparison operand. */
  value: int(-1000, 1000),
  /** Take's count. */
  count: int(1, 1000),
  /** Cards drawn: a hand never holds more than 7. */
  draws: int(0, 7),
  /** Cells moved: the board has 7 rows. */
  distance: int(0, 6),
  comparator: oneOf(COMPARATORS),
  cardKind: oneOf(["rubric", "object", "feint"]),
  ailment: oneOf(["poison", "none"]),
  ailmentFilter: oneOf(["poison", "any", "none"]),
  layer: oneOf(LAYERS),
  layers: listOf(LAYERS),
  row: oneOf(ROW_NAMES),
  reach: oneOf(REACHES),
  direction: oneOf(DIRECTIONS),
  takeMode: oneOf(["first", "random"]),
  triggerKinds: listOf(TRIGGER_KINDS),
  triggerTypes: listOf(TRIGGER_TYPES),
  cells: Type.Unsafe<readonly (readonly [number, number])[]>({
    type: "array",
    maxItems: 35,
    items: { type: "array", prefixItems: [int(0, 4), int(0, 6)], minItems: 2, maxItems: 2, items: false },
  }),
  targeting,
  /** Conditions of a TriggerAbility: 1..8 sentences, one of which holds a FilterTriggerKind. */
  triggerConditions: nestedRef<readonly Targeting[]>({
    type: "array",
    minItems: 1,
    maxItems: MAX_CONDITIONS,
    items: { $ref: "#/$defs/targeting" },
    contains: { type: "array", contains: { type: "object", properties: { kind: { const: "FilterTriggerKind" } }, required: ["kind"] } },
  }),
  /** A lifetime, or a NightmareAbility's conditions: 0..8 sentences. */
  conditions: nestedRef<readonly Targeting[]>({ type: "array", maxItems: MAX_CONDITIONS, items: { $ref: "#/$defs/targeting" } }),
  /**
   * AttachAbility's ability. In JSON: a TriggerAbility or ParameterAbility object, or {"ref": n}
   * (the card's n-th ability); compiled (the TS type): the ability's id.
   */
  ability: nestedRef<number>({ anyOf: [{ $ref: "#/$defs/triggerAbility" }, { $ref: "#/$defs/parameterAbility" }, { $ref: "#/$defs/abilityRef" }] }),
  /** An AreaAbility's ability: a ParameterAbility object (compiled: its id). */
  parameterAbility: nestedRef<number>({ $ref: "#/$defs/parameterAbility" }),
  effect: nestedRef<unknown>({ $ref: "#/$defs/effect" }),
} as const;

/** The object a field map describes, `kind` or `type` tag included: the TS type of a phrase or effect. */
export type Tagged<Tag extends string, K extends string, P extends TProperties> = { readonly [T in Tag]: K } & Readonly<Static<TObject<P>>>;

/** A readable statement of what a field schema accepts. */
export function describeSchema(s: TSchema): string {
  const o = s as Record<string, unknown>;
  if (o.type === "integer") return `an integer in ${o.minimum as number}..${o.maximum as number}`;
  if (o.type === "boolean") return "true or false";
  if (Array.isArray(o.enum)) return `one of ${(o.enum as string[]).join(", ")}`;
  if (o.type === "array") {
    const items = o.items as Record<string, unknown> | undefined;
    if (items && Array.isArray(items.enum)) return `a non-empty list of ${(items.enum as string[]).join(", ")}`;
    if (items && Array.isArray(items.prefixItems)) return "a list of [x, y] cells (x 0..4, y 0..6)";
    const n = `${(o.minItems as number | undefined) ?? 0}..${o.maxItems as number}`;
    const what =
      items?.$ref === "#/$defs/targeting" ? "targetings" : items?.$ref === "#/$defs/ability" ? "abilities" : items?.type === "string" ? "card ids" : "items";
    return `a list of ${n} ${what}`;
  }
  if (o.type === "object" && o.properties) {
    const props = Object.entries(o.properties as Record<string, TSchema>).map(([k, v]) => `"${k}": ${describeSchema(v)}`);
    return `{${props.join(", ")}}`;
  }
  if (typeof o.pattern === "string") return `a string matching ${o.pattern as string}`;
  if (o.type === "string") return `a string of ${(o.minLength as number | undefined) ?? 0}..${o.maxLength as number} characters`;
  if (o.const !== undefined) return JSON.stringify(o.const);
  return "an object";
}

/** The schema with the parts a nested compiler checks removed (a list's items, its `contains`). */
function shallow(s: TSchema): TSchema {
  const { items: _items, prefixItems: _prefix, contains: _contains, ...rest } = s as Record<string, unknown>;
  return rest as TSchema;
}

/** Checks one field's value; an error message naming the path, or null. */
export function checkField(schema: TSchema, v: unknown, path: string): string | null {
  if (isNested(schema)) {
    const o = schema as Record<string, unknown>;
    if (o.$ref !== undefined || o.anyOf !== undefined) return null; // the nested compiler reports
    if (!Value.Check(shallow(schema), v)) return `${path}: expected ${describeSchema(schema)}`;
    return null;
  }
  const o = schema as Record<string, unknown>;
  // An object of fields (a calculator, a feint trigger): field by field, for exact paths.
  if (o.type === "object" && o.properties !== undefined) {
    if (v === null || typeof v !== "object" || Array.isArray(v)) return `${path}: expected ${describeSchema(schema)}`;
    return checkFields(v as Record<string, unknown>, o.properties as TProperties, path, "");
  }
  if (!Value.Check(schema, v)) return `${path}: expected ${describeSchema(schema)}, got ${JSON.stringify(v)}`;
  return null;
}

/**
 * Checks an object's fields against a field map: no unknown field (the tag excepted), every
 * required one present, each value of its schema. Returns an error message naming the JSON path.
 */
export function checkFields(obj: Record<string, unknown>, fields: TProperties, path: string, tag = "kind"): string | null {
  for (const key of Object.keys(obj)) {
    if (key === tag) continue;
    // hasOwn, not `in`: "constructor" or "__proto__" must not pass as a field of every map.
    if (!Object.hasOwn(fields, key)) return `${path}.${key}: unknown field (allowed: ${[...(tag ? [tag] : []), ...Object.keys(fields)].join(", ")})`;
  }
  for (const [key, schema] of Object.entries(fields)) {
    const v = obj[key];
    if (v === undefined) {
      if (!IsOptional(schema)) return `${path}.${key}: required (${describeSchema(schema)})`;
      continue;
    }
    const err = checkField(schema, v, `${path}.${key}`);
    if (err) return err;
  }
  return null;
}
