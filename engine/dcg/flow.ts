import type { Seat } from "./battle-data.ts";
import { chebyshev, depthOf } from "./board.ts";
import type { Decision } from "./decision.ts";
import { traceTrigger, type Draft } from "./draft.ts";
import { effectiveAttack, moveCost } from "./params.ts";
import { CMD, logCommand, runCommand, runTrigger } from "./resolve.ts";
import { STATE_KINDS, type InputState, type State, type StateKind } from "./state.ts";
import { trigger, type Trigger, type TriggerType } from "./trigger.ts";

/**
 * The phase machine: a decision runs its commands and names the next State; automatic States
 * then chain (each resolving the next) until an input State or BattleFinish. Before every step
 * a player at HP <= 0 ends the battle (both at once: a draw).
 */
export function applyDecision(d: Draft, dec: Decision): void {
  const st = d.s.state;
  const seat = actorOf(d);
  let next: State;
  switch (dec.kind) {
    case "strategyMove":
      runCommand(d, CMD.StrategyMoveCommand, { kind: "StrategyMoveCommand", seat, card: dec.card, cell: dec.cell });
      next = st;
      break;
    case "strategyConfirm":
      runCommand(d, CMD.StrategyConfirmCommand, { kind: "StrategyConfirmCommand", seat });
      next = d.s.players[1 - seat]!.confirmed ? { kind: "BattleStart" } : { kind: "Strategy", seat: (1 - seat) as Seat };
      break;
    case "drawOrCharge":
      runCommand(d, CMD.DrawCommand, { kind: "DrawCommand", seat, charge: dec.charge });
      next = { kind: "Main" };
      break;
    case "summon":
      next = { kind: "SummonDeclare", card: dec.card, cell: dec.cell };
      break;
    case "feint":
      runCommand(d, CMD.FeintSetCommand, { kind: "FeintSetCommand", seat, card: dec.card, cell: dec.cell, react: false });
      next = { kind: "Main" };
      break;
    case "moveDeclare": {
      const from = d.s.cards[dec.card]!.cell;
      const cost = moveCost(d.s, d.pool, dec.card);
      runCommand(d, CMD.MoveDeclareCommand, { kind: "MoveDeclareCommand", card: dec.card, to: dec.cell, cost });
      next = { kind: "MoveDeclare", card: dec.card, from, to: dec.cell, cost };
      break;
    }
    case "reactNone": {
      const m = st as Extract<State, { kind: "MoveDeclare" }>;
      logCommand(d, { kind: "MoveReactNoneCommand", seat });
      next = { kind: "MoveResult", card: m.card, from: m.from, to: m.to, cost: m.cost };
      break;
    }
    case "reactSummon":
    case "reactFeint": {
      const m = st as Extract<State, { kind: "MoveDeclare" }>;
      const retry = { kind: "MoveRetry", card: m.card, from: m.from, cost: m.cost } as const;
      if (dec.kind === "reactSummon") {
        runCommand(d, CMD.SummonDeclareCommand, { kind: "SummonDeclareCommand", seat, card: dec.card, cell: dec.cell, react: true });
        next = { kind: "SummonFinish", card: dec.card, seat, resume: retry };
      } else {
        runCommand(d, CMD.FeintSetCommand, { kind: "FeintSetCommand", seat, card: dec.card, cell: dec.cell, react: true });
        next = retry;
      }
      break;
    }
    case "moveRetry": {
      const m = st as Extract<State, { kind: "MoveRetry" }>;
      logCommand(d, { kind: "MoveRetryCommand", card: m.card, cell: dec.cell });
      next = dec.cell < 0 ? { kind: "Main" } : { kind: "MoveResult", card: m.card, from: m.from, to: dec.cell, cost: m.cost };
      break;
    }
    case "attack":
      next = { kind: "AttackDeclare", card: dec.card, target: d.s.cells[dec.cell]! };
      break;
    case "direct":
      next = { kind: "DirectDeclare", card: dec.card };
      break;
    case "feintDeclare":
    case "feintPass": {
      const f = st as Extract<State, { kind: "FeintDeclare" }>;
      const declared = dec.kind === "feintDeclare";
      if (declared) runCommand(d, CMD.FeintDeclareCommand, { kind: "FeintDeclareCommand", feint: f.feint, card: f.card, target: f.target });
      runCommand(d, CMD.FeintFinishCommand, { kind: "FeintFinishCommand", feint: f.feint, declared, on: f.on });
      // A declared onAttack feint negates the attack.
      if (declared && f.on === "attack")
        next = f.resume === "AttackDamage" ? { kind: "AttackFinish", card: f.card, target: f.target } : { kind: "DirectFinish", card: f.card };
      else next = afterFeint(f);
      break;
    }
    case "turnFinish":
      next = { kind: "TurnFinish" };
      break;
    case "forceFinish":
      runCommand(d, CMD.BattleForceFinishCommand, { kind: "BattleForceFinishCommand", loser: seat });
      next = { kind: "BattleFinish" };
      break;
  }
  advance(d, next);
}

