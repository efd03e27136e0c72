import {
  decisionEvent as coreDecisionEvent,
  privateEvent,
  publicEvent,
  type EventData,
  type EventFace,
  type EventKind,
  type GameEvent,
} from "../core/index.ts";
import type { Ailment, BattleData, Seat } from "./battle-data.ts";
import { cellName, depthOf } from "./board.ts";
import { cardText } from "./card-text.ts";
import type { Command } from "./command.ts";
import type { Decision } from "./decision.ts";
import type { Trace } from "./draft.ts";
import { effectiveAttack, moveCost } from "./params.ts";
import type { Pool } from "./pool.ts";
import { describeDecision, SEAT_NAME } from "./render.ts";
import type { Trigger } from "./trigger.ts";
import { cardIn } from "./battle-data.ts";
import { defIn, abilityIn } from "./pool.ts";

/**
 * dcg events: what one decision did, in the order it happened, each tagged with who may read it
 * (docs/events.md). Built from a traced re-run of the decision (its commands and triggers, each
 * seen with the working state of that moment), so they are for logs and channels, never for hot
 * paths.
 *
 * Audiences follow the view (docs/rules/dcg.md, "What a seat sees"):
 * - `decision`: the actor's own label (`describe`). A strategy placement or move is the placer's
 *   alone until both confirm: the others read "Guest places or moves a strategy card" (no card, no
 *   cell, not even which of the two: the view hides the opponent's StrategyMove count). A feint
 *   set face down (`feint`, `reactFeint`) names its cell to everyone (a face-down feint's cell and
 *   owner are public) and its card only to its owner. Every other decision is public.
 * - `draw`: the card names go to the drawer only; the others read "Host draws 2 cards", or
 *   nothing for the draw step's own draw (the decision line says it).
 * - everything else is public: it happens on the board, in a Grave or to a public count.
 *
 * Kinds and their `data` keys (stable: clients read them; cells are names such as "C4", cards
 * are card names, seats are 0 / 1 in the event's `seat`):
 * - `decision` {cell?}: the decision; `cell` only on the others' face of a feint set face down.
 * - `play` {card, cell, attack, life}: a unit entered the field (summon, reaction summon).
 * - `reveal` {card, cell, attack?, life?}: a hidden card became known: a strategy card entering
 *   the field at battle start (with its stats), a feint declared, passed (an `enter` feint) or
 *   consumed by an effect.
 * - `move` {card, from, to, by?}: a unit moved (`by`: the card whose effect moved it).
 * - `attack` {card, cell, target, targetCell, direct}: an attack declared; for a direct attack
 *   `target` is the defending seat's name and `targetCell` is null.
 * - `damage` {amount, target, cell, player, life | hp, source, cause}: `player` true for damage to
 *   a player (`hp` after, `cell` null), else to the unit `target` at `cell` (`life` after);
 *   `source` the card that dealt it or null; `cause` "attack" | "direct" | "effect" | "poison" |
 *   "cost" (a player losing HP for a destroyed rubric).
 * - `heal` {amount, target, cell, player, life | hp, source}: the same shape, for recovery.
 * - `death` {card, cell, cause, source}: a unit went to the Grave; `cause` "attack" | "effect" |
 *   "poison" | "feint" | "battle"; `source` the attacker or the last card that damaged it, or null.
 * - `stat` {card, cell, stat, from, to, cause}: a unit's `attack`, `life` or `moveCost` changed
 *   without damage or recovery (numbers), or its `ailment` ("none" | "poison"); `cause` says why
 *   ("Farhalla's aura", "Farhalla's aura ends", "Vogaros's abilities sealed", null when unknown).
 *   A player's MP: {seat name as `card`, cell null, stat "mp", from, to, cause}.
 * - `trigger` {card, cell}: a unit's ability fires ("Thornguard's ability triggers: " and the
 *   ability's rule in words, when it is printed on a card), or its abilities are sealed or
 *   restored by its Nightmare condition.
 * - `draw` {count, cards}: cards drawn (names joined with ", "; the others read only `count`).
 * - `phase` {phase, turn?, cell?}: `phase` "battle" (the battle begins), "turn" (a turn starts:
 *   `turn`, whose turn in `seat`), "react" (the opponent may react to a move), "retry" (the mover
 *   picks a new cell), "feint" (a feint's owner may declare it; `cell`).
 * - `result` {winner, reason}: the battle is over; `winner` 0 / 1, or -1 for a draw.
 * - `info` {}: anything else worth a line ("The attack is negated").
 */

