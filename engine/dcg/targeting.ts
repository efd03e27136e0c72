import type { Seat } from "../core/index.ts";
import type { LayerKind } from "./battle-data.ts";
import { CELLS, cellOf, chebyshev, depthOf, inEnemyHome, manhattan, relCell, xOf, yOf } from "./board.ts";
import { compare, type Comparator } from "./comparator.ts";
import type { Draft } from "./draft.ts";
import { effectiveAttack } from "./params.ts";
import type { Trigger, TriggerKind, TriggerType } from "./trigger.ts";
import { checkFields, type FieldSpec, type Reach, type RowName } from "./validate.ts";

/**
 * Targeting (seed 000 §2.5): a query sentence, one Head followed by Pipes, all JSON. Used for
 * TriggerAbility conditions, ParameterAbility lifetimes, AreaAbility reach, NightmareAbility
 * conditions and every Effect's target. A condition holds when its sentence yields a non-empty result.
 */
export type Phrase =
  // Heads
  | { readonly kind: "Any" }
  | { readonly kind: "MapCard"; readonly layers?: readonly LayerKind[] }
  | { readonly kind: "MapPlayer" }
  | { readonly kind: "MapCell"; readonly empty?: boolean }
  | { readonly kind: "MapActorCard" }
  | { readonly kind: "MapTargetCard" }
  | { readonly kind: "MapFollowCell"; readonly reach: Reach }
  | { readonly kind: "MapAbility" }
  // Pipes
  | { readonly kind: "FilterCardOwner"; readonly opponent: boolean }
  | { readonly kind: "FilterCardKind"; readonly cardKind: "rubric" | "object" | "feint" }
  | { readonly kind: "FilterCardCost"; readonly cmp: Comparator; readonly value: number }
  | { readonly kind: "FilterCardAttack"; readonly cmp: Comparator; readonly value: number }
  | { readonly kind: "FilterCardDamage"; readonly cmp?: Comparator; readonly value?: number }
  | { readonly kind: "FilterCardAilment"; readonly ailment: "poison" | "any" | "none" }
  | { readonly kind: "FilterLayer"; readonly layer?: LayerKind; readonly row?: RowName }
  | { readonly kind: "FilterCardCell"; readonly cells: readonly (readonly [number, number])[] }
  | { readonly kind: "FilterInvader"; readonly invader?: boolean }
  | { readonly kind: "FilterTriggerType"; readonly types: readonly TriggerType[] }
  | { readonly kind: "FilterTriggerKind"; readonly triggers: readonly TriggerKind[] }
  | { readonly kind: "FilterTriggerDamage"; readonly cmp: Comparator; readonly value: number }
  | { readonly kind: "FilterTargetCard"; readonly except?: boolean }
  | { readonly kind: "FilterAbilityConsumer"; readonly except?: boolean }
  | { readonly kind: "FilterAbilityProducer"; readonly except?: boolean }
  | { readonly kind: "FilterActivateCount"; readonly cmp: Comparator; readonly value: number }
  | { readonly kind: "FilterTurnPlayer"; readonly opponent?: boolean }
  | { readonly kind: "FilterPlayerDirectDamageInThisTurn"; readonly cmp: Comparator; readonly value: number }
  | { readonly kind: "FilterPlayerHp"; readonly cmp: Comparator; readonly value: number }
  | { readonly kind: "Take"; readonly count: number; readonly mode: "first" | "random" }
  | { readonly kind: "Count"; readonly cmp: Comparator; readonly value: number };

export type PhraseKind = Phrase["kind"];
export type Targeting = readonly Phrase[];

/** Who is asking: the card carrying the ability, who produced it, and the trigger being matched. */
export interface Scope {
  readonly consumer: number;
  readonly producer: number;
  readonly owner: Seat;
  /** Ability id, or -1 for a feint's effect. */
  readonly ability: number;
  readonly trigger: Trigger | null;
}

export type ItemKind = "any" | "card" | "player" | "cell" | "ability";
export interface Items {
  kind: ItemKind;
  ids: number[];
}

type Run<K extends PhraseKind> = (p: Extract<Phrase, { kind: K }>, d: Draft, scope: Scope, items: Items) => Items;
interface PhraseHandler<K extends PhraseKind> {
  readonly fields: FieldSpec;
  readonly run: Run<K>;
}

