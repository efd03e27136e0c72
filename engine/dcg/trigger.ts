import type { Seat } from "./battle-data.ts";

/**
 * Triggers: the events commands emit (docs/rules/dcg.md), past tense. Abilities match them; observers
 * (tests, the play CLI) read them. Seed names without the "Trigger" suffix.
 */
export const TRIGGER_KINDS = [
  "Summoned",
  "StrategySummoned",
  "MoveDeclared",
  "Moved",
  "MoveFinished",
  "Teleported",
  "AttackDeclared",
  "AttackDamaged",
  "AttackDestroyed",
  "AttackFinished",
  "AttackCountChanged",
  "DirectDeclared",
  "DirectDamaged",
  "DirectFinished",
  "EffectDeclared",
  "EffectDamagedCard",
  "EffectDamagedPlayerHp",
  "EffectRecoveredCard",
  "EffectRecoveredPlayerHp",
  "EffectDestroyed",
  "CostDamaged",
  "CardGraved",
  "Draw",
  "CardAilmentChanged",
  "AbilityAttached",
  "AbilityDetached",
  "AbilityOblivionChanged",
  "PlayerMpChanged",
  "PlayerHpInitialized",
  "TurnStarted",
  "TurnFinish",
  "StrategyInitialized",
  "StateChanged",
  "NightmareSealed",
  "NightmareUnsealed",
  // Not in the dcg design's list; these rules need them. SummonFinished and EffectFinished are
  // what the design's SummonFinishCommand and EffectFinishCommand emit (it names no trigger for them).
  "FeintSet",
  "FeintDeclared",
  "PoisonDamaged",
  "SummonFinished",
  "EffectFinished",
] as const;
export type TriggerKind = (typeof TRIGGER_KINDS)[number];

/**
 * Each trigger kind's number, its position in TRIGGER_KINDS. The engine emits triggers by number
 * (`d.emit(TRIGGER_NO.Moved, ...)`) and its hot paths index per-kind tables by it: a lookup by a
 * kind name that varies is a slow (megamorphic) property read. Triggers carry the name.
 */
export const TRIGGER_NO: { readonly [K in TriggerKind]: number } = Object.freeze(
  Object.fromEntries(TRIGGER_KINDS.map((kind, no) => [kind, no])) as { [K in TriggerKind]: number },
);

/**
 * A trigger's type is the flow that emitted it (the category of the emitting command), so
 * "graved by an attack" is FilterTriggerKind(CardGraved) & FilterTriggerType(Attack).
 */
export const TRIGGER_TYPES = ["Battle", "Strategy", "Turn", "Draw", "Summon", "Feint", "Move", "Attack", "Direct", "Effect", "Poison"] as const;
export type TriggerType = (typeof TRIGGER_TYPES)[number];

export interface Trigger {
  readonly kind: TriggerKind;
  readonly type: TriggerType;
  /** The card that acted (attacker, mover, summoned card, effect source), or -1. */
  readonly actor: number;
  /** The card acted upon (attacked, damaged, graved card), or -1. */
  readonly target: number;
  /** The player concerned (damaged player, drawer, turn player), or -1. */
  readonly player: Seat | -1;
  /** Damage, recovery or MP amount, or 0. */
  readonly amount: number;
}

export function trigger(kind: TriggerKind, type: TriggerType, actor: number, target: number, player: Seat | -1, amount: number): Trigger {
  return { kind, type, actor, target, player, amount };
}
