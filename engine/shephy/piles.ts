import { InvariantError, must } from "../core/errors.ts";
import { FIELD_LIMIT, HAND_LIMIT } from "./cards.ts";
import type { Draft } from "./state.ts";

/** `items[index]`; decisions reach the rules only when legal, so an index outside the pile is a bug. */
export function cardAt(items: readonly number[], index: number, pile: string): number {
  const card = items[index];
  if (card === undefined) throw new InvariantError(`shephy: no card at index ${index} of the ${pile}`);
  return card;
}

/** Removes and returns `items[index]` (see cardAt). */
export function takeAt(items: number[], index: number, pile: string): number {
  const card = cardAt(items, index, pile);
  items.splice(index, 1);
  return card;
}

/** The effect being resolved; a sub-decision without one is a bug. */
export function pendingOf<P>(w: { readonly pending: P | null }): P {
  if (w.pending === null) throw new InvariantError("shephy: a sub-decision with no effect pending");
  return w.pending;
}

/** Insert into an ascending array, keeping it sorted (fields and hands are canonical that way). */
export function insertSorted(items: number[], value: number): void {
  let i = items.length;
  items.push(value);
  for (let prev = items[i - 1]; prev !== undefined && prev > value; prev = items[i - 1]) {
    items[i] = prev;
    i--;
  }
  items[i] = value;
}

export function canGain(w: Draft, rank: number): boolean {
  return w.field.length < FIELD_LIMIT && (w.stock[rank] ?? 0) > 0;
}

/** "Gain X": stock -> field; does nothing when the stock is empty or the field is full. */
export function gain(w: Draft, rank: number): void {
  if (!canGain(w, rank)) return;
  w.stock[rank] = must(w.stock[rank], "shephy: the stock count of a gained rank") - 1;
  insertSorted(w.field, rank);
}

/** "Release": field -> stock. */
export function releaseAt(w: Draft, index: number): number {
  const rank = takeAt(w.field, index, "field");
  w.stock[rank] = must(w.stock[rank], "shephy: the stock count of a released rank") + 1;
  return rank;
}

/** Draw while the hand has fewer than 5 cards and the deck is not empty (automatic). */
export function drawToLimit(w: Draft): void {
  for (let card = w.deck.at(-1); w.hand.length < HAND_LIMIT && card !== undefined; card = w.deck.at(-1)) {
    w.deck.pop();
    insertSorted(w.hand, card);
  }
}

/** Indices of the first card of each distinct value in a sorted array: equal cards are interchangeable. */
export function firstOfEach(items: readonly number[]): number[] {
  const out: number[] = [];
  for (let i = 0; i < items.length; i++) if (i === 0 || items[i] !== items[i - 1]) out.push(i);
  return out;
}
