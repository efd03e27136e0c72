import type { Viewer } from "../core/index.ts";
import type { Seat } from "./battle-data.ts";
import type { BattleData, Card } from "./battle-data.ts";
import type { DcgConfig } from "./config.ts";
import { actorOf } from "./flow.ts";
import type { Pool } from "./pool.ts";
import type { InputState } from "./state.ts";
import { cardIn } from "./battle-data.ts";
import { defIn } from "./pool.ts";

export interface PlayerView {
  readonly hp: number;
  readonly mp: number;
  readonly attacks: number;
  readonly draws: number;
  readonly ops: number;
  readonly directDamage: number;
  readonly confirmed: boolean;
  readonly handSize: number;
  readonly bookSize: number;
  /** Cell of this player's face-down feint, or -1 (its identity is hidden from the opponent). */
  readonly feintCell: number;
}

/**
 * What a seat sees ("What the learner sees"): its own hand and book size, the opponent's hand
 * size, every unit with its current stats, enemy feints as cells only, its own feints, no enemy
 * strategy placement before both confirm, no book order, no RNG state.
 */
export interface DcgView {
  readonly viewer: Viewer;
  readonly cfg: DcgConfig;
  /** The pending input State; a FeintDeclare's feint id is -1 unless the viewer owns it. */
  readonly state: InputState;
  readonly actor: Seat | "terminal";
  readonly turn: number;
  readonly turnPlayer: Seat;
  readonly first: Seat;
  readonly finished: boolean;
  readonly winner: Seat | -1;
  readonly players: readonly [PlayerView, PlayerView];
  /** The viewer's hand, in order (empty for a spectator). */
  readonly hand: readonly number[];
  /** Per instance id: the card if the viewer may see it, else null. */
  readonly cards: readonly (Card | null)[];
  readonly cells: readonly number[];
  /** Per cell: owner seat of a face-down feint there, or -1. */
  readonly feintOwners: readonly number[];
  readonly graves: readonly [readonly number[], readonly number[]];
  /** The viewer's own StrategyMove count (-1 for a spectator). */
  readonly strategyMoves: number;
}

const SEATS = [0, 1] as const;

export function visible(s: BattleData, pool: Pool, id: number, viewer: Viewer): boolean {
  const c = cardIn(s, id);
  switch (c.layer) {
    case "Grave":
      return true;
    case "Field":
      return defIn(pool, c.def).kind !== "feint" || c.owner === viewer;
    case "Hand":
    case "Strategy":
      return c.owner === viewer;
    case "Book":
      return false;
  }
}

export function viewOf(s: BattleData, pool: Pool, viewer: Viewer): DcgView {
  if (viewer !== "spectator" && viewer !== 0 && viewer !== 1) throw new Error(`dcg: no seat ${viewer} (a battle has seats 0 and 1)`);
  const all = s.cards;
  const cards: (Card | null)[] = new Array(all.length);
  // A card in a book is hidden from everybody and one in a grave is public, so neither card's
  // record is read (with many games stepped in turn, each such read is a cache miss).
  for (const seat of SEATS) {
    for (const id of s.books[seat]) cards[id] = null;
    for (const id of s.graves[seat]) cards[id] = cardIn(s, id);
  }
  for (let id = 0; id < all.length; id++) if (cards[id] === undefined) cards[id] = visible(s, pool, id, viewer) ? cardIn(s, id) : null;
  const feintOwners = s.feints.map((f) => (f < 0 ? -1 : cardIn(s, f).owner));
  const pv = (seat: Seat): PlayerView => {
    const p = s.players[seat];
    return {
      hp: p.hp,
      mp: p.mp,
      attacks: p.attacks,
      draws: p.draws,
      ops: p.ops,
      directDamage: p.directDamage,
      confirmed: p.confirmed,
      handSize: s.hands[seat].length,
      bookSize: s.books[seat].length,
      feintCell: p.feint < 0 ? -1 : cardIn(s, p.feint).cell,
    };
  };
  let state = s.state as InputState;
  if (state.kind === "FeintDeclare" && state.seat !== viewer) state = { ...state, feint: -1 };
  return {
    viewer,
    cfg: s.cfg,
    state,
    actor: s.finished ? "terminal" : actorOf({ s }),
    turn: s.turn,
    turnPlayer: s.turnPlayer,
    first: s.first,
    finished: s.finished,
    winner: s.winner,
    players: [pv(0), pv(1)],
    // States are immutable (every apply copies what it writes), so the view shares their lists.
    hand: viewer === "spectator" ? [] : s.hands[viewer],
    cards,
    cells: s.cells,
    feintOwners,
    graves: s.graves,
    strategyMoves: viewer === "spectator" ? -1 : s.players[viewer].strategyMoves,
  };
}
