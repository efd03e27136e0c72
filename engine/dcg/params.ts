import type { Card } from "./battle-data.ts";
import { calculate } from "./calculator.ts";
import { PARAM_MAX } from "./ops.ts";
import type { Pool } from "./pool.ts";

export const PARAMETERS = ["Attack", "MoveCost"] as const;
export type Parameter = (typeof PARAMETERS)[number];

/** BattleData, or a view (whose unseen cards are null; only visible ids are asked about). */
export interface CardsLike {
  readonly cards: readonly (Card | null)[];
}

/**
 * A parameter after every attached ParameterAbility, in attachment order. A sealed card
 * (NightmareAbility) ignores the abilities it produced itself; buffs from other cards still apply.
 */
export function paramValue(s: CardsLike, pool: Pool, id: number, parameter: Parameter, base: number): number {
  const c = s.cards[id]!;
  let v = base;
  const list = c.attached;
  for (let i = 0; i < list.length; i++) {
    const a = list[i]!;
    if (c.sealed && a.producer === id) continue;
    const ab = pool.abilities[a.ability]!;
    if (ab.type !== "ParameterAbility" || ab.parameter !== parameter) continue;
    // Each step saturates (docs/rules/dcg.md, "Stat bounds"): stacked Multiply stays finite.
    v = calculate(ab.calc, v);
    if (v > PARAM_MAX) v = PARAM_MAX;
    else if (v < -PARAM_MAX) v = -PARAM_MAX;
  }
  return v;
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
