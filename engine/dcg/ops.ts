import type { Seat } from "./battle-data.ts";
import type { Ailment } from "./battle-data.ts";
import type { Draft } from "./draft.ts";
import { effectiveLife } from "./params.ts";
import { TRIGGER_NO, type TriggerType } from "./trigger.ts";

// Imported functions are aliased once: tsx compiles imports to getter calls, ~20x slower in hot loops.

/**
 * The primitive changes commands and effects are made of. Each emits its triggers into the
 * running command's sink. Only command handlers (command.ts) and the effects they run call these.
 */
export const HAND_CAP = 7;

/**
 * Documented stat bounds (docs/rules/dcg.md, "Stat bounds"): a unit's life never rises above
 * LIFE_MAX; an effective parameter (attack, move cost) lies in 0..PARAM_MAX, and every calculator
 * step on the way saturates into -PARAM_MAX..PARAM_MAX, so no stacking of buffs can overflow.
 */
export const LIFE_MAX = 99;
export const PARAM_MAX = 99;

export function changeMp(d: Draft, seat: Seat, delta: number, type: TriggerType): void {
  if (delta === 0) return;
  const p = d.player(seat);
  p.mp += delta;
  d.emit(TRIGGER_NO.PlayerMpChanged, type, -1, -1, seat, delta);
}

export function damagePlayer(d: Draft, seat: Seat, amount: number, kind: number, type: TriggerType, actor: number): void {
  if (amount <= 0) return;
  d.player(seat).hp -= amount;
  d.emit(kind, type, actor, -1, seat, amount);
}

/** Raises a unit's life by `amount` (>= 0), saturating at LIFE_MAX; emits EffectRecoveredCard with the gain. */
export function recoverCard(d: Draft, id: number, amount: number, actor: number): void {
  const life = d.s.cards[id]!.life;
  const gain = Math.max(0, Math.min(amount, LIFE_MAX - life));
  if (gain > 0) d.card(id).life = life + gain;
  d.emit(TRIGGER_NO.EffectRecoveredCard, "Effect", actor, id, d.s.cards[id]!.owner, gain);
}

/** Raises a player's HP by `amount` (>= 0), never above the starting HP; emits only when HP rose. */
export function recoverPlayer(d: Draft, seat: Seat, amount: number, actor: number): void {
  const gain = Math.min(amount, d.s.cfg.hp - d.s.players[seat].hp);
  if (gain <= 0) return;
  d.player(seat).hp += gain;
  d.emit(TRIGGER_NO.EffectRecoveredPlayerHp, "Effect", actor, -1, seat, gain);
}

export function damageCard(d: Draft, id: number, amount: number, kind: number, type: TriggerType, actor: number): void {
  if (amount < 0) amount = 0;
  d.card(id).life -= amount;
  d.maybeDead = true;
  d.emit(kind, type, actor, id, d.s.cards[id]!.owner, amount);
}

export function setAilment(d: Draft, id: number, ailment: Ailment, type: TriggerType, actor: number): void {
  if (d.s.cards[id]!.ailment === ailment) return;
  d.card(id).ailment = ailment;
  if (ailment === "poison") d.index.notePoisoned(id);
  d.emit(TRIGGER_NO.CardAilmentChanged, type, actor, id, d.s.cards[id]!.owner, 0);
}

/** Draws the top card of the Book; false (nothing happens) with an empty book or a full hand. */
export function drawCard(d: Draft, seat: Seat, type: TriggerType): boolean {
  if (d.s.books[seat].length === 0 || d.s.hands[seat].length >= HAND_CAP) return false;
  const book = d.book(seat);
  const id = book.pop()!;
  d.hand(seat).push(id);
  d.card(id).layer = "Hand";
  d.player(seat).draws += 1;
  d.emit(TRIGGER_NO.Draw, type, id, -1, seat, 1);
  return true;
}

export function removeFromHand(d: Draft, seat: Seat, id: number): void {
  const hand = d.hand(seat);
  const i = hand.indexOf(id);
  if (i >= 0) hand.splice(i, 1);
}

/**
 * Puts a card onto the Field (units) and attaches its own ParameterAbilities: it enters with its
 * full life (Life parameter), its printed life moved by its own Life abilities.
 */
export function enterField(d: Draft, id: number, cell: number): void {
  const c = d.card(id);
  const def = d.pool.cards[c.def]!;
  const before = d.pool.params.Life ? def.life : 0;
  c.layer = "Field";
  c.cell = cell;
  c.summoned = d.s.turn;
  c.attached = def.paramAbilities.map((ability) => ({ ability, producer: id, area: false }));
  for (let i = 0; i < def.paramAbilities.length; i++) d.noteAttached(id, def.paramAbilities[i]!, false);
  d.setCell(cell, id);
  if (d.pool.params.Life) shiftLife(d, id, before);
}

