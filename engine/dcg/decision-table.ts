import { CELLS } from "./board.ts";
import type { Decision } from "./decision.ts";

/**
 * Shared, frozen decision objects (as engine/sevens does): legal() runs before every decision and
 * would otherwise allocate the same dozens of small objects each time. Each has the fields of the
 * fresh literal it replaces, in the same order, so it serialises and hashes the same; frozen, so
 * no caller can change one for everybody.
 */
type Placed = Extract<Decision, { card: number; cell: number }>;
type PlacedKind = Placed["kind"];

/** Instance ids below this are interned (a book has at most 40 cards); others get fresh objects. */
const MAX_CARD = 128;

/** One kind's interned decisions, rows[card][cell], each row made on first use. */
export interface PlacedRows<K extends PlacedKind> {
  readonly kind: K;
  readonly rows: ((Extract<Placed, { kind: K }> | null)[] | null)[];
}

function placedRows<K extends PlacedKind>(kind: K): PlacedRows<K> {
  return { kind, rows: new Array<null>(MAX_CARD).fill(null) };
}

/**
 * The decision of `table`'s kind for (card, cell): the interned object (made and kept in `table`
 * on first use), or a fresh one outside the table's range. Its only state is the table passed in.
 */
export function placedOf<K extends PlacedKind>(table: PlacedRows<K>, card: number, cell: number): Extract<Placed, { kind: K }> {
  type D = Extract<Placed, { kind: K }>;
  const kind = table.kind;
  if (!(card >= 0 && card < MAX_CARD && cell >= 0 && cell < CELLS)) return { kind, card, cell } as D;
  const row = (table.rows[card] ??= new Array<D | null>(CELLS).fill(null));
  return (row[cell] ??= Object.freeze({ kind, card, cell }) as D);
}

/**
 * The interned (card, cell) decisions of every kind. engine/ keeps no module-level state, so the
 * table belongs to whoever runs legal() (a DcgCache: one per game made by makeDcg) and is passed
 * in. Sharing one between games is safe: an entry is a function of its kind, card and cell.
 */
export class DecisionTable {
  readonly strategyMove = placedRows("strategyMove");
  readonly summon = placedRows("summon");
  readonly feint = placedRows("feint");
  readonly moveDeclare = placedRows("moveDeclare");
  readonly attack = placedRows("attack");
  readonly reactSummon = placedRows("reactSummon");
  readonly reactFeint = placedRows("reactFeint");
}

const DIRECT: readonly Extract<Decision, { kind: "direct" }>[] = Array.from({ length: MAX_CARD }, (_, card) =>
  Object.freeze({ kind: "direct" as const, card }),
);

export function directOf(card: number): Extract<Decision, { kind: "direct" }> {
  if (!(card >= 0 && card < MAX_CARD)) return { kind: "direct", card };
  return DIRECT[card]!;
}

/** moveRetry by cell; index 0 is the cancel (cell -1). */
const RETRY: readonly Extract<Decision, { kind: "moveRetry" }>[] = Array.from({ length: CELLS + 1 }, (_, i) =>
  Object.freeze({ kind: "moveRetry" as const, cell: i - 1 }),
);

export function moveRetryOf(cell: number): Extract<Decision, { kind: "moveRetry" }> {
  return RETRY[cell + 1]!;
}

export const DRAW: Decision = Object.freeze({ kind: "drawOrCharge", charge: false });
export const CHARGE: Decision = Object.freeze({ kind: "drawOrCharge", charge: true });
export const STRATEGY_CONFIRM: Decision = Object.freeze({ kind: "strategyConfirm" });
export const TURN_FINISH: Decision = Object.freeze({ kind: "turnFinish" });
export const REACT_NONE: Decision = Object.freeze({ kind: "reactNone" });
export const FEINT_DECLARE: Decision = Object.freeze({ kind: "feintDeclare" });
export const FEINT_PASS: Decision = Object.freeze({ kind: "feintPass" });
