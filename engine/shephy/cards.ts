import { InvariantError } from "../core/errors.ts";
/**
 * Shephy's card data: the seven sheep ranks and the 19 event-card types.
 *
 * Sheep are stored as rank indices 0..6 (RANKS[k] is the printed value) and event cards as type
 * ids 0..18, so every pile is a short array of small integers. Copies of one type (Be Fruitful x3,
 * Dominion x2) are indistinguishable, which lets the rules offer one choice per type.
 */
export const RANKS = [1, 3, 10, 30, 100, 300, 1000] as const;
export const RANK_COUNT = 7;

/** The printed value of rank index `rank` (0..6); any other index is a bug. */
export function sheepValue(rank: number): number {
  const value = RANKS[rank];
  if (value === undefined) throw new InvariantError(`shephy: no sheep rank ${rank}`);
  return value;
}

/** The summed printed values of a field (ranks as stored). */
export function fieldSum(field: readonly number[]): number {
  let sum = 0;
  for (const r of field) sum += sheepValue(r);
  return sum;
}

/** The name of event card type `card` (0..18); any other id is a bug. */
export function cardName(card: number): string {
  const name = CARD_NAMES[card];
  if (name === undefined) throw new InvariantError(`shephy: no card type ${card}`);
  return name;
}
/** Copies of each rank in the sheep stock. */
export const SHEEP_PER_RANK = 7;
export const FIELD_LIMIT = 7;
export const HAND_LIMIT = 5;
export const TOP_RANK = 6;

/** Event-card type ids, in the order of the rules table (3.3). */
export const Card = {
  Multiply: 0,
  FillTheEarth: 1,
  BeFruitful: 2,
  Flourish: 3,
  GoldenHooves: 4,
  Dominion: 5,
  AllPurposeSheep: 6,
  Crowding: 7,
  FallingRock: 8,
  Inspiration: 9,
  Lightning: 10,
  Meteor: 11,
  Plague: 12,
  PlanningSheep: 13,
  SheepDog: 14,
  Shephion: 15,
  Slump: 16,
  Storm: 17,
  Wolves: 18,
} as const;
export type CardId = (typeof Card)[keyof typeof Card];
export const CARD_TYPES = 19;

export const CARD_NAMES: readonly string[] = [
  "Multiply",
  "Fill the Earth",
  "Be Fruitful",
  "Flourish",
  "Golden Hooves",
  "Dominion",
  "All-purpose Sheep",
  "Crowding",
  "Falling Rock",
  "Inspiration",
  "Lightning",
  "Meteor",
  "Plague",
  "Planning Sheep",
  "Sheep Dog",
  "Shephion",
  "Slump",
  "Storm",
  "Wolves",
];

/** Copies of each type in the 22-card event deck. */
export const CARD_COPIES: readonly number[] = CARD_NAMES.map((_, id) => (id === Card.BeFruitful ? 3 : id === Card.Dominion ? 2 : 1));
export const DECK_SIZE = 22;

/** The full event deck in type order (setup shuffles it). */
export function fullDeck(): number[] {
  const out: number[] = [];
  CARD_COPIES.forEach((copies, id) => {
    for (let c = 0; c < copies; c++) out.push(id);
  });
  return out;
}

/** The largest rank index whose value is <= sum (sum >= 1): the Dominion composite. */
export function compositeRank(sum: number): number {
  let k = 0;
  while (k < TOP_RANK && sheepValue(k + 1) <= sum) k++;
  return k;
}

/** What kind of sub-decision an effect in progress asks for. */
export type StepKind = "chooseField" | "select" | "gainOrStop" | "chooseHand" | "chooseDeck";

/** The sub-decision kind of each card whose effect can be pending (null: resolves at once). */
export const STEP_KIND: readonly (StepKind | null)[] = [
  null, // Multiply
  "gainOrStop", // Fill the Earth
  "chooseField", // Be Fruitful
  "chooseField", // Flourish
  "select", // Golden Hooves
  "select", // Dominion
  "chooseHand", // All-purpose Sheep
  "chooseField", // Crowding
  "chooseField", // Falling Rock
  "chooseDeck", // Inspiration
  null, // Lightning
  "chooseField", // Meteor
  "chooseField", // Plague
  "chooseHand", // Planning Sheep
  "chooseHand", // Sheep Dog
  null, // Shephion
  "chooseField", // Slump
  "chooseField", // Storm
  null, // Wolves
];
