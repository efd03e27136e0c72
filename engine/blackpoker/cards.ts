/**
 * Cards are small integers: suit*13 + (rank-1) with suits ♠=0 ♡=1 ♢=2 ♣=3 and ranks A=1..K=13
 * (0..51); the two Jokers are 52 and 53. Each player owns a separate deck, so a code is unique
 * within one player's cards; the owner follows from the zone it is in (a player's Life, hand, Grave,
 * Fog) or, on the field, from the unit (`Unit.owners` when it is not the unit's controller).
 */
export type Card = number;

export const CARD_CODES = 54;
export const JOKER_A = 52;
export const JOKER_B = 53;
export const SUIT_MARKS = ["♠", "♡", "♢", "♣"] as const;
const RANK_MARKS = ["", "A", "2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K"] as const;

export const isJoker = (c: Card): boolean => c >= 52;
/** Card value: A=1, 2-10, J=11, Q=12, K=13, Joker=0. */
export const valueOf = (c: Card): number => (c >= 52 ? 0 : (c % 13) + 1);
/** Suit 0..3, or -1 for a Joker. */
export const suitOf = (c: Card): number => (c >= 52 ? -1 : Math.floor(c / 13));
export const cardOf = (suit: number, rank: number): Card => suit * 13 + rank - 1;
/** Joker/A/J/Q/K: the cards whose move from field to grave triggers NextGeneration, and that it digs for. */
export const isNextGenerationCard = (c: Card): boolean => {
  const v = valueOf(c);
  return v === 0 || v === 1 || v >= 11;
};

export function cardLabel(c: Card): string {
  if (c === JOKER_A || c === JOKER_B) return "Joker";
  return `${SUIT_MARKS[suitOf(c)]}${RANK_MARKS[valueOf(c)]}`;
}

/** Entry16 frame: ♠A,2,3,K ♡4,7,J,Q ♢5,8,10,Q ♣A,6,9,K (no Joker). */
export const ENTRY16: readonly Card[] = [
  cardOf(0, 1),
  cardOf(0, 2),
  cardOf(0, 3),
  cardOf(0, 13),
  cardOf(1, 4),
  cardOf(1, 7),
  cardOf(1, 11),
  cardOf(1, 12),
  cardOf(2, 5),
  cardOf(2, 8),
  cardOf(2, 10),
  cardOf(2, 12),
  cardOf(3, 1),
  cardOf(3, 6),
  cardOf(3, 9),
  cardOf(3, 13),
];
