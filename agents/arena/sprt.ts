/**
 * Sequential probability ratio test between two Elo hypotheses, on paired games (docs/sprt.md).
 *
 * A "group" is a set of games played on one deal with the seats of candidate and baseline
 * permuted (2 seats: the two colours; more seats: every rotation of the table, both orders). The
 * candidate's group score, as a fraction of the games in the group, takes one of 2K+1 values
 * j/(2K) (K games, each scored 1, 1/2 or 0): with K = 2 that is the pentanomial model, larger K the
 * n-nomial generalisation. Groups are independent draws from an unknown distribution over those
 * values; the hypotheses only say what its mean (the per-game expected score) is. The log
 * likelihood ratio is the generalised one (GSPRT): each hypothesis is represented by the
 * distribution of largest likelihood among those with its mean.
 */

/** Expected score of a player `elo` Elo above its opponent (logistic model). */
export function eloToScore(elo: number): number {
  return 1 / (1 + Math.pow(10, -elo / 400));
}

/** The Elo difference whose expected score is s (clamped to keep it finite at 0 and 1). */
export function scoreToElo(s: number): number {
  const c = Math.min(1 - 1e-9, Math.max(1e-9, s));
  return -400 * Math.log10(1 / c - 1);
}

export interface SprtParams {
  readonly elo0: number;
  readonly elo1: number;
  readonly alpha: number;
  readonly beta: number;
}

export const SPRT_DEFAULTS: SprtParams = { elo0: -10, elo1: 10, alpha: 0.05, beta: 0.05 };

export interface SprtBounds {
  /** Accept H0 (candidate at elo0) when the LLR falls to or below this. */
  readonly lower: number;
  /** Accept H1 (candidate at elo1) when the LLR rises to or above this. */
  readonly upper: number;
}

/** Wald's bounds: log(beta / (1 - alpha)) and log((1 - beta) / alpha). */
export function sprtBounds(p: Pick<SprtParams, "alpha" | "beta">): SprtBounds {
  return { lower: Math.log(p.beta / (1 - p.alpha)), upper: Math.log((1 - p.beta) / p.alpha) };
}

/** Checks parameters: elo0 < elo1, alpha and beta in (0, 0.5). Returns a message or null. */
export function checkSprtParams(p: SprtParams): string | null {
  if (!Number.isFinite(p.elo0) || !Number.isFinite(p.elo1) || !(p.elo0 < p.elo1)) return "elo0 must be below elo1";
  if (Math.abs(p.elo0) > 2000 || Math.abs(p.elo1) > 2000) return "elo bounds must be within -2000..2000";
  if (!(p.alpha > 0 && p.alpha < 0.5)) return "alpha must be in (0, 0.5)";
  if (!(p.beta > 0 && p.beta < 0.5)) return "beta must be in (0, 0.5)";
  return null;
}

/**
 * Counts of group outcomes: counts[j] groups in which the candidate scored j half-points out of
 * the group's K games (j = 0..2K). With K = 2 these are the pentanomial counts
 * [LL, LD, WL+DD, WD, WW].
 */
export class GroupCounts {
  readonly counts: number[];
  constructor(readonly gamesPerGroup: number) {
    if (!Number.isInteger(gamesPerGroup) || gamesPerGroup < 1) throw new RangeError("gamesPerGroup must be a positive integer");
    this.counts = new Array<number>(2 * gamesPerGroup + 1).fill(0);
  }

  /** Adds one group, given the candidate's score in each of its games (1, 0.5 or 0). */
  addGroup(scores: readonly number[]): void {
    if (scores.length !== this.gamesPerGroup) throw new RangeError(`a group has ${this.gamesPerGroup} games, got ${scores.length}`);
    let halves = 0;
    for (const s of scores) {
      if (s !== 0 && s !== 0.5 && s !== 1) throw new RangeError(`a game score is 0, 0.5 or 1, got ${s}`);
      halves += 2 * s;
    }
    const j = Math.round(halves);
    this.counts[j] = (this.counts[j] ?? 0) + 1;
  }

  get groups(): number {
    return this.counts.reduce((a, b) => a + b, 0);
  }

  get games(): number {
    return this.groups * this.gamesPerGroup;
  }

  /** The normalised score of category j: j / (2K), in [0, 1]. */
  value(j: number): number {
    return j / (2 * this.gamesPerGroup);
  }
}

/**
 * Empty categories get this pseudo-count before the likelihood is maximised. Without it a run
 * whose groups all landed in one category (two identical deterministic bots: every pair split
 * 1-1) has no distribution with any other mean, and the LLR is infinite from the first group.
 * With it, such a run still accepts quickly, but needs a few groups to do so.
 */
export const PSEUDO_COUNT = 1e-3;

/**
 * The distribution of largest likelihood for the empirical frequencies `p` on values `x` among
 * those with mean `s`: q_j = p_j / (1 + lambda (x_j - s)), lambda the root of
 * sum_j p_j (x_j - s) / (1 + lambda (x_j - s)) = 0 (a Lagrange multiplier; derivation in
 * docs/sprt.md). That function falls strictly in lambda on the interval where every denominator
 * is positive, so the root is unique; safeguarded Newton finds it.
 */
