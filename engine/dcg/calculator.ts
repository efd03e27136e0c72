/** NumericCalculator modes (docs/cards.md): how a ParameterAbility changes a parameter. */
export const CALCULATOR_MODES = ["Add", "Subtract", "Multiply", "Equalizer", "Max", "Min"] as const;
export type CalculatorMode = (typeof CALCULATOR_MODES)[number];

export interface Calculator {
  readonly mode: CalculatorMode;
  readonly amount: number;
}

const handlers = {
  Add: (v: number, a: number) => v + a,
  Subtract: (v: number, a: number) => v - a,
  Multiply: (v: number, a: number) => v * a,
  Equalizer: (_v: number, a: number) => a,
  Max: (v: number, a: number) => Math.max(v, a),
  Min: (v: number, a: number) => Math.min(v, a),
} satisfies { [K in CalculatorMode]: (value: number, amount: number) => number };

export function calculate(calc: Calculator, value: number): number {
  return handlers[calc.mode](value, calc.amount);
}

export const isCalculatorMode = (v: unknown): v is CalculatorMode => typeof v === "string" && (CALCULATOR_MODES as readonly string[]).includes(v);

/**
 * BooleanCalculator modes (docs/cards.md): how a ParameterAbility changes a flag parameter
 * (CanAttack, CanMove). Set: the flag becomes `value`; And / Or: combined with `value`; Not:
 * flipped (no value).
 */
export const BOOLEAN_CALCULATOR_MODES = ["Set", "And", "Or", "Not"] as const;
export type BooleanCalculatorMode = (typeof BOOLEAN_CALCULATOR_MODES)[number];

export type BooleanCalculator =
  { readonly mode: Exclude<BooleanCalculatorMode, "Not">; readonly value: boolean } | { readonly mode: "Not"; readonly value?: undefined };

const booleanHandlers = {
  Set: (_v: boolean, a: boolean) => a,
  And: (v: boolean, a: boolean) => v && a,
  Or: (v: boolean, a: boolean) => v || a,
  Not: (v: boolean) => !v,
} satisfies { [K in BooleanCalculatorMode]: (value: boolean, operand: boolean) => boolean };

export function calculateFlag(calc: BooleanCalculator, value: boolean): boolean {
  return booleanHandlers[calc.mode](value, calc.value === true);
}
