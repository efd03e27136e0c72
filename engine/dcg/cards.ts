import { unwrap } from "../core/index.ts";
import starterJson from "./cards/starters.json" with { type: "json" };
import bookJson from "./cards/books.json" with { type: "json" };
import { checkBook, type PresetBook } from "./config.ts";
import { loadPool, type Pool } from "./pool.ts";

/** The shipped card pool (engine/dcg/cards/starters.json) and preset books (books.json). */
export const STARTER_POOL: Pool = unwrap(loadPool(starterJson));

export const PRESET_BOOKS: readonly PresetBook[] = (bookJson as PresetBook[]).map((b) => {
  const err = checkBook(b, STARTER_POOL, 20);
  if (err) throw new Error(`preset book ${b.id}${err.path}: ${err.message}`);
  return b;
});