export const who = (seat: Seat): string => SEAT_NAME[seat];

/** The decision event: the actor's label to the actor, the public part of it to everyone else. */
export function decisionEvent(s: BattleData, pool: Pool, d: Decision, seat: Seat): GameEvent {
  const text = describeDecision(s, pool, d, seat);
  const hidden = othersFace(d, seat);
  return hidden === null ? coreDecisionEvent(seat, text) : coreDecisionEvent(seat, text, { to: [seat], others: hidden });
}

/** What the others read of a decision whose label says more than they may know; null when it is public. */
function othersFace(d: Decision, seat: Seat): EventFace | null {
  switch (d.kind) {
    case "strategyMove":
      return { text: `${who(seat)} places or moves a strategy card` };
    case "feint":
      return { text: `${who(seat)} sets a feint face down at ${cellName(d.cell)}`, data: { cell: cellName(d.cell) } };
    case "reactFeint":
      return { text: `${who(seat)} reacts by setting a feint face down at ${cellName(d.cell)}`, data: { cell: cellName(d.cell) } };
    default:
      return null;
  }
}

/**
 * Every event of `decision` applied to `before`. `run` re-applies the decision with the given
 * trace (whose callbacks this module fills in) and returns the state after it.
 */
export function dcgEvents(before: BattleData, pool: Pool, decision: Decision, seat: Seat, run: (trace: Trace) => BattleData): GameEvent[] {
  const n = new Narrator(before, pool);
  n.push(decisionEvent(before, pool, decision, seat));
  const after = run({ commands: [], triggers: [], onCommand: (c, s) => n.command(c, s), onTrigger: (t, s) => n.trigger(t, s) });
  n.finish(after);
  return n.out;
}

interface UnitStats {
  cell: number;
  attack: number;
  life: number;
  move: number;
  ailment: Ailment;
}

interface PendingDraw {
  readonly seat: Seat;
  readonly byDecision: boolean;
  readonly names: string[];
}

const STAT_LABEL = { attack: "attack", life: "life", move: "move cost" } as const;

/** Turns the traced commands and triggers of one decision into events, tracking unit stats to report changes with their cause. */
class Narrator {
  readonly out: GameEvent[] = [];
  private readonly units = new Map<number, UnitStats>();
  /** Whether an attached ability (target card, producer) came from an AreaAbility: to name what a detachment ended. */
  private readonly area = new Map<string, boolean>();
  /** Per unit, the last card that damaged it in this decision (why it died). */
  private readonly lastSource = new Map<number, number>();
  /** Feints declared in this decision (their going to the Grave is no news). */
  private readonly declared = new Set<number>();
  /** Cells of the face-down feints, by card (a feint that goes to the Grave has lost its cell). */
  private readonly feintCells = new Map<number, string>();
  private moveFrom = -1;
  private attacker = -1;
  private draw: PendingDraw | null = null;
  /** Units whose entry line waits for their seal (see `entered`): id, place in `out`, strategy reveal or not. */
  private readonly entering: { id: number; index: number; strategy: boolean }[] = [];

  constructor(
    before: BattleData,
    private readonly pool: Pool,
  ) {
    for (const id of before.cells) {
      if (id < 0) continue;
      this.units.set(id, this.stats(before, id));
      for (const a of cardIn(before, id).attached) this.area.set(`${id}:${a.producer}`, a.area);
    }
    before.feints.forEach((id, cell) => {
      if (id >= 0) this.feintCells.set(id, cellName(cell));
    });
  }

