import { CARD_COUNT, RANKS, SUITS, suitOf } from "./cards.ts";
import { InvariantError } from "../core/errors.ts";

/**
 * One number per card/cell says where that card is. The same array is the board and the hands:
 *   0..5      in the hand of seat s (the cell is Empty)
 *   7         (views only) in a hand the viewer cannot see
 *   8 + s     Placed by seat s; 15 = Placed at setup (the opening sevens of the 'seat0' deal)
 *   16 + s    Dead, held (and scored -1) by seat s
 * So "Empty" is `< PLACED` and "filled" (Placed or Dead, both physically on the table) is `>= PLACED`.
 */
export const HIDDEN = 7;
export const PLACED = 8;
export const OPENING = PLACED + 7;
export const DEAD = 16;

/** The value of `card`'s cell; a card outside the 52 is a bug. */
export function cellOf(cells: readonly number[], card: number): number {
  const v = cells[card];
  if (v === undefined) throw new InvariantError(`sevens: no cell for card ${card}`);
  return v;
}

export const isEmptyCell = (v: number): boolean => v < PLACED;

export const isFilledCell = (v: number): boolean => v >= PLACED;
export const isDeadCell = (v: number): boolean => v >= DEAD;

function neighbours(cell: number, diagonal: boolean): number[] {
  const row = suitOf(cell);
  const col = cell % RANKS;
  const out: number[] = [];
  for (let dr = -1; dr <= 1; dr++) {
    for (let dc = -1; dc <= 1; dc++) {
      if (dr === 0 && dc === 0) continue;
      if (!diagonal && dr !== 0 && dc !== 0) continue;
      const r = row + dr;
      const c = col + dc;
      // Off-board positions are the walls: they are simply not neighbours.
      if (r < 0 || r >= SUITS || c < 0 || c >= RANKS) continue;
      out.push(r * RANKS + c);
    }
  }
  return out;
}

/** 8-neighbourhood of each cell (playability). */
export const NEIGHBOURS8: readonly (readonly number[])[] = Array.from({ length: CARD_COUNT }, (_, i) => neighbours(i, true));
/** 4-neighbourhood of each cell (enclosure / kill regions). */
export const NEIGHBOURS4: readonly (readonly number[])[] = Array.from({ length: CARD_COUNT }, (_, i) => neighbours(i, false));

/**
 * NEIGHBOURS8 as bit masks split at bit 32 (cells 0..31 in LO, 32..51 in HI), so a hand's playable
 * cards are found with one pass over the board and a mask test per card (legal() is the hottest
 * rules path of an RL rollout).
 */
export const NEIGHBOURS8_LO: Int32Array = Int32Array.from(NEIGHBOURS8, (ns) => ns.reduce((m, n) => (n < 32 ? m | (1 << n) : m), 0));
export const NEIGHBOURS8_HI: Int32Array = Int32Array.from(NEIGHBOURS8, (ns) => ns.reduce((m, n) => (n >= 32 ? m | (1 << (n - 32)) : m), 0));

/**
 * Pushes `items[card]` onto `out` for every card held by `seat` whose cell touches (8 directions) a
 * filled cell, ascending: the same cards as testing touchesFilled on each, in one pass over the
 * board. (A lookup table rather than a callback: no closure per call on the hottest path.)
 * For a view, in the same pass: `view` (a copy of `cells`) gets HIDDEN at every card in a hand
 * other than `seat`'s, and `hand` every card of `seat`'s, ascending; `seat` -1 is a spectator,
 * who holds no card (no card is playable either).
 */
export function collectPlayable<T>(
  cells: readonly number[],
  seat: number,
  items: readonly T[],
  out: T[],
  view: number[] | null = null,
  hand: number[] | null = null,
): void {
  let filledLo = 0;
  let filledHi = 0;
  let handLo = 0;
  let handHi = 0;
  // Branch-free: whether a cell is filled or in this hand is as good as random, and mispredicted
  // branches made this scan the slowest part of a rollout (and the view the dearest part of a
  // self-play env-step). For a cell value v in 0..21, (PLACED - 1 - v) >>> 31 is 1 exactly when
  // v >= PLACED, and ((v ^ me) - 1) >>> 31 is 1 exactly when v === me (hand values never reach
  // PLACED, so the two never overlap; a spectator's me, 127, is no cell's value).
  const me = seat < 0 ? 127 : seat;
  for (let cell = 0; cell < 32; cell++) {
    const v = cells[cell]!;
    const filled = (PLACED - 1 - v) >>> 31;
    const mine = ((v ^ me) - 1) >>> 31;
    if (view !== null && (filled | mine) === 0) view[cell] = HIDDEN;
    filledLo |= filled << cell;
    handLo |= mine << cell;
  }
  for (let cell = 32; cell < CARD_COUNT; cell++) {
    const v = cells[cell]!;
    const filled = (PLACED - 1 - v) >>> 31;
    const mine = ((v ^ me) - 1) >>> 31;
    if (view !== null && (filled | mine) === 0) view[cell] = HIDDEN;
    filledHi |= filled << (cell - 32);
    handHi |= mine << (cell - 32);
  }
  while (handLo !== 0) {
    const bit = handLo & -handLo;
    const card = 31 - Math.clz32(bit);
    handLo ^= bit;
    if (hand !== null) hand.push(card);
    if ((NEIGHBOURS8_LO[card]! & filledLo) !== 0 || (NEIGHBOURS8_HI[card]! & filledHi) !== 0) out.push(items[card]!);
  }
  while (handHi !== 0) {
    const bit = handHi & -handHi;
    const card = 63 - Math.clz32(bit);
    handHi ^= bit;
    if (hand !== null) hand.push(card);
    if ((NEIGHBOURS8_LO[card]! & filledLo) !== 0 || (NEIGHBOURS8_HI[card]! & filledHi) !== 0) out.push(items[card]!);
  }
}

