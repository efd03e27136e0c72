/**
 * A leak test that does not trust the game's own view or determinize: per game, two ways to change
 * a state behind a seat's back, written from the rules (what the seat may and may not know):
 * - `hidden` swaps two things the seat cannot know apart (an opponent's hand card with a card of
 *   that opponent's face-down pile, two cards between two opponents' hands, two cards of a pile
 *   whose order nobody knows). Both deals agree on everything the seat may know, so its view and
 *   observation must be byte-identical; a view that shows any of it differs and fails.
 * - `own` swaps one of the seat's own hand cards with a hidden card: the seat knows its hand, so
 *   its view must differ; a view that hides the seat's own cards fails.
 * Each returns null when the state offers no such pair.
 */
import { canonicalJson, stateHash, type AnyGame, type Rng } from "../../engine/core/index.ts";
import { HIDDEN } from "../../engine/sevens/index.ts";
import type { GameAdapter } from "../../env/codec.ts";
import { observe } from "./harness.ts";

type Redeal = (state: any, seat: number, rng: Rng) => unknown | null;
export interface Redeals {
  readonly hidden: Redeal;
  readonly own: Redeal;
}

const clone = <T>(x: T): T => structuredClone(x) as T;

function pick<T>(rng: Rng, xs: readonly T[]): T | undefined {
  return xs.length === 0 ? undefined : xs[rng.int(xs.length)];
}

/** Sevens: a cell value below HIDDEN is the seat holding that card. */
const sevens: Redeals = {
  hidden(s, seat, rng) {
    const cells = s.cells as number[];
    const held = cells.flatMap((v, card) => (v < HIDDEN && v !== seat ? [card] : []));
    const a = pick(rng, held);
    if (a === undefined) return null;
    const b = pick(
      rng,
      held.filter((c) => cells[c] !== cells[a]),
    );
    if (b === undefined) return null;
    const t = clone(s);
    [t.cells[a], t.cells[b]] = [cells[b], cells[a]];
    return t;
  },
  own(s, seat, rng) {
    const cells = s.cells as number[];
    const a = pick(
      rng,
      cells.flatMap((v, card) => (v === seat ? [card] : [])),
    );
    const b = pick(
      rng,
      cells.flatMap((v, card) => (v < HIDDEN && v !== seat ? [card] : [])),
    );
    if (a === undefined || b === undefined) return null;
    const t = clone(s);
    [t.cells[a], t.cells[b]] = [cells[b], cells[a]];
    return t;
  },
};

/** dcg: card instances keep their id and place; what card an id is (def, stats) moves between them. */
function swapCards(s: any, a: number, b: number): unknown {
  const t = clone(s);
  const ca = s.cards[a];
  const cb = s.cards[b];
  t.cards[a] = { ...cb, layer: ca.layer, cell: ca.cell, owner: ca.owner };
  t.cards[b] = { ...ca, layer: cb.layer, cell: cb.cell, owner: cb.owner };
  return t;
}

const dcg: Redeals = {
  hidden(s, seat, rng) {
    const foe = 1 - seat;
    const hand = s.hands[foe] as number[];
    const book = s.books[foe] as number[];
    const a = pick(rng, hand);
    const b = pick(rng, a === undefined ? [] : book.filter((id) => s.cards[id].def !== s.cards[a].def));
    if (a !== undefined && b !== undefined) return swapCards(s, a, b);
    // Otherwise the order of the seat's own book, which it does not know either.
    const own = s.books[seat] as number[];
    const c = pick(rng, own);
    const d = pick(rng, c === undefined ? [] : own.filter((id) => s.cards[id].def !== s.cards[c].def));
    return c === undefined || d === undefined ? null : swapCards(s, c, d);
  },
  own(s, seat, rng) {
    const a = pick(rng, s.hands[seat] as number[]);
    const b = pick(rng, a === undefined ? [] : (s.books[seat] as number[]).filter((id) => s.cards[id].def !== s.cards[a].def));
    return a === undefined || b === undefined ? null : swapCards(s, a, b);
  },
};

/** BlackPoker: hands and Life piles hold card numbers; Life is face down. */
function exposedKeys(s: any): Set<number> {
  const p = s.pending;
  return new Set(p && p.kind === "compose" ? [...(p.keys ?? []), ...(p.discards ?? [])] : []);
}

