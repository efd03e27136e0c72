import { InvariantError, Rng, type Seat, type Viewer } from "../core/index.ts";
import { CARD_COUNT } from "./cards.ts";
import { HIDDEN, collectPlayable } from "./board.ts";
import type { SevensConfig } from "./config.ts";
import { CARD_IDS, passAllowed } from "./legal.ts";
import type { SevensState } from "./state.ts";

/**
 * What one seat (or a spectator) sees: the whole table, its own hand, and every public count.
 * Hidden: which other hand holds each Empty cell's card (those cells read HIDDEN), and the rng.
 */
export interface SevensView {
  readonly config: SevensConfig;
  readonly viewer: Viewer;
  /** The state's cell encoding (board.ts), except cards in hands the viewer cannot see are HIDDEN. */
  readonly cells: number[];
  /** The viewer's own cards, ascending ([] for a spectator). */
  readonly hand: number[];
  /** Of `hand`, the cards the viewer could play if it were its turn now. */
  readonly playable: number[];
  readonly handSize: number[];
  readonly killed: number[];
  readonly kills: number[];
  readonly passes: number[];
  readonly finishOrder: number[];
  readonly eliminated: number[];
  /** Seat to move, null once the game is over. */
  readonly turn: number | null;
  /** The pending decision: "move" = the seat to move plays one card or passes; null at the end. */
  readonly pending: "move" | null;
  /** Whether the viewer may pass now (false unless it is the viewer's turn). */
  readonly canPass: boolean;
}

export function sevensView(s: SevensState, viewer: Viewer): SevensView {
  const own = viewer === "spectator" ? -1 : viewer;
  const src = s.cells;
  if (src.length !== CARD_COUNT) throw new InvariantError(`sevens: ${src.length} cells, not ${CARD_COUNT}`);
  const cells = src.slice();
  const hand: number[] = [];
  const playable: number[] = [];
  collectPlayable(src, own, CARD_IDS, playable, cells, hand);
  const myTurn = own >= 0 && s.current === own;
  return {
    config: s.config,
    viewer,
    cells,
    hand,
    playable,
    handSize: s.handSize.slice(),
    killed: s.killed.slice(),
    kills: s.kills.slice(),
    passes: s.passes.slice(),
    finishOrder: s.finishOrder.slice(),
    eliminated: s.eliminated.slice(),
    turn: s.current < 0 ? null : s.current,
    pending: s.current < 0 ? null : "move",
    canPass: myTurn && passAllowed(s, own, playable.length > 0),
  };
}

/**
 * A full state consistent with `view` (seat's view): the viewer's hand and all public facts kept,
 * the other hands' cards re-dealt at random (hand sizes kept), and a fresh rng drawn from `rng`.
 */
export function determinizeSevens(view: SevensView, seat: Seat, rng: Rng): SevensState {
  const n = view.config.seats;
  // A spectator view hides every hand; a seat's view hides all but `seat`'s.
  const own = view.viewer === "spectator" ? -1 : seat;
  const holders: number[] = [];
  for (let t = 0; t < n; t++) {
    if (t === own) continue;
    for (let k = 0; k < (view.handSize[t] ?? 0); k++) holders.push(t);
  }
  rng.shuffle(holders);
  const cells = view.cells.slice();
  let next = 0;
  for (let card = 0; card < CARD_COUNT; card++) {
    if (cells[card] !== HIDDEN) continue;
    const holder = holders[next++];
    if (holder === undefined) throw new Error(`determinize: more hidden cells than the ${holders.length} hidden cards`);
    cells[card] = holder;
  }
  if (next !== holders.length) throw new Error(`determinize: ${next} hidden cells but ${holders.length} hidden cards`);

  return {
    config: view.config,
    cells,
    handSize: view.handSize.slice(),
    killed: view.killed.slice(),
    kills: view.kills.slice(),
    passes: view.passes.slice(),
    finishOrder: view.finishOrder.slice(),
    eliminated: view.eliminated.slice(),
    current: view.turn === null ? -1 : view.turn,
    rng: Rng.seeded(rng.nextU32()).save(),
  };
}
