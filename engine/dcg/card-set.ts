import { canonicalJson, fail, ok, type Result } from "../core/index.ts";
import Type from "typebox";
import { checkBook, STRATEGY_SIZE, type PresetBook } from "./config.ts";
import { guardJson } from "./json-guard.ts";
import { CARD_ID, loadPool, MAX_CARDS, type Pool } from "./pool.ts";
import { checkFields } from "./validate.ts";

/**
 * A user card set (the dcg design's promise: new cards are data). It travels inline in the game config
 * (`config.cardSet`), so a GameRecord replays without any file; the server and the CLIs read
 * files and inline them before parseConfig, which keeps the engine free of I/O.
 *
 * Its cards join the shipped pool (after it, so shipped card indices and observation one-hots are
 * unchanged); its books join the preset books and can use shipped and new cards alike.
 */
export interface CardSetJson {
  readonly cards?: readonly unknown[];
  readonly books?: readonly unknown[];
}

/** A compiled pool with the preset books that go with it. */
export interface CardSet {
  readonly pool: Pool;
  readonly presets: readonly PresetBook[];
}

export const MAX_SET_BOOKS = 100;
/** A pool holds at most this many cards, the shipped ones included (pool.ts). */
export { MAX_CARDS } from "./pool.ts";
/** A preset book's JSON fields (TypeBox: the published schema's book and the loader's check). */
export const BOOK_FIELDS = {
  id: CARD_ID,
  name: Type.String({ minLength: 1, maxLength: 100 }),
  strategy: Type.Array(Type.String(), { minItems: STRATEGY_SIZE, maxItems: STRATEGY_SIZE }),
  cards: Type.Array(Type.String(), { maxItems: 100 }),
};

/** Extends `base` with a card set's JSON; errors name the JSON path under `cardSet`. */
export function extendCardSet(base: CardSet, raw: unknown, bookSize: number): Result<CardSet> {
  const unsafe = guardJson(raw, "cardSet");
  if (unsafe) return fail("invalid_config", unsafe, "cardSet");
  if (raw === null || typeof raw !== "object" || Array.isArray(raw)) return fail("invalid_config", "cardSet must be an object {cards?, books?}", "cardSet");
  const set = raw as Record<string, unknown>;
  for (const k of Object.keys(set))
    if (k !== "cards" && k !== "books") return fail("invalid_config", `cardSet.${k}: unknown field (allowed: cards, books)`, `cardSet.${k}`);
  const cards = set.cards ?? [];
  if (!Array.isArray(cards)) return fail("invalid_config", "cardSet.cards must be an array of cards", "cardSet.cards");
  const n = base.pool.source.length;
  if (cards.length > MAX_CARDS - n)
    return fail("invalid_config", `cardSet.cards: at most ${MAX_CARDS - n} cards (${MAX_CARDS} with the ${n} shipped ones)`, "cardSet.cards");
  // A shipped card repeated unchanged is the shipped card (a set may copy one to show it); any
  // other use of a shipped id is a duplicate id.
  const shipped = new Map<string, string>();
  for (const c of base.pool.source) shipped.set((c as { id: string }).id, canonicalJson(c));
  const own: number[] = [];
  cards.forEach((c, i) => {
    const id = (c as { id?: unknown } | null)?.id;
    if (!(typeof id === "string" && shipped.has(id) && shipped.get(id) === canonicalJson(c))) own.push(i);
  });
  const pool = loadPool([...base.pool.source, ...own.map((i) => cards[i])], (i) => (i < n ? `cards[${i}]` : `cardSet.cards[${own[i - n]}]`));
  if (!pool.ok) return fail("invalid_config", pool.error.message, "cardSet.cards");
  const books = set.books ?? [];
  if (!Array.isArray(books)) return fail("invalid_config", "cardSet.books must be an array of books", "cardSet.books");
  if (books.length > MAX_SET_BOOKS) return fail("invalid_config", `cardSet.books: at most ${MAX_SET_BOOKS} books`, "cardSet.books");
  const presets: PresetBook[] = [...base.presets];
  for (let i = 0; i < books.length; i++) {
    const b = books[i] as Record<string, unknown> | null;
    const at = `cardSet.books[${i}]`;
    const err = (message: string, path = at) => fail("invalid_config", `${path}: ${message}`, path);
    if (b === null || typeof b !== "object" || Array.isArray(b)) return err("a book must be an object {id, name, strategy, cards}");
    const named = `${at}${typeof b.id === "string" ? ` (${b.id.slice(0, 40)})` : ""}`;
    const bad = checkFields(b, BOOK_FIELDS, named, "");
    if (bad) return fail("invalid_config", bad, bad.slice(0, bad.indexOf(": ")));
    const book = b as unknown as PresetBook;
    const same = presets.find((p) => p.id === book.id);
    // A preset book repeated unchanged is the preset itself.
    if (same && base.presets.includes(same) && canonicalJson(same) === canonicalJson(b)) continue;
    if (same) return err(`duplicate book id ${book.id}`, `${named}.id`);
    const rules = checkBook(book, pool.value, bookSize);
    if (rules) return err(rules.message, `${named}${rules.path}`);
    presets.push(book);
  }
  return ok({ pool: pool.value, presets });
}
