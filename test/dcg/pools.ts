import type { DcgConfig, DcgGame } from "../../engine/dcg/index.ts";

/**
 * The configs the random-game tests play: the default books, two preset books, and three
 * generated pools (AttachAbility, lifetimes, poison and copied abilities the shipped cards lack).
 */
export const FIVE_POOLS: readonly unknown[] = [
  {},
  { books: ["venom", "tempo"] },
  { cardPool: { generate: { seed: 5, cards: 80 } } },
  { cardPool: { generate: { seed: 9, cards: 120 } } },
  { cardPool: { generate: { seed: 21, cards: 100 } } },
];

/** A raw config parsed by `game` (a test config that does not parse is a bug in the test). */
export function configOf(game: DcgGame, raw: unknown): DcgConfig {
  const c = game.parseConfig(raw);
  if (!c.ok) throw new Error(c.error.message);
  return c.value;
}