  push(e: GameEvent): void {
    this.flushDraw();
    this.out.push(e);
  }

  private say(kind: EventKind, seat: Seat | null, text: string, data?: EventData): void {
    this.push(publicEvent(kind, seat, text, data));
  }

  private name(s: BattleData, id: number): string {
    return defIn(this.pool, cardIn(s, id).def).name;
  }

  private stats(s: BattleData, id: number): UnitStats {
    const c = cardIn(s, id);
    const rubric = defIn(this.pool, c.def).kind === "rubric";
    return {
      cell: c.cell,
      attack: rubric ? effectiveAttack(s, this.pool, id) : 0,
      life: c.life,
      move: rubric ? moveCost(s, this.pool, id) : 0,
      ailment: c.ailment,
    };
  }

  private cellOf(s: BattleData, id: number): string | null {
    const known = this.units.get(id);
    const cell = known !== undefined ? known.cell : cardIn(s, id).cell;
    return cell >= 0 ? cellName(cell) : null;
  }

  command(c: Command, s: BattleData): void {
    this.settleEntries(s);
    switch (c.kind) {
      case "FeintSetCommand":
        this.feintCells.set(c.card, cellName(c.cell));
        break;
      case "MoveCommand":
        this.moveFrom = cardIn(s, c.card).cell;
        break;
      case "AttackDestroyCommand":
        this.attacker = c.card;
        break;
      case "DirectDamageCommand":
        // A blow softened to nothing changes no HP and emits no trigger: say so, or the attack
        // line would be left without an outcome.
        if (c.amount <= 0) this.noDirectDamage(c.card, c.seat, s);
        break;
      case "BattleStartCommand":
        this.say("phase", null, "Both strategies are revealed: the battle begins", { phase: "battle" });
        break;
      case "EffectDeclareCommand":
        this.abilityFires(c, s);
        break;
      case "FeintDeclareCommand": {
        const f = cardIn(s, c.feint);
        this.declared.add(c.feint);
        const cell = cellName(f.cell);
        const rule = cardText(defIn(this.pool, f.def), this.pool)[0];
        const text = `${who(f.owner)}'s feint at ${cell} is ${this.name(s, c.feint)}${rule !== undefined ? `: ${rule}` : ""}`;
        this.say("reveal", f.owner, text, { card: this.name(s, c.feint), cell });
        if (s.state.kind === "FeintDeclare" && s.state.on === "attack") this.say("info", f.owner, "The attack is negated");
        break;
      }
      case "BattleFinishCommand":
        this.say("result", c.winner === -1 ? null : c.winner, resultText(s, c.winner), { winner: c.winner, reason: resultReason(s) });
        break;
      case "BattleForceFinishCommand": {
        const winner = (1 - c.loser) as Seat;
        this.say("result", winner, `${who(c.loser)} leaves the battle: ${who(winner)} wins`, { winner, reason: "left" });
        break;
      }
      default:
        break;
    }
  }

  trigger(t: Trigger, s: BattleData): void {
    switch (t.kind) {
      case "Summoned":
      case "StrategySummoned":
        return this.entered(t, s);
      case "Moved":
      case "Teleported":
        return this.moved(t, s);
      case "AttackDeclared":
      case "DirectDeclared":
        return this.attack(t, s);
      case "AttackDamaged":
      case "EffectDamagedCard":
      case "PoisonDamaged":
      case "EffectRecoveredCard":
        return this.unitLife(t, s);
      case "DirectDamaged":
      case "EffectDamagedPlayerHp":
      case "CostDamaged":
      case "EffectRecoveredPlayerHp":
        return this.playerHp(t, s);
      case "CardGraved":
        return this.graved(t, s);
      case "Draw":
        return this.drew(t, s);
      case "CardAilmentChanged":
        return this.ailment(t, s);
      case "NightmareSealed":
      case "NightmareUnsealed": {
        if (this.entering.some((e) => e.id === t.actor)) return;
        const text = `${this.name(s, t.actor)}'s abilities are ${t.kind === "NightmareSealed" ? "sealed (its condition no longer holds)" : "restored (its condition holds)"}`;
        return this.say("trigger", cardIn(s, t.actor).owner, text, { card: this.name(s, t.actor), cell: this.cellOf(s, t.actor) });
      }
      case "AbilityAttached":
      case "AbilityDetached":
      case "AbilityOblivionChanged":
        return this.abilities(t, s);
      case "PlayerMpChanged":
        return this.mp(t, s);
      case "TurnStarted": {
        const seat = t.player as Seat;
        return this.say("phase", seat, `Turn ${t.amount}: ${who(seat)}'s turn`, { phase: "turn", turn: t.amount });
      }
      default:
        return;
    }
  }

