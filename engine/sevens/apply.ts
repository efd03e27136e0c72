import { CARD_COUNT } from "./cards.ts";
import { DEAD, NEIGHBOURS4, PLACED, enclosedRectangle, enclosedRegion } from "./board.ts";
import type { SevensDecision, SevensState } from "./state.ts";

/** Working copies for one apply; the input state's arrays are never written. */
interface Draft {
  readonly cells: number[];
  readonly handSize: number[];
  killed: number[];
  kills: number[];
  copiedScores: boolean;
}

/**
 * The trusted apply (decision legal, or the forced pass). Play: place, then kill any enclosed
 * rectangle next to the card. Pass: count it; beyond passLimit the seat is eliminated, its cards
 * go on the table as Placed, and one global kill check runs. Then newly empty hands join
 * finishOrder (mover first, then seat order after the mover) and the turn moves on.
 */
export function applySevens(s: SevensState, d: SevensDecision): SevensState {
  const seat = s.current;
  const n = s.config.seats;
  const draft: Draft = { cells: s.cells.slice(), handSize: s.handSize.slice(), killed: s.killed, kills: s.kills, copiedScores: false };
  let passes = s.passes;
  let eliminated = s.eliminated;
  if (d.kind === "play") {
    draft.cells[d.card] = PLACED + seat;
    draft.handSize[seat]!--;
    killAround(draft, d.card, seat);
  } else {
    passes = passes.slice();
    passes[seat]!++;
    const limit = s.config.passLimit;
    if (limit !== null && passes[seat]! > limit) {
      // Elimination: the seat's cards are put on the table, as the traditional rule does.
      const cells = draft.cells;
      for (let card = 0; card < CARD_COUNT; card++) if (cells[card] === seat) cells[card] = PLACED + seat;
      draft.handSize[seat] = 0;
      eliminated = [...eliminated, seat];
      killEverywhere(draft, seat);
    }
  }
  const handSize = draft.handSize;
  let finishOrder = s.finishOrder;
  for (let i = 0; i < n; i++) {
    const t = (seat + i) % n;
    // A hand emptied by this decision; an eliminated seat did not "go out".
    if (s.handSize[t]! > 0 && handSize[t] === 0 && !(t === seat && eliminated !== s.eliminated)) {
      if (finishOrder === s.finishOrder) finishOrder = finishOrder.slice();
      finishOrder.push(t);
    }
  }
  // Active seats are exactly those holding cards; the mover itself comes last in the cycle.
  let current = -1;
  for (let i = 1; i <= n; i++) {
    const t = (seat + i) % n;
    if (handSize[t]! > 0) {
      current = t;
      break;
    }
  }
  return {
    config: s.config,
    cells: draft.cells,
    handSize,
    killed: draft.killed,
    kills: draft.kills,
    passes,
    finishOrder,
    eliminated,
    current,
    rng: s.rng,
  };
}

/** Steps 2-3 of Apply Play: the Empty regions orthogonally next to the placed card. */
function killAround(draft: Draft, card: number, mover: number): void {
  const ns = NEIGHBOURS4[card]!;
  for (let i = 0; i < ns.length; i++) {
    const start = ns[i]!;
    // A neighbour in a region already killed is filled now; one in a region already found not to
    // be a rectangle gets the same answer again (regions are disjoint, so a kill elsewhere cannot
    // change it), and the kill order does not matter (kill only counts).
    if (draft.cells[start]! >= PLACED) continue;
    const region = enclosedRectangle(draft.cells, start);
    if (region !== null) kill(draft, region, mover);
  }
}

/** The global kill check after an elimination: every Empty region on the board. */
function killEverywhere(draft: Draft, mover: number): void {
  const visited = new Uint8Array(CARD_COUNT);
  for (let cell = 0; cell < CARD_COUNT; cell++) {
    if (draft.cells[cell]! >= PLACED || visited[cell] === 1) continue;
    const region = enclosedRegion(draft.cells, cell, visited);
    if (region !== null) kill(draft, region, mover);
  }
}

/** Killed cards leave their holders' hands as Dead cells; each costs its holder one killed. */
function kill(draft: Draft, region: readonly number[], mover: number): void {
  if (!draft.copiedScores) {
    draft.killed = draft.killed.slice();
    draft.kills = draft.kills.slice();
    draft.copiedScores = true;
  }
  for (let i = 0; i < region.length; i++) {
    const cell = region[i]!;
    const holder = draft.cells[cell]!;
    draft.cells[cell] = DEAD + holder;
    draft.handSize[holder]!--;
    draft.killed[holder]!++;
    if (holder !== mover) draft.kills[mover]!++;
  }
}