export function constrainedMle(p: readonly number[], x: readonly number[], s: number): number[] {
  let xmin = Infinity;
  let xmax = -Infinity;
  for (let j = 0; j < p.length; j++) {
    if ((p[j] ?? 0) <= 0) continue;
    xmin = Math.min(xmin, x[j] ?? 0);
    xmax = Math.max(xmax, x[j] ?? 0);
  }
  if (!(xmin < s && s < xmax)) throw new RangeError("the target mean must lie strictly inside the support");
  // lambda must keep 1 + lambda (x_j - s) > 0: lambda in (-1 / (xmax - s), 1 / (s - xmin)).
  let lo = -1 / (xmax - s);
  let hi = 1 / (s - xmin);
  const f = (lam: number) => {
    let v = 0;
    let d = 0;
    for (let j = 0; j < p.length; j++) {
      const pj = p[j] ?? 0;
      if (pj <= 0) continue;
      const u = (x[j] ?? 0) - s;
      const den = 1 + lam * u;
      v += (pj * u) / den;
      d -= (pj * u * u) / (den * den);
    }
    return { v, d };
  };
  let lam = 0;
  for (let it = 0; it < 200; it++) {
    const { v, d } = f(lam);
    if (v > 0) lo = lam;
    else hi = lam;
    if (Math.abs(v) < 1e-13) break;
    let next = lam - v / d;
    // Newton leaving the bracket (or stalling) falls back to bisection.
    if (!(next > lo && next < hi)) next = (lo + hi) / 2;
    if (Math.abs(next - lam) < 1e-15) break;
    lam = next;
  }
  return p.map((pj, j) => (pj <= 0 ? 0 : pj / (1 + lam * ((x[j] ?? 0) - s))));
}

export interface SprtState {
  readonly llr: number;
  readonly bounds: SprtBounds;
  /** "H1" when llr >= upper, "H0" when llr <= lower, null while undecided. */
  readonly decision: "H0" | "H1" | null;
  readonly groups: number;
  readonly games: number;
  /** Mean per-game score of the candidate, and the Elo it maps to with a 95% interval. */
  readonly score: number;
  readonly elo: number;
  readonly eloLow: number;
  readonly eloHigh: number;
}

/** Frequencies with pseudo-counts in empty categories, normalised to sum 1. */
function regularised(counts: readonly number[]): number[] {
  const c = counts.map((n) => (n > 0 ? n : PSEUDO_COUNT));
  const total = c.reduce((a, b) => a + b, 0);
  return c.map((n) => n / total);
}

/**
 * The GSPRT log likelihood ratio of H1 (mean score s1) over H0 (s0) for these group counts:
 * N * sum_j p_j log(q1_j / q0_j), N the number of groups, p the (regularised) frequencies, q0 and
 * q1 the constrained maximum-likelihood distributions.
 */
export function llr(counts: GroupCounts, p: Pick<SprtParams, "elo0" | "elo1">): number {
  const n = counts.groups;
  if (n === 0) return 0;
  const freq = regularised(counts.counts);
  const x = counts.counts.map((_, j) => counts.value(j));
  const q0 = constrainedMle(freq, x, eloToScore(p.elo0));
  const q1 = constrainedMle(freq, x, eloToScore(p.elo1));
  let sum = 0;
  for (let j = 0; j < freq.length; j++) {
    const f = freq[j] ?? 0;
    if (f > 0) sum += f * Math.log((q1[j] ?? 0) / (q0[j] ?? 0));
  }
  return n * sum;
}

/**
 * Mean score and a 95% interval from the group scores (normal approximation on the group means:
 * the variance of a group's normalised score, so the pairing's correlation is accounted for).
 */
export function scoreEstimate(counts: GroupCounts): { score: number; low: number; high: number } {
  const n = counts.groups;
  if (n === 0) return { score: 0.5, low: 0, high: 1 };
  let mean = 0;
  counts.counts.forEach((c, j) => (mean += c * counts.value(j)));
  mean /= n;
  let v = 0;
  counts.counts.forEach((c, j) => (v += c * (counts.value(j) - mean) ** 2));
  v /= n;
  const half = 1.959964 * Math.sqrt(v / n);
  return { score: mean, low: Math.max(0, mean - half), high: Math.min(1, mean + half) };
}

export function sprtState(counts: GroupCounts, p: SprtParams): SprtState {
  const bounds = sprtBounds(p);
  const value = llr(counts, p);
  const est = scoreEstimate(counts);
  return {
    llr: value,
    bounds,
    decision: value >= bounds.upper ? "H1" : value <= bounds.lower ? "H0" : null,
    groups: counts.groups,
    games: counts.games,
    score: est.score,
    elo: scoreToElo(est.score),
    eloLow: scoreToElo(est.low),
    eloHigh: scoreToElo(est.high),
  };
}

/** "LLR 1.23 [-2.94, 2.94], Elo 12.3 [-4.0, 28.1] after 120 games". */
export function formatSprt(s: SprtState): string {
  const e = (x: number) => (Math.abs(x) >= 1000 ? (x > 0 ? "+inf" : "-inf") : x.toFixed(1));
  return `LLR ${s.llr.toFixed(2)} [${s.bounds.lower.toFixed(2)}, ${s.bounds.upper.toFixed(2)}], Elo ${e(s.elo)} [${e(s.eloLow)}, ${e(s.eloHigh)}] after ${s.games} games`;
}
