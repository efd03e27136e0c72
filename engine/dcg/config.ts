import { asObject, fail, intField, nullableIntField, ok, type BaseConfig, type Raw, type Result } from "../core/index.ts";
import type { CardSet, CardSetJson } from "./card-set.ts";
import type { Pool } from "./pool.ts";

/** A book: its 5 strategy rubrics and the rest of its cards, by card id. */
export interface BookSpec {
  readonly strategy: readonly string[];
  readonly cards: readonly string[];
}

export interface DcgConfig extends BaseConfig {
  /** Per seat: a preset book id or an inline book. */
  readonly books: readonly [string | BookSpec, string | BookSpec];
  readonly hp: number;
  readonly turnLimit: number;
  readonly handStart: number;
  readonly mpCap: number;
  readonly mpGain: number;
  /** MP at the first player's first Main (the second player starts with mpSecond). */
  readonly mpFirst: number;
  readonly mpSecond: number;
  readonly attackCount: number;
  readonly bookSize: number;
  /** Main-phase operations (summon, feint, moveDeclare, attack, direct) per turn. */
  readonly opsPerTurn: number;
  /** Decision deadline advertised by expectation(); the default decision is forceFinish. */
  readonly timeoutMs: number | null;
  /** A user card set carried inline (absent unless given, so default configs hash as before). */
  readonly cardSet?: CardSetJson;
}

export const STRATEGY_SIZE = 5;
export const COPIES = { rubric: 5, object: 3, feint: 3 } as const;
const FIELDS = ["seats", "books", "hp", "turnLimit", "handStart", "mpCap", "mpGain", "mpFirst", "mpSecond", "attackCount", "bookSize", "opsPerTurn", "timeoutMs", "cardSet"];

export interface PresetBook extends BookSpec {
  readonly id: string;
  readonly name: string;
}

/**
 * `extend` compiles a config's card set over the shipped cards (index.ts caches it); without a
 * card set the shipped pool and presets are used.
 */
export function parseDcgConfig(raw: unknown, base: CardSet, extend: (cardSet: unknown, bookSize: number) => Result<CardSet>): Result<DcgConfig> {
  const o = asObject(raw, FIELDS);
  if (!o.ok) return o;
  const obj: Raw = o.value;
  const seats = intField(obj, "seats", 2, 2, 2);
  if (!seats.ok) return seats;
  const ints: Record<string, number> = {};
  const specs: [string, number, number, number][] = [
    ["hp", 15, 1, 100],
    ["turnLimit", 40, 1, 200],
    ["handStart", 4, 0, 7],
    ["mpCap", 8, 0, 20],
    ["mpGain", 2, 0, 20],
    ["mpFirst", 3, 0, 20],
    ["mpSecond", 4, 0, 20],
    ["attackCount", 2, 0, 10],
    ["bookSize", 20, 6, 40],
    ["opsPerTurn", 30, 1, 100],
  ];
  for (const [k, def, min, max] of specs) {
    const r = intField(obj, k, def, min, max);
    if (!r.ok) return r;
    ints[k] = r.value;
  }
  if (ints.handStart! > ints.bookSize! - STRATEGY_SIZE) {
    return fail("invalid_config", `handStart must be at most bookSize - ${STRATEGY_SIZE} (${ints.bookSize! - STRATEGY_SIZE}), got ${ints.handStart}`, "handStart");
  }
  if (ints.mpFirst! > ints.mpCap! || ints.mpSecond! > ints.mpCap!) return fail("invalid_config", "mpFirst and mpSecond must be at most mpCap", "mpFirst");
  const timeout = nullableIntField(obj, "timeoutMs", null, 1, 86_400_000);
  if (!timeout.ok) return timeout;
  let set = base;
  let cardSet: CardSetJson | undefined;
  if (obj.cardSet !== undefined) {
    const ext = extend(obj.cardSet, ints.bookSize!);
    if (!ext.ok) return ext;
    set = ext.value;
    // A plain, private copy: the state carries it and must stay JSON the caller cannot change.
    cardSet = JSON.parse(JSON.stringify(obj.cardSet)) as CardSetJson;
  }
  const { pool, presets } = set;
  const rawBooks = obj.books ?? [presets[0]!.id, presets[1]!.id];
  if (!Array.isArray(rawBooks) || rawBooks.length !== 2) return fail("invalid_config", "books must be an array of 2 books (preset ids or {strategy, cards})", "books");
  const books: (string | BookSpec)[] = [];
  for (let i = 0; i < 2; i++) {
    const b = rawBooks[i];
    const path = `books[${i}]`;
    let spec: BookSpec;
    if (typeof b === "string") {
      const preset = presets.find((p) => p.id === b);
      if (!preset) return fail("invalid_config", `${path}: unknown preset book ${JSON.stringify(b)}; presets: ${presets.map((p) => p.id).join(", ")}`, path);
      spec = preset;
      books.push(b);
    } else {
      const parsed = asObject(b, ["strategy", "cards"]);
      if (!parsed.ok || b === null || b === undefined) return fail("invalid_config", `${path} must be a preset id or {strategy, cards}`, path);
      const v = parsed.value;
      if (!Array.isArray(v.strategy) || !v.strategy.every((x) => typeof x === "string")) return fail("invalid_config", `${path}.strategy must be an array of card ids`, `${path}.strategy`);
      if (!Array.isArray(v.cards) || !v.cards.every((x) => typeof x === "string")) return fail("invalid_config", `${path}.cards must be an array of card ids`, `${path}.cards`);
      spec = { strategy: v.strategy as string[], cards: v.cards as string[] };
      books.push(spec);
    }
    const err = checkBook(spec, pool, ints.bookSize!);
    if (err) return fail("invalid_config", `${path}: ${err.message}`, `${path}${err.path}`);
  }
  return ok({
    seats: 2,
    books: books as [string | BookSpec, string | BookSpec],
    hp: ints.hp!,
    turnLimit: ints.turnLimit!,
    handStart: ints.handStart!,
    mpCap: ints.mpCap!,
    mpGain: ints.mpGain!,
    mpFirst: ints.mpFirst!,
    mpSecond: ints.mpSecond!,
    attackCount: ints.attackCount!,
    bookSize: ints.bookSize!,
    opsPerTurn: ints.opsPerTurn!,
    timeoutMs: timeout.value,
    ...(cardSet === undefined ? {} : { cardSet }),
  });
}

/** The book rules: size, 5 strategy rubrics (at most one of cost 3), copy limits. */
export function checkBook(spec: BookSpec, pool: Pool, size: number): { message: string; path: string } | null {
  if (spec.strategy.length !== STRATEGY_SIZE) return { message: `a book names exactly ${STRATEGY_SIZE} strategy rubrics, got ${spec.strategy.length}`, path: ".strategy" };
  const counts = new Map<string, number>();
  let cost3 = 0;
  for (const [list, name] of [[spec.strategy, "strategy"], [spec.cards, "cards"]] as const) {
    for (let i = 0; i < list.length; i++) {
      const id = list[i]!;
      const idx = pool.byId.get(id);
      if (idx === undefined) return { message: `unknown card ${JSON.stringify(id)}`, path: `.${name}[${i}]` };
      const def = pool.cards[idx]!;
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
  return typeof book === "string" ? presets.find((p) => p.id === book)! : book;
}
