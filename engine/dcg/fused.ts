import type { CardKind } from "./pool.ts";
import type { Draft } from "./draft.ts";
import { REACH } from "./heads.ts";
import type { Items, Scope, Targeting } from "./targeting.ts";

/** A whole sentence run in one go; returns exactly the Items the phrase-by-phrase evaluate gives. */
export type Fused = (d: Draft, scope: Scope) => Items;

/**
 * Fused runs of hot sentence shapes (targeting.ts's evaluate uses one when a sentence has one).
 *
 * Shape: MapActorCard, MapFollowCell, then only FilterCardKind / FilterCardOwner pipes. This is
 * every positional AreaAbility reach of the shipped cards ("own rubrics next to me"), recomputed
 * after every board change. Why the result is the same as phrase by phrase:
 * - MapActorCard yields the one actor card (none if the actor is -1); MapFollowCell of one card
 *   yields REACH's row for its cell (none off the board, or without an actor). An empty result
 *   there ends the sentence as an empty cell list, as evaluate's early exit does.
 * - The pipes are per-card tests that keep order, so applying them all in one pass over the row's
 *   units (cells -> the unit standing there, empty cells dropped, as asCards does) keeps the same
 *   cards in the same order; an empty result is an empty card list either way.
 */
export function fuse(sentence: Targeting): Fused | null {
  const reach = fuseReach(sentence);
  if (reach === null) return null;
  return (d, scope) => {
    const actor = scope.trigger === null ? scope.consumer : scope.trigger.actor;
    const out: number[] = [];
    return reach(d, actor, scope.owner, out) >= 0 ? { kind: "card", ids: out } : { kind: "cell", ids: [] };
  };
}

/**
 * A fused sentence as a collector: writes into `out` from index 0 the card ids the sentence yields
 * for actor `actor` of seat `owner`, in order, and returns how many (entries after those are left
 * as they were), or -1 when it stops at MapFollowCell (the sentence yields an empty cell list;
 * nothing written). AreaAbility reaches run this way after every board change, into a reused
 * list, without the scope and result objects of `fuse`.
 */
export type FusedReach = (d: Draft, actor: number, owner: number, out: number[]) => number;

/** The collector of a sentence of the shape `fuse` accepts, or null. */
export function fuseReach(sentence: Targeting): FusedReach | null {
  if (sentence.length < 3) return null;
  const head = sentence[0]!;
  const follow = sentence[1]!;
  if (head.kind !== "MapActorCard" || follow.kind !== "MapFollowCell") return null;
  const kinds: CardKind[] = [];
  const opponents: boolean[] = [];
  for (let i = 2; i < sentence.length; i++) {
    const p = sentence[i]!;
    if (p.kind === "FilterCardKind") kinds.push(p.cardKind);
    else if (p.kind === "FilterCardOwner") opponents.push(p.opponent);
    else return null;
  }
  const table = REACH[follow.reach];
  return (d, actor, owner, out) => {
    const origin = actor < 0 ? -1 : d.s.cards[actor]!.cell;
    const row = origin < 0 ? null : table[origin]!;
    if (row === null || row.length === 0) return -1;
    const cells = d.s.cells;
    const cards = d.s.cards;
    const defs = d.pool.cards;
    let n = 0;
    next: for (let i = 0; i < row.length; i++) {
      const id = cells[row[i]!]!;
      if (id < 0) continue;
      const c = cards[id]!;
      for (let k = 0; k < kinds.length; k++) if (defs[c.def]!.kind !== kinds[k]) continue next;
      for (let k = 0; k < opponents.length; k++) if (c.owner !== (opponents[k] ? 1 - owner : owner)) continue next;
      out[n++] = id;
    }
    return n;
  };
}