  /**
   * A unit entered the field. One with a Nightmare condition has its seal settled only after the
   * command that brought it in: its line keeps its place but is written then (`settleEntries`),
   * with the stats it really has, and no seal or stat line for it comes before.
   */
  /** A TriggerAbility fires (EffectDeclareCommand): the unit, and the ability's rule in words. */
  private abilityFires(c: Extract<Command, { kind: "EffectDeclareCommand" }>, s: BattleData): void {
    if (abilityIn(this.pool, c.ability).type !== "TriggerAbility") return;
    const name = this.name(s, c.card);
    const rule = this.ruleOf(s, c.ability, c.producer);
    const text = `${name}'s ability triggers${rule !== null ? `: ${rule}` : ""}`;
    this.say("trigger", cardIn(s, c.card).owner, text, { card: name, cell: this.cellOf(s, c.card) });
  }

  /** The rule text of ability `ability`, printed on the card `producer` (own or attached), or null. */
  private ruleOf(s: BattleData, ability: number, producer: number): string | null {
    const def = defIn(this.pool, cardIn(s, producer).def);
    const i = def.abilities.indexOf(ability);
    return i < 0 ? null : (cardText(def, this.pool)[i] ?? null);
  }

  private entered(t: Trigger, s: BattleData): void {
    const id = t.actor;
    if (defIn(this.pool, cardIn(s, id).def).nightmare >= 0) {
      this.push(publicEvent("info", null, "-"));
      this.entering.push({ id, index: this.out.length - 1, strategy: t.kind === "StrategySummoned" });
      return;
    }
    this.push(this.entryEvent(s, id, t.kind === "StrategySummoned"));
  }

  /** Writes the lines of units whose entry waited for their seal to settle. */
  private settleEntries(s: BattleData): void {
    for (const e of this.entering) this.out[e.index] = this.entryEvent(s, e.id, e.strategy);
    this.entering.length = 0;
  }

  private entryEvent(s: BattleData, id: number, strategy: boolean): GameEvent {
    const st = this.stats(s, id);
    this.units.set(id, st);
    const name = this.name(s, id);
    const cell = cellName(st.cell);
    const rubric = defIn(this.pool, cardIn(s, id).def).kind === "rubric";
    const stats = rubric ? `${st.attack}/${st.life}` : `life ${st.life}`;
    const owner = cardIn(s, id).owner;
    const data = { card: name, cell, attack: st.attack, life: st.life };
    if (strategy) return publicEvent("reveal", owner, `${who(owner)}'s strategy card ${name} enters the field at ${cell} (${stats})`, data);
    return publicEvent("play", owner, `${name} enters the field at ${cell} (${stats})`, data);
  }

  private moved(t: Trigger, s: BattleData): void {
    const id = t.kind === "Moved" ? t.actor : t.target;
    const known = this.units.get(id);
    const from = t.kind === "Moved" ? this.moveFrom : (known?.cell ?? -1);
    const to = cardIn(s, id).cell;
    if (known !== undefined) known.cell = to;
    const name = this.name(s, id);
    const owner = cardIn(s, id).owner;
    if (t.kind === "Moved")
      this.say("move", owner, `${name} moves ${cellName(from)} -> ${cellName(to)}`, { card: name, from: cellName(from), to: cellName(to) });
    else {
      const by = this.name(s, t.actor);
      this.say("move", owner, `${name} is moved ${from >= 0 ? cellName(from) : "?"} -> ${cellName(to)} by ${by}`, {
        card: name,
        from: from >= 0 ? cellName(from) : null,
        to: cellName(to),
        by,
      });
    }
  }

