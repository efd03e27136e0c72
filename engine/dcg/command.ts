import { other, type Seat } from "./battle-data.ts";
import type { Draft } from "./draft.ts";
import { runEffect } from "./effect.ts";
import { changeMp, countActivation, damageCard, damagePlayer, drawCard, enterField, moveUnit, removeFromHand, setFeintDown, toGrave } from "./ops.ts";
import { effectiveCost } from "./params.ts";
import { trigger, TRIGGER_NO, type Trigger, type TriggerType } from "./trigger.ts";

/**
 * Commands (docs/rules/dcg.md): immutable, serialisable records, the only thing that changes
 * BattleData. Each handler applies one command and emits its triggers in a fixed order; resolve.ts
 * then matches abilities against them. Log-only commands (MoveReactNoneCommand, MoveRetryCommand)
 * change only the State and are recorded for observers.
 */
export type Command =
  | { readonly kind: "InitialCommand" }
  | { readonly kind: "CointossCommand"; readonly first: Seat }
  | { readonly kind: "StrategyCommand" }
  | { readonly kind: "StrategyMoveCommand"; readonly seat: Seat; readonly card: number; readonly cell: number }
  | { readonly kind: "StrategyConfirmCommand"; readonly seat: Seat }
  | { readonly kind: "BattleStartCommand" }
  | { readonly kind: "TurnStartCommand"; readonly seat: Seat }
  | { readonly kind: "DrawCommand"; readonly seat: Seat; readonly charge: boolean }
  | { readonly kind: "SummonDeclareCommand"; readonly seat: Seat; readonly card: number; readonly cell: number; readonly react: boolean }
  | { readonly kind: "SummonFinishCommand"; readonly seat: Seat; readonly card: number }
  | { readonly kind: "FeintSetCommand"; readonly seat: Seat; readonly card: number; readonly cell: number; readonly react: boolean }
  | { readonly kind: "MoveDeclareCommand"; readonly card: number; readonly to: number; readonly cost: number }
  | { readonly kind: "MoveReactNoneCommand"; readonly seat: Seat }
  | { readonly kind: "MoveRetryCommand"; readonly card: number; readonly cell: number }
  | { readonly kind: "MoveCommand"; readonly card: number; readonly to: number; readonly cost: number }
  | { readonly kind: "MoveFinishCommand"; readonly card: number }
  | { readonly kind: "AttackDeclareCommand"; readonly card: number; readonly target: number }
  | { readonly kind: "AttackDamageCommand"; readonly card: number; readonly target: number; readonly amount: number }
  | { readonly kind: "AttackDestroyCommand"; readonly card: number; readonly target: number }
  | { readonly kind: "AttackFinishCommand"; readonly card: number; readonly target: number }
  | { readonly kind: "DirectDeclareCommand"; readonly card: number }
  | { readonly kind: "DirectDamageCommand"; readonly card: number; readonly seat: Seat; readonly amount: number }
  | { readonly kind: "DirectFinishCommand"; readonly card: number }
  | { readonly kind: "FeintDeclareCommand"; readonly feint: number; readonly card: number; readonly target: number }
  | { readonly kind: "FeintFinishCommand"; readonly feint: number; readonly declared: boolean; readonly on: "enter" | "attack" }
  | { readonly kind: "EffectDeclareCommand"; readonly card: number; readonly ability: number; readonly producer: number; readonly trigger: Trigger }
  | { readonly kind: "EffectFinishCommand"; readonly card: number; readonly ability: number; readonly trigger: Trigger }
  | { readonly kind: "DestroyCommand"; readonly card: number; readonly cause: TriggerType }
  | { readonly kind: "TurnFinishCommand"; readonly seat: Seat }
  | { readonly kind: "PoisonDamageCommand"; readonly seat: Seat }
  | { readonly kind: "PoisonFinishCommand"; readonly seat: Seat }
  | { readonly kind: "BattleFinishCommand"; readonly winner: Seat | -1 }
  | { readonly kind: "BattleForceFinishCommand"; readonly loser: Seat };

export type CommandKind = Command["kind"];
type Handler<K extends CommandKind> = (c: Extract<Command, { kind: K }>, d: Draft) => void;

