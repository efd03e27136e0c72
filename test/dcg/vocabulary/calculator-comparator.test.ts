import { describe, expect, it } from "vitest";
import {
  BOOLEAN_CALCULATOR_MODES,
  CALCULATOR_MODES,
  calculate,
  calculateFlag,
  type BooleanCalculator,
  type BooleanCalculatorMode,
  type CalculatorMode,
} from "../../../engine/dcg/calculator.ts";
import { compare, COMPARATORS, type Comparator } from "../../../engine/dcg/comparator.ts";

/** Calculator modes and Comparators (docs/cards.md): each against its definition. */
const calc: { [K in CalculatorMode]: [value: number, amount: number, result: number][] } = {
  Add: [
    [2, 3, 5],
    [2, -3, -1],
  ],
  Subtract: [
    [2, 3, -1],
    [5, 1, 4],
  ],
  Multiply: [
    [2, 3, 6],
    [4, 0, 0],
  ],
  Equalizer: [
    [7, 0, 0],
    [1, 4, 4],
  ],
  Max: [
    [1, 2, 2],
    [3, 2, 3],
  ],
  Min: [
    [1, 2, 1],
    [3, 2, 2],
  ],
};

/** BooleanCalculator modes: [flag, operand (none for Not), result]. */
const flags: { [K in BooleanCalculatorMode]: [value: boolean, operand: boolean | undefined, result: boolean][] } = {
  Set: [
    [true, false, false],
    [false, true, true],
  ],
  And: [
    [true, false, false],
    [true, true, true],
    [false, true, false],
  ],
  Or: [
    [false, true, true],
    [false, false, false],
    [true, false, true],
  ],
  Not: [
    [true, undefined, false],
    [false, undefined, true],
  ],
};

const cmp: { [K in Comparator]: [a: number, b: number, result: boolean][] } = {
  Equal: [
    [3, 3, true],
    [3, 4, false],
  ],
  GreaterThan: [
    [4, 3, true],
    [3, 3, false],
  ],
  LessThan: [
    [2, 3, true],
    [3, 3, false],
  ],
  GreaterThanOrEqual: [
    [3, 3, true],
    [2, 3, false],
  ],
  LessThanOrEqual: [
    [3, 3, true],
    [4, 3, false],
  ],
};

describe("Calculator modes", () => {
  it("the table covers every mode", () => expect(Object.keys(calc).sort()).toEqual([...CALCULATOR_MODES].sort()));
  for (const [mode, rows] of Object.entries(calc)) {
    it(mode, () => {
      for (const [value, amount, result] of rows) expect(calculate({ mode: mode as CalculatorMode, amount }, value)).toBe(result);
    });
  }
});

describe("BooleanCalculator modes", () => {
  it("the table covers every mode", () => expect(Object.keys(flags).sort()).toEqual([...BOOLEAN_CALCULATOR_MODES].sort()));
  for (const [mode, rows] of Object.entries(flags)) {
    it(mode, () => {
      for (const [value, operand, result] of rows) expect(calculateFlag({ mode, value: operand } as BooleanCalculator, value)).toBe(result);
    });
  }
});

describe("Comparators", () => {
  it("the table covers every comparator", () => expect(Object.keys(cmp).sort()).toEqual([...COMPARATORS].sort()));
  for (const [name, rows] of Object.entries(cmp)) {
    it(name, () => {
      for (const [a, b, result] of rows) expect(compare(name as Comparator, a, b)).toBe(result);
    });
  }
});