  private attack(t: Trigger, s: BattleData): void {
    const name = this.name(s, t.actor);
    const cell = cellName(cardIn(s, t.actor).cell);
    const owner = cardIn(s, t.actor).owner;
    if (t.kind === "DirectDeclared") {
      const foe = t.player as Seat;
      this.say("attack", owner, `${name} at ${cell} attacks ${who(foe)} directly`, { card: name, cell, target: who(foe), targetCell: null, direct: true });
      return;
    }
    const target = this.name(s, t.target);
    const targetCell = cellName(cardIn(s, t.target).cell);
    this.say("attack", owner, `${name} at ${cell} attacks ${target} at ${targetCell}`, { card: name, cell, target, targetCell, direct: false });
  }

  private unitLife(t: Trigger, s: BattleData): void {
    const id = t.target;
    const name = this.name(s, id);
    const after = cardIn(s, id).life;
    const heal = t.kind === "EffectRecoveredCard";
    const before = heal ? after - t.amount : after + t.amount;
    const known = this.units.get(id);
    if (known !== undefined) known.life = after;
    const cell = this.cellOf(s, id);
    const owner = cardIn(s, id).owner;
    const source = t.actor >= 0 ? this.name(s, t.actor) : null;
    if (heal) {
      if (t.amount <= 0) return;
      const text = `${name} recovers ${t.amount} life${source !== null ? ` from ${source}` : ""} (${before} -> ${after})`;
      this.say("heal", owner, text, { amount: t.amount, target: name, cell, player: false, life: after, source });
      return;
    }
    if (t.actor >= 0) this.lastSource.set(id, t.actor);
    const cause = t.kind === "AttackDamaged" ? "attack" : t.kind === "PoisonDamaged" ? "poison" : "effect";
    const what = cause === "poison" ? `${t.amount} poison damage` : `${t.amount} damage${source !== null ? ` from ${source}` : ""}`;
    this.say("damage", owner, `${name} takes ${what} (life ${before} -> ${after})`, {
      amount: t.amount,
      target: name,
      cell,
      player: false,
      life: after,
      source,
      cause,
    });
  }

  private playerHp(t: Trigger, s: BattleData): void {
    const seat = t.player as Seat;
    const after = s.players[seat].hp;
    const heal = t.kind === "EffectRecoveredPlayerHp";
    const before = heal ? after - t.amount : after + t.amount;
    const source = t.actor >= 0 ? this.name(s, t.actor) : null;
    if (heal) {
      const text = `${who(seat)} recovers ${t.amount} HP${source !== null ? ` from ${source}` : ""} (${before} -> ${after})`;
      this.say("heal", seat, text, { amount: t.amount, target: who(seat), cell: null, player: true, hp: after, source });
      return;
    }
    const cause = t.kind === "CostDamaged" ? "cost" : t.kind === "DirectDamaged" ? "direct" : "effect";
    const text =
      cause === "cost"
        ? `${who(seat)} loses ${t.amount} HP for losing ${source ?? "a rubric"} (HP ${before} -> ${after})`
        : `${who(seat)} takes ${t.amount} damage${source !== null ? ` from ${source}` : ""} (HP ${before} -> ${after})`;
    this.say("damage", seat, text, { amount: t.amount, target: who(seat), cell: null, player: true, hp: after, source, cause });
  }

