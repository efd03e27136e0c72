import type { Card } from "./battle-data.ts";
import { calculate, calculateFlag, type BooleanCalculator, type Calculator } from "./calculator.ts";
import { PARAM_MAX } from "./ops.ts";
import type { Pool } from "./pool.ts";

/**
 * Numeric parameters (a NumericCalculator changes them) and flag parameters (a BooleanCalculator
 * does): every stat the rules read, each from the card's printed value (docs/rules/dcg.md,
 * "Parameters").
 */
export const NUMERIC_PARAMETERS = ["Attack", "MoveCost", "Cost", "Life"] as const;
export const FLAG_PARAMETERS = ["CanAttack", "CanMove"] as const;
export const PARAMETERS = [...NUMERIC_PARAMETERS, ...FLAG_PARAMETERS] as const;
export type NumericParameter = (typeof NUMERIC_PARAMETERS)[number];
export type FlagParameter = (typeof FLAG_PARAMETERS)[number];
export type Parameter = (typeof PARAMETERS)[number];

export const isFlagParameter = (p: Parameter): p is FlagParameter => p === "CanAttack" || p === "CanMove";

/** BattleData, or a view (whose unseen cards are null; only visible ids are asked about). */
export interface CardsLike {
  readonly cards: readonly (Card | null)[];
}

/**
 * A parameter after every attached ParameterAbility on it, in attachment order, from `base`. A
 * sealed card (NightmareAbility) ignores the abilities it produced itself; buffs from other cards
 * still apply.
 */
function fold<T>(s: CardsLike, pool: Pool, id: number, parameter: Parameter, base: T, step: (calc: Calculator | BooleanCalculator, v: T) => T): T {
  const c = s.cards[id]!;
  let v = base;
  const list = c.attached;
  for (let i = 0; i < list.length; i++) {
    const a = list[i]!;
    if (c.sealed && a.producer === id) continue;
    const ab = pool.abilities[a.ability]!;
    if (ab.type !== "ParameterAbility" || ab.parameter !== parameter) continue;
    v = step(ab.calc, v);
  }
  return v;
}

// Each numeric step saturates (docs/rules/dcg.md, "Stat bounds"): stacked Multiply stays finite.
const numericStep = (calc: Calculator | BooleanCalculator, v: number): number => Math.min(PARAM_MAX, Math.max(-PARAM_MAX, calculate(calc as Calculator, v)));
const flagStep = (calc: Calculator | BooleanCalculator, v: boolean): boolean => calculateFlag(calc as BooleanCalculator, v);

/** A numeric parameter after every attached ParameterAbility (see fold). */
export function paramValue(s: CardsLike, pool: Pool, id: number, parameter: NumericParameter, base: number): number {
  return fold(s, pool, id, parameter, base, numericStep);
}

/** A flag parameter: true unless an attached ParameterAbility says otherwise (see fold). */
export function flagValue(s: CardsLike, pool: Pool, id: number, parameter: FlagParameter): boolean {
  return fold(s, pool, id, parameter, true, flagStep);
}

export function effectiveAttack(s: CardsLike, pool: Pool, id: number): number {
  const c = s.cards[id]!;
  const def = pool.cards[c.def]!;
  if (c.attached.length === 0) return def.attack;
  return Math.min(PARAM_MAX, Math.max(0, paramValue(s, pool, id, "Attack", def.attack)));
}

export function moveCost(s: CardsLike, pool: Pool, id: number): number {
  const c = s.cards[id]!;
  const def = pool.cards[c.def]!;
  if (c.attached.length === 0) return def.move;
  return Math.min(PARAM_MAX, Math.max(0, paramValue(s, pool, id, "MoveCost", def.move)));
}

/**
 * Cost as the rules read it on the Field: the HP its owner loses when the rubric is destroyed
 * (CostDamaged). Summon and declare costs are paid from the printed cost (a card in the hand or
 * face down carries no abilities); FilterCardCost and the cost-3 rules read the printed cost too.
 */
export function effectiveCost(s: CardsLike, pool: Pool, id: number): number {
  const c = s.cards[id]!;
  const def = pool.cards[c.def]!;
  if (!pool.params.Cost || c.attached.length === 0) return def.cost;
  return Math.min(PARAM_MAX, Math.max(0, paramValue(s, pool, id, "Cost", def.cost)));
}

/**
 * Life as the rules read it: the card's full life, printed life through its Life abilities. A unit
 * enters the Field with it, every change of it on the Field moves current life by the same amount
 * (ops.ts, shiftLife), and "damage" (FilterCardDamage) is it minus current life.
 */
export function effectiveLife(s: CardsLike, pool: Pool, id: number): number {
  const c = s.cards[id]!;
  const def = pool.cards[c.def]!;
  if (!pool.params.Life || c.attached.length === 0) return def.life;
  return Math.min(PARAM_MAX, Math.max(0, paramValue(s, pool, id, "Life", def.life)));
}

/** CanAttack: may this rubric attack (or attack directly) at all. No flag ability in the pool: always. */
export function canAttack(s: CardsLike, pool: Pool, id: number): boolean {
  return !pool.params.CanAttack || s.cards[id]!.attached.length === 0 || flagValue(s, pool, id, "CanAttack");
}

/** CanMove: may this rubric declare a move at all. */
export function canMove(s: CardsLike, pool: Pool, id: number): boolean {
  return !pool.params.CanMove || s.cards[id]!.attached.length === 0 || flagValue(s, pool, id, "CanMove");
}
