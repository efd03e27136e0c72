import { fullDeck, RANK_COUNT, SHEEP_PER_RANK } from "./cards.ts";
import { chooseDeck, chooseField, chooseHand, confirm, gainOne, select, startEffect, stop } from "./effects.ts";
import { drawToLimit, takeAt } from "./piles.ts";
import { draft, type ShephyConfig, type ShephyDecision, type ShephyState } from "./state.ts";
import { Rng } from "../core/index.ts";

export function setup(config: ShephyConfig, seed: number): ShephyState {
  const rng = Rng.seeded(seed);
  const deck = rng.shuffle(fullDeck());
  const stock = new Array<number>(RANK_COUNT).fill(SHEEP_PER_RANK);
  stock[0] = SHEEP_PER_RANK - 1; // the starting [1] comes from the stock
  const w = {
    config,
    rng: rng.save(),
    field: [0],
    stock,
    deck,
    hand: [] as number[],
    discard: [] as number[],
    exile: [] as number[],
    enemy: 1,
    pending: null,
    result: null,
  };
  drawToLimit(w);
  return w;
}

/** The fast path: `d` must be legal in `s`. Works on a fresh draft, so `s` is never touched. */
export function applyDecision(s: ShephyState, d: ShephyDecision): ShephyState {
  const w = draft(s);
  switch (d.kind) {
    case "play": {
      // The played card goes to the discard before its effect resolves.
      const card = takeAt(w.hand, d.index, "hand");
      w.discard.push(card);
      startEffect(w, card, card);
      break;
    }
    case "chooseField":
      chooseField(w, d.index);
      break;
    case "select":
      select(w, d.index);
      break;
    case "confirm":
      confirm(w);
      break;
    case "gainOne":
      gainOne(w);
      break;
    case "stop":
      stop(w);
      break;
    case "chooseHand":
      chooseHand(w, d.index);
      break;
    case "chooseDeck":
      chooseDeck(w, d.index);
      break;
  }
  return w;
}

/**
 * Decisions one play can take at most: the play itself, All-purpose Sheep's hand choice, then the
 * longest effect: Dominion with 7 selections + confirm (Golden Hooves <= 6 + 1, Fill the Earth <= 6,
 * Crowding <= 5 releases).
 */
export const MAX_DECISIONS_PER_PLAY = 1 + 1 + 8;
/** Each round plays each of the 22 cards at most once (a card re-enters the deck only at a round end). */
export const MAX_PLAYS = 3 * 22;
