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