  /** A direct attack that deals no damage (its attack, less the row's softening, is 0). */
  private noDirectDamage(card: number, seat: Seat, s: BattleData): void {
    const source = this.name(s, card);
    const hp = s.players[seat].hp;
    const softened = depthOf(cardIn(s, card).cell, cardIn(s, card).owner) === 4;
    const why = softened ? ": the row nearest the centre softens the blow by 1" : "";
    this.say("damage", seat, `${who(seat)} takes 0 damage from ${source}${why} (HP ${hp} -> ${hp})`, {
      amount: 0,
      target: who(seat),
      cell: null,
      player: true,
      hp,
      source,
      cause: "direct",
    });
  }

  private graved(t: Trigger, s: BattleData): void {
    const id = t.target;
    const name = this.name(s, id);
    const owner = cardIn(s, id).owner;
    const known = this.units.get(id);
    if (known === undefined) {
      // Not a unit: a feint leaving the field (declared ones were revealed already).
      if (defIn(this.pool, cardIn(s, id).def).kind !== "feint" || this.declared.has(id)) return;
      const at = this.feintCell(s, id);
      const how = t.type === "Effect" && t.actor >= 0 ? `is consumed by ${this.name(s, t.actor)}` : "goes to the Grave unused";
      this.say("reveal", owner, `${who(owner)}'s feint${at !== null ? ` at ${at}` : ""} was ${name}: it ${how}`, { card: name, cell: at });
      return;
    }
    this.units.delete(id);
    const cell = known.cell >= 0 ? cellName(known.cell) : null;
    const killer = t.type === "Attack" && this.attacker >= 0 ? this.attacker : (this.lastSource.get(id) ?? -1);
    const source = killer >= 0 ? this.name(s, killer) : null;
    const cause = t.type === "Attack" ? "attack" : t.type === "Poison" ? "poison" : t.type === "Effect" ? "effect" : t.type === "Feint" ? "feint" : "battle";
    const why = cause === "attack" && source !== null ? ` by ${source}'s attack` : cause === "poison" ? " by poison" : source !== null ? ` by ${source}` : "";
    this.say("death", owner, `${name} is destroyed${why}`, { card: name, cell, cause, source });
  }

  /** A feint's cell: one that just left the field no longer has it, so it is remembered from before the decision or its setting. */
  private feintCell(s: BattleData, id: number): string | null {
    const cell = s.feints.indexOf(id);
    return cell >= 0 ? cellName(cell) : (this.feintCells.get(id) ?? null);
  }

  private drew(t: Trigger, s: BattleData): void {
    const seat = t.player as Seat;
    const byDecision = t.type === "Draw";
    if (this.draw === null || this.draw.seat !== seat || this.draw.byDecision !== byDecision) {
      this.flushDraw();
      this.draw = { seat, byDecision, names: [] };
    }
    this.draw.names.push(this.name(s, t.actor));
  }

  private flushDraw(): void {
    const d = this.draw;
    if (d === null) return;
    this.draw = null;
    const count = d.names.length;
    const cards = d.names.join(", ");
    const face: EventFace = { text: `${who(d.seat)} draws ${cards}`, data: { count, cards } };
    const others: EventFace = { text: `${who(d.seat)} draws ${count === 1 ? "a card" : `${count} cards`}`, data: { count } };
    this.out.push(privateEvent("draw", d.seat, [d.seat], face, d.byDecision ? null : others));
  }

  private ailment(t: Trigger, s: BattleData): void {
    const id = t.target;
    const known = this.units.get(id);
    const from = known?.ailment ?? "none";
    const to = cardIn(s, id).ailment;
    if (known !== undefined) known.ailment = to;
    const name = this.name(s, id);
    const cause = t.actor >= 0 ? this.name(s, t.actor) : null;
    const text = to === "poison" ? `${name} is poisoned` : `${name} is cured of poison`;
    this.say("stat", cardIn(s, id).owner, cause !== null ? `${text} (${cause})` : text, {
      card: name,
      cell: this.cellOf(s, id),
      stat: "ailment",
      from,
      to,
      cause,
    });
  }