/**
 * Keeps a unit's life in step with its Life parameter (its full life) after what is attached to
 * it or its seal changed: current life moves by the change (a +2 Life buff gives 2 life, losing it
 * takes them back, which can kill: the unit leaves at 0 life like any other), saturating at
 * LIFE_MAX. `before` is the full life before the change. No trigger: this is not damage.
 */
function shiftLife(d: Draft, id: number, before: number): void {
  const c0 = d.s.cards[id]!;
  if (c0.layer !== "Field") return;
  const delta = effectiveLife(d.s, d.pool, id) - before;
  if (delta === 0) return;
  d.card(id).life = Math.min(LIFE_MAX, c0.life + delta);
  if (delta < 0) d.maybeDead = true;
}

/** The full life before a change that shiftLife follows (0, unused, when no card changes Life). */
const lifeBefore = (d: Draft, id: number): number => (d.pool.params.Life ? effectiveLife(d.s, d.pool, id) : 0);

export function setFeintDown(d: Draft, seat: Seat, id: number, cell: number): void {
  removeFromHand(d, seat, id);
  const c = d.card(id);
  c.layer = "Field";
  c.cell = cell;
  d.setFeint(cell, id);
  d.player(seat).feint = id;
}

/** Sends a card (unit, face-down feint or hand card) to its owner's Grave. */
export function toGrave(d: Draft, id: number, type: TriggerType, actor: number): void {
  const c0 = d.s.cards[id]!;
  const seat = c0.owner;
  if (c0.layer === "Field" && c0.cell >= 0) {
    if (d.s.cells[c0.cell] === id) d.setCell(c0.cell, -1);
    if (d.s.feints[c0.cell] === id) {
      d.setFeint(c0.cell, -1);
      d.player(seat).feint = -1;
    }
  }
  if (c0.layer === "Hand") removeFromHand(d, seat, id);
  const c = d.card(id);
  c.layer = "Grave";
  c.cell = -1;
  // Abilities it carried end with it (the dcg design's worked example 2); life and ailment stay as they were at death.
  c.attached = [];
  d.grave(seat).push(id);
  d.emit(TRIGGER_NO.CardGraved, type, actor, id, seat, 0);
}

export function moveUnit(d: Draft, id: number, to: number): void {
  const from = d.s.cards[id]!.cell;
  if (d.s.cells[from] === id) d.setCell(from, -1);
  d.setCell(to, id);
  d.card(id).cell = to;
}

export function attach(d: Draft, id: number, ability: number, producer: number, area: boolean, type: TriggerType): void {
  const c0 = d.s.cards[id]!;
  // The same ability from the same producer never stacks.
  for (const a of c0.attached) if (a.ability === ability && a.producer === producer) return;
  const before = lifeBefore(d, id);
  const c = d.card(id);
  c.attached = [...c0.attached, { ability, producer, area }];
  d.noteAttached(id, ability, area);
  if (d.pool.params.Life) shiftLife(d, id, before);
  d.emit(TRIGGER_NO.AbilityAttached, type, producer, id, c0.owner, 0);
}

export function detachAt(d: Draft, id: number, index: number, type: TriggerType): void {
  const c0 = d.s.cards[id]!;
  const a = c0.attached[index]!;
  const before = lifeBefore(d, id);
  const c = d.card(id);
  c.attached = c0.attached.filter((_, i) => i !== index);
  if (d.pool.params.Life) shiftLife(d, id, before);
  d.emit(TRIGGER_NO.AbilityDetached, type, a.producer, id, c0.owner, 0);
}

export function countActivation(d: Draft, id: number, ability: number): void {
  const c0 = d.s.cards[id]!;
  const acts = c0.actsTurn === d.s.turn ? c0.acts.slice() : [];
  let found = false;
  for (let i = 0; i < acts.length; i += 2) {
    if (acts[i] === ability) {
      acts[i + 1]! += 1;
      found = true;
    }
  }
  if (!found) acts.push(ability, 1);
  const c = d.card(id);
  c.acts = acts;
  c.actsTurn = d.s.turn;
}

/**
 * Seals or unseals a card's own abilities (its TriggerAbilities, AreaAbilities and the
 * ParameterAbilities it produced: their oblivion). AbilityOblivionChanged says so whatever the
 * cause: actor and target are the card, amount 1 when its abilities were sealed, 0 when restored.
 */
export function setSealed(d: Draft, id: number, sealed: boolean, type: TriggerType): void {
  if (d.s.cards[id]!.sealed === sealed) return;
  const before = lifeBefore(d, id);
  d.card(id).sealed = sealed;
  if (d.pool.params.Life) shiftLife(d, id, before);
  d.boardDirty = true;
  d.emit(TRIGGER_NO.AbilityOblivionChanged, type, id, id, d.s.cards[id]!.owner, sealed ? 1 : 0);
}
