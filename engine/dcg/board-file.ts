import Type, { type Static, type TSchema } from "typebox";
import Value from "typebox/value";
import type { Seat } from "./battle-data.ts";
import { CELLS, cellName, COLS, inPlacement } from "./board.ts";
import { guardJson, type JsonLimits } from "./json-guard.ts";
import { HAND_CAP, LIFE_MAX } from "./ops.ts";
import { CARD_ID, type Pool, defIn, defIndex } from "./pool.ts";

/**
 * A board file (docs/board-file.md): a dcg position to start a battle from, for debugging a rule,
 * a card or an agent in one exact situation. It travels inline as `config.board`, so a record of
 * a game started from a board replays without the file. This TypeBox schema is its one
 * definition: the TS type, the check (checkBoard) and docs/board-file.schema.json.
 *
 * The position starts at the turn player's Main phase. Everything is bounded by the schema; what
 * a schema cannot say (cards exist in the pool, unit and feint kinds, one unit per cell, limits
 * taken from the config) checkBoard adds, every error naming the JSON path under `board`.
 */

/** A cell: its number y*5 + x (0..34), or its name, column letter A..E then row 0..6 ("C2"). */
const CELL_TEXT = 'a cell: an integer 0..34 (row * 5 + column) or a name like "C2" (column A..E, row 0..6)';
export const BOARD_CELL = Type.Union([Type.Integer({ minimum: 0, maximum: CELLS - 1 }), Type.String({ pattern: "^[A-E][0-6]$" })], {
  description: CELL_TEXT,
});

/** Bounds of a board's lists (a config's book has at most 40 cards; a grave could hold them all). */
export const BOARD_BOOK_MAX = 40;
export const BOARD_GRAVE_MAX = 60;

/** Far above any valid board (its longest list has 60 items), far below what could cost time. */
const BOARD_LIMITS: JsonLimits = { depth: 6, nodes: 10_000, string: 200, items: 100 };

const cardList = (maxItems: number, description: string) => Type.Optional(Type.Array(CARD_ID, { maxItems, description }));

export const BOARD_UNIT = Type.Object(
  {
    card: CARD_ID,
    cell: BOARD_CELL,
    life: Type.Optional(
      Type.Integer({
        minimum: 1,
        maximum: LIFE_MAX,
        description: "current life (default: the card's full life, its printed life through its own Life abilities)",
      }),
    ),
    ailment: Type.Optional(Type.Union([Type.Literal("none"), Type.Literal("poison")], { description: 'default "none"' })),
  },
  { additionalProperties: false, description: "a unit (rubric or object) on the field" },
);

export const BOARD_FEINT = Type.Object(
  { card: CARD_ID, cell: BOARD_CELL },
  { additionalProperties: false, description: "a face-down feint, in its owner's placement rows" },
);

export const BOARD_PLAYER = Type.Object(
  {
    hp: Type.Integer({ minimum: 1, maximum: 100, description: "at most the config's hp" }),
    mp: Type.Integer({ minimum: 0, maximum: 20, description: "at most the config's mpCap" }),
    hand: cardList(HAND_CAP, "the hand, oldest first"),
    book: cardList(BOARD_BOOK_MAX, "the book, top card (the next draw) first"),
    grave: cardList(BOARD_GRAVE_MAX, "the grave, in arrival order"),
    field: Type.Optional(Type.Array(BOARD_UNIT, { maxItems: CELLS, description: "units on the field, at most one per cell (both players counted)" })),
    feint: Type.Optional(BOARD_FEINT),
  },
  { additionalProperties: false },
);

export const BOARD_FILE = Type.Object(
  {
    turn: Type.Integer({ minimum: 1, maximum: 200, description: "the turn number (the first player plays the odd turns), at most the config's turnLimit" }),
    turnPlayer: Type.Union([Type.Literal(0), Type.Literal(1)], { description: "the seat whose Main phase the position starts at" }),
    players: Type.Array(BOARD_PLAYER, { minItems: 2, maxItems: 2, description: "seat 0 (Host, home rows 0..2), then seat 1 (Guest, home rows 6..4)" }),
  },
  { additionalProperties: false },
);

export type BoardPlayer = Static<typeof BOARD_PLAYER>;
export type BoardFile = Omit<Static<typeof BOARD_FILE>, "players"> & { readonly players: readonly [BoardPlayer, BoardPlayer] };

/** The config limits a board is checked against. */
export interface BoardLimits {
  readonly hp: number;
  readonly mpCap: number;
  readonly turnLimit: number;
}