const NONE: Items = { kind: "any", ids: [] };

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
type CardTest = (p: any, d: Draft, scope: Scope, id: number) => boolean;

function filterCards(test: CardTest) {
  return (p: any, d: Draft, scope: Scope, items: Items): Items => {
    const ids = asCards(d, items);
    const out: number[] = [];
    for (let i = 0; i < ids.length; i++) if (test(p, d, scope, ids[i]!)) out.push(ids[i]!);
    return { kind: "card", ids: out };
  };
}

function filterPlayers(test: (p: any, d: Draft, seat: Seat) => boolean) {
  return (p: any, d: Draft, _scope: Scope, items: Items): Items => {
    if (items.kind !== "player") return NONE;
    const out: number[] = [];
    for (let i = 0; i < items.ids.length; i++) if (test(p, d, items.ids[i]!)) out.push(items.ids[i]!);
    return { kind: "player", ids: out };
  };
}

function passIf(ok: boolean, items: Items): Items {
  return ok ? items : { kind: items.kind, ids: [] };
}

function only(id: number): Items {
  return id >= 0 ? { kind: "card", ids: [id] } : { kind: "card", ids: [] };
}

/** REACH[reach][origin]: the cells in reach of a cell (the origin excluded), ascending. */
const REACH: Readonly<Record<Reach, readonly (readonly number[])[]>> = (() => {
  const table = {} as Record<Reach, number[][]>;
  const tests: Record<Reach, (c: number, o: number) => boolean> = {
    D1: (c, o) => manhattan(c, o) === 1,
    D2: (c, o) => manhattan(c, o) <= 2,
    S1: (c, o) => chebyshev(c, o) === 1,
    Row: (c, o) => yOf(c) === yOf(o),
    Column: (c, o) => xOf(c) === xOf(o),
  };
  for (const r of Object.keys(tests) as Reach[]) {
    table[r] = [];
    for (let o = 0; o < CELLS; o++) {
      const cells: number[] = [];
      for (let c = 0; c < CELLS; c++) if (c !== o && tests[r](c, o)) cells.push(c);
      table[r].push(cells);
    }
  }
  return table;
})();

const ROW_BY_DEPTH: readonly RowName[] = ["back", "middle", "front", "centre", "enemyFront", "enemyMiddle", "enemyBack"];

function activations(d: Draft, scope: Scope): number {
  if (scope.consumer < 0 || scope.ability < 0) return 0;
  const c = d.s.cards[scope.consumer]!;
  if (c.actsTurn !== d.s.turn) return 0;
  for (let i = 0; i < c.acts.length; i += 2) if (c.acts[i] === scope.ability) return c.acts[i + 1]!;
  return 0;
}

const defOf = (d: Draft, id: number) => d.pool.cards[d.s.cards[id]!.def]!;
const CMP: FieldSpec = { cmp: "comparator", value: "int" };

