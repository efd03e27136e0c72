import Type, { type Static, type TProperties } from "typebox";
import { BOOLEAN_CALCULATOR_MODES, CALCULATOR_MODES, type BooleanCalculator, type Calculator } from "./calculator.ts";
import { CardDataError } from "./card-data-error.ts";
import type { Effect } from "./effect.ts";
import { checkTargeting, isPlayerOnly, isPositional, triggerKindsOf, type Targeting } from "./targeting.ts";
import type { TriggerKind } from "./trigger.ts";
import { isFlagParameter, PARAMETERS, type Parameter } from "./params.ts";
import { checkField, checkFields, F, oneOf } from "./validate.ts";

/**
 * The four Ability types of docs/cards.md, as compiled from JSON (ids index the pool's ability
 * table, which state refers to by number).
 * - TriggerAbility: when every condition holds for a trigger, run the effect.
 * - ParameterAbility: a Calculator on a parameter while attached; detached when every lifetime
 *   condition holds for a trigger (an empty lifetime is forever).
 * - AreaAbility: attaches `ability` to every card its reach yields, recomputed after every command;
 *   removed when out of reach, sealed, or when its producer leaves the Field.
 * - NightmareAbility: while its conditions do not hold, the card's other abilities are sealed.
 */
export type Ability =
  | {
      readonly type: "TriggerAbility";
      readonly id: number;
      readonly conditions: readonly Targeting[];
      readonly effect: Effect;
      /** Trigger kinds it can match (null = any), derived from its conditions. */
      readonly kinds: readonly TriggerKind[] | null;
    }
  | {
      readonly type: "ParameterAbility";
      readonly id: number;
      readonly parameter: Parameter;
      /** A NumericCalculator for a numeric parameter, a BooleanCalculator for a flag (CanAttack, CanMove). */
      readonly calc: Calculator | BooleanCalculator;
      readonly lifetime: readonly Targeting[];
      readonly kinds: readonly TriggerKind[] | null;
    }
  | { readonly type: "AreaAbility"; readonly id: number; readonly reach: Targeting; readonly ability: number }
  | {
      readonly type: "NightmareAbility";
      readonly id: number;
      readonly conditions: readonly Targeting[];
      /** Its conditions read only player data: re-evaluated only when a player or the board changed. */
      readonly playersOnly: boolean;
      /** Its conditions read only positions and printed card data: re-evaluated only when the board changed. */
      readonly positional: boolean;
    };

export type AbilityType = Ability["type"];

/** What an ability compiler may ask of the pool compiler. Errors are thrown as messages with a JSON path. */
export interface AbilityCompiler {
  ability(raw: unknown, path: string): number;
  effect(raw: unknown, path: string): Effect;
  /** The type of a compiled ability id. */
  typeOf(id: number): AbilityType;
}

type Raw = Record<string, unknown>;
type Compiled<K extends AbilityType> = Omit<Extract<Ability, { type: K }>, "id">;

interface AbilityHandler<K extends AbilityType> {
  readonly compile: (raw: Raw, c: AbilityCompiler, path: string) => Compiled<K>;
}

export { CardDataError };

/** A numeric parameter's calculator (NumericCalculator). */
export const CALC = Type.Object({ mode: oneOf(CALCULATOR_MODES), amount: F.amount }, { additionalProperties: false });
/** A flag parameter's calculator (BooleanCalculator): Set / And / Or with a value, or Not alone. */
const FLAG_MODES = BOOLEAN_CALCULATOR_MODES.filter((m) => m !== "Not");
const SET_CALC = Type.Object({ mode: oneOf(FLAG_MODES), value: F.boolean }, { additionalProperties: false });
const NOT_CALC = Type.Object({ mode: Type.Literal("Not") }, { additionalProperties: false });

/**
 * Each ability type's JSON fields (TypeBox; `type` is the tag): the published schema and the
 * loader's check. The compiled forms above carry ids and derived data instead.
 */
export const ABILITY_FIELDS = {
  TriggerAbility: { conditions: F.triggerConditions, effect: F.effect },
  // calc: the NumericCalculator of a numeric parameter or the BooleanCalculator of a flag (the
  // loader checks the pair; the schema each calculator's shape).
  ParameterAbility: { parameter: oneOf(PARAMETERS), calc: Type.Union([CALC, SET_CALC, NOT_CALC]), lifetime: Type.Optional(F.conditions) },
  AreaAbility: { reach: F.targeting, ability: F.parameterAbility },
  NightmareAbility: { conditions: F.conditions },
} as const satisfies Record<AbilityType, TProperties>;