export interface BoardError {
  readonly message: string;
  readonly path: string;
}

/** The cell a board names ("C2" or 12). */
export function boardCell(cell: number | string): number {
  return typeof cell === "number" ? cell : cell.charCodeAt(0) - 65 + COLS * Number(cell[1]);
}

/** One card of a board, in instance-id order (boardInstances). */
export interface BoardInstance {
  readonly def: number;
  readonly owner: Seat;
  readonly where: "field" | "feint" | "hand" | "book" | "grave";
  /** The board's entry: a unit or feint object, or the card id in a list. */
  readonly entry: Static<typeof BOARD_UNIT> | Static<typeof BOARD_FEINT> | string;
}

/**
 * Instance ids of a board's cards: seat 0's, then seat 1's; within a seat its field units, its
 * feint, its hand, its book (top first), its grave, each in the board's order. The board is in
 * the config, so which instance is which card is public, like a book's list.
 */
export function boardInstances(board: BoardFile, pool: Pool): BoardInstance[] {
  const out: BoardInstance[] = [];
  for (const owner of [0, 1] as const) {
    const p = board.players[owner];
    const add = (where: BoardInstance["where"], entry: BoardInstance["entry"]) =>
      out.push({ def: defIndex(pool, typeof entry === "string" ? entry : entry.card), owner, where, entry });
    for (const u of p.field ?? []) add("field", u);
    if (p.feint) add("feint", p.feint);
    for (const id of p.hand ?? []) add("hand", id);
    for (const id of p.book ?? []) add("book", id);
    for (const id of p.grave ?? []) add("grave", id);
  }
  return out;
}

/** JSON pointer "/players/1/field/0" -> ".players[1].field[0]". */
function pathOf(pointer: string): string {
  return pointer
    .split("/")
    .slice(1)
    .map((k) => (/^\d+$/.test(k) ? `[${k}]` : `.${k.replace(/~1/g, "/").replace(/~0/g, "~")}`))
    .join("");
}