/** Where a command's triggers come from (their TriggerType). */
export const COMMAND_TYPE: { readonly [K in CommandKind]: TriggerType } = {
  InitialCommand: "Battle",
  CointossCommand: "Battle",
  StrategyCommand: "Strategy",
  StrategyMoveCommand: "Strategy",
  StrategyConfirmCommand: "Strategy",
  BattleStartCommand: "Battle",
  TurnStartCommand: "Turn",
  DrawCommand: "Draw",
  SummonDeclareCommand: "Summon",
  SummonFinishCommand: "Summon",
  FeintSetCommand: "Feint",
  MoveDeclareCommand: "Move",
  MoveReactNoneCommand: "Move",
  MoveRetryCommand: "Move",
  MoveCommand: "Move",
  MoveFinishCommand: "Move",
  AttackDeclareCommand: "Attack",
  AttackDamageCommand: "Attack",
  AttackDestroyCommand: "Attack",
  AttackFinishCommand: "Attack",
  DirectDeclareCommand: "Direct",
  DirectDamageCommand: "Direct",
  DirectFinishCommand: "Direct",
  FeintDeclareCommand: "Feint",
  FeintFinishCommand: "Feint",
  EffectDeclareCommand: "Effect",
  EffectFinishCommand: "Effect",
  DestroyCommand: "Effect",
  TurnFinishCommand: "Turn",
  PoisonDamageCommand: "Poison",
  PoisonFinishCommand: "Poison",
  BattleFinishCommand: "Battle",
  BattleForceFinishCommand: "Battle",
};

/**
 * A rubric leaving the Field at 0 life costs its owner HP equal to its cost: its Cost parameter,
 * read while it still stands (`cost`, taken before the Grave clears what is attached to it).
 */
function costDamage(d: Draft, id: number, cost: number, type: TriggerType): void {
  const c = d.s.cards[id]!;
  if (d.pool.cards[c.def]!.kind === "rubric") damagePlayer(d, c.owner, cost, TRIGGER_NO.CostDamaged, type, id);
}