export function actorOf(d: { s: { state: State; turnPlayer: Seat; cards: readonly { owner: Seat }[] } }): Seat {
  const st = d.s.state;
  switch (st.kind) {
    case "Strategy":
    case "FeintDeclare":
      return st.seat;
    case "MoveDeclare":
      return (1 - d.s.turnPlayer) as Seat;
    default:
      return d.s.turnPlayer;
  }
}

function hpCheck(d: Draft): boolean {
  const a = d.s.players[0].hp <= 0;
  const b = d.s.players[1].hp <= 0;
  if (!a && !b) return false;
  runCommand(d, CMD.BattleFinishCommand, { kind: "BattleFinishCommand", winner: a && b ? -1 : a ? 1 : 0 });
  return true;
}

/** The defender's face-down feint within Chebyshev 1 of `cell`, or -1. */
function feintNear(d: Draft, defender: Seat, cell: number): number {
  const f = d.s.players[defender].feint;
  if (f < 0) return -1;
  return chebyshev(d.s.cards[f]!.cell, cell) <= 1 ? f : -1;
}

const onField = (d: Draft, id: number): boolean => {
  const c = d.s.cards[id]!;
  return c.layer === "Field" && d.s.cells[c.cell] === id;
};

/** The flow each State belongs to: the `type` of its StateChanged trigger. */
const STATE_TYPE: { readonly [K in StateKind]: TriggerType } = {
  Initial: "Battle",
  Cointoss: "Battle",
  Strategy: "Strategy",
  BattleStart: "Battle",
  BattleFinish: "Battle",
  TurnStart: "Turn",
  Draw: "Draw",
  Main: "Turn",
  TurnFinish: "Turn",
  PoisonDamage: "Poison",
  MoveDeclare: "Move",
  MoveRetry: "Move",
  MoveResult: "Move",
  MoveFinish: "Move",
  AttackDeclare: "Attack",
  AttackDamage: "Attack",
  AttackDestroy: "Attack",
  AttackFinish: "Attack",
  DirectDeclare: "Direct",
  DirectDamage: "Direct",
  DirectFinish: "Direct",
  SummonDeclare: "Summon",
  SummonFinish: "Summon",
  FeintDeclare: "Feint",
};

/** A different State: another kind, or strategy time passing to the other player. */
function changed(a: State, b: State): boolean {
  return a.kind !== b.kind || (a.kind === "Strategy" && b.kind === "Strategy" && a.seat !== b.seat);
}

/**
 * StateChanged for entering `st`: type = its flow, amount = its index in STATE_KINDS, actor and
 * target = the cards it is about (mover, attacker, summoned card; attacked card) or -1, player =
 * the seat that acts or decides in it (-1 for the battle's own States). A FeintDeclare names the
 * moving or attacking card, never the hidden feint.
 */
function stateTrigger(d: Draft, st: State): Trigger {
  const actor = "card" in st ? st.card : -1;
  const target = "target" in st ? st.target : -1;
  const battle = st.kind === "Initial" || st.kind === "Cointoss" || st.kind === "BattleStart" || st.kind === "BattleFinish";
  const player = battle ? -1 : actorOf({ s: { state: st, turnPlayer: d.s.turnPlayer, cards: d.s.cards } });
  return trigger("StateChanged", STATE_TYPE[st.kind], actor, target, player, STATE_KINDS.indexOf(st.kind));
}

/** The summoned card is still in its owner's hand, affordable, and its cell is empty (no unit, no feint). */
function summonStillFits(d: Draft, card: number, cell: number): boolean {
  const seat = d.s.turnPlayer;
  const cost = d.pool.cards[d.s.cards[card]!.def]!.cost;
  return d.s.hands[seat].includes(card) && d.s.cells[cell]! < 0 && d.s.feints[cell]! < 0 && d.s.players[seat].mp >= cost;
}

/** Where the flow goes when a feint's window does not open. */
function afterFeint(st: Extract<State, { kind: "FeintDeclare" }>): State {
  if (st.resume === "MoveFinish") return { kind: "MoveFinish", card: st.card };
  if (st.resume === "AttackDamage") return { kind: "AttackDamage", card: st.card, target: st.target };
  return { kind: "DirectDamage", card: st.card };
}