/** The schema node a JSON-pointer-like schema path names ("#/properties/players/prefixItems/0"). */
function schemaAt(root: TSchema, schemaPath: string): Record<string, unknown> {
  let node: unknown = root;
  for (const k of schemaPath.replace(/^#\/?/, "").split("/")) {
    if (k === "" || node === null || typeof node !== "object") continue;
    node = (node as Record<string, unknown>)[k];
  }
  return (node ?? {}) as Record<string, unknown>;
}

/** What a board schema node accepts, in words. */
function describe(s: Record<string, unknown>): string {
  if (s.description === CELL_TEXT) return CELL_TEXT;
  if (Array.isArray(s.anyOf)) return (s.anyOf as Record<string, unknown>[]).map(describe).join(" or ");
  if (s.const !== undefined) return JSON.stringify(s.const);
  if (s.type === "integer") return `an integer in ${s.minimum as number}..${s.maximum as number}`;
  if (s.type === "string" && typeof s.pattern === "string")
    return s.pattern === (CARD_ID as { pattern?: string }).pattern ? "a card id (a-z, 0-9, -)" : `a string matching ${s.pattern}`;
  if (s.type === "array") {
    const items = s.items as Record<string, unknown>;
    const what = items.type === "string" ? "card ids" : items.properties && "hp" in (items.properties as object) ? "players" : "units";
    return s.minItems === s.maxItems ? `a list of exactly ${s.maxItems as number} ${what}` : `a list of at most ${s.maxItems as number} ${what}`;
  }
  if (s.type === "object") return `an object with fields ${Object.keys(s.properties as object).join(", ")}`;
  return "something else";
}

/** The value at a JSON pointer inside `root`. */
function valueAt(root: unknown, pointer: string): unknown {
  let value = root;
  for (const k of pointer.split("/").slice(1)) value = value !== null && typeof value === "object" ? (value as Record<string, unknown>)[k] : undefined;
  return value;
}

/** The first schema error of `raw`, as "board.path: what it must be, got X". */
function schemaError(raw: unknown, root: string): BoardError | null {
  if (Value.Check(BOARD_FILE, raw)) return null;
  const errors = Value.Errors(BOARD_FILE, raw);
  // A union's branches report one by one and then the union itself: report the union. An unknown
  // field reports a "false" subschema and then the object: report the object.
  const e = errors.find((x) => x.keyword !== "boolean" && !/\/anyOf\/\d+$/.test(x.schemaPath)) ?? errors[0];
  if (e === undefined) return { message: `${root}: does not match the board schema`, path: root };
  const at = `${root}${pathOf(e.instancePath)}`;
  const params = e.params as Record<string, unknown>;
  const got = (): string => {
    const text = JSON.stringify(valueAt(raw, e.instancePath));
    return text === undefined ? "" : `, got ${text.length > 60 ? `${text.slice(0, 60)}...` : text}`;
  };
  const node = schemaAt(BOARD_FILE, e.schemaPath);
  switch (e.keyword) {
    case "additionalProperties": {
      const extra = (params.additionalProperties as string[])[0] ?? "?";
      return { message: `${at}.${extra}: unknown field (allowed: ${Object.keys(node.properties as object).join(", ")})`, path: `${at}.${extra}` };
    }
    case "required": {
      const missing = (params.requiredProperties as string[])[0] ?? "?";
      const field = (node.properties as Record<string, Record<string, unknown> | undefined>)[missing];
      return { message: `${at}.${missing}: required${field === undefined ? "" : ` (${describe(field)})`}`, path: `${at}.${missing}` };
    }
    case "maxItems":
    case "minItems":
      return { message: `${at}: must be ${describe(node)}, got ${(valueAt(raw, e.instancePath) as unknown[]).length} items`, path: at };
  }
  return { message: `${at}: must be ${describe(node)}${got()}`, path: at };
}

/**
 * Checks an untrusted board: the schema, then what depends on the pool and the config. Returns
 * the first problem, its message starting with its JSON path under `root`, or null.
 */
export function checkBoard(raw: unknown, pool: Pool, limits: BoardLimits, root = "board"): BoardError | null {
  // Plain JSON of a board's size first (cheap), so the schema check never walks a huge document.
  const unsafe = guardJson(raw, root, BOARD_LIMITS);
  if (unsafe) return { message: unsafe, path: unsafe.slice(0, unsafe.indexOf(": ")) };
  const bad = schemaError(raw, root);
  if (bad) return bad;
  const board = raw as BoardFile;
  const err = (path: string, message: string): BoardError => ({ message: `${root}${path}: ${message}`, path: `${root}${path}` });
  if (board.turn > limits.turnLimit) return err(".turn", `at most the config's turnLimit (${limits.turnLimit}), got ${board.turn}`);
  const units = new Map<number, string>();
  const feints = new Map<number, string>();
  for (const seat of [0, 1] as const) {
    const p = board.players[seat];
    const at = `.players[${seat}]`;
    if (p.hp > limits.hp) return err(`${at}.hp`, `at most the config's hp (${limits.hp}), got ${p.hp}`);
    if (p.mp > limits.mpCap) return err(`${at}.mp`, `at most the config's mpCap (${limits.mpCap}), got ${p.mp}`);
    const known = (id: string, path: string): BoardError | null => (pool.byId.has(id) ? null : err(path, `unknown card ${JSON.stringify(id)}`));
    for (const list of ["hand", "book", "grave"] as const) {
      const ids = p[list] ?? [];
      for (const [i, id] of ids.entries()) {
        const e = known(id, `${at}.${list}[${i}]`);
        if (e) return e;
      }
    }
    const field = p.field ?? [];
    for (const [i, u] of field.entries()) {
      const here = `${at}.field[${i}]`;
      const e = known(u.card, `${here}.card`);
      if (e) return e;
      const def = defIn(pool, defIndex(pool, u.card));
      if (def.kind === "feint") return err(`${here}.card`, `${u.card} is a feint: a unit is a rubric or an object (a feint goes in "feint")`);
      const cell = boardCell(u.cell);
      const taken = units.get(cell);
      if (taken !== undefined) return err(`${here}.cell`, `cell ${cellName(cell)} already holds ${root}${taken}`);
      units.set(cell, here);
    }
    if (p.feint) {
      const here = `${at}.feint`;
      const e = known(p.feint.card, `${here}.card`);
      if (e) return e;
      if (defIn(pool, defIndex(pool, p.feint.card)).kind !== "feint") return err(`${here}.card`, `${p.feint.card} is not a feint card`);
      const cell = boardCell(p.feint.cell);
      if (!inPlacement(cell, seat))
        return err(`${here}.cell`, `a feint lies in its owner's placement rows (seat ${seat}: rows ${seat === 0 ? "0..3" : "3..6"}), got ${cellName(cell)}`);
      const taken = feints.get(cell);
      if (taken !== undefined) return err(`${here}.cell`, `cell ${cellName(cell)} already holds ${root}${taken}`);
      feints.set(cell, here);
    }
  }
  return null;
}
