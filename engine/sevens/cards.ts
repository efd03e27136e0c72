/**
 * Cards are small integers: id = suit * 13 + (rank - 1), suits in board-row order ♠ ♥ ♦ ♣, ranks
 * A=1 .. K=13. The id is also the card's board cell (row = suit, column = rank - 1), because in
 * Killing Sevens every card has exactly one cell.
 */
export type Card = number;

export const SUITS = 4;
export const RANKS = 13;
export const CARD_COUNT = SUITS * RANKS;
export const SEVEN_RANK = 7;

export const SUIT_SYMBOLS = ["♠", "♥", "♦", "♣"] as const;
const SUIT_LETTERS = ["s", "h", "d", "c"] as const;
export const RANK_LABELS = ["A", "2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K"] as const;

export const suitOf = (card: Card): number => (card / RANKS) | 0;
/** 1..13 */
export const rankOf = (card: Card): number => (card % RANKS) + 1;
export const cardOf = (suit: number, rank: number): Card => suit * RANKS + rank - 1;

/** The four sevens, in suit order. */
export const SEVENS: readonly Card[] = [0, 1, 2, 3].map((s) => cardOf(s, SEVEN_RANK));
export const DIAMOND_SEVEN: Card = cardOf(2, SEVEN_RANK);

export function cardLabel(card: Card): string {
  return `${RANK_LABELS[rankOf(card) - 1]}${SUIT_SYMBOLS[suitOf(card)]}`;
}

/**
 * Parses "8♥", "8h", "10s", "Kd" (case-insensitive letters) into a card id; -1 if it is not a card.
 * Used by tests and the CLI, never by the rules.
 */
export function parseCard(text: string): Card {
  const t = text.trim();
  if (t.length < 2) return -1;
  const suitText = t.slice(-1);
  let suit: number = (SUIT_SYMBOLS as readonly string[]).indexOf(suitText);
  if (suit < 0) suit = (SUIT_LETTERS as readonly string[]).indexOf(suitText.toLowerCase());
  const rank = (RANK_LABELS as readonly string[]).indexOf(t.slice(0, -1).toUpperCase()) + 1;
  if (suit < 0 || rank < 1) return -1;
  return cardOf(suit, rank);
}
