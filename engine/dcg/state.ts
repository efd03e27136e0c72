import type { Seat } from "./battle-data.ts";

/**
 * The phase machine of docs/rules/dcg.md as a discriminated union. Input states wait for a decision
 * and are the only ones ever stored in BattleData.state; automatic states chain inside apply
 * (flow.ts) until an input state or BattleFinish is reached. EffectDeclare / EffectInterrupt are
 * the ability resolution (resolve.ts) that runs after every command.
 */
export type State =
  // automatic
  | { readonly kind: "Initial" }
  | { readonly kind: "Cointoss" }
  | { readonly kind: "BattleStart" }
  | { readonly kind: "TurnStart" }
  | { readonly kind: "MoveResult"; readonly card: number; readonly from: number; readonly to: number; readonly cost: number }
  | { readonly kind: "MoveFinish"; readonly card: number }
  | { readonly kind: "AttackDeclare"; readonly card: number; readonly target: number }
  | { readonly kind: "AttackDamage"; readonly card: number; readonly target: number }
  | { readonly kind: "AttackDestroy"; readonly card: number; readonly target: number }
  | { readonly kind: "AttackFinish"; readonly card: number; readonly target: number }
  | { readonly kind: "DirectDeclare"; readonly card: number }
  | { readonly kind: "DirectDamage"; readonly card: number }
  | { readonly kind: "DirectFinish"; readonly card: number }
  | { readonly kind: "SummonDeclare"; readonly card: number; readonly cell: number }
  /**
   * The summon's whole chain (Summoned and what answered it, dead units swept) is over:
   * SummonFinishCommand. Then Main, or the mover's MoveRetry after a reactSummon.
   */
  | { readonly kind: "SummonFinish"; readonly card: number; readonly seat: Seat; readonly resume: Extract<State, { kind: "MoveRetry" }> | null }
  | { readonly kind: "TurnFinish" }
  | { readonly kind: "PoisonDamage" }
  // input
  | { readonly kind: "Strategy"; readonly seat: Seat }
  | { readonly kind: "Draw" }
  | { readonly kind: "Main" }
  /** The mover declared; the opponent reacts (ReactNone / ReactSummon / ReactFeint). */
  | { readonly kind: "MoveDeclare"; readonly card: number; readonly from: number; readonly to: number; readonly cost: number }
  /** After a reaction the mover picks a new destination or cancels. */
  | { readonly kind: "MoveRetry"; readonly card: number; readonly from: number; readonly cost: number }
  /** The owner of the feint at `cell` may declare it (FeintDeclareCommand) or let it pass. */
  | {
      readonly kind: "FeintDeclare";
      readonly seat: Seat;
      /** "enter": a unit entered the feint's cell; "attack": an attack or direct attack nearby. */
      readonly on: "enter" | "attack";
      readonly feint: number;
      readonly cell: number;
      /** The mover or attacker. */
      readonly card: number;
      /** The attacked card, or -1 (move, direct attack). */
      readonly target: number;
      /** Where the flow goes on when the attack is not negated / after the move. */
      readonly resume: "MoveFinish" | "AttackDamage" | "DirectDamage";
    }
  | { readonly kind: "BattleFinish" };

export type StateKind = State["kind"];
export type InputState = Extract<State, { kind: "Strategy" | "Draw" | "Main" | "MoveDeclare" | "MoveRetry" | "FeintDeclare" | "BattleFinish" }>;
/**
 * Every State kind, in the order the rules document lists them; a StateChanged trigger's amount
 * is the new State's index here (FilterTriggerState reads it by name).
 */
export const STATE_KINDS = [
  "Initial",
  "Cointoss",
  "Strategy",
  "BattleStart",
  "BattleFinish",
  "TurnStart",
  "Draw",
  "Main",
  "TurnFinish",
  "PoisonDamage",
  "MoveDeclare",
  "MoveRetry",
  "MoveResult",
  "MoveFinish",
  "AttackDeclare",
  "AttackDamage",
  "AttackDestroy",
  "AttackFinish",
  "DirectDeclare",
  "DirectDamage",
  "DirectFinish",
  "SummonDeclare",
  "SummonFinish",
  "FeintDeclare",
] as const satisfies readonly StateKind[];
// Compile-time check that the list names every State kind.
const _everyState: Record<Exclude<StateKind, (typeof STATE_KINDS)[number]>, never> = {};
void _everyState;

export const INPUT_KINDS = ["Strategy", "Draw", "Main", "MoveDeclare", "MoveRetry", "FeintDeclare", "BattleFinish"] as const;
