/** Comparators (docs/cards.md), one handler each; the registry's completeness is compiler-checked. */
export const COMPARATORS = ["Equal", "GreaterThan", "LessThan", "GreaterThanOrEqual", "LessThanOrEqual"] as const;
export type Comparator = (typeof COMPARATORS)[number];

const handlers = {
  Equal: (a: number, b: number) => a === b,
  GreaterThan: (a: number, b: number) => a > b,
  LessThan: (a: number, b: number) => a < b,
  GreaterThanOrEqual: (a: number, b: number) => a >= b,
  LessThanOrEqual: (a: number, b: number) => a <= b,
} satisfies { [K in Comparator]: (a: number, b: number) => boolean };

export function compare(cmp: Comparator, a: number, b: number): boolean {
  return handlers[cmp](a, b);
}

export const isComparator = (v: unknown): v is Comparator => typeof v === "string" && (COMPARATORS as readonly string[]).includes(v);
