import Type from "typebox";
import { isSeat, type Seat } from "./battle-data.ts";
import { CELLS, cellOf, ROWS, xOf, yOf } from "./board.ts";
import type { Draft } from "./draft.ts";
import { attach, damageCard, damagePlayer, drawCard, moveUnit, recoverCard, recoverPlayer, setAilment, toGrave } from "./ops.ts";
import type { AbilityCompiler } from "./ability.ts";
import { CardDataError } from "./card-data-error.ts";
import { checkTargeting, evaluate, type Items, type Scope, type Targeting } from "./targeting.ts";
import { TRIGGER_NO, type TriggerKind } from "./trigger.ts";
import { checkFields, F, type Direction, type Tagged } from "./validate.ts";

/**
 * Effects (docs/cards.md): what a TriggerAbility or a declared feint does. JSON objects; every
 * Effect picks its objects with a Targeting. One entry per kind: its JSON fields (TypeBox: the TS
 * type, the published schema and the loader's check) and its handler, compiler-checked.
 * (AttachAbility's `ability` is an ability id once compiled; in JSON it is a TriggerAbility or
 * ParameterAbility object or {"ref": n}, the n-th ability of the same card.)
 */
const AMOUNT = { amount: F.amount, target: F.targeting };
export const EFFECT_FIELDS = {
  PlayerDamage: AMOUNT,
  PlayerRecoverHp: AMOUNT,
  CardDamage: AMOUNT,
  CardRecover: AMOUNT,
  CardMove: { direction: F.direction, distance: F.distance, target: F.targeting },
  CardSwap: { target: F.targeting },
  CardAilment: { ailment: F.ailment, target: F.targeting },
  // Exactly one of `ability` (the ability to attach) and `source` (cards whose printed abilities
  // are copied); the loader checks the pair, the schema each field.
  AttachAbility: { ability: Type.Optional(F.ability), source: Type.Optional(F.targeting), target: F.targeting },
  PlayerHand: { amount: F.draws, target: F.targeting },
  ConsumeFeint: { target: F.targeting, amount: Type.Optional(F.count), cut: Type.Optional(F.boolean) },
} as const;

export type EffectKind = keyof typeof EFFECT_FIELDS;
export type Effect = { [K in EffectKind]: Tagged<"kind", K, (typeof EFFECT_FIELDS)[K]> }[EffectKind];

interface EffectHandler<K extends EffectKind> {
  /** Turns checked JSON into the compiled effect, when that is more than a cast (AttachAbility's ability). */
  readonly compile?: (raw: Record<string, unknown>, c: AbilityCompiler, path: string) => Extract<Effect, { kind: K }>;
  readonly run: (e: Extract<Effect, { kind: K }>, d: Draft, scope: Scope) => void;
}

/**
 * The units (rubrics and objects standing on a cell) an item list stands for. A face-down feint is
 * on the Field layer but is no unit: card effects never reach it (ConsumeFeint is the effect for
 * feints), so no effect can move one onto the board or damage it.
 */
function cardsOf(d: Draft, items: Items): number[] {
  if (items.kind === "card") {
    const out: number[] = [];
    for (const id of items.ids) {
      const c = d.s.cards[id]!;
      if (c.layer === "Field" && c.cell >= 0 && d.s.cells[c.cell] === id) out.push(id);
    }
    return out;
  }
  if (items.kind === "cell") return items.ids.map((c) => d.s.cells[c]!).filter((id) => id >= 0);
  return [];
}

/**
 * The abilities AttachAbility's `source` copies: of each card the source yields (cards in any
 * layer, e.g. a defeated enemy in the Grave; cells stand for their units), in item order, its
 * printed TriggerAbilities and ParameterAbilities in the card's JSON order. Its AreaAbilities and
 * NightmareAbility stay with it (they only work printed), as do abilities merely attached to it.
 * A copy is the printed ability itself (same id), so a ParameterAbility keeps its lifetime and a
 * TriggerAbility its conditions, now read for the card carrying the copy. Each id once.
 */
function copiedAbilities(d: Draft, items: Items): number[] {
  const ids = items.kind === "card" ? items.ids : items.kind === "cell" ? items.ids.map((c) => d.s.cells[c]!).filter((id) => id >= 0) : [];
  const out: number[] = [];
  for (const id of ids) {
    for (const ab of d.pool.cards[d.s.cards[id]!.def]!.abilities) {
      const type = d.pool.abilities[ab]!.type;
      if ((type === "TriggerAbility" || type === "ParameterAbility") && !out.includes(ab)) out.push(ab);
    }
  }
  return out;
}

/** Trigger kinds a damage cut undoes: damage to a card (`target`), damage to a player (`player`). */
const CARD_DAMAGE: readonly TriggerKind[] = ["AttackDamaged", "EffectDamagedCard", "PoisonDamaged"];
const PLAYER_DAMAGE: readonly TriggerKind[] = ["DirectDamaged", "EffectDamagedPlayerHp"];

