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

function placed<K extends PlacedKind>(kind: K): (card: number, cell: number) => Extract<Placed, { kind: K }> {
  type D = Extract<Placed, { kind: K }>;
  // rows[card][cell], a row made on first use.
  const rows: ((D | null)[] | null)[] = new Array<(D | null)[] | null>(MAX_CARD).fill(null);
  return (card, cell) => {
    if (!(card >= 0 && card < MAX_CARD && cell >= 0 && cell < CELLS)) return { kind, card, cell } as D;
    const row = (rows[card] ??= new Array<D | null>(CELLS).fill(null));
    return (row[cell] ??= Object.freeze({ kind, card, cell }) as D);
  };
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
