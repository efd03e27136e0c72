import Type from "typebox";
import Value from "typebox/value";
import { fail, intOption, InvariantError, nullableIntOption, ok, parseFields, quoted, type ConfigOf, type Result } from "../core/index.ts";
import { BOARD_FILE, checkBoard, type BoardFile } from "./board-file.ts";
import type { CardSet, CardSetJson } from "./card-set.ts";
import { generateCardSet, MAX_GENERATED_CARDS, MIN_GENERATED_CARDS, type GenerateSpec } from "./generate.ts";
import type { Pool } from "./pool.ts";
import { defIn } from "./pool.ts";

/** A generated card pool (docs/cards.md, "Generated pools"): the spec travels, the cards are regenerated. */
export const CARD_POOL = Type.Object(
  {
    generate: Type.Object(
      { seed: Type.Integer({ minimum: 0, maximum: 4_294_967_295 }), cards: Type.Integer({ minimum: MIN_GENERATED_CARDS, maximum: MAX_GENERATED_CARDS }) },
      { additionalProperties: false },
    ),
  },
  { additionalProperties: false },
);
export interface CardPoolSpec {
  readonly generate: GenerateSpec;
}

/** A book: its 5 strategy rubrics and the rest of its cards, by card id. */
export interface BookSpec {
  readonly strategy: readonly string[];
  readonly cards: readonly string[];
}

/** An inline book in a config: card ids. */
const INLINE_BOOK = Type.Object({ strategy: Type.Array(Type.String()), cards: Type.Array(Type.String()) }, { additionalProperties: false });

/**
 * The config's fields (TypeBox: the DcgConfig type, configSchema's JSON Schema and the check).
 * `books` and `cardSet` are checked by parseDcgConfig itself (they depend on the preset books and
 * the card loader).
 */
export const DCG_CONFIG_FIELDS = {
  seats: intOption(2, 2, 2),
  /** Per seat: a preset book id or an inline book {strategy, cards} (default: the first two presets). */
  books: Type.Unsafe<readonly [string | BookSpec, string | BookSpec]>({
    type: "array",
    minItems: 2,
    maxItems: 2,
    items: {
      anyOf: [{ type: "string" }, INLINE_BOOK],
    },
  }),
  hp: intOption(15, 1, 100),
  turnLimit: intOption(40, 1, 200),
  handStart: intOption(4, 0, 7),
  mpCap: intOption(8, 0, 20),
  mpGain: intOption(2, 0, 20),
  /** MP at the first player's first Main (the second player starts with mpSecond). */
  mpFirst: intOption(3, 0, 20),
  mpSecond: intOption(4, 0, 20),
  attackCount: intOption(2, 0, 10),
  bookSize: intOption(20, 6, 40),
  /** Main-phase operations (summon, feint, moveDeclare, attack, direct) per turn. */
  opsPerTurn: intOption(30, 1, 100),
  /** Decision deadline advertised by expectation(); the default decision is forceFinish. */
  timeoutMs: nullableIntOption(null, 1, 86_400_000),
  /** A user card set carried inline (absent unless given, so default configs hash as before): docs/card-schema.json. */
  cardSet: Type.Optional(Type.Unsafe<CardSetJson>({ $ref: "https://cardgym.dev/schemas/dcg-card-set.json" })),
  /** A generated card pool `{generate: {seed, cards}}` instead of a cardSet (its books are the default books). */
  cardPool: Type.Optional(Type.Unsafe<CardPoolSpec>(CARD_POOL)),
  /**
   * A position to start from instead of books and a shuffle (docs/board-file.md; absent unless
   * given, so default configs hash as before). Its cards come from the config's pool.
   */
  board: Type.Optional(Type.Unsafe<BoardFile>(BOARD_FILE)),
};

export type DcgConfig = ConfigOf<typeof DCG_CONFIG_FIELDS>;

export const STRATEGY_SIZE = 5;
export const COPIES = { rubric: 5, object: 3, feint: 3 } as const;

export interface PresetBook extends BookSpec {
  readonly id: string;
  readonly name: string;
}

/**
 * `extend` compiles a config's card set over the shipped cards (index.ts caches it); without a
 * card set the shipped pool and presets are used.
 */
