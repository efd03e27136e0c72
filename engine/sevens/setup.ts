import { Rng, must } from "../core/index.ts";
import { CARD_COUNT, DIAMOND_SEVEN, SEVEN_RANK, rankOf } from "./cards.ts";
import { OPENING, PLACED, cellOf } from "./board.ts";
import type { SevensConfig } from "./config.ts";
import type { SevensState } from "./state.ts";

/**
 * 'seat0' (lets-csharp): the four 7s start on the table, the other 48 cards are shuffled and dealt
 * round-robin from seat 0, and seat 0 moves first.
 * 'diamond7' (traditional 七並べ): all 52 are dealt round-robin from seat 0, every holder of a 7
 * puts it out (Placed by that holder), and the holder of ♦7 moves first.
 */
export function setupSevens(config: SevensConfig, seed: number): SevensState {
  const rng = Rng.seeded(seed);
  const n = config.seats;
  // Built by push (not new Array(n)): V8 then keeps the arrays, and every slice of them, "packed",
  // which the legal-move scans of every later decision read faster than holey arrays.
  const cells = zeros(CARD_COUNT);
  const handSize = zeros(n);
  const deck: number[] = [];
  for (let card = 0; card < CARD_COUNT; card++) {
    if (config.startPlayer === "seat0" && rankOf(card) === SEVEN_RANK) cells[card] = OPENING;
    else deck.push(card);
  }
  rng.shuffle(deck);
  deck.forEach((card, i) => {
    const seat = i % n;
    cells[card] = seat;
    handSize[seat] = must(handSize[seat], "sevens setup: the hand size of a dealt seat") + 1;
  });
  let current = 0;
  if (config.startPlayer === "diamond7") {
    current = cellOf(cells, DIAMOND_SEVEN);
    for (let card = 0; card < CARD_COUNT; card++) {
      if (rankOf(card) !== SEVEN_RANK) continue;
      const holder = cellOf(cells, card);
      cells[card] = PLACED + holder;
      handSize[holder] = must(handSize[holder], "sevens setup: the hand size of a 7's holder") - 1;
    }
  }

  return {
    config,
    cells,
    handSize,
    killed: zeros(n),
    kills: zeros(n),
    passes: zeros(n),
    finishOrder: [],
    eliminated: [],
    current,
    rng: rng.save(),
  };
}

function zeros(n: number): number[] {
  const out: number[] = [];
  for (let i = 0; i < n; i++) out.push(0);
  return out;
}
