import Type from "typebox";
import { asSeat, type Seat } from "./battle-data.ts";
import { cellOf, depthOf, inEnemyHome, relCell } from "./board.ts";
import { compare } from "./comparator.ts";
import type { Draft } from "./draft.ts";
import { byNumber } from "./heads.ts";
import { effectiveAttack, effectiveLife } from "./params.ts";
import type { Items, PhraseHandler, Scope } from "./targeting.ts";
import { STATE_KINDS } from "./state.ts";
import { F, listOf, type RowName, type Tagged } from "./validate.ts";

/**
 * Targeting Pipes (docs/cards.md): filters applied to the items the sentence has so far. One
 * entry per Pipe: its JSON fields (TypeBox: the TS type below, the published schema and the
 * loader's check) and its handler with what it reads (see PhraseHandler), so adding a Pipe is a
 * change to this file only.
 */
const CMP = { cmp: F.comparator, value: F.value };
const EXCEPT = { except: Type.Optional(F.boolean) };
export const PIPE_FIELDS = {
  FilterCardOwner: { opponent: F.boolean },
  FilterCardKind: { cardKind: F.cardKind },
  FilterCardCost: CMP,
  FilterCardAttack: CMP,
  FilterCardHp: CMP,
  FilterCardDamage: { cmp: Type.Optional(F.comparator), value: Type.Optional(F.value) },
  FilterCardAilment: { ailment: F.ailmentFilter },
  FilterLayer: { layer: Type.Optional(F.layer), row: Type.Optional(F.row) },
  FilterCardCell: { cells: F.cells },
  FilterInvader: { invader: Type.Optional(F.boolean) },
  FilterTriggerType: { types: F.triggerTypes },
  FilterTriggerKind: { triggers: F.triggerKinds },
  FilterTriggerDamage: CMP,
  FilterTriggerState: { states: listOf(STATE_KINDS) },
  FilterTargetCard: EXCEPT,
  FilterAbilityConsumer: EXCEPT,
  FilterAbilityProducer: EXCEPT,
  FilterActivateCount: CMP,
  FilterTurnPlayer: { opponent: Type.Optional(F.boolean) },
  FilterPlayerDirectDamageInThisTurn: CMP,
  FilterPlayerHp: CMP,
  Take: { count: F.count, mode: F.takeMode },
  Count: CMP,
} as const;

export type PipeKind = keyof typeof PIPE_FIELDS;
export type PipePhrase = { [K in PipeKind]: Tagged<"kind", K, (typeof PIPE_FIELDS)[K]> }[PipeKind];

/** Cards an item list stands for: cards themselves, or the units standing on cells. */
function asCards(d: Draft, items: Items): number[] {
  if (items.kind === "card") return items.ids;
  const out: number[] = [];
  if (items.kind === "cell") {
    for (let i = 0; i < items.ids.length; i++) {
      const u = d.s.cells[items.ids[i]!]!;
      if (u >= 0) out.push(u);
    }
  }
  return out;
}

// The filters below are written as plain loops without per-call closures: they run after every
// command (AreaAbility reach, NightmareAbility conditions) and dominate playout time otherwise.
type CardTest<P> = (p: P, d: Draft, scope: Scope, id: number) => boolean;

function filterCards<P>(test: CardTest<P>) {
  return (p: P, d: Draft, scope: Scope, items: Items): Items => {
    const ids = asCards(d, items);
    const out: number[] = [];
    for (let i = 0; i < ids.length; i++) if (test(p, d, scope, ids[i]!)) out.push(ids[i]!);
    return { kind: "card", ids: out };
  };
}

function filterPlayers<P>(test: (p: P, d: Draft, seat: Seat) => boolean) {
  return (p: P, d: Draft, _scope: Scope, items: Items): Items => {
    if (items.kind !== "player") return NONE;
    const out: number[] = [];
    for (let i = 0; i < items.ids.length; i++) if (test(p, d, asSeat(items.ids[i]!))) out.push(items.ids[i]!);
    return { kind: "player", ids: out };
  };
}

const NONE: Items = { kind: "any", ids: [] };

