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

/** Every interned decision of one kind, built whole and frozen: table[card][cell]. */
type PlacedTable<K extends PlacedKind> = readonly (readonly Extract<Placed, { kind: K }>[])[];

function placedTable<K extends PlacedKind>(kind: K): PlacedTable<K> {
  type D = Extract<Placed, { kind: K }>;
  return Object.freeze(
    Array.from({ length: MAX_CARD }, (_, card) => Object.freeze(Array.from({ length: CELLS }, (_, cell) => Object.freeze({ kind, card, cell }) as D))),
  );
}

/** The decision of `table`'s kind for (card, cell): the interned object, or a fresh one outside the table. */
function placedOf<K extends PlacedKind>(table: PlacedTable<K>, kind: K, card: number, cell: number): Extract<Placed, { kind: K }> {
  if (!(card >= 0 && card < MAX_CARD && cell >= 0 && cell < CELLS)) return { kind, card, cell } as Extract<Placed, { kind: K }>;
  return table[card]![cell]!;
}

/** The lookup of one kind: a pure function over its frozen table (no state filled in as it runs). */
function placed<K extends PlacedKind>(kind: K): (card: number, cell: number) => Extract<Placed, { kind: K }> {
  const table = placedTable(kind);
  return (card, cell) => placedOf(table, kind, card, cell);
}

export const strategyMoveOf = placed("strategyMove");
export const summonOf = placed("summon");
export const feintOf = placed("feint");
export const moveDeclareOf = placed("moveDeclare");
export const attackOf = placed("attack");
export const reactSummonOf = placed("reactSummon");
export const reactFeintOf = placed("reactFeint");

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
