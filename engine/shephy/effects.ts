import { Rng } from "../core/index.ts";
import { Card, compositeRank, FIELD_LIMIT, TOP_RANK, sheepValue } from "./cards.ts";
import { canGain, cardAt, drawToLimit, gain, insertSorted, pendingOf, releaseAt, takeAt } from "./piles.ts";
import type { Draft } from "./state.ts";

/**
 * Card effects. Each effect either resolves at once or leaves a `pending` step that asks one small
 * decision at a time (the Shephy blog series' enumeration); `finishEffect` runs when nothing is left to ask.
 */

/** Start the effect of `card`, played as the physical card `source` (All-purpose Sheep may stand in). */
export function startEffect(w: Draft, card: number, source: number): void {
  const n = w.field.length;
  let left = 0;
  let asks = false;
  switch (card) {
    case Card.Multiply:
      gain(w, 1);
      break;
    case Card.FillTheEarth:
      asks = canGain(w, 0);
      break;
    case Card.BeFruitful:
    case Card.Flourish:
      // A full field can take nothing: the card is played and does nothing.
      asks = n < FIELD_LIMIT;
      break;
    case Card.GoldenHooves:
      // Only cards below the highest rank may be raised; with none, nothing to choose.
      asks = cardAt(w.field, 0, "field") < cardAt(w.field, n - 1, "field");
      break;
    case Card.Dominion:
    case Card.Plague:
      asks = true;
      break;
    case Card.AllPurposeSheep:
    case Card.PlanningSheep:
    case Card.SheepDog:
      asks = w.hand.length > 0;
      break;
    case Card.Crowding:
      left = n - 2;
      asks = left > 0;
      break;
    case Card.FallingRock:
      left = 1;
      asks = true;
      break;
    case Card.Inspiration:
      asks = w.deck.length > 0;
      // The deck is revealed for this choice and reshuffled afterwards, so its order is worthless:
      // sorting it makes the revealed list canonical and leaks nothing.
      if (asks) w.deck.sort((a, b) => a - b);
      break;
    case Card.Lightning:
      // Tied maxima are interchangeable, so there is nothing to choose: release the last (highest).
      releaseAt(w, n - 1);
      break;
    case Card.Meteor:
      left = Math.min(3, n);
      asks = true;
      break;
    case Card.Shephion:
      // Seven cards is at least the whole field.
      while (w.field.length > 0) releaseAt(w, w.field.length - 1);
      break;
    case Card.Slump:
      left = Math.floor(n / 2);
      asks = left > 0;
      break;
    case Card.Storm:
      left = Math.min(2, n);
      asks = true;
      break;
    case Card.Wolves: {
      const r = releaseAt(w, n - 1);
      if (r > 0) gain(w, r - 1);
      break;
    }
    default:
      throw new Error(`shephy: unknown card ${card}`);
  }
  if (asks) w.pending = { card, source, left, selected: [] };
  else finishEffect(w, card, source);
}

/** ChooseFieldCard(index) for the pending effect. */
export function chooseField(w: Draft, index: number): void {
  const p = pendingOf(w);
  const rank = cardAt(w.field, index, "field");
  switch (p.card) {
    case Card.BeFruitful:
      gain(w, rank);
      return done(w);
    case Card.Flourish: {
      if (rank > 0) {
        const k = Math.min(3, FIELD_LIMIT - w.field.length);
        for (let i = 0; i < k; i++) gain(w, rank - 1);
      }
      return done(w);
    }
    case Card.Plague: {
      for (let i = w.field.length - 1; i >= 0; i--) if (w.field[i] === rank) releaseAt(w, i);
      return done(w);
    }
    default:
      // Crowding, Falling Rock, Meteor, Slump, Storm: release the chosen card, one at a time.
      releaseAt(w, index);
      p.left--;
      if (p.left === 0) done(w);
  }
}

/** ToggleSelect(index): selection only grows, so a card's selection steps are bounded by the field size. */
export function select(w: Draft, index: number): void {
  pendingOf(w).selected.push(index);
}

export function confirm(w: Draft): void {
  const p = pendingOf(w);
  const picked = p.selected.slice().sort((a, b) => b - a);
  const ranks: number[] = [];
  // Release every selected card first (highest index first so indices stay valid), then gain:
  // this equals kana's release-and-gain per card in descending order, where a higher card freed
  // before a lower one is raised into its stock.
  for (const i of picked) ranks.push(releaseAt(w, i));
  if (p.card === Card.GoldenHooves) {
    for (const r of ranks) gain(w, r + 1); // r < max rank <= 1000, so r + 1 exists
  } else if (ranks.length > 0) {
    let sum = 0;
    for (const r of ranks) sum += sheepValue(r);
    gain(w, compositeRank(sum));
  }
  done(w);
}

export function gainOne(w: Draft): void {
  gain(w, 0);
  // "Repeat while the field has < 7": once no 1 can be gained the effect is over.
  if (!canGain(w, 0)) done(w);
}

export function stop(w: Draft): void {
  done(w);
}

export function chooseHand(w: Draft, index: number): void {
  const p = pendingOf(w);
  if (p.card === Card.AllPurposeSheep) {
    // The chosen card stays in hand; All-purpose Sheep (already discarded) resolves its effect.
    const card = cardAt(w.hand, index, "hand");
    w.pending = null;
    startEffect(w, card, p.source);
    return;
  }
  const card = takeAt(w.hand, index, "hand");
  if (p.card === Card.PlanningSheep) w.exile.push(card);
  else w.discard.push(card); // Sheep Dog
  done(w);
}

export function chooseDeck(w: Draft, index: number): void {
  insertSorted(w.hand, takeAt(w.deck, index, "deck"));
  const rng = Rng.load(w.rng);
  rng.shuffle(w.deck);
  w.rng = rng.save();
  done(w);
}

function done(w: Draft): void {
  const p = pendingOf(w);
  w.pending = null;
  finishEffect(w, p.card, p.source);
}

/** The end of one card's resolution: Meteor's exile, then win/loss checks, draws and round ends. */
function finishEffect(w: Draft, card: number, source: number): void {
  if (card === Card.Meteor) {
    // "...then remove this card from the game": the physical card played (Meteor or All-purpose).
    const at = w.discard.lastIndexOf(source);
    if (at >= 0) w.discard.splice(at, 1);
    w.exile.push(source);
  }
  afterResolution(w);
}

export function afterResolution(w: Draft): void {
  const basic = w.config.mode === "basic";
  if (basic && w.field.length > 0 && w.field[w.field.length - 1] === TOP_RANK) {
    w.result = "win";
    return;
  }
  if (w.field.length === 0) {
    w.result = basic ? "loss" : "over";
    return;
  }
  drawToLimit(w);
  // End of round: the deck and the hand are both exhausted. The loop covers a discard emptied by
  // exiles, where the next round is exhausted at once.
  while (w.hand.length === 0 && w.deck.length === 0) {
    w.enemy *= 10;
    if (w.enemy >= 1000) {
      w.result = basic ? "loss" : "over";
      return;
    }
    const rng = Rng.load(w.rng);
    w.deck = rng.shuffle(w.discard);
    w.discard = [];
    w.rng = rng.save();
    drawToLimit(w);
  }
}