/** The ids equal to `id` (or, with `except`, the others), as a card list. */
function keepIfEqual(ids: readonly number[], id: number, except: boolean): Items {
  const out: number[] = [];
  for (let i = 0; i < ids.length; i++) if ((ids[i] === id) !== except) out.push(ids[i]!);
  return { kind: "card", ids: out };
}

function passIf(ok: boolean, items: Items): Items {
  return ok ? items : { kind: items.kind, ids: [] };
}

const ROW_BY_DEPTH: readonly RowName[] = ["back", "middle", "front", "centre", "enemyFront", "enemyMiddle", "enemyBack"];

function activations(d: Draft, scope: Scope): number {
  if (scope.consumer < 0 || scope.ability < 0) return 0;
  const c = d.s.cards[scope.consumer]!;
  if (c.actsTurn !== d.s.turn) return 0;
  for (let i = 0; i < c.acts.length; i += 2) if (c.acts[i] === scope.ability) return c.acts[i + 1]!;
  return 0;
}

const defOf = (d: Draft, id: number) => d.pool.cards[d.s.cards[id]!.def]!;
// What a pipe reads, for the resolve shortcuts (see PhraseHandler).
const BOARD = { positional: true, playerOnly: false } as const;
const PLAYER = { positional: true, playerOnly: true } as const;
const PLAYER_STATE = { positional: false, playerOnly: true } as const;
const OTHER = { positional: false, playerOnly: false } as const;

type Handlers = { [K in PipeKind]: PhraseHandler<Extract<PipePhrase, { kind: K }>> };