export const phraseHandlers = {
  Any: { fields: {}, run: () => ({ kind: "any", ids: [0] }) },
  MapCard: {
    fields: { layers: "layers?" },
    run: (p, d) => {
      const out: number[] = [];
      const cards = d.s.cards;
      if (p.layers === undefined) {
        for (let c = 0; c < CELLS; c++) {
          const id = d.s.cells[c]!;
          if (id >= 0) out.push(id);
        }
        out.sort(byNumber);
        return { kind: "card", ids: out };
      }
      for (let id = 0; id < cards.length; id++) {
        const c = cards[id]!;
        if (!p.layers.includes(c.layer)) continue;
        // Face-down feints are never map results: their identity is hidden.
        if (c.layer === "Field" && d.pool.cards[c.def]!.kind === "feint") continue;
        out.push(id);
      }
      return { kind: "card", ids: out };
    },
  },
  MapPlayer: { fields: {}, run: (_p, _d, scope) => ({ kind: "player", ids: [scope.owner, 1 - scope.owner] }) },
  MapCell: {
    fields: { empty: "boolean?" },
    run: (p, d) => {
      const out: number[] = [];
      for (let c = 0; c < CELLS; c++) if (!p.empty || d.s.cells[c]! < 0) out.push(c);
      return { kind: "cell", ids: out };
    },
  },
  MapActorCard: {
    fields: {},
    // Without a trigger (AreaAbility reach, NightmareAbility) the actor is the ability's consumer.
    run: (_p, _d, scope) => only(scope.trigger === null ? scope.consumer : scope.trigger.actor),
  },
  MapTargetCard: { fields: {}, run: (_p, _d, scope) => only(scope.trigger === null ? -1 : scope.trigger.target) },
  MapFollowCell: {
    fields: { reach: "reach" },
    run: (p, d, scope, items) => {
      const origins: number[] = [];
      if (items.kind === "cell") for (let i = 0; i < items.ids.length; i++) origins.push(items.ids[i]!);
      else if (items.kind === "card") for (let i = 0; i < items.ids.length; i++) origins.push(d.s.cards[items.ids[i]!]!.cell);
      else origins.push(d.s.cards[scope.consumer]!.cell);
      const table = REACH[p.reach];
      if (origins.length === 1) return { kind: "cell", ids: origins[0]! < 0 ? [] : (table[origins[0]!] as number[]) };
      const out: number[] = [];
      for (const o of origins) {
        if (o < 0) continue;
        for (const c of table[o]!) if (!out.includes(c) && !origins.includes(c)) out.push(c);
      }
      out.sort(byNumber);
      return { kind: "cell", ids: out };
    },
  },
  MapAbility: { fields: {}, run: (_p, _d, scope) => ({ kind: "ability", ids: scope.ability >= 0 ? [scope.ability] : [] }) },
  FilterCardOwner: {
    fields: { opponent: "boolean" },
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
  FilterCardKind: { fields: { cardKind: "cardKind" }, run: filterCards((p, d, _s, id) => defOf(d, id).kind === p.cardKind) },
  FilterCardCost: { fields: CMP, run: filterCards((p, d, _s, id) => compare(p.cmp, defOf(d, id).cost, p.value)) },
  FilterCardAttack: { fields: CMP, run: filterCards((p, d, _s, id) => compare(p.cmp, effectiveAttack(d.s, d.pool, id), p.value)) },
  FilterCardDamage: {
    fields: { cmp: "comparator?", value: "int?" },
    run: filterCards((p, d, _s, id) => compare(p.cmp ?? "GreaterThan", defOf(d, id).life - d.s.cards[id]!.life, p.value ?? 0)),
  },
  FilterCardAilment: {
    fields: { ailment: "ailmentFilter" },
    run: filterCards((p, d, _s, id) => {
      const a = d.s.cards[id]!.ailment;
      return p.ailment === "any" ? a !== "none" : a === p.ailment;
    }),
  },
  FilterLayer: {
    fields: { layer: "layer?", row: "row?" },
    run: filterCards((p, d, _s, id) => {
      const c = d.s.cards[id]!;
      if (p.layer !== undefined && c.layer !== p.layer) return false;
      if (p.row !== undefined && (c.cell < 0 || ROW_BY_DEPTH[depthOf(c.cell, c.owner)] !== p.row)) return false;
      return true;
    }),
  },
  FilterCardCell: {
    fields: { cells: "cells" },
    run: (p, d, scope, items) => {
      const wanted = p.cells.map(([x, y]) => relCell(cellOf(x, y), scope.owner));
      if (items.kind === "cell") return { kind: "cell", ids: items.ids.filter((c) => wanted.includes(c)) };
      return { kind: "card", ids: asCards(d, items).filter((id) => wanted.includes(d.s.cards[id]!.cell)) };
    },
  },
  FilterInvader: {
    fields: { invader: "boolean?" },
    run: filterCards((p, d, _s, id) => {
      const c = d.s.cards[id]!;
      return (c.cell >= 0 && inEnemyHome(c.cell, c.owner)) === (p.invader ?? true);
    }),
  },
  FilterTriggerType: { fields: { types: "triggerTypes" }, run: (p, _d, scope, items) => passIf(scope.trigger !== null && p.types.includes(scope.trigger.type), items) },
  FilterTriggerKind: { fields: { triggers: "triggerKinds" }, run: (p, _d, scope, items) => passIf(scope.trigger !== null && p.triggers.includes(scope.trigger.kind), items) },
  FilterTriggerDamage: { fields: CMP, run: (p, _d, scope, items) => passIf(scope.trigger !== null && compare(p.cmp, scope.trigger.amount, p.value), items) },
  FilterTargetCard: {
    fields: { except: "boolean?" },
    run: filterCards((p, _d, scope, id) => (id === (scope.trigger === null ? -1 : scope.trigger.target)) !== (p.except ?? false)),
  },
  FilterAbilityConsumer: { fields: { except: "boolean?" }, run: filterCards((p, _d, scope, id) => (id === scope.consumer) !== (p.except ?? false)) },
  FilterAbilityProducer: { fields: { except: "boolean?" }, run: filterCards((p, _d, scope, id) => (id === scope.producer) !== (p.except ?? false)) },
  FilterActivateCount: { fields: CMP, run: (p, d, scope, items) => passIf(compare(p.cmp, activations(d, scope), p.value), items) },
  FilterTurnPlayer: { fields: { opponent: "boolean?" }, run: (p, d, scope, items) => passIf((d.s.turnPlayer === scope.owner) !== (p.opponent ?? false), items) },
  FilterPlayerDirectDamageInThisTurn: { fields: CMP, run: filterPlayers((p, d, seat) => compare(p.cmp, d.s.players[seat]!.directDamage, p.value)) },
  FilterPlayerHp: { fields: CMP, run: filterPlayers((p, d, seat) => compare(p.cmp, d.s.players[seat]!.hp, p.value)) },
  Take: {
    fields: { count: "int", mode: "takeMode" },
    run: (p, d, _s, items) => {
      if (items.ids.length <= p.count) return items;
      if (p.mode === "first") return { kind: items.kind, ids: items.ids.slice(0, p.count) };
      // Random choices use the state's seeded RNG; the sample is re-sorted so the order is stable.
      return { kind: items.kind, ids: d.rng.sample(items.ids, p.count).sort(byNumber) };
    },
  },
  Count: { fields: CMP, run: (p, _d, _s, items) => passIf(compare(p.cmp, items.ids.length, p.value), items) },
} satisfies { [K in PhraseKind]: PhraseHandler<K> };

function byNumber(a: number, b: number): number {
  return a - b;
}

export const HEADS: readonly PhraseKind[] = ["Any", "MapCard", "MapPlayer", "MapCell", "MapActorCard", "MapTargetCard", "MapFollowCell", "MapAbility"];

export function evaluate(d: Draft, scope: Scope, sentence: Targeting): Items {
  let items: Items = NONE;
  for (let i = 0; i < sentence.length; i++) {
    const p = sentence[i]!;
    items = (phraseHandlers[p.kind].run as Run<PhraseKind>)(p, d, scope, items);
    if (items.ids.length === 0 && i > 0) return items;
  }
  return items;
}

/** Every sentence yields something (an empty list of conditions always holds). */
export function holds(d: Draft, scope: Scope, conditions: readonly Targeting[]): boolean {
  for (const c of conditions) if (evaluate(d, scope, c).ids.length === 0) return false;
  return true;
}

export function checkTargeting(raw: unknown, path: string): string | null {
  if (!Array.isArray(raw)) return `${path}: a targeting must be an array of phrases`;
  if (raw.length === 0) return `${path}: a targeting needs at least a head`;
  for (let i = 0; i < raw.length; i++) {
    const p = raw[i] as Record<string, unknown> | null;
    const at = `${path}[${i}]`;
    if (p === null || typeof p !== "object" || Array.isArray(p)) return `${at}: a phrase must be an object`;
    const kind = p.kind;
    if (typeof kind !== "string" || !Object.hasOwn(phraseHandlers, kind)) return `${at}.kind: unknown phrase ${JSON.stringify(kind)}`;
    if (i === 0 && !HEADS.includes(kind as PhraseKind)) return `${at}.kind: a targeting must start with a head (${HEADS.join(", ")})`;
    const err = checkFields(p, phraseHandlers[kind as PhraseKind].fields, at);
    if (err) return err;
  }
  return null;
}

/** Trigger kinds a condition list can match at all (null = any): lets resolve skip most abilities fast. */
export function triggerKindsOf(conditions: readonly Targeting[]): readonly TriggerKind[] | null {
  for (const c of conditions) {
    if (c[0]?.kind === "Any" && c[1]?.kind === "FilterTriggerKind") return c[1].triggers;
  }
  return null;
}