export function advance(d: Draft, start: State): void {
  let st = start;
  // StateChanged is built only when some ability could answer it or a trace records it.
  const watch = d.trace !== null || d.pool.listens.StateChanged;
  let was: State = d.s.state;
  for (;;) {
    if (d.s.finished) {
      // Recorded for observers; the battle is over, so no ability answers it.
      if (d.trace && was.kind !== "BattleFinish") traceTrigger(d.trace, stateTrigger(d, { kind: "BattleFinish" }), d.s);
      d.s.state = { kind: "BattleFinish" };
      return;
    }
    const kind = st.kind; // read once: States come in many shapes, so each read of `kind` is a slow (megamorphic) one
    if (kind !== "Initial" && kind !== "Cointoss" && hpCheck(d)) continue;
    if (watch && changed(was, st)) {
      was = st;
      // The attack's target at 0 life is the AttackDestroy step's to destroy (AttackDamageCommand does not sweep either).
      runTrigger(d, stateTrigger(d, st), kind !== "AttackDestroy");
      // What answered may have ended the battle or emptied a player's HP: check again first.
      continue;
    }
    const next = nextState(d, st);
    if (next === null) return;
    st = next;
  }
}

type CombatState = Extract<
  State,
  {
    kind: "AttackDamage" | "AttackDeclare" | "AttackDestroy" | "AttackFinish" | "DirectDamage" | "DirectDeclare" | "DirectFinish" | "MoveFinish" | "MoveResult";
  }
>;
/**
 * One step of the flow from `st`: runs its command and returns the state that follows (the same
 * one when the command ended the battle), or null when the battle now waits for a decision (the
 * state is stored).
 */
function nextState(d: Draft, st: State): State | null {
  // One switch, the States met most first (a Set lookup by kind cost more than the whole switch).
  switch (st.kind) {
    case "MoveResult":
    case "MoveFinish":
    case "AttackDeclare":
    case "AttackDamage":
    case "AttackDestroy":
    case "AttackFinish":
    case "DirectDeclare":
    case "DirectDamage":
    case "DirectFinish":
      return combatStep(d, st);
    case "Main":
    case "MoveDeclare":
    case "Draw":
    case "Strategy":
      d.s.state = st;
      return null;
    case "Initial":
      runCommand(d, CMD.InitialCommand, { kind: "InitialCommand" });
      st = { kind: "Cointoss" };
      break;
    case "Cointoss": {
      const first = d.rng.int(2) as Seat;
      runCommand(d, CMD.CointossCommand, { kind: "CointossCommand", first });
      runCommand(d, CMD.StrategyCommand, { kind: "StrategyCommand" });
      st = { kind: "Strategy", seat: first };
      break;
    }
    case "BattleStart":
      runCommand(d, CMD.BattleStartCommand, { kind: "BattleStartCommand" });
      st = { kind: "TurnStart" };
      break;
    case "TurnStart": {
      if (d.s.turn >= d.s.cfg.turnLimit) {
        const [h0, h1] = [d.s.players[0].hp, d.s.players[1].hp];
        runCommand(d, CMD.BattleFinishCommand, { kind: "BattleFinishCommand", winner: h0 === h1 ? -1 : h0 > h1 ? 0 : 1 });
        break;
      }
      const seat = (d.s.turn === 0 ? d.s.first : 1 - d.s.turnPlayer) as Seat;
      runCommand(d, CMD.TurnStartCommand, { kind: "TurnStartCommand", seat });
      st = d.s.turn === 1 ? { kind: "Main" } : { kind: "Draw" };
      break;
    }
    case "SummonDeclare":
      // An answer to this State's StateChanged may have filled the cell: the summon fizzles.
      if (!summonStillFits(d, st.card, st.cell)) {
        st = { kind: "Main" };
        break;
      }
      runCommand(d, CMD.SummonDeclareCommand, { kind: "SummonDeclareCommand", seat: d.s.turnPlayer, card: st.card, cell: st.cell, react: false });
      st = { kind: "SummonFinish", card: st.card, seat: d.s.turnPlayer, resume: null };
      break;
    case "SummonFinish":
      runCommand(d, CMD.SummonFinishCommand, { kind: "SummonFinishCommand", seat: st.seat, card: st.card });
      st = st.resume ?? { kind: "Main" };
      break;
    case "TurnFinish":
      runCommand(d, CMD.TurnFinishCommand, { kind: "TurnFinishCommand", seat: d.s.turnPlayer });
      st = { kind: "PoisonDamage" };
      break;
    case "PoisonDamage":
      runCommand(d, CMD.PoisonDamageCommand, { kind: "PoisonDamageCommand", seat: d.s.turnPlayer });
      logCommand(d, { kind: "PoisonFinishCommand", seat: d.s.turnPlayer });
      st = { kind: "TurnStart" };
      break;
    case "FeintDeclare":
      // An answer to this State's StateChanged may have spent the feint: no window then.
      if (d.s.feints[st.cell] !== st.feint) {
        st = afterFeint(st);
        break;
      }
      d.s.state = st;
      return null;
    default:
      d.s.state = st as InputState;
      return null;
  }
  return st;
}