const blackpoker: Redeals = {
  hidden(s, seat, rng) {
    const foe = 1 - seat;
    const z = s.players[foe];
    const open = exposedKeys(s);
    const a = pick(
      rng,
      (z.hand as number[]).flatMap((c, i) => (open.has(c) ? [] : [i])),
    );
    const b = pick(
      rng,
      (z.life as number[]).map((_, i) => i),
    );
    if (a === undefined || b === undefined || z.hand[a] === z.life[b]) return null;
    const t = clone(s);
    t.players[foe].hand = swapIn(z.hand, a, z.life[b]);
    t.players[foe].life[b] = z.hand[a];
    return t;
  },
  own(s, seat, rng) {
    const z = s.players[seat];
    const open = exposedKeys(s);
    const a = pick(
      rng,
      (z.hand as number[]).flatMap((c, i) => (open.has(c) ? [] : [i])),
    );
    const b = pick(
      rng,
      (z.life as number[]).map((_, i) => i),
    );
    if (a === undefined || b === undefined || z.hand[a] === z.life[b]) return null;
    const t = clone(s);
    t.players[seat].hand = swapIn(z.hand, a, z.life[b]);
    t.players[seat].life[b] = z.hand[a];
    return t;
  },
};

function swapIn(xs: readonly number[], i: number, value: number): number[] {
  const out = xs.slice();
  out[i] = value;
  return out;
}

/** Shephy (solitaire): the deck's order is hidden, the hand (kept sorted) is not. */
const shephy: Redeals = {
  hidden(s, _seat, rng) {
    const deck = s.deck as number[];
    // A deck search reveals the deck, sorted (the rules sort it for that): nothing hidden then.
    if (s.pending !== null && deck.every((c, i) => i === 0 || deck[i - 1]! <= c)) return null;
    const a = pick(
      rng,
      deck.map((_, i) => i),
    );
    const b = pick(rng, a === undefined ? [] : deck.flatMap((c, i) => (c !== deck[a] ? [i] : [])));
    if (a === undefined || b === undefined) return null;
    const t = clone(s);
    [t.deck[a], t.deck[b]] = [deck[b], deck[a]];
    return t;
  },
  own(s, _seat, rng) {
    const hand = s.hand as number[];
    const deck = s.deck as number[];
    const a = pick(
      rng,
      hand.map((_, i) => i),
    );
    const b = pick(rng, a === undefined ? [] : deck.flatMap((c, i) => (c !== hand[a] ? [i] : [])));
    if (a === undefined || b === undefined || s.pending !== null) return null;
    const t = clone(s);
    t.deck[b] = hand[a];
    t.hand = swapIn(hand, a, deck[b]!).sort((x, y) => x - y);
    return t;
  },
};

export const redeals: Readonly<Record<string, Redeals>> = { sevens, dcg, blackpoker, shephy };

export interface LeakCount {
  hidden: number;
  own: number;
}

/**
 * Problems found at one (state, seat): the view or observation differs between two deals that
 * agree on what the seat may know, or does not differ when the seat's own hand does.
 */
export function leakProblems(game: AnyGame, adapter: GameAdapter | undefined, r: Redeals, s: unknown, seat: number, rng: Rng, count: LeakCount): string[] {
  const problems: string[] = [];
  const view = canonicalJson(game.view(s, seat));
  const obs = adapter ? Buffer.from(observe(adapter, s, seat).buffer) : null;
  const same = r.hidden(s, seat, rng);
  if (same !== null && stateHash(same) !== stateHash(s)) {
    count.hidden++;
    if (canonicalJson(game.view(same, seat)) !== view) problems.push(`seat ${seat}'s view changed when only what it cannot know was re-dealt`);
    else if (adapter && obs && !Buffer.from(observe(adapter, same, seat).buffer).equals(obs)) {
      problems.push(`seat ${seat}'s observation changed when only what it cannot know was re-dealt`);
    }
  }
  const mine = r.own(s, seat, rng);
  if (mine !== null && stateHash(mine) !== stateHash(s)) {
    count.own++;
    if (canonicalJson(game.view(mine, seat)) === view) problems.push(`seat ${seat}'s view did not change when its own hand did`);
  }
  return problems;
}