export const commandHandlers = {
  InitialCommand: (_c, d) => {
    for (const seat of [0, 1] as const) {
      d.player(seat).hp = d.s.cfg.hp;
      d.emit(TRIGGER_NO.PlayerHpInitialized, "Battle", -1, -1, seat, d.s.cfg.hp);
    }
  },
  CointossCommand: (c, d) => {
    d.s.first = c.first;
    d.s.turnPlayer = c.first;
  },
  StrategyCommand: (_c, d) => d.emit(TRIGGER_NO.StrategyInitialized, "Strategy", -1, -1, -1, 0),
  StrategyMoveCommand: (c, d) => {
    const card = d.s.cards[c.card]!;
    // Swap with an own strategy rubric standing on the destination.
    const other = d.index.strategy[c.seat].find((i) => i !== c.card && d.s.cards[i]!.layer === "Strategy" && d.s.cards[i]!.cell === c.cell) ?? -1;
    if (card.cell >= 0) d.player(c.seat).strategyMoves += 1;
    if (other >= 0) d.card(other).cell = card.cell;
    d.card(c.card).cell = c.cell;
  },
  StrategyConfirmCommand: (c, d) => {
    d.player(c.seat).confirmed = true;
  },
  BattleStartCommand: (_c, d) => {
    const cards = d.s.cards;
    for (let id = 0; id < cards.length; id++) {
      if (cards[id]!.layer !== "Strategy") continue;
      const cell = cards[id]!.cell;
      const c = d.card(id);
      c.summoned = 0;
      enterField(d, id, cell);
      d.card(id).summoned = 0;
      d.emit(TRIGGER_NO.StrategySummoned, "Battle", id, -1, cards[id]!.owner, 0);
    }
    for (const seat of [0, 1] as const) d.rng.shuffle(d.book(seat));
    d.player(d.s.first).mp = d.s.cfg.mpFirst;
    d.player(other(d.s.first)).mp = d.s.cfg.mpSecond;
    for (const seat of [d.s.first, other(d.s.first)]) for (let i = 0; i < d.s.cfg.handStart; i++) drawCard(d, seat, "Battle");
  },
  TurnStartCommand: (c, d) => {
    d.s.turn += 1;
    d.s.turnPlayer = c.seat;
    const p = d.player(c.seat);
    // A player's first turn starts with mpFirst / mpSecond as set at BattleStart.
    if (d.s.turn > 2) changeMp(d, c.seat, Math.min(d.s.cfg.mpCap, p.mp + d.s.cfg.mpGain) - p.mp, "Turn");
    if (p.attacks !== d.s.cfg.attackCount) {
      p.attacks = d.s.cfg.attackCount;
      d.emit(TRIGGER_NO.AttackCountChanged, "Turn", -1, -1, c.seat, p.attacks);
    }
    p.ops = 0;
    for (const seat of [0, 1] as const) if (d.s.players[seat].directDamage !== 0) d.player(seat).directDamage = 0;
    d.emit(TRIGGER_NO.TurnStarted, "Turn", -1, -1, c.seat, d.s.turn);
  },
  DrawCommand: (c, d) => {
    if (c.charge) changeMp(d, c.seat, Math.min(d.s.cfg.mpCap, d.s.players[c.seat].mp + 1) - d.s.players[c.seat].mp, "Draw");
    else drawCard(d, c.seat, "Draw");
  },
  SummonDeclareCommand: (c, d) => {
    const def = d.pool.cards[d.s.cards[c.card]!.def]!;
    if (!c.react) d.player(c.seat).ops += 1;
    removeFromHand(d, c.seat, c.card);
    changeMp(d, c.seat, -def.cost, "Summon");
    enterField(d, c.card, c.cell);
    d.emit(TRIGGER_NO.Summoned, "Summon", c.card, -1, c.seat, 0);
  },
  // The summon and everything that answered it are over (a summoned unit that did not survive its
  // chain is in the Grave by now and does not answer).
  SummonFinishCommand: (c, d) => d.emit(TRIGGER_NO.SummonFinished, "Summon", c.card, -1, c.seat, 0),
  FeintSetCommand: (c, d) => {
    if (!c.react) d.player(c.seat).ops += 1;
    setFeintDown(d, c.seat, c.card, c.cell);
    // The feint's identity is hidden: the trigger names only its owner.
    d.emit(TRIGGER_NO.FeintSet, "Feint", -1, -1, c.seat, 0);
  },
  MoveDeclareCommand: (c, d) => {
    const seat = d.s.cards[c.card]!.owner;
    d.player(seat).ops += 1;
    d.emit(TRIGGER_NO.MoveDeclared, "Move", c.card, -1, seat, c.cost);
  },
  MoveReactNoneCommand: () => {},
  MoveRetryCommand: () => {},
  MoveCommand: (c, d) => {
    const seat = d.s.cards[c.card]!.owner;
    changeMp(d, seat, -c.cost, "Move");
    moveUnit(d, c.card, c.to);
    d.emit(TRIGGER_NO.Moved, "Move", c.card, -1, seat, 0);
  },
  MoveFinishCommand: (c, d) => d.emit(TRIGGER_NO.MoveFinished, "Move", c.card, -1, d.s.cards[c.card]!.owner, 0),
  AttackDeclareCommand: (c, d) => {
    const seat = d.s.cards[c.card]!.owner;
    const p = d.player(seat);
    p.ops += 1;
    p.attacks -= 1;
    d.card(c.card).attacked = d.s.turn;
    d.emit(TRIGGER_NO.AttackDeclared, "Attack", c.card, c.target, seat, 0);
    d.emit(TRIGGER_NO.AttackCountChanged, "Attack", c.card, -1, seat, p.attacks);
  },
  AttackDamageCommand: (c, d) => damageCard(d, c.target, c.amount, TRIGGER_NO.AttackDamaged, "Attack", c.card),
  AttackDestroyCommand: (c, d) => {
    d.emit(TRIGGER_NO.AttackDestroyed, "Attack", c.card, c.target, d.s.cards[c.target]!.owner, 0);
    const cost = effectiveCost(d.s, d.pool, c.target);
    toGrave(d, c.target, "Attack", c.card);
    costDamage(d, c.target, cost, "Attack");
  },
  AttackFinishCommand: (c, d) => d.emit(TRIGGER_NO.AttackFinished, "Attack", c.card, c.target, d.s.cards[c.card]!.owner, 0),
  DirectDeclareCommand: (c, d) => {
    const seat = d.s.cards[c.card]!.owner;
    const p = d.player(seat);
    p.ops += 1;
    p.attacks -= 1;
    d.card(c.card).attacked = d.s.turn;
    d.emit(TRIGGER_NO.DirectDeclared, "Direct", c.card, -1, other(seat), 0);
    d.emit(TRIGGER_NO.AttackCountChanged, "Direct", c.card, -1, seat, p.attacks);
  },
  DirectDamageCommand: (c, d) => {
    if (c.amount <= 0) return;
    d.player(c.seat).directDamage += c.amount;
    damagePlayer(d, c.seat, c.amount, TRIGGER_NO.DirectDamaged, "Direct", c.card);
  },
  DirectFinishCommand: (c, d) => d.emit(TRIGGER_NO.DirectFinished, "Direct", c.card, -1, d.s.cards[c.card]!.owner, 0),
  FeintDeclareCommand: (c, d) => {
    const f = d.s.cards[c.feint]!;
    const def = d.pool.cards[f.def]!;
    changeMp(d, f.owner, -def.cost, "Feint");
    const t = trigger("FeintDeclared", "Feint", c.card, c.target, f.owner, 0);
    d.emitTrigger(t);
    if (def.feint?.effect) runEffect(d, def.feint.effect, { consumer: c.feint, producer: c.feint, owner: f.owner, ability: -1, trigger: t });
  },
  FeintFinishCommand: (c, d) => {
    const f = d.s.cards[c.feint]!;
    if (f.layer !== "Field") return;
    // A passed onEnter feint is revealed and spent; a passed feint of the other kind stays hidden.
    if (c.declared || (c.on === "enter" && d.pool.cards[f.def]!.feint?.on === "enter")) toGrave(d, c.feint, "Feint", -1);
  },
  EffectDeclareCommand: (c, d) => {
    const ab = d.pool.abilities[c.ability]!;
    if (ab.type !== "TriggerAbility") return;
    const owner = d.s.cards[c.card]!.owner;
    countActivation(d, c.card, c.ability);
    d.emit(TRIGGER_NO.EffectDeclared, "Effect", c.card, c.trigger.target, owner, 0);
    runEffect(d, ab.effect, { consumer: c.card, producer: c.producer, owner, ability: c.ability, trigger: c.trigger });
  },
  // The effect and the whole chain it caused are over.
  EffectFinishCommand: (c, d) => d.emit(TRIGGER_NO.EffectFinished, "Effect", c.card, c.trigger.target, d.s.cards[c.card]!.owner, 0),
  DestroyCommand: (c, d) => {
    if (c.cause === "Effect") d.emit(TRIGGER_NO.EffectDestroyed, "Effect", -1, c.card, d.s.cards[c.card]!.owner, 0);
    const cost = effectiveCost(d.s, d.pool, c.card);
    toGrave(d, c.card, c.cause, -1);
    costDamage(d, c.card, cost, c.cause);
  },
  TurnFinishCommand: (c, d) => d.emit(TRIGGER_NO.TurnFinish, "Turn", -1, -1, c.seat, d.s.turn),
  PoisonDamageCommand: (c, d) => {
    // Only a card that was ever poisoned can be poisoned now (the battle index's list, ascending).
    const ids = d.index.poisoned;
    for (let k = 0; k < ids.length; k++) {
      const id = ids[k]!;
      const x = d.s.cards[id]!;
      if (x.owner === c.seat && x.layer === "Field" && x.ailment === "poison" && d.s.cells[x.cell] === id)
        damageCard(d, id, 1, TRIGGER_NO.PoisonDamaged, "Poison", -1);
    }
  },
  PoisonFinishCommand: () => {},
  BattleFinishCommand: (c, d) => {
    d.s.finished = true;
    d.s.winner = c.winner;
  },
  BattleForceFinishCommand: (c, d) => {
    d.s.finished = true;
    d.s.winner = (1 - c.loser) as Seat;
  },
} satisfies { [K in CommandKind]: Handler<K> };
