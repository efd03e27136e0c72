import { unwrap } from "../core/index.ts";
import starterJson from "./cards/starters.json" with { type: "json" };
import expansionJson from "./cards/expansion.json" with { type: "json" };
import bookJson from "./cards/books.json" with { type: "json" };
import { checkBook, type PresetBook } from "./config.ts";
import { loadPool, type Pool } from "./pool.ts";

/**
 * The shipped card pool: the rules' 11 starter cards (cards/starters.json) then the expansion
 * (cards/expansion.json) that exercises the whole ability vocabulary; and the preset books
 * (books.json). New cards go at the end: a card's index is its observation one-hot.
 */
export const SHIPPED_CARDS: readonly unknown[] = [...starterJson, ...expansionJson];
export const STARTER_POOL: Pool = unwrap(loadPool(SHIPPED_CARDS));

export const PRESET_BOOKS: readonly PresetBook[] = (bookJson as PresetBook[]).map((b) => {
  const err = checkBook(b, STARTER_POOL, 20);
  if (err) throw new Error(`preset book ${b.id}${err.path}: ${err.message}`);
  return b;
});