function playersOf(d: Draft, items: Items): Seat[] {
  if (items.kind === "player") return items.ids.filter(isSeat);
  if (items.kind === "card") {
    const out: Seat[] = [];
    for (const id of items.ids) {
      const o = d.s.cards[id]!.owner;
      if (!out.includes(o)) out.push(o);
    }
    return out;
  }
  return [];
}

/** Own-perspective step for CardMove: forward is towards the enemy. */
function step(cell: number, seat: Seat, dir: Direction): number {
  const forward = seat === 0 ? 1 : -1;
  let x = xOf(cell);
  let y = yOf(cell);
  if (dir === "forward") y += forward;
  else if (dir === "back") y -= forward;
  else if (dir === "left") x -= 1;
  else x += 1;
  return x >= 0 && x < 5 && y >= 0 && y < ROWS ? cellOf(x, y) : -1;
}

function hitPlayer(d: Draft, seat: Seat, amount: number, actor: number): void {
  if (amount >= 0) damagePlayer(d, seat, amount, TRIGGER_NO.EffectDamagedPlayerHp, "Effect", actor);
  else recoverPlayer(d, seat, -amount, actor);
}

function healPlayer(d: Draft, seat: Seat, amount: number, actor: number): void {
  if (amount >= 0) recoverPlayer(d, seat, amount, actor);
  else damagePlayer(d, seat, -amount, TRIGGER_NO.EffectDamagedPlayerHp, "Effect", actor);
}

/** Damage with the death check (amount >= 0), or a recovery capped at LIFE_MAX (amount < 0). */
function hitCard(d: Draft, id: number, amount: number, actor: number): void {
  if (amount >= 0) damageCard(d, id, amount, TRIGGER_NO.EffectDamagedCard, "Effect", actor);
  else recoverCard(d, id, -amount, actor);
}

function healCard(d: Draft, id: number, amount: number, actor: number): void {
  if (amount >= 0) recoverCard(d, id, amount, actor);
  else damageCard(d, id, -amount, TRIGGER_NO.EffectDamagedCard, "Effect", actor);
}

