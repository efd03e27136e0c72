import type { Seat } from "./battle-data.ts";
import { inEnemyHome } from "./board.ts";
import { compare } from "./comparator.ts";
import type { CardKind } from "./pool.ts";
import type { Draft } from "./draft.ts";
import { REACH } from "./heads.ts";
import type { PipePhrase } from "./pipes.ts";
import type { Items, Scope, Targeting } from "./targeting.ts";

/** A whole sentence run in one go; returns exactly the Items the phrase-by-phrase evaluate gives. */
export type Fused = (d: Draft, scope: Scope) => Items;

/**
 * Fused runs of hot sentence shapes (targeting.ts's evaluate uses one when a sentence has one;
 * test/dcg/fused.test.ts holds each to the phrase-by-phrase run on random games).
 *
 * Reach: MapActorCard, MapFollowCell, then only FilterCardKind / FilterCardOwner pipes. This is
 * every positional AreaAbility reach of the shipped cards ("own rubrics next to me"), recomputed
 * after every board change. Why the result is the same as phrase by phrase:
 * - MapActorCard yields the one actor card (none if the actor is -1); MapFollowCell of one card
 *   yields REACH's row for its cell (none off the board, or without an actor). An empty result
 *   there ends the sentence as an empty cell list, as evaluate's early exit does.
 * - The pipes are per-card tests that keep order, so applying them all in one pass over the row's
 *   units (cells -> the unit standing there, empty cells dropped, as asCards does) keeps the same
 *   cards in the same order; an empty result is an empty card list either way.
 *
 * The three condition shapes below are most of the TriggerAbility and NightmareAbility conditions
 * checked per decision. Each yields at most one item, and each of its pipes keeps that item or
 * drops it; once dropped, every later pipe yields the same empty list of the same kind (and
 * evaluate stops there). So the result is the item when every test passes, else an empty list of
 * that kind, which is what the fused runs return:
 * - Trigger tests: Any (the one item 0), then FilterTriggerKind / FilterTriggerType /
 *   FilterTurnPlayer / FilterTriggerDamage (each passes its items on or none).
 * - Actor tests: MapActorCard (the actor card, or no card), then FilterAbilityConsumer /
 *   FilterAbilityProducer / FilterInvader / FilterCardOwner / FilterCardKind on that card.
 * - Player tests: MapPlayer (both seats), FilterCardOwner (keeps one of them), then FilterPlayerHp /
 *   FilterPlayerDirectDamageInThisTurn on that seat.
 */
export function fuse(sentence: Targeting): Fused | null {
  const reach = fuseReach(sentence);
  if (reach !== null) {
    return (d, scope) => {
      const actor = scope.trigger === null ? scope.consumer : scope.trigger.actor;
      const out: number[] = [];
      return reach(d, actor, scope.owner, out) >= 0 ? { kind: "card", ids: out } : { kind: "cell", ids: [] };
    };
  }
  return fuseTriggerTests(sentence) ?? fuseActorTests(sentence) ?? fusePlayerTests(sentence);
}

type ScopeTest = (d: Draft, scope: Scope) => boolean;
type CardTest = (d: Draft, scope: Scope, id: number) => boolean;
type SeatTest = (d: Draft, seat: Seat) => boolean;

/** The pipes after the head as tests, or null when one is not of the shape's kinds. */
function testsOf<T>(sentence: Targeting, from: number, test: (p: PipePhrase) => T | null): T[] | null {
  const out: T[] = [];
  for (let i = from; i < sentence.length; i++) {
    const t = test(sentence[i] as PipePhrase);
    if (t === null) return null;
    out.push(t);
  }
  return out;
}

function triggerTest(p: PipePhrase): ScopeTest | null {
  switch (p.kind) {
    case "FilterTriggerKind":
      return (_d, scope) => scope.trigger !== null && p.triggers.includes(scope.trigger.kind);
    case "FilterTriggerType":
      return (_d, scope) => scope.trigger !== null && p.types.includes(scope.trigger.type);
    case "FilterTurnPlayer":
      return (d, scope) => (d.s.turnPlayer === scope.owner) !== (p.opponent ?? false);
    case "FilterTriggerDamage":
      return (_d, scope) => scope.trigger !== null && compare(p.cmp, scope.trigger.amount, p.value);
    default:
      return null;
  }
}

function fuseTriggerTests(sentence: Targeting): Fused | null {
  if (sentence.length < 2 || sentence[0]!.kind !== "Any") return null;
  const tests = testsOf(sentence, 1, triggerTest);
  if (tests === null) return null;
  return (d, scope) => {
    for (let i = 0; i < tests.length; i++) if (!tests[i]!(d, scope)) return { kind: "any", ids: [] };
    return { kind: "any", ids: [0] };
  };
}

function cardTest(p: PipePhrase): CardTest | null {
  switch (p.kind) {
    case "FilterAbilityConsumer": {
      const except = p.except ?? false;
      return (_d, scope, id) => (id === scope.consumer) !== except;
    }
    case "FilterAbilityProducer": {
      const except = p.except ?? false;
      return (_d, scope, id) => (id === scope.producer) !== except;
    }
    case "FilterInvader": {
      const want = p.invader ?? true;
      return (d, _scope, id) => {
        const c = d.s.cards[id]!;
        return (c.cell >= 0 && inEnemyHome(c.cell, c.owner)) === want;
      };
    }
    case "FilterCardOwner":
      return (d, scope, id) => d.s.cards[id]!.owner === (p.opponent ? 1 - scope.owner : scope.owner);
    case "FilterCardKind":
      return (d, _scope, id) => d.pool.cards[d.s.cards[id]!.def]!.kind === p.cardKind;
    default:
      return null;
  }
}

function fuseActorTests(sentence: Targeting): Fused | null {
  if (sentence.length < 2 || sentence[0]!.kind !== "MapActorCard") return null;
  const tests = testsOf(sentence, 1, cardTest);
  if (tests === null) return null;
  return (d, scope) => {
    const actor = scope.trigger === null ? scope.consumer : scope.trigger.actor;
    if (actor < 0) return { kind: "card", ids: [] };
    for (let i = 0; i < tests.length; i++) if (!tests[i]!(d, scope, actor)) return { kind: "card", ids: [] };
    return { kind: "card", ids: [actor] };
  };
}

function seatTest(p: PipePhrase): SeatTest | null {
  switch (p.kind) {
    case "FilterPlayerHp":
      return (d, seat) => compare(p.cmp, d.s.players[seat].hp, p.value);
    case "FilterPlayerDirectDamageInThisTurn":
      return (d, seat) => compare(p.cmp, d.s.players[seat].directDamage, p.value);
    default:
      return null;
  }
}

function fusePlayerTests(sentence: Targeting): Fused | null {
  if (sentence.length < 2 || sentence[0]!.kind !== "MapPlayer") return null;
  const owner = sentence[1]!;
  if (owner.kind !== "FilterCardOwner") return null;
  const tests = testsOf(sentence, 2, seatTest);
  if (tests === null) return null;
  const opponent = owner.opponent;
  return (d, scope) => {
    const seat = (opponent ? 1 - scope.owner : scope.owner) as Seat;
    for (let i = 0; i < tests.length; i++) if (!tests[i]!(d, seat)) return { kind: "player", ids: [] };
    return { kind: "player", ids: [seat] };
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