export const pipeHandlers = {
  FilterCardOwner: {
    ...PLAYER,
    run: (p, d, scope, items) => {
      const want = p.opponent ? 1 - scope.owner : scope.owner;
      const out: number[] = [];
      if (items.kind === "player") {
        for (let i = 0; i < items.ids.length; i++) if (items.ids[i] === want) out.push(want);
        return { kind: "player", ids: out };
      }
      const ids = asCards(d, items);
      for (let i = 0; i < ids.length; i++) if (d.s.cards[ids[i]!]!.owner === want) out.push(ids[i]!);
      return { kind: "card", ids: out };
    },
  },
  FilterCardKind: {
    ...BOARD,
    // Hot (AreaAbility reach after every board change): a direct loop, no per-card test call.
    run: (p, d, _scope, items) => {
      const ids = asCards(d, items);
      const cards = d.s.cards;
      const defs = d.pool.cards;
      const out: number[] = [];
      for (let i = 0; i < ids.length; i++) if (defs[cards[ids[i]!]!.def]!.kind === p.cardKind) out.push(ids[i]!);
      return { kind: "card", ids: out };
    },
  },
  FilterCardCost: { ...BOARD, run: filterCards((p, d, _s, id) => compare(p.cmp, defOf(d, id).cost, p.value)) },
  FilterCardAttack: { ...OTHER, run: filterCards((p, d, _s, id) => compare(p.cmp, effectiveAttack(d.s, d.pool, id), p.value)) },
  // Current life (printed life minus damage taken), e.g. "units with 3 life or less".
  FilterCardHp: { ...OTHER, run: filterCards((p, d, _s, id) => compare(p.cmp, d.s.cards[id]!.life, p.value)) },
  FilterCardDamage: {
    ...OTHER,
    // Damage: full life (the Life parameter: printed life through Life abilities) minus current life.
    run: filterCards((p, d, _s, id) => compare(p.cmp ?? "GreaterThan", effectiveLife(d.s, d.pool, id) - d.s.cards[id]!.life, p.value ?? 0)),
  },
  FilterCardAilment: {
    ...OTHER,
    run: filterCards((p, d, _s, id) => {
      const a = d.s.cards[id]!.ailment;
      return p.ailment === "any" ? a !== "none" : a === p.ailment;
    }),
  },
  FilterLayer: {
    ...BOARD,
    run: filterCards((p, d, _s, id) => {
      const c = d.s.cards[id]!;
      if (p.layer !== undefined && c.layer !== p.layer) return false;
      if (p.row !== undefined && (c.cell < 0 || ROW_BY_DEPTH[depthOf(c.cell, c.owner)] !== p.row)) return false;
      return true;
    }),
  },
  FilterCardCell: {
    ...BOARD,
    run: (p, d, scope, items) => {
      const wanted = p.cells.map(([x, y]) => relCell(cellOf(x, y), scope.owner));
      if (items.kind === "cell") return { kind: "cell", ids: items.ids.filter((c) => wanted.includes(c)) };
      return { kind: "card", ids: asCards(d, items).filter((id) => wanted.includes(d.s.cards[id]!.cell)) };
    },
  },
  FilterInvader: {
    ...BOARD,
    // Hot (AreaAbility reach): a direct loop, no per-card test call.
    run: (p, d, _scope, items) => {
      const ids = asCards(d, items);
      const want = p.invader ?? true;
      const out: number[] = [];
      for (let i = 0; i < ids.length; i++) {
        const c = d.s.cards[ids[i]!]!;
        if ((c.cell >= 0 && inEnemyHome(c.cell, c.owner)) === want) out.push(ids[i]!);
      }
      return { kind: "card", ids: out };
    },
  },
  FilterTriggerType: { ...OTHER, run: (p, _d, scope, items) => passIf(scope.trigger !== null && p.types.includes(scope.trigger.type), items) },
  FilterTriggerKind: {
    ...OTHER,
    // A condition containing this pipe can only hold for these trigger kinds (lets resolve skip fast).
    triggerKinds: (p) => p.triggers,
    run: (p, _d, scope, items) => passIf(scope.trigger !== null && p.triggers.includes(scope.trigger.kind), items),
  },
  FilterTriggerDamage: { ...OTHER, run: (p, _d, scope, items) => passIf(scope.trigger !== null && compare(p.cmp, scope.trigger.amount, p.value), items) },
  FilterTriggerState: {
    ...OTHER,
    // Only a StateChanged trigger names a State (its amount is the State's index in STATE_KINDS).
    // No triggerKinds: a TriggerAbility still says what it answers with a FilterTriggerKind, as
    // the published schema requires.
    run: (p, _d, scope, items) => {
      const t = scope.trigger;
      return passIf(t !== null && t.kind === "StateChanged" && p.states.includes(STATE_KINDS[t.amount]!), items);
    },
  },
  FilterTargetCard: {
    ...OTHER,
    run: (p, d, scope, items) => keepIfEqual(asCards(d, items), scope.trigger === null ? -1 : scope.trigger.target, p.except ?? false),
  },
  // Hot (most TriggerAbility conditions): direct loops, no per-card test call.
  FilterAbilityConsumer: { ...BOARD, run: (p, d, scope, items) => keepIfEqual(asCards(d, items), scope.consumer, p.except ?? false) },
  FilterAbilityProducer: { ...BOARD, run: (p, d, scope, items) => keepIfEqual(asCards(d, items), scope.producer, p.except ?? false) },
  FilterActivateCount: { ...OTHER, run: (p, d, scope, items) => passIf(compare(p.cmp, activations(d, scope), p.value), items) },
  FilterTurnPlayer: { ...PLAYER_STATE, run: (p, d, scope, items) => passIf((d.s.turnPlayer === scope.owner) !== (p.opponent ?? false), items) },
  FilterPlayerDirectDamageInThisTurn: { ...PLAYER_STATE, run: filterPlayers((p, d, seat) => compare(p.cmp, d.s.players[seat]!.directDamage, p.value)) },
  FilterPlayerHp: { ...PLAYER_STATE, run: filterPlayers((p, d, seat) => compare(p.cmp, d.s.players[seat]!.hp, p.value)) },
  Take: {
    // A random pick changes with the RNG, not with the board.
    positional: (p) => p.mode === "first",
    playerOnly: false,
    run: (p, d, _s, items) => {
      if (items.ids.length <= p.count) return items;
      if (p.mode === "first") return { kind: items.kind, ids: items.ids.slice(0, p.count) };
      // Random choices use the state's seeded RNG; the sample is re-sorted so the order is stable.
      return { kind: items.kind, ids: d.rng.sample(items.ids, p.count).sort(byNumber) };
    },
  },
  Count: { ...PLAYER, run: (p, _d, _s, items) => passIf(compare(p.cmp, items.ids.length, p.value), items) },
} satisfies Handlers;