export const effectHandlers = {
  // A negative amount means the twin effect with the opposite sign (a negative recover is damage,
  // with its death check; a negative damage is a recover, with its cap), through the same code.
  PlayerDamage: {
    run: (e, d, scope) => {
      for (const seat of playersOf(d, evaluate(d, scope, e.target))) hitPlayer(d, seat, e.amount, scope.consumer);
    },
  },
  PlayerRecoverHp: {
    run: (e, d, scope) => {
      for (const seat of playersOf(d, evaluate(d, scope, e.target))) healPlayer(d, seat, e.amount, scope.consumer);
    },
  },
  CardDamage: {
    run: (e, d, scope) => {
      for (const id of cardsOf(d, evaluate(d, scope, e.target))) hitCard(d, id, e.amount, scope.consumer);
    },
  },
  CardRecover: {
    run: (e, d, scope) => {
      // No cap at printed life (the Abilma example of docs/cards.md: goes from 6 to 9), only at LIFE_MAX.
      for (const id of cardsOf(d, evaluate(d, scope, e.target))) healCard(d, id, e.amount, scope.consumer);
    },
  },
  CardMove: {
    run: (e, d, scope) => {
      for (const id of cardsOf(d, evaluate(d, scope, e.target))) {
        const c = d.s.cards[id]!;
        if (d.pool.cards[c.def]!.kind !== "rubric") continue;
        let at = c.cell;
        for (let i = 0; i < e.distance; i++) {
          const next = step(at, c.owner, e.direction);
          if (next < 0 || d.s.cells[next]! >= 0) break;
          at = next;
        }
        if (at === c.cell) continue;
        moveUnit(d, id, at);
        d.emit(TRIGGER_NO.Teleported, "Effect", scope.consumer, id, c.owner, 0);
      }
    },
  },
  CardSwap: {
    run: (e, d, scope) => {
      const me = d.s.cards[scope.consumer]!;
      if (me.layer !== "Field" || d.s.cells[me.cell] !== scope.consumer) return;
      const other = cardsOf(d, evaluate(d, scope, e.target)).find((id) => id !== scope.consumer);
      if (other === undefined) return;
      const a = me.cell;
      const b = d.s.cards[other]!.cell;
      d.setCell(a, other);
      d.setCell(b, scope.consumer);
      d.card(scope.consumer).cell = b;
      d.card(other).cell = a;
      d.emit(TRIGGER_NO.Teleported, "Effect", scope.consumer, scope.consumer, me.owner, 0);
      d.emit(TRIGGER_NO.Teleported, "Effect", scope.consumer, other, d.s.cards[other]!.owner, 0);
    },
  },
  CardAilment: {
    run: (e, d, scope) => {
      for (const id of cardsOf(d, evaluate(d, scope, e.target))) setAilment(d, id, e.ailment, "Effect", scope.consumer);
    },
  },
  AttachAbility: {
    // In JSON `ability` is an ability object or {"ref": n}; compiled, it is an ability id.
    // Only what works attached: a TriggerAbility or a ParameterAbility. An AreaAbility or a
    // NightmareAbility belongs to the card that prints it (refresh reads printed abilities only).
    // With `source` instead, the abilities are copied from the cards the source yields (the
    // design's "copy the defeated enemy's ability"): see copiedAbilities.
    compile: (raw, c, path) => {
      if ((raw.ability === undefined) === (raw.source === undefined))
        throw new CardDataError(`${path}: AttachAbility takes exactly one of ability (the ability to attach) and source (cards to copy abilities from)`);
      if (raw.source !== undefined) {
        const err = checkTargeting(raw.source, `${path}.source`);
        if (err) throw new CardDataError(err);
        return { kind: "AttachAbility", source: raw.source as Targeting, target: raw.target as Targeting };
      }
      const ability = c.ability(raw.ability, `${path}.ability`);
      const type = c.typeOf(ability);
      if (type !== "TriggerAbility" && type !== "ParameterAbility")
        throw new CardDataError(
          `${path}.ability: AttachAbility attaches a TriggerAbility or a ParameterAbility, not ${type === "AreaAbility" ? "an" : "a"} ${type}`,
        );
      return { kind: "AttachAbility", ability, target: raw.target as Targeting };
    },
    run: (e, d, scope) => {
      const list = e.source === undefined ? [e.ability!] : copiedAbilities(d, evaluate(d, scope, e.source));
      if (list.length === 0) return;
      for (const id of cardsOf(d, evaluate(d, scope, e.target))) for (const ability of list) attach(d, id, ability, scope.consumer, false, "Effect");
    },
  },
  PlayerHand: {
    run: (e, d, scope) => {
      for (const seat of playersOf(d, evaluate(d, scope, e.target))) for (let i = 0; i < e.amount; i++) drawCard(d, seat, "Effect");
    },
  },
  ConsumeFeint: {
    run: (e, d, scope) => {
      // Face-down feints of the targeted players (card targets stand for their owners), or on the
      // targeted cells, go to the Grave unused: all of them, or the first `amount` by cell.
      const items = evaluate(d, scope, e.target);
      const seats = items.kind === "cell" ? [] : playersOf(d, items);
      const hit: number[] = [];
      for (let c = 0; c < CELLS && (e.amount === undefined || hit.length < e.amount); c++) {
        const f = d.s.feints[c]!;
        if (f < 0) continue;
        const owner = d.s.cards[f]!.owner;
        if (seats.includes(owner) || (items.kind === "cell" && items.ids.includes(c))) hit.push(f);
      }
      for (const f of hit) toGrave(d, f, "Effect", scope.consumer);
      // Damage cut: with a feint consumed, the damage of the trigger being answered is undone
      // (units at 0 life leave the Field only after the whole chain, so a cut can save one).
      const t = scope.trigger;
      if (e.cut === true && hit.length > 0 && t !== null && t.amount > 0) {
        if (CARD_DAMAGE.includes(t.kind) && t.target >= 0) d.card(t.target).life += t.amount;
        else if (PLAYER_DAMAGE.includes(t.kind) && t.player !== -1) d.player(t.player).hp += t.amount;
      }
    },
  },
} satisfies { [K in EffectKind]: EffectHandler<K> };

/** Checks and compiles one effect's JSON; throws a CardDataError naming the JSON path. */
export function compileEffect(raw: unknown, path: string, c: AbilityCompiler): Effect {
  if (raw === null || typeof raw !== "object" || Array.isArray(raw)) throw new CardDataError(`${path}: an effect must be an object`);
  const r = raw as Record<string, unknown>;
  const kind = r.kind;
  if (typeof kind !== "string" || !Object.hasOwn(effectHandlers, kind)) {
    throw new CardDataError(`${path}.kind: unknown effect ${JSON.stringify(kind)} (${Object.keys(effectHandlers).join(", ")})`);
  }
  const h = effectHandlers[kind as EffectKind] as EffectHandler<EffectKind>;
  const err = checkFields(r, EFFECT_FIELDS[kind as EffectKind], path);
  if (err) throw new CardDataError(err);
  const tErr = checkTargeting(r.target, `${path}.target`);
  if (tErr) throw new CardDataError(tErr);
  return h.compile ? h.compile(r, c, path) : (r as unknown as Effect);
}

export function runEffect(d: Draft, e: Effect, scope: Scope): void {
  (effectHandlers[e.kind].run as (e: Effect, d: Draft, s: Scope) => void)(e, d, scope);
}
