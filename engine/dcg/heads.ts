import Type from "typebox";
import { CELLS, chebyshev, manhattan, xOf, yOf } from "./board.ts";
import type { Items, PhraseHandler } from "./targeting.ts";
import { F, type Reach, type Tagged } from "./validate.ts";

/**
 * Targeting Heads (docs/cards.md): where a query sentence starts. One entry per Head: its JSON
 * fields (TypeBox: they give the TS type below, the published schema and the loader's check) and
 * its handler, so adding a Head is a change to this file only.
 */
export const HEAD_FIELDS = {
  Any: {},
  MapCard: { layers: Type.Optional(F.layers) },
  MapPlayer: {},
  MapCell: { empty: Type.Optional(F.boolean) },
  MapActorCard: {},
  MapTargetCard: {},
  MapFollowCell: { reach: F.reach },
  MapAbility: {},
} as const;

export type HeadKind = keyof typeof HEAD_FIELDS;
export type HeadPhrase = { [K in HeadKind]: Tagged<"kind", K, (typeof HEAD_FIELDS)[K]> }[HeadKind];

export function only(id: number): Items {
  return id >= 0 ? { kind: "card", ids: [id] } : { kind: "card", ids: [] };
}

export function byNumber(a: number, b: number): number {
  return a - b;
}

/**
 * Ascending in place, as `list.sort(byNumber)` leaves it (numbers are totally ordered, so any
 * correct sort gives the same array); an insertion sort beats the builtin's comparator calls on
 * the short lists (at most 35 units) it gets.
 */
export function sortNumbers(list: number[]): void {
  for (let i = 1; i < list.length; i++) {
    const v = list[i]!;
    let j = i - 1;
    while (j >= 0 && list[j]! > v) {
      list[j + 1] = list[j]!;
      j--;
    }
    list[j + 1] = v;
  }
}

/** REACH[reach][origin]: the cells in reach of a cell (the origin excluded), ascending. */
export const REACH: Readonly<Record<Reach, readonly (readonly number[])[]>> = (() => {
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

export const headHandlers = {
  Any: { positional: true, playerOnly: true, run: () => ({ kind: "any", ids: [0] }) },
  MapCard: {
    // Units on the Field depend only on the board; other layers (hand, grave...) do not.
    positional: (p) => p.layers === undefined || p.layers.every((l) => l === "Field"),
    playerOnly: false,
    run: (p, d) => {
      const out: number[] = [];
      const cards = d.s.cards;
      if (p.layers === undefined) {
        const cells = d.s.cells;
        for (let c = 0; c < CELLS; c++) {
          const id = cells[c]!;
          if (id >= 0) out.push(id);
        }
        sortNumbers(out);
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
  MapPlayer: { positional: true, playerOnly: true, run: (_p, _d, scope) => ({ kind: "player", ids: [scope.owner, 1 - scope.owner] }) },
  MapCell: {
    positional: true,
    playerOnly: false,
    run: (p, d) => {
      const out: number[] = [];
      for (let c = 0; c < CELLS; c++) if (!p.empty || d.s.cells[c]! < 0) out.push(c);
      return { kind: "cell", ids: out };
    },
  },
  MapActorCard: {
    positional: true,
    playerOnly: false,
    // Without a trigger (AreaAbility reach, NightmareAbility) the actor is the ability's consumer.
    run: (_p, _d, scope) => only(scope.trigger === null ? scope.consumer : scope.trigger.actor),
  },
  MapTargetCard: { positional: false, playerOnly: false, run: (_p, _d, scope) => only(scope.trigger === null ? -1 : scope.trigger.target) },
  MapFollowCell: {
    positional: true,
    playerOnly: false,
    run: (p, d, scope, items) => {
      const table = REACH[p.reach];
      // One card (MapActorCard, the usual reach): its row of the table, as the general path gives.
      if (items.kind === "card" && items.ids.length === 1) {
        const o = d.s.cards[items.ids[0]!]!.cell;
        return { kind: "cell", ids: o < 0 ? [] : (table[o] as number[]) };
      }
      const origins: number[] = [];
      if (items.kind === "cell") for (let i = 0; i < items.ids.length; i++) origins.push(items.ids[i]!);
      else if (items.kind === "card") for (let i = 0; i < items.ids.length; i++) origins.push(d.s.cards[items.ids[i]!]!.cell);
      else origins.push(d.s.cards[scope.consumer]!.cell);
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
  MapAbility: { positional: false, playerOnly: false, run: (_p, _d, scope) => ({ kind: "ability", ids: scope.ability >= 0 ? [scope.ability] : [] }) },
} satisfies { [K in HeadKind]: PhraseHandler<Extract<HeadPhrase, { kind: K }>> };

export const HEADS = Object.keys(HEAD_FIELDS) as HeadKind[];
