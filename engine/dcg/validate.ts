import { isComparator } from "./comparator.ts";
import { TRIGGER_KINDS, TRIGGER_TYPES } from "./trigger.ts";

/**
 * Field specs for ability vocabulary objects: each handler declares its JSON fields next to its
 * code, so adding a Head, Pipe or Effect is a change to one file. A trailing "?" marks an
 * optional field. check() returns an error message naming the JSON path, or null.
 */
export type FieldType =
  | "boolean"
  | "int"
  | "count"
  | "draws"
  | "distance"
  | "comparator"
  | "cardKind"
  | "ailment"
  | "ailmentFilter"
  | "layer"
  | "layers"
  | "row"
  | "reach"
  | "direction"
  | "takeMode"
  | "triggerKinds"
  | "triggerTypes"
  | "cells"
  | "targeting"
  | "ability";
export type FieldSpec = Readonly<Record<string, FieldType | `${FieldType}?`>>;

export const LAYERS = ["Book", "Hand", "Strategy", "Field", "Grave"] as const;
export const ROW_NAMES = ["back", "middle", "front", "centre", "enemyFront", "enemyMiddle", "enemyBack"] as const;
export type RowName = (typeof ROW_NAMES)[number];
export const REACHES = ["D1", "D2", "S1", "Row", "Column"] as const;
export type Reach = (typeof REACHES)[number];
export const DIRECTIONS = ["forward", "back", "left", "right"] as const;
export type Direction = (typeof DIRECTIONS)[number];

const isInt = (v: unknown, min: number, max: number) => typeof v === "number" && Number.isInteger(v) && v >= min && v <= max;
const isOneOf = (values: readonly string[]) => (v: unknown) => typeof v === "string" && values.includes(v);
const listOf = (values: readonly string[]) => (v: unknown) => Array.isArray(v) && v.length > 0 && v.every(isOneOf(values));

const checks: { [K in FieldType]: (v: unknown) => boolean } = {
  boolean: (v) => typeof v === "boolean",
  int: (v) => isInt(v, -1000, 1000),
  count: (v) => isInt(v, 1, 1000),
  draws: (v) => isInt(v, 0, 7),
  distance: (v) => isInt(v, 0, 6),
  comparator: isComparator,
  cardKind: isOneOf(["rubric", "object", "feint"]),
  ailment: isOneOf(["poison", "none"]),
  ailmentFilter: isOneOf(["poison", "any", "none"]),
  layer: isOneOf(LAYERS),
  layers: listOf(LAYERS),
  row: isOneOf(ROW_NAMES),
  reach: isOneOf(REACHES),
  direction: isOneOf(DIRECTIONS),
  takeMode: isOneOf(["first", "random"]),
  triggerKinds: listOf(TRIGGER_KINDS),
  triggerTypes: listOf(TRIGGER_TYPES),
  cells: (v) =>
    Array.isArray(v) &&
    v.length <= 35 &&
    v.every((c) => Array.isArray(c) && c.length === 2 && Number.isInteger(c[0]) && Number.isInteger(c[1]) && c[0] >= 0 && c[0] < 5 && c[1] >= 0 && c[1] < 7),
  // Nested documents are checked by their own compilers.
  targeting: (v) => Array.isArray(v),
  ability: (v) => v !== null && typeof v === "object",
};

export function checkFields(obj: Record<string, unknown>, spec: FieldSpec, path: string): string | null {
  for (const key of Object.keys(obj)) {
    if (key === "kind") continue;
    // hasOwn, not `in`: "constructor" or "__proto__" must not pass as a field of every spec.
    if (!Object.hasOwn(spec, key)) return `${path}.${key}: unknown field (allowed: kind${Object.keys(spec).map((k) => `, ${k}`).join("")})`;
  }
  for (const [key, raw] of Object.entries(spec)) {
    const optional = raw.endsWith("?");
    const type = (optional ? raw.slice(0, -1) : raw) as FieldType;
    const v = obj[key];
    if (v === undefined) {
      if (!optional) return `${path}.${key}: required (${type})`;
      continue;
    }
    if (!checks[type](v)) return `${path}.${key}: expected ${type}, got ${JSON.stringify(v)}`;
  }
  return null;
}
