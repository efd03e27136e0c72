import { FIELD_LIMIT, HAND_LIMIT } from "./cards.ts";
import type { Draft } from "./state.ts";

/** Insert into an ascending array, keeping it sorted (fields and hands are canonical that way). */
export function insertSorted(items: number[], value: number): void {
  let i = items.length;
  items.push(value);
  while (i > 0 && items[i - 1]! > value) {
    items[i] = items[i - 1]!;
    i--;
  }
  items[i] = value;
}

export function canGain(w: Draft, rank: number): boolean {
  return w.field.length < FIELD_LIMIT && w.stock[rank]! > 0;
}

/** "Gain X": stock -> field; does nothing when the stock is empty or the field is full. */
export function gain(w: Draft, rank: number): void {
  if (!canGain(w, rank)) return;
  w.stock[rank]!--;
  insertSorted(w.field, rank);
}

/** "Release": field -> stock. */
export function releaseAt(w: Draft, index: number): number {
  const rank = w.field[index]!;
  w.field.splice(index, 1);
  w.stock[rank]!++;
  return rank;
}

/** Draw while the hand has fewer than 5 cards and the deck is not empty (automatic). */
export function drawToLimit(w: Draft): void {
  while (w.hand.length < HAND_LIMIT && w.deck.length > 0) insertSorted(w.hand, w.deck.pop()!);
}

/** Indices of the first card of each distinct value in a sorted array: equal cards are interchangeable. */
export function firstOfEach(items: readonly number[]): number[] {
  const out: number[] = [];
  for (let i = 0; i < items.length; i++) if (i === 0 || items[i] !== items[i - 1]) out.push(i);
  return out;
}
