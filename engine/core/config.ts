import Type, { type Static, type TObject, type TProperties, type TSchema } from "typebox";
import Value from "typebox/value";
import { fail, ok, QUOTE_MAX, quoted, type Result } from "./errors.ts";

/**
 * Game configs in TypeBox: a game declares its config fields once (`Type.Integer({minimum,
 * maximum, default})`, `oneOf([...], default)`, ...). That one definition gives the TS type
 * (`ConfigOf<typeof FIELDS>`), the JSON Schema (`configSchema(FIELDS)`, plain JSON Schema) and the
 * check (`parseFields`), whose errors name the field. Rules that tie fields together stay in the
 * game's parseConfig.
 */
export type Raw = Record<string, unknown>;

/** The parsed config a field map describes (every field present: absent ones take their default). */
export type ConfigOf<P extends TProperties> = Readonly<Static<TObject<P>>>;

/** An integer field in min..max with a default. */
export const intOption = (def: number, minimum: number, maximum: number) => Type.Integer({ minimum, maximum, default: def });
/** `null` or an integer in min..max, with a default. */
export const nullableIntOption = (def: number | null, minimum: number, maximum: number) =>
  Type.Union([Type.Null(), Type.Integer({ minimum, maximum })], { default: def });
export const boolOption = (def: boolean) => Type.Boolean({ default: def });
/** One string out of a fixed list, with a default. */
export const oneOfOption = <const T extends readonly string[]>(values: T, def: T[number]) =>
  Type.Unsafe<T[number]>({ type: "string", enum: [...values], default: def });

/** The JSON Schema of a config object with these fields (unknown fields refused). */
export function configSchema(fields: TProperties): Record<string, unknown> {
  return JSON.parse(
    JSON.stringify(Type.Object(Object.fromEntries(Object.entries(fields).map(([k, v]) => [k, Type.Optional(v)])), { additionalProperties: false })),
  ) as Record<string, unknown>;
}

export function asObject(raw: unknown, allowed: readonly string[]): Result<Raw> {
  if (raw === undefined || raw === null) return ok({});
  if (typeof raw !== "object" || Array.isArray(raw)) return fail("invalid_config", "config must be an object");
  const obj = raw as Raw;
  for (const key of Object.keys(obj)) {
    if (!allowed.includes(key)) {
      return fail("invalid_config", `unknown config field ${quoted(key)}; allowed: ${allowed.join(", ")}`, key.slice(0, QUOTE_MAX));
    }
  }
  return ok(obj);
}

/** Why `v` does not fit the field's schema, in words. */
function mismatch(key: string, s: TSchema, v: unknown): string {
  const o = s as Record<string, unknown>;
  const got = quoted(v);
  const branches = o.anyOf as Record<string, unknown>[] | undefined;
  const int = o.type === "integer" ? o : branches?.find((b) => b.type === "integer");
  if (int) {
    const range = `between ${int.minimum as number} and ${int.maximum as number}`;
    if (typeof v !== "number" || !Number.isInteger(v)) return `${key} must be ${branches ? "null or " : ""}an integer, got ${got}`;
    return `${key} must be ${range}, got ${v}`;
  }
  if (o.type === "number") {
    if (typeof v !== "number" || !Number.isFinite(v)) return `${key} must be a number, got ${got}`;
    return `${key} must be between ${o.minimum as number} and ${o.maximum as number}, got ${v}`;
  }
  if (o.type === "boolean") return `${key} must be true or false, got ${got}`;
  if (Array.isArray(o.enum)) return `${key} must be one of ${(o.enum as unknown[]).map((x) => JSON.stringify(x)).join(", ")}, got ${got}`;
  return `${key} is invalid, got ${got}`;
}

/**
 * Checks an untrusted config object against a field map: unknown fields refused, absent fields
 * take their schema's default, every value of its schema. Fields listed in `own` are left to the
 * caller (nested documents with their own checks): they are returned as given.
 */
export function parseFields<P extends TProperties>(raw: unknown, fields: P, own: readonly string[] = []): Result<{ value: ConfigOf<P>; raw: Raw }> {
  const o = asObject(raw, Object.keys(fields));
  if (!o.ok) return o;
  const out: Raw = {};
  for (const [key, schema] of Object.entries(fields)) {
    const v = o.value[key];
    if (own.includes(key)) {
      if (v !== undefined) out[key] = v;
      continue;
    }
    if (v === undefined) {
      out[key] = (schema as { default?: unknown }).default;
      continue;
    }
    if (!Value.Check(schema, v)) return fail("invalid_config", mismatch(key, schema, v), key);
    out[key] = v;
  }
  return ok({ value: out as ConfigOf<P>, raw: o.value });
}

/** One integer field (used by configs that are not games' own, e.g. test games). */
export function intField(obj: Raw, key: string, def: number, min: number, max: number): Result<number> {
  return field(obj, key, intOption(def, min, max));
}

export function numberField(obj: Raw, key: string, def: number, min: number, max: number): Result<number> {
  return field(obj, key, Type.Number({ minimum: min, maximum: max, default: def }));
}

export function boolField(obj: Raw, key: string, def: boolean): Result<boolean> {
  return field(obj, key, boolOption(def));
}

export function enumField<T extends string>(obj: Raw, key: string, def: T, values: readonly T[]): Result<T> {
  return field(obj, key, oneOfOption(values, def));
}

/** `null` or an integer in range. */
export function nullableIntField(obj: Raw, key: string, def: number | null, min: number, max: number): Result<number | null> {
  return field(obj, key, nullableIntOption(def, min, max));
}

function field<T>(obj: Raw, key: string, schema: TSchema): Result<T> {
  const r = parseFields({ [key]: obj[key] }, { [key]: schema });
  return r.ok ? ok(r.value.value[key] as T) : r;
}