  private abilities(t: Trigger, s: BattleData): void {
    let cause: string;
    if (t.kind === "AbilityOblivionChanged") cause = `${this.name(s, t.actor)}'s abilities ${t.amount === 1 ? "sealed" : "restored"}`;
    else {
      const key = `${t.target}:${t.actor}`;
      const own = t.actor === t.target;
      let area = this.area.get(key) ?? false;
      if (t.kind === "AbilityAttached") {
        area = cardIn(s, t.target).attached.some((a) => a.producer === t.actor && a.area);
        this.area.set(key, area);
      }
      const what = own ? `${this.name(s, t.actor)}'s own ability` : area ? `${this.name(s, t.actor)}'s aura` : `${this.name(s, t.actor)}'s effect`;
      cause = t.kind === "AbilityAttached" ? what : `${what} ends`;
    }
    this.restat(s, cause);
  }

  /** Reports every unit whose attack, life or move cost moved since last seen, with `cause`. */
  private restat(s: BattleData, cause: string | null): void {
    for (const [id, known] of this.units) {
      if (this.entering.some((e) => e.id === id)) continue;
      const c = cardIn(s, id);
      if (c.layer !== "Field" || s.cells[c.cell] !== id) continue;
      const now = this.stats(s, id);
      for (const stat of ["attack", "life", "move"] as const) {
        if (now[stat] === known[stat]) continue;
        const name = this.name(s, id);
        const text = `${name}'s ${STAT_LABEL[stat]} ${known[stat]} -> ${now[stat]}${cause !== null ? ` (${cause})` : ""}`;
        this.say("stat", c.owner, text, {
          card: name,
          cell: cellName(c.cell),
          stat: stat === "move" ? "moveCost" : stat,
          from: known[stat],
          to: now[stat],
          cause,
        });
        known[stat] = now[stat];
      }
    }
  }

  private mp(t: Trigger, s: BattleData): void {
    const seat = t.player as Seat;
    const to = s.players[seat].mp;
    const from = to - t.amount;
    const cause = t.type.toLowerCase();
    this.say("stat", seat, `${who(seat)}'s MP ${from} -> ${to}`, { card: who(seat), cell: null, stat: "mp", from, to, cause });
  }

  /** Stat changes no trigger explained, and what the next decision waits for. */
  finish(after: BattleData): void {
    this.settleEntries(after);
    this.restat(after, null);
    const st = after.state;
    if (st.kind === "MoveDeclare") {
      const reactor = (1 - after.turnPlayer) as Seat;
      this.say("phase", reactor, `${who(reactor)} may react to the move of ${this.name(after, st.card)} to ${cellName(st.to)}`, {
        phase: "react",
        cell: cellName(st.to),
      });
    } else if (st.kind === "MoveRetry") {
      this.say("phase", after.turnPlayer, `${who(after.turnPlayer)} picks a new cell for ${this.name(after, st.card)} or cancels the move`, { phase: "retry" });
    } else if (st.kind === "FeintDeclare") {
      const cell = cellName(st.cell);
      this.say("phase", st.seat, `${who(st.seat)} may declare the feint at ${cell}`, { phase: "feint", cell });
    }
    this.flushDraw();
  }
}

function resultReason(s: BattleData): string {
  const [a, b] = [s.players[0].hp, s.players[1].hp];
  return a <= 0 || b <= 0 ? "hp" : "turnLimit";
}

function resultText(s: BattleData, winner: Seat | -1): string {
  const [a, b] = [s.players[0].hp, s.players[1].hp];
  if (a <= 0 || b <= 0) {
    if (winner < 0) return "Both players are at 0 HP: the battle is a draw";
    const loser = (1 - winner) as Seat;
    return `${who(loser)} is at ${Math.max(0, s.players[loser].hp)} HP: ${who(winner as Seat)} wins`;
  }
  if (winner === -1) return `The turn limit is reached with equal HP (${a} to ${b}): the battle is a draw`;
  return `The turn limit is reached: ${who(winner)} wins on HP (${s.players[winner].hp} to ${s.players[(1 - winner) as Seat].hp})`;
}
