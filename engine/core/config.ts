import { fail, ok, type Result } from "./errors.ts";

/**
 * Small helpers for validating untrusted config objects with errors that name the field.
 * Games compose them in their parseConfig.
 */
export type Raw = Record<string, unknown>;

export function asObject(raw: unknown, allowed: readonly string[]): Result<Raw> {
  if (raw === undefined || raw === null) return ok({});
  if (typeof raw !== "object" || Array.isArray(raw)) return fail("invalid_config", "config must be an object");
  const obj = raw as Raw;
  for (const key of Object.keys(obj)) {
    if (!allowed.includes(key)) {
      return fail("invalid_config", `unknown config field "${key}"; allowed: ${allowed.join(", ")}`, key);
    }
  }
  return ok(obj);
}

export function intField(obj: Raw, key: string, def: number, min: number, max: number): Result<number> {
  const v = obj[key];
  if (v === undefined) return ok(def);
  if (typeof v !== "number" || !Number.isInteger(v)) return fail("invalid_config", `${key} must be an integer, got ${JSON.stringify(v)}`, key);
  if (v < min || v > max) return fail("invalid_config", `${key} must be between ${min} and ${max}, got ${v}`, key);
  return ok(v);
}

export function numberField(obj: Raw, key: string, def: number, min: number, max: number): Result<number> {
  const v = obj[key];
  if (v === undefined) return ok(def);
  if (typeof v !== "number" || !Number.isFinite(v)) return fail("invalid_config", `${key} must be a number, got ${JSON.stringify(v)}`, key);
  if (v < min || v > max) return fail("invalid_config", `${key} must be between ${min} and ${max}, got ${v}`, key);
  return ok(v);
}

export function boolField(obj: Raw, key: string, def: boolean): Result<boolean> {
  const v = obj[key];
  if (v === undefined) return ok(def);
  if (typeof v !== "boolean") return fail("invalid_config", `${key} must be true or false, got ${JSON.stringify(v)}`, key);
  return ok(v);
}

export function enumField<T extends string>(obj: Raw, key: string, def: T, values: readonly T[]): Result<T> {
  const v = obj[key];
  if (v === undefined) return ok(def);
  if (typeof v !== "string" || !(values as readonly string[]).includes(v)) {
    return fail("invalid_config", `${key} must be one of ${values.map((x) => JSON.stringify(x)).join(", ")}, got ${JSON.stringify(v)}`, key);
  }
  return ok(v as T);
}

/** `null` or an integer in range. */
export function nullableIntField(obj: Raw, key: string, def: number | null, min: number, max: number): Result<number | null> {
  if (obj[key] === null) return ok(null);
  if (obj[key] === undefined) return ok(def);
  return intField(obj, key, 0, min, max);
}