export function parseDcgConfig(raw: unknown, base: CardSet, extend: (cardSet: unknown, bookSize: number) => Result<CardSet>): Result<DcgConfig> {
  const parsed = parseFields(raw, DCG_CONFIG_FIELDS, ["books", "cardSet", "cardPool", "board"]);
  if (!parsed.ok) return parsed;
  const c = parsed.value.value;
  const obj = parsed.value.raw;
  if (c.handStart > c.bookSize - STRATEGY_SIZE) {
    return fail("invalid_config", `handStart must be at most bookSize - ${STRATEGY_SIZE} (${c.bookSize - STRATEGY_SIZE}), got ${c.handStart}`, "handStart");
  }
  if (c.mpFirst > c.mpCap || c.mpSecond > c.mpCap) return fail("invalid_config", "mpFirst and mpSecond must be at most mpCap", "mpFirst");
  let set = base;
  let cardSet: CardSetJson | undefined;
  let cardPool: CardPoolSpec | undefined;
  if (obj.cardPool !== undefined) {
    if (obj.cardSet !== undefined) return fail("invalid_config", "give either cardSet or cardPool, not both", "cardPool");
    if (!Value.Check(CARD_POOL, obj.cardPool)) {
      const p = obj.cardPool as { generate?: { seed?: unknown; cards?: unknown } } | null;
      const at =
        p !== null &&
        typeof p === "object" &&
        p.generate !== null &&
        typeof p.generate === "object" &&
        Value.Check(CARD_POOL.properties.generate.properties.seed, p.generate.seed)
          ? "cardPool.generate.cards"
          : "cardPool.generate";
      return fail(
        "invalid_config",
        `cardPool must be {"generate": {"seed": an integer in 0..4294967295, "cards": an integer in ${MIN_GENERATED_CARDS}..${MAX_GENERATED_CARDS}}}, got ${JSON.stringify(obj.cardPool)?.slice(0, 120)}`,
        at,
      );
    }
    cardPool = { generate: { seed: obj.cardPool.generate.seed, cards: obj.cardPool.generate.cards } };
    const ext = extend(generateCardSet(cardPool.generate), c.bookSize);
    if (!ext.ok) return ext;
    set = ext.value;
  } else if (obj.cardSet !== undefined) {
    const ext = extend(obj.cardSet, c.bookSize);
    if (!ext.ok) return ext;
    set = ext.value;
    // A plain, private copy: the state carries it and must stay JSON the caller cannot change.
    cardSet = JSON.parse(JSON.stringify(obj.cardSet)) as CardSetJson;
  }
  const { pool, presets } = set;
  // A generated pool plays its own first two books unless told otherwise.
  const first = cardPool === undefined ? 0 : base.presets.length;
  const rawBooks = obj.books ?? presets.slice(first, first + 2).map((p) => p.id);
  if (!Array.isArray(rawBooks) || rawBooks.length !== 2)
    return fail("invalid_config", "books must be an array of 2 books (preset ids or {strategy, cards})", "books");
  const books: (string | BookSpec)[] = [];
  for (let i = 0; i < 2; i++) {
    const b = rawBooks[i];
    const path = `books[${i}]`;
    let spec: BookSpec;
    if (typeof b === "string") {
      const preset = presets.find((p) => p.id === b);
      if (!preset) return fail("invalid_config", `${path}: unknown preset book ${quoted(b)}; presets: ${presets.map((p) => p.id).join(", ")}`, path);
      spec = preset;
      books.push(b);
    } else {
      if (!Value.Check(INLINE_BOOK, b)) return fail("invalid_config", `${path} must be a preset id or {strategy, cards} (arrays of card ids)`, path);
      spec = { strategy: b.strategy, cards: b.cards };
      books.push(spec);
    }
    const err = checkBook(spec, pool, c.bookSize);
    if (err) return fail("invalid_config", `${path}: ${err.message}`, `${path}${err.path}`);
  }
  let board: BoardFile | undefined;
  if (obj.board !== undefined) {
    // A board lists every card it plays with; `books` stays (a parsed config always has it, and
    // parsing must accept its own output) but setup does not read it.
    const bad = checkBoard(obj.board, pool, c);
    if (bad) return fail("invalid_config", bad.message, bad.path);
    // A plain, private copy, as for cardSet.
    board = JSON.parse(JSON.stringify(obj.board)) as BoardFile;
  }
  const { cardSet: _given, cardPool: _pool, books: _books, board: _board, ...rest } = c;
  return ok({
    ...rest,
    books: books as [string | BookSpec, string | BookSpec],
    ...(cardSet === undefined ? {} : { cardSet }),
    ...(cardPool === undefined ? {} : { cardPool }),
    ...(board === undefined ? {} : { board }),
  });
}

/** The book rules: size, 5 strategy rubrics (at most one of cost 3), copy limits. */
export function checkBook(spec: BookSpec, pool: Pool, size: number): { message: string; path: string } | null {
  if (spec.strategy.length !== STRATEGY_SIZE)
    return { message: `a book names exactly ${STRATEGY_SIZE} strategy rubrics, got ${spec.strategy.length}`, path: ".strategy" };
  const counts = new Map<string, number>();
  let cost3 = 0;
  for (const [list, name] of [
    [spec.strategy, "strategy"],
    [spec.cards, "cards"],
  ] as const) {
    for (const [i, id] of list.entries()) {
      const idx = pool.byId.get(id);
      if (idx === undefined) return { message: `unknown card ${quoted(id)}`, path: `.${name}[${i}]` };
      const def = defIn(pool, idx);
      if (name === "strategy") {
        if (def.kind !== "rubric") return { message: `strategy card ${id} is not a rubric`, path: `.strategy[${i}]` };
        if (def.cost === 3 && ++cost3 > 1) return { message: "at most one cost-3 strategy rubric", path: `.strategy[${i}]` };
      }
      const n = (counts.get(id) ?? 0) + 1;
      counts.set(id, n);
      if (n > COPIES[def.kind]) return { message: `at most ${COPIES[def.kind]} copies of ${def.kind} ${id}`, path: `.${name}[${i}]` };
    }
  }
  if (spec.strategy.length + spec.cards.length !== size) {
    return { message: `a book has exactly ${size} cards (strategy included), got ${spec.strategy.length + spec.cards.length}`, path: ".cards" };
  }
  return null;
}

export function resolveBook(book: string | BookSpec, presets: readonly PresetBook[]): BookSpec {
  if (typeof book !== "string") return book;
  const preset = presets.find((p) => p.id === book);
  if (preset === undefined) throw new InvariantError(`dcg: preset book "${book}" was accepted but is not among the presets`);
  return preset;
}
