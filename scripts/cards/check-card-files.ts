import { readdirSync, readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import { Ajv2020, type ErrorObject } from "ajv/dist/2020.js";
import { canonicalJson, parseJsonText } from "../../engine/core/index.ts";
import { SHIPPED_CARDS } from "../../engine/dcg/cards.ts";
import { extendCardSet } from "../../engine/dcg/card-set.ts";
import { checkBook, type PresetBook } from "../../engine/dcg/config.ts";
import { HEADS } from "../../engine/dcg/heads.ts";
import { guardJson } from "../../engine/dcg/json-guard.ts";
import { loadPool } from "../../engine/dcg/pool.ts";
import { dcg, PRESET_BOOKS } from "../../engine/dcg/index.ts";
import { buildCardSchema } from "../../engine/dcg/schema.ts";

/**
 * Checks card-set files (what `npm run validate-cards` runs): JSON Schema validation with Ajv
 * (every problem, not just the first), then the engine's own loader for what a schema cannot say,
 * then the book rules against the shipped cards plus every card of the files. A problem names the
 * file, the card or book id and the JSON path.
 *
 * Last, the cards and books of all the files, as one card set, go through the very function a
 * session runs on `config.cardSet` (extendCardSet over the shipped pool and presets, with its
 * limits): "ok" means a session (or `play --cards` with that set) accepts it.
 */
export interface Problem {
  readonly file: string;
  readonly path: string;
  readonly message: string;
}

/** What a file holds: a card set {cards?, books?}, a list of cards or a list of books. */
type Shape = "cardSet" | "cardList" | "bookList";

const ajv = new Ajv2020({ allErrors: true, discriminator: true, strict: true, strictRequired: false, strictTuples: false });
const schema = buildCardSchema();
ajv.addSchema(schema);
const validators: Record<Shape, ReturnType<typeof ajv.getSchema>> = {
  cardSet: ajv.getSchema(schema.$id as string),
  cardList: ajv.getSchema(`${schema.$id as string}#/$defs/cardList`),
  bookList: ajv.getSchema(`${schema.$id as string}#/$defs/bookList`),
};

/** Every *.json under the given files and directories, sorted; unreadable paths become problems. */
export function collectFiles(args: readonly string[], problems: Problem[]): string[] {
  const out: string[] = [];
  const visit = (p: string, top: boolean) => {
    let st;
    try {
      st = statSync(p);
    } catch (e) {
      problems.push({ file: p, path: "", message: `cannot read: ${(e as NodeJS.ErrnoException).code ?? (e as Error).message}` });
      return;
    }
    if (st.isDirectory()) {
      const before = out.length;
      for (const name of readdirSync(p).sort()) {
        const child = join(p, name);
        if (name.endsWith(".json") || isDirectory(child)) visit(child, false);
      }
      // A directory named on the command line with nothing to check is a mistake (a typo, the wrong folder), not a pass.
      if (top && out.length === before) problems.push({ file: p, path: "", message: "no .json file in this directory" });
    } else if (top || p.endsWith(".json")) out.push(p);
  };
  for (const a of args) visit(a, true);
  return out;
}

/** Whether `p` is a directory; false for anything that cannot be read (a broken link). */
function isDirectory(p: string): boolean {
  try {
    return statSync(p).isDirectory();
  } catch {
    return false;
  }
}

function shapeOf(data: unknown): Shape {
  if (Array.isArray(data)) {
    const first = data[0] as Record<string, unknown> | undefined;
    return first && typeof first === "object" && "strategy" in first ? "bookList" : "cardList";
  }
  return "cardSet";
}

/** "/cards/3/abilities/0/effect/kind" -> "cards[3] (pitfall).abilities[0].effect.kind". */
function jsonPath(pointer: string, data: unknown, shape: Shape): string {
  const parts = pointer
    .split("/")
    .slice(1)
    .map((p) => p.replace(/~1/g, "/").replace(/~0/g, "~"));
  let out = shape === "cardList" ? "cards" : shape === "bookList" ? "books" : "";
  let node: unknown = shape === "cardSet" ? data : { [out]: data };
  if (shape !== "cardSet") node = (node as Record<string, unknown>)[out];
  parts.forEach((part, i) => {
    const isIndex = Array.isArray(node) && /^\d+$/.test(part);
    out += isIndex ? `[${part}]` : `${out ? "." : ""}${part}`;
    node = node === null || typeof node !== "object" ? undefined : (node as Record<string, unknown>)[part];
    // Name the card or book right after its index.
    const top = shape === "cardSet" ? i === 1 : i === 0;
    if (top && isIndex && node && typeof node === "object" && typeof (node as { id?: unknown }).id === "string") out += ` (${(node as { id: string }).id})`;
  });
  return out || "(root)";
}

function describe(e: ErrorObject): string {
  switch (e.keyword) {
    case "discriminator":
      if (e.params.error !== "mapping") return `${e.params.tag} must be a string`;
      return e.schemaPath.includes("/head/")
        ? `${JSON.stringify(e.params.tagValue)} is not a head: a targeting starts with one of ${HEADS.join(", ")}`
        : `unknown ${e.params.tag} ${JSON.stringify(e.params.tagValue)}`;
    case "additionalProperties":
      return "unknown field";
    case "enum":
      return `must be one of ${(e.params.allowedValues as unknown[]).map((v) => JSON.stringify(v)).join(", ")}`;
    case "false schema":
      return "not allowed for this kind of card";
    case "contains":
      return "a TriggerAbility needs a FilterTriggerKind in one of its conditions";
    case "const":
      return `must be ${JSON.stringify(e.params.allowedValue)}`;
    default:
      return e.message ?? e.keyword;
  }
}

export interface CheckResult {
  readonly problems: Problem[];
  readonly files: number;
  readonly cards: number;
  readonly books: number;
}

export function checkCardFiles(args: readonly string[], options: { bookSize?: number } = {}): CheckResult {
  const problems: Problem[] = [];
  const files = collectFiles(args, problems);
  const shippedCards = new Map((SHIPPED_CARDS as { id: string }[]).map((c) => [c.id, canonicalJson(c)]));
  const shippedBooks = new Map(PRESET_BOOKS.map((b) => [b.id, canonicalJson(b)]));
  const cards: { file: string; path: string; card: Record<string, unknown>; compiles: boolean }[] = [];
  const books: { file: string; path: string; book: PresetBook }[] = [];

  for (const file of files) {
    const name = file;
    let text: string;
    try {
      text = readFileSync(file, "utf8");
    } catch (e) {
      problems.push({ file: name, path: "", message: `cannot read: ${(e as NodeJS.ErrnoException).code ?? (e as Error).message}` });
      continue;
    }
    let data: unknown;
    try {
      data = parseJsonText(text);
    } catch (e) {
      problems.push({ file: name, path: "", message: `not JSON: ${(e as Error).message}` });
      continue;
    }
    const shape = shapeOf(data);
    const root = shape === "cardSet" ? "" : shape === "cardList" ? "cards" : "books";
    const unsafe = guardJson(data, root || "(root)");
    if (unsafe) {
      const at = unsafe.indexOf(": ");
      problems.push({ file: name, path: unsafe.slice(0, at), message: unsafe.slice(at + 2) });
      continue;
    }
    const validate = validators[shape]!;
    // Cards and books with schema problems skip the later checks (their messages would repeat).
    const broken = new Set<string>();
    if (!validate(data)) {
      for (const e of validate.errors ?? []) {
        // "must match then schema" only repeats the failure inside the then-branch.
        if (e.keyword === "if") continue;
        // Inside a `contains` search every item's mismatch is reported; only the verdict matters.
        if (e.schemaPath.includes("/contains/")) continue;
        const tagged =
          e.keyword === "discriminator"
            ? `/${e.params.tag as string}`
            : e.keyword === "additionalProperties"
              ? `/${e.params.additionalProperty as string}`
              : "";
        problems.push({ file: name, path: jsonPath(e.instancePath + tagged, data, shape), message: describe(e) });
        const m = /^(?:\/(cards|books))?\/(\d+)/.exec(e.instancePath);
        broken.add(m ? `${m[1] ?? (shape === "bookList" ? "books" : "cards")}/${m[2]}` : "*");
      }
      if (broken.has("*")) continue;
    }
    const list = (key: "cards" | "books", own: Shape): unknown[] => {
      const v = shape === own ? data : shape === "cardSet" ? (data as Record<string, unknown>)[key] : [];
      return Array.isArray(v) ? v : [];
    };
    const fileCards = list("cards", "cardList") as Record<string, unknown>[];
    const fileBooks = list("books", "bookList") as PresetBook[];
    fileCards.forEach((card, i) => {
      if (broken.has(`cards/${i}`)) return;
      const path = `${root || "cards"}[${i}] (${card.id as string})`;
      // What the schema cannot say (ability references, one NightmareAbility...): the engine's loader.
      const one = loadPool([card], () => `${root || "cards"}[${i}]`);
      if (!one.ok) {
        const at = one.error.message.indexOf(": ");
        problems.push({ file: name, path: one.error.message.slice(0, at), message: one.error.message.slice(at + 2) });
      }
      cards.push({ file: name, path, card, compiles: one.ok });
    });
    fileBooks.forEach((book, i) => {
      if (!broken.has(`books/${i}`)) books.push({ file: name, path: `${root || "books"}[${i}] (${book.id})`, book });
    });
  }

  // Ids: unique across the files; a shipped id is fine only for the shipped card itself.
  const seen = new Map<string, string>();
  const pool: unknown[] = [...SHIPPED_CARDS];
  for (const { file, path, card, compiles } of cards) {
    const id = card.id as string;
    const prior = seen.get(id);
    if (prior) problems.push({ file, path: `${path}.id`, message: `duplicate card id ${id} (also ${prior})` });
    else if (shippedCards.has(id)) {
      if (shippedCards.get(id) !== canonicalJson(card)) problems.push({ file, path: `${path}.id`, message: `${id} is a shipped card id; choose another id` });
    } else if (compiles) pool.push(card);
    seen.set(id, `${file}: ${path}`);
  }
  const compiled = loadPool(pool);
  const seenBooks = new Map<string, string>();
  for (const { file, path, book } of books) {
    const prior = seenBooks.get(book.id);
    if (prior) problems.push({ file, path: `${path}.id`, message: `duplicate book id ${book.id} (also ${prior})` });
    else if (shippedBooks.has(book.id) && shippedBooks.get(book.id) !== canonicalJson(book))
      problems.push({ file, path: `${path}.id`, message: `${book.id} is a preset book id; choose another id` });
    seenBooks.set(book.id, `${file}: ${path}`);
    if (!compiled.ok) continue; // the card problems are already reported
    const err = checkBook(book, compiled.value, options.bookSize ?? 20);
    if (err) problems.push({ file, path: `${path}${err.path}`, message: err.message });
  }
  // The session's own path, with its limits, over everything the files hold.
  if (problems.length === 0) {
    const set = extendCardSet(
      { pool: dcg.pool, presets: dcg.presets },
      { cards: cards.map((c) => c.card), books: books.map((b) => b.book) },
      options.bookSize ?? 20,
    );
    if (!set.ok) {
      const m = /^cardSet\.(cards|books)\[(\d+)\]( \([^)]*\))?(.*?): (.*)$/s.exec(set.error.message);
      const item = m ? (m[1] === "cards" ? cards : books)[Number(m[2])] : undefined;
      if (m && item) problems.push({ file: item.file, path: `${item.path}${m[4]}`, message: m[5]! });
      else problems.push({ file: files.length === 1 ? files[0]! : "(all files)", path: "", message: set.error.message });
    }
  }
  return { problems, files: files.length, cards: cards.length, books: books.length };
}
