import { CARD_COUNT, RANKS, SUITS, suitOf } from "./cards.ts";

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