/** The steps of a move, an attack and a direct attack (with their feint windows). */
function combatStep(d: Draft, from: CombatState): State {
  let st: State = from;
  switch (st.kind) {
    case "MoveResult": {
      const mover = st.card;
      // The move fizzles (nothing paid) if something took the cell or the mover is gone.
      if (!onField(d, mover) || d.s.cells[st.to]! >= 0 || d.s.players[d.s.cards[mover]!.owner].mp < st.cost) {
        st = { kind: "Main" };
        break;
      }
      runCommand(d, CMD.MoveCommand, { kind: "MoveCommand", card: mover, to: st.to, cost: st.cost });
      const f = d.s.feints[st.to]!;
      if (f >= 0 && d.s.cards[f]!.owner !== d.s.cards[mover]!.owner && onField(d, mover) && d.s.cards[mover]!.cell === st.to) {
        st = { kind: "FeintDeclare", seat: d.s.cards[f]!.owner, on: "enter", feint: f, cell: st.to, card: mover, target: -1, resume: "MoveFinish" };
      } else st = { kind: "MoveFinish", card: mover };
      break;
    }
    case "MoveFinish":
      runCommand(d, CMD.MoveFinishCommand, { kind: "MoveFinishCommand", card: st.card });
      st = { kind: "Main" };
      break;
    case "AttackDeclare": {
      runCommand(d, CMD.AttackDeclareCommand, { kind: "AttackDeclareCommand", card: st.card, target: st.target });
      const defender = (1 - d.s.turnPlayer) as Seat;
      const f = onField(d, st.target) ? feintNear(d, defender, d.s.cards[st.target]!.cell) : -1;
      if (f >= 0 && onField(d, st.card)) {
        st = {
          kind: "FeintDeclare",
          seat: defender,
          on: "attack",
          feint: f,
          cell: d.s.cards[f]!.cell,
          card: st.card,
          target: st.target,
          resume: "AttackDamage",
        };
      } else st = { kind: "AttackDamage", card: st.card, target: st.target };
      break;
    }
    case "AttackDamage":
      if (onField(d, st.card) && onField(d, st.target)) {
        runCommand(d, CMD.AttackDamageCommand, {
          kind: "AttackDamageCommand",
          card: st.card,
          target: st.target,
          amount: effectiveAttack(d.s, d.pool, st.card),
        });
        st = { kind: "AttackDestroy", card: st.card, target: st.target };
      } else st = { kind: "AttackFinish", card: st.card, target: st.target };
      break;
    case "AttackDestroy":
      if (onField(d, st.target) && d.s.cards[st.target]!.life <= 0)
        runCommand(d, CMD.AttackDestroyCommand, { kind: "AttackDestroyCommand", card: st.card, target: st.target });
      st = { kind: "AttackFinish", card: st.card, target: st.target };
      break;
    case "AttackFinish":
      runCommand(d, CMD.AttackFinishCommand, { kind: "AttackFinishCommand", card: st.card, target: st.target });
      st = { kind: "Main" };
      break;
    case "DirectDeclare": {
      runCommand(d, CMD.DirectDeclareCommand, { kind: "DirectDeclareCommand", card: st.card });
      const defender = (1 - d.s.turnPlayer) as Seat;
      const f = onField(d, st.card) ? feintNear(d, defender, d.s.cards[st.card]!.cell) : -1;
      if (f >= 0)
        st = { kind: "FeintDeclare", seat: defender, on: "attack", feint: f, cell: d.s.cards[f]!.cell, card: st.card, target: -1, resume: "DirectDamage" };
      else st = { kind: "DirectDamage", card: st.card };
      break;
    }
    case "DirectDamage": {
      if (onField(d, st.card)) {
        const c = d.s.cards[st.card]!;
        // Standing in the enemy row nearest the centre softens the blow by 1.
        const amount = Math.max(0, effectiveAttack(d.s, d.pool, st.card) - (depthOf(c.cell, c.owner) === 4 ? 1 : 0));
        runCommand(d, CMD.DirectDamageCommand, { kind: "DirectDamageCommand", card: st.card, seat: (1 - c.owner) as Seat, amount });
      }
      st = { kind: "DirectFinish", card: st.card };
      break;
    }
    case "DirectFinish":
      runCommand(d, CMD.DirectFinishCommand, { kind: "DirectFinishCommand", card: st.card });
      st = { kind: "Main" };
      break;
  }
  return st;
}