/** Each sentence of a checked list (checkFields checked the list's size). */
function conditions(raw: unknown, path: string): Targeting[] {
  if (!Array.isArray(raw)) return [];
  raw.forEach((t, i) => {
    const err = checkTargeting(t, `${path}[${i}]`);
    if (err) throw new CardDataError(err);
  });
  return raw as Targeting[];
}

/** The calculator a parameter takes: numeric modes for a number, boolean modes for a flag. */
function compileCalc(raw: unknown, parameter: Parameter, path: string): Calculator | BooleanCalculator {
  const mode = (raw as { mode?: unknown } | null)?.mode;
  if (isFlagParameter(parameter)) {
    if (mode === "Not") {
      const err = checkField(NOT_CALC, raw, path);
      if (err) throw new CardDataError(err);
      return { mode: "Not" };
    }
    const err = checkField(SET_CALC, raw, path);
    if (err) throw new CardDataError(`${err} (${parameter} is a flag: a BooleanCalculator)`);
    const calc = raw as { mode: (typeof FLAG_MODES)[number]; value: boolean };
    return { mode: calc.mode, value: calc.value };
  }
  const err = checkField(CALC, raw, path);
  if (err) throw new CardDataError(`${err} (${parameter} is a number: a NumericCalculator)`);
  const calc = raw as Static<typeof CALC>;
  return { mode: calc.mode, amount: calc.amount };
}

export const abilityHandlers = {
  TriggerAbility: {
    compile: (raw, c, path) => {
      const conds = conditions(raw.conditions, `${path}.conditions`);
      // An ability that could answer every trigger answers its own effect's triggers too and runs
      // to the chain budget on every decision: a FilterTriggerKind must say what it answers.
      const kinds = triggerKindsOf(conds);
      if (kinds === null) throw new CardDataError(`${path}.conditions: a TriggerAbility needs a FilterTriggerKind in one of its conditions`);
      return { type: "TriggerAbility", conditions: conds, effect: c.effect(raw.effect, `${path}.effect`), kinds };
    },
  },
  ParameterAbility: {
    compile: (raw, _c, path) => {
      const parameter = raw.parameter as Parameter;
      const lifetime = conditions(raw.lifetime ?? [], `${path}.lifetime`);
      return {
        type: "ParameterAbility",
        parameter,
        calc: compileCalc(raw.calc, parameter, `${path}.calc`),
        lifetime,
        kinds: lifetime.length === 0 ? [] : triggerKindsOf(lifetime),
      };
    },
  },
  AreaAbility: {
    compile: (raw, c, path) => {
      const err = checkTargeting(raw.reach, `${path}.reach`);
      if (err) throw new CardDataError(err);
      const inner = raw.ability as Raw | undefined;
      if (!inner || inner.type !== "ParameterAbility") throw new CardDataError(`${path}.ability: an AreaAbility attaches a ParameterAbility`);
      return { type: "AreaAbility", reach: raw.reach as Targeting, ability: c.ability(inner, `${path}.ability`) };
    },
  },
  NightmareAbility: {
    compile: (raw, _c, path) => {
      const conds = conditions(raw.conditions, `${path}.conditions`);
      return { type: "NightmareAbility", conditions: conds, playersOnly: conds.every(isPlayerOnly), positional: conds.every(isPositional) };
    },
  },
} satisfies { [K in AbilityType]: AbilityHandler<K> };

export function compileAbility(raw: unknown, c: AbilityCompiler, path: string): Omit<Ability, "id"> {
  if (raw === null || typeof raw !== "object" || Array.isArray(raw)) throw new CardDataError(`${path}: an ability must be an object`);
  const r = raw as Raw;
  const type = r.type;
  if (typeof type !== "string" || !Object.hasOwn(abilityHandlers, type)) {
    throw new CardDataError(`${path}.type: unknown ability type ${JSON.stringify(type)} (${Object.keys(abilityHandlers).join(", ")})`);
  }
  const h = abilityHandlers[type as AbilityType];
  const err = checkFields(r, ABILITY_FIELDS[type as AbilityType], path, "type");
  if (err) throw new CardDataError(err);
  return (h.compile as (raw: Raw, c: AbilityCompiler, path: string) => Omit<Ability, "id">)(r, c, path);
}