/** A card in hand may be played when its cell touches (8 directions) a Placed or Dead cell. */
export function touchesFilled(cells: readonly number[], cell: number): boolean {
  const ns = NEIGHBOURS8[cell]!;
  for (let i = 0; i < ns.length; i++) if (cells[ns[i]!]! >= PLACED) return true;
  return false;
}

/**
 * Flood-fills the 4-connected Empty region containing `start` (marking `visited`) and returns its
 * cells when the region is a perfect rectangle, i.e. enclosed on every side by filled cells or
 * walls with no notch (lets-csharp: (maxRank-minRank+1)*(maxSuit-minSuit+1) == |region|);
 * otherwise null.
 */
export function enclosedRegion(cells: readonly number[], start: number, visited: Uint8Array): number[] | null {
  const region: number[] = [start];
  visited[start] = 1;
  let minR = SUITS;
  let maxR = -1;
  let minC = RANKS;
  let maxC = -1;
  for (let i = 0; i < region.length; i++) {
    const cell = region[i]!;
    const r = (cell / RANKS) | 0;
    const c = cell - r * RANKS;
    if (r < minR) minR = r;
    if (r > maxR) maxR = r;
    if (c < minC) minC = c;
    if (c > maxC) maxC = c;
    const ns = NEIGHBOURS4[cell]!;
    for (let j = 0; j < ns.length; j++) {
      const n = ns[j]!;
      if (visited[n] === 0 && cells[n]! < PLACED) {
        visited[n] = 1;
        region.push(n);
      }
    }
  }
  return (maxR - minR + 1) * (maxC - minC + 1) === region.length ? region : null;
}

/**
 * enclosedRegion's answer for the region containing the Empty cell `start`, found without flooding
 * it: if that region is a rectangle, its columns are the Empty run through `start` in its row, so
 * only that band and its border are read, and the walk stops at the first cell that proves the
 * region is not a rectangle (early in a game the region is most of the board). Same cells as
 * enclosedRegion returns (in row order, not flood order), or null exactly when it returns null.
 */
export function enclosedRectangle(cells: readonly number[], start: number): number[] | null {
  const row = (start / RANKS) | 0;
  const base = row * RANKS;
  let a = start - base;
  let b = a;
  while (a > 0 && cells[base + a - 1]! < PLACED) a--;
  while (b < RANKS - 1 && cells[base + b + 1]! < PLACED) b++;
  let top = row;
  while (top > 0) {
    const r = bandRow(cells, top - 1, a, b);
    if (r < 0) return null;
    if (r === 0) break;
    top--;
  }
  let bottom = row;
  while (bottom < SUITS - 1) {
    const r = bandRow(cells, bottom + 1, a, b);
    if (r < 0) return null;
    if (r === 0) break;
    bottom++;
  }
  const region: number[] = [];
  for (let r = top; r <= bottom; r++) for (let c = a; c <= b; c++) region.push(r * RANKS + c);
  return region;
}

/**
 * A row next to a rectangle candidate spanning columns a..b: 0 when the band is all filled (the
 * rectangle's edge), 1 when it is all Empty with filled cells or walls just left and right (the
 * rectangle goes on), -1 otherwise (the region is not a rectangle).
 */
function bandRow(cells: readonly number[], row: number, a: number, b: number): number {
  const base = row * RANKS;
  if (cells[base + a]! >= PLACED) {
    for (let c = a + 1; c <= b; c++) if (cells[base + c]! < PLACED) return -1;
    return 0;
  }
  for (let c = a + 1; c <= b; c++) if (cells[base + c]! >= PLACED) return -1;
  if (a > 0 && cells[base + a - 1]! < PLACED) return -1;
  if (b < RANKS - 1 && cells[base + b + 1]! < PLACED) return -1;
  return 1;
}
