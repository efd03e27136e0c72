import { describe, expect, it } from "vitest";
import { Rng } from "../../engine/core/index.ts";
import { constrainedMle, eloToScore, GroupCounts, llr, scoreToElo, sprtBounds, sprtState, type SprtParams } from "../../agents/arena/sprt.ts";

describe("group counting", () => {
  it("puts hand-made pairs in the pentanomial category of their half-points", () => {
    const c = new GroupCounts(2);
    c.addGroup([0, 0]); // LL
    c.addGroup([0.5, 0]); // DL
    c.addGroup([0, 0.5]); // LD, same category
    c.addGroup([1, 0]); // WL
    c.addGroup([0, 1]); // LW
    c.addGroup([0.5, 0.5]); // DD: same category as WL
    c.addGroup([1, 0.5]); // WD
    c.addGroup([1, 1]); // WW
    c.addGroup([1, 1]);
    expect(c.counts).toEqual([1, 2, 3, 1, 2]);
    expect(c.groups).toBe(9);
    expect(c.games).toBe(18);
  });

  it("counts larger groups in 2K+1 categories (the n-nomial)", () => {
    const c = new GroupCounts(6);
    c.addGroup([1, 1, 0.5, 0, 0, 1]); // 3.5 points = 7 half-points
    c.addGroup([0, 0, 0, 0, 0, 0]);
    expect(c.counts).toHaveLength(13);
    expect(c.counts[7]).toBe(1);
    expect(c.counts[0]).toBe(1);
    expect(c.value(7)).toBeCloseTo(7 / 12, 12);
  });

  it("refuses malformed groups", () => {
    const c = new GroupCounts(2);
    expect(() => c.addGroup([1])).toThrow(RangeError);
    expect(() => c.addGroup([0.3, 1])).toThrow(RangeError);
  });
});

describe("SPRT maths", () => {
  it("maps Elo to score and back", () => {
    expect(eloToScore(0)).toBe(0.5);
    expect(eloToScore(400)).toBeCloseTo(10 / 11, 12);
    for (const e of [-300, -17, 0, 5, 250]) expect(scoreToElo(eloToScore(e))).toBeCloseTo(e, 8);
  });

  it("has Wald's bounds", () => {
    const b = sprtBounds({ alpha: 0.05, beta: 0.05 });
    expect(b.upper).toBeCloseTo(Math.log(19), 12);
    expect(b.lower).toBeCloseTo(-Math.log(19), 12);
  });

  it("finds the constrained maximum-likelihood distribution: right mean, sums to 1, beats a perturbation", () => {
    const p = [0.1, 0.2, 0.4, 0.2, 0.1];
    const x = [0, 0.25, 0.5, 0.75, 1];
    const q = constrainedMle(p, x, 0.56);
    expect(q.reduce((a, b) => a + b, 0)).toBeCloseTo(1, 10);
    expect(q.reduce((a, qj, j) => a + qj * x[j]!, 0)).toBeCloseTo(0.56, 10);
    const ll = (r: number[]) => r.reduce((a, rj, j) => a + p[j]! * Math.log(rj), 0);
    // Any other distribution with the same mean (move mass keeping the mean) is less likely.
    const e = 1e-3;
    const moved = q.map((v, j) => v + (j === 0 ? e : j === 2 ? -2 * e : j === 4 ? e : 0));
    expect(ll(q)).toBeGreaterThan(ll(moved));
    // At the empirical mean the constrained optimum is the empirical distribution itself.
    const at = constrainedMle(p, x, 0.5);
    at.forEach((v, j) => expect(v).toBeCloseTo(p[j]!, 10));
  });

  it("agrees with the normal approximation of the LLR on a large sample", () => {
    const c = new GroupCounts(2);
    const counts = [300, 1100, 2200, 1200, 400];
    counts.forEach((n, j) => (c.counts[j] = n));
    const p = { elo0: -5, elo1: 5 };
    const s0 = eloToScore(p.elo0);
    const s1 = eloToScore(p.elo1);
    const n = c.groups;
    const freq = counts.map((k) => k / n);
    const mean = freq.reduce((a, f, j) => a + f * c.value(j), 0);
    const v = freq.reduce((a, f, j) => a + f * (c.value(j) - mean) ** 2, 0);
    const approx = (n * (s1 - s0) * (2 * mean - s0 - s1)) / (2 * v);
    expect(llr(c, p)).toBeCloseTo(approx, 1);
  });

  it("ends near 0 Elo when both sides are the same deterministic bot (every pair split 1-1)", () => {
    const c = new GroupCounts(2);
    const params: SprtParams = { elo0: -20, elo1: 0, alpha: 0.05, beta: 0.05 };
    let s = sprtState(c, params);
    while (s.decision === null) {
      c.addGroup([1, 0]);
      s = sprtState(c, params);
    }
    expect(s.decision).toBe("H1");
    expect(s.elo).toBeCloseTo(0, 6);
    expect(s.groups).toBeLessThanOrEqual(50);
  });
});

/**
 * Simulated runs: pairs of independent games with a given Elo and draw rate. Returns the share of
 * runs that accepted H1, H0, and the mean games. Pure maths, no engine.
 */
function simulate(elo: number, params: SprtParams, runs: number, seed: number, drawRate = 0.2, maxGroups = 20_000) {
  const rng = Rng.seeded(seed);
  const s = eloToScore(elo);
  const win = s - drawRate / 2;
  const game = () => {
    const u = rng.nextFloat();
    return u < win ? 1 : u < win + drawRate ? 0.5 : 0;
  };
  let h1 = 0;
  let h0 = 0;
  let games = 0;
  for (let r = 0; r < runs; r++) {
    const c = new GroupCounts(2);
    const b = sprtBounds(params);
    for (let g = 0; g < maxGroups; g++) {
      c.addGroup([game(), game()]);
      const v = llr(c, params);
      if (v >= b.upper) {
        h1++;
        break;
      }
      if (v <= b.lower) {
        h0++;
        break;
      }
    }
    games += c.games;
  }
  return { h1: h1 / runs, h0: h0 / runs, meanGames: games / runs };
}

describe("SPRT error rates over simulated runs", () => {
  const params: SprtParams = { elo0: 0, elo1: 40, alpha: 0.05, beta: 0.1 };
  const runs = 1500;
  // Three binomial standard deviations over the stated rate: a correct test stays under it.
  const tol = (rate: number) => rate + 3 * Math.sqrt((rate * (1 - rate)) / runs);

  it("accepts H1 at elo0 no more often than alpha", () => {
    const r = simulate(params.elo0, params, runs, 11);
    expect(r.h1 + r.h0).toBe(1);
    expect(r.h1).toBeLessThanOrEqual(tol(params.alpha));
    // Not a vacuous test: it does reject sometimes, and mostly stops H0.
    expect(r.h1).toBeGreaterThan(0.005);
  });

  it("accepts H0 at elo1 no more often than beta", () => {
    const r = simulate(params.elo1, params, runs, 12);
    expect(r.h0).toBeLessThanOrEqual(tol(params.beta));
    expect(r.h0).toBeGreaterThan(0.01);
  });

  it("is decisive far from the bounds, and fast", () => {
    const strong = simulate(200, params, 300, 13);
    expect(strong.h1).toBe(1);
    expect(strong.meanGames).toBeLessThan(80);
    const weak = simulate(-200, params, 300, 14);
    expect(weak.h0).toBe(1);
    expect(weak.meanGames).toBeLessThan(80);
  });
});
