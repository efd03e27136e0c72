import { must, Rng } from "../../engine/core/index.ts";

export interface Interval {
  readonly low: number;
  readonly high: number;
}

/**
 * Wilson score interval for k successes in n trials (z = 1.96: 95%). Unlike the normal
 * approximation it stays inside [0, 1] and behaves at 0 and n, which is where gates live.
 */
export function wilson(k: number, n: number, z = 1.959964): Interval {
  if (n <= 0) return { low: 0, high: 1 };
  const p = k / n;
  const z2 = z * z;
  const denom = 1 + z2 / n;
  const centre = (p + z2 / (2 * n)) / denom;
  const half = (z * Math.sqrt((p * (1 - p)) / n + z2 / (4 * n * n))) / denom;
  // At k = 0 and k = n the bound is exactly 0 or 1; rounding must not make it 0.9999999999999999.
  return { low: k <= 0 ? 0 : Math.max(0, centre - half), high: k >= n ? 1 : Math.min(1, centre + half) };
}

/** Pairwise results: wins[i][j] = games i won against j, draws counted as half a win each. */
export type WinTable = number[][];

/**
 * Bradley-Terry strengths by the MM algorithm (Hunter 2004), on the Elo scale (400 log10),
 * anchored so that `anchor` (or the mean, when anchor is -1) is 0. A prior of one virtual draw
 * per pair that played keeps strengths finite when one side won every game.
 */
export function bradleyTerry(wins: WinTable, anchor = -1, iterations = 500): number[] {
  const n = wins.length;
  const w = wins.map((row, i) => row.map((x, j) => (i === j ? 0 : x + (x + cell(wins, j, i) > 0 ? 0.5 : 0))));
  const games = w.map((row, i) => row.map((x, j) => x + cell(w, j, i)));
  let p = new Array<number>(n).fill(1);
  for (let it = 0; it < iterations; it++) {
    const next = p.map((pi, i) => {
      let won = 0;
      let denom = 0;
      p.forEach((pj, j) => {
        const played = cell(games, i, j);
        if (j === i || played === 0) return;
        won += cell(w, i, j);
        denom += played / (pi + pj);
      });
      return denom > 0 ? won / denom : pi;
    });
    // Normalise to geometric mean 1 so the scale does not drift.
    const g = Math.exp(next.reduce((s, x) => s + Math.log(x), 0) / n);
    const normalised = next.map((x) => x / g);
    const delta = normalised.reduce((d, v, i) => Math.max(d, Math.abs(Math.log(v) - Math.log(must(p[i], "bradleyTerry: a strength")))), 0);
    p = normalised;
    if (delta < 1e-10) break;
  }
  const elo = p.map((x) => 400 * Math.log10(x));
  const shift = anchor >= 0 ? must(elo[anchor], "bradleyTerry: the anchor's rating") : elo.reduce((s, x) => s + x, 0) / n;
  return elo.map((x) => x - shift);
}

/** table[i][j] of a square win table (bradleyTerry's input): its absence is a bug of the caller. */
function cell(table: WinTable, i: number, j: number): number {
  return must(table[i]?.[j], "a cell of the square win table");
}

/** One pairing's games as outcomes for the first agent: 1 win, 0.5 draw, 0 loss. */
export interface PairOutcomes {
  readonly a: number;
  readonly b: number;
  readonly outcomes: readonly number[];
}

/**
 * Elo ratings with 95% intervals: the point estimate from all games, the interval from a seeded
 * bootstrap that resamples each pairing's games with replacement.
 */
export function ratingsWithIntervals(
  agents: number,
  pairs: readonly PairOutcomes[],
  anchor: number,
  seed: number,
  reps = 300,
): { elo: number; low: number; high: number }[] {
  const table = (pick: (p: PairOutcomes) => readonly number[]) => {
    const t: WinTable = Array.from({ length: agents }, () => new Array<number>(agents).fill(0));
    for (const p of pairs) {
      const rowA = must(t[p.a], "ratings: the win-table row of a pairing's first agent");
      const rowB = must(t[p.b], "ratings: the win-table row of a pairing's second agent");
      for (const o of pick(p)) {
        rowA[p.b] = cell(t, p.a, p.b) + o;
        rowB[p.a] = cell(t, p.b, p.a) + (1 - o);
      }
    }
    return t;
  };
  const point = bradleyTerry(
    table((p) => p.outcomes),
    anchor,
  );
  const rng = Rng.seeded(seed);
  const samples: number[][] = Array.from({ length: agents }, () => []);
  for (let r = 0; r < reps; r++) {
    const elo = bradleyTerry(
      table((p) => p.outcomes.map(() => must(p.outcomes[rng.int(p.outcomes.length)], "ratings: a resampled outcome"))),
      anchor,
      200,
    );
    elo.forEach((x, i) => must(samples[i], "ratings: an agent's bootstrap samples").push(x));
  }
  return point.map((elo, i) => {
    const s = must(samples[i], "ratings: an agent's bootstrap samples").sort((x, y) => x - y);
    return { elo, low: quantile(s, 0.025), high: quantile(s, 0.975) };
  });
}

function quantile(sorted: readonly number[], q: number): number {
  if (sorted.length === 0) return NaN;
  const at = (sorted.length - 1) * q;
  const lo = Math.floor(at);
  const hi = Math.ceil(at);
  const below = must(sorted[lo], "quantile: the sample below");
  return below + (must(sorted[hi], "quantile: the sample above") - below) * (at - lo);
}
