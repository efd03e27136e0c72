import type { Seat } from "./battle-data.ts";

/**
 * The 5x7 board. A cell is the integer y*5 + x (x = column 0..4, y = row 0..6).
 * Host (seat 0) owns rows 0..2 (row 2 is its front row), Guest (seat 1) owns rows 6..4 (row 4 is
 * its front row), row 3 is the centre row.
 */
export const COLS = 5;
export const ROWS = 7;
export const CELLS = COLS * ROWS;
export const CENTRE_ROW = 3;

export const cellOf = (x: number, y: number): number => y * COLS + x;
export const xOf = (cell: number): number => cell % COLS;
export const yOf = (cell: number): number => (cell / COLS) | 0;

/** Directions: 0 = towards Guest (+y), 1 = towards Host (-y), 2 = left (-x), 3 = right (+x). */
export const DIRS = 4;
const DX = [0, 0, -1, 1];
const DY = [1, -1, 0, 0];

/** NEIGHBOUR[cell * 4 + dir] = the orthogonally adjacent cell, or -1 off the board. */
export const NEIGHBOUR: readonly number[] = (() => {
  const out: number[] = [];
  for (let c = 0; c < CELLS; c++) {
    for (let d = 0; d < DIRS; d++) {
      const x = xOf(c) + (DX[d] ?? 0);
      const y = yOf(c) + (DY[d] ?? 0);
      out.push(x >= 0 && x < COLS && y >= 0 && y < ROWS ? cellOf(x, y) : -1);
    }
  }
  return out;
})();

/** The direction from a to an orthogonally adjacent b, or -1. */
export function dirBetween(a: number, b: number): number {
  for (let d = 0; d < DIRS; d++) if (NEIGHBOUR[a * 4 + d] === b) return d;
  return -1;
}

/** A player's row distance from its back row: 0 back, 1 middle, 2 front, 3 centre, 4..6 enemy home. */
export function depthOf(cell: number, seat: Seat): number {
  const y = yOf(cell);
  return seat === 0 ? y : ROWS - 1 - y;
}

export const inHome = (cell: number, seat: Seat): boolean => depthOf(cell, seat) <= 2;
export const inPlacement = (cell: number, seat: Seat): boolean => depthOf(cell, seat) <= 3;
/** In Enemy(P): the opponent's three rows. */
export const inEnemyHome = (cell: number, seat: Seat): boolean => depthOf(cell, seat) >= 4;

/**
 * A fresh per-cell array with every entry `value`. Built by pushing, so V8 keeps it a packed
 * array (`new Array(n).fill(v)` stays "holey": every read of it and of its copies then checks for
 * holes); the board's arrays are read on every decision.
 */
export function cellArray(value: number, length: number = CELLS): number[] {
  const out: number[] = [];
  for (let i = 0; i < length; i++) out.push(value);
  return out;
}

function cellsWhere(pred: (c: number) => boolean): readonly number[] {
  const out: number[] = [];
  for (let c = 0; c < CELLS; c++) if (pred(c)) out.push(c);
  return out;
}

export const HOME: readonly [readonly number[], readonly number[]] = [cellsWhere((c) => inHome(c, 0)), cellsWhere((c) => inHome(c, 1))];
export const PLACEMENT: readonly [readonly number[], readonly number[]] = [cellsWhere((c) => inPlacement(c, 0)), cellsWhere((c) => inPlacement(c, 1))];

/**
 * A cell seen from a seat: seat 0 sees the board as it is, seat 1 sees it mirrored top to bottom
 * (columns keep their order), so every seat's own back row is relative row 0. The mapping is its
 * own inverse. Codecs and observations use it so one policy can play either seat.
 */
export function relCell(cell: number, seat: Seat): number {
  return seat === 0 ? cell : (ROWS - 1 - yOf(cell)) * COLS + xOf(cell);
}

/** A direction seen from a seat (seat 1's "forward" is -y). Its own inverse. */
export function relDir(dir: number, seat: Seat): number {
  return seat === 0 || dir >= 2 ? dir : 1 - dir;
}

export const chebyshev = (a: number, b: number): number => Math.max(Math.abs(xOf(a) - xOf(b)), Math.abs(yOf(a) - yOf(b)));
export const manhattan = (a: number, b: number): number => Math.abs(xOf(a) - xOf(b)) + Math.abs(yOf(a) - yOf(b));

/** "A1" style name: column letter A..E, row number 0..6. */
export function cellName(cell: number): string {
  return `${"ABCDE"[xOf(cell)]}${yOf(cell)}`;
}
