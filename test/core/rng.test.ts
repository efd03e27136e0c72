import { describe, expect, it } from "vitest";
import { deriveSeed, Rng, seed32 } from "../../engine/core/index.ts";

describe("Rng (sfc32 with state in the game state)", () => {
  it("gives the same stream for the same seed and pinned values across processes and versions", () => {
    const a = Rng.seeded(42);
    const b = Rng.seeded(42);
    const xs = Array.from({ length: 5 }, () => a.nextU32());
    expect(Array.from({ length: 5 }, () => b.nextU32())).toEqual(xs);
    // Pinned: a change here breaks every recorded game; do it only with a version bump.
    expect(xs).toMatchInlineSnapshot(`
      [
        2681378931,
        3584579759,
        3563533088,
        3285962864,
        3117700864,
      ]
    `);
  });

  it("continues exactly from a saved state", () => {
    const a = Rng.seeded(7);
    a.nextU32();
    const saved = a.save();
    const rest = Array.from({ length: 10 }, () => a.nextU32());
    const b = Rng.load(JSON.parse(JSON.stringify(saved)));
    expect(Array.from({ length: 10 }, () => b.nextU32())).toEqual(rest);
  });

  it("distinguishes nearby and large seeds", () => {
    const first = new Set([0, 1, 2, 3, 2 ** 32, 2 ** 32 + 1, -1, Number.MAX_SAFE_INTEGER].map((s) => Rng.seeded(s).nextU32()));
    expect(first.size).toBe(8);
    expect(() => Rng.seeded(1.5)).toThrow(RangeError);
  });

  it("gives every seed beyond 32 bits a stream of its own: none replays a 32-bit seed's deal", () => {
    // Seeding used to squeeze both halves of the seed into one 32-bit word (hi's splitmix output
    // XOR lo), so the whole 53-bit seed space held only 2^32 streams: seed hi * 2^32 + lo replayed
    // the 32-bit seed lo ^ m(hi) ^ m(0). A live table's deal could then be found by trying 2^32
    // seeds against one's own hand, minutes of one core (docs/live.md: the `seed` of a table).
    const mix = (hi: number): number => {
      const x = (hi + 0x9e3779b9) | 0;
      let z = Math.imul(x ^ (x >>> 16), 0x85ebca6b);
      z = Math.imul(z ^ (z >>> 13), 0xc2b2ae35);
      return (x ^ (z ^ (z >>> 16))) >>> 0;
    };
    const stream = (seed: number): number[] => {
      const rng = Rng.seeded(seed);
      return Array.from({ length: 8 }, () => rng.nextU32());
    };
    for (const hi of [1, 2, 0x1234, 0x1fffff]) {
      for (const lo of [0, 7, 0xdeadbeef]) {
        const wide = hi * 0x100000000 + lo;
        const partner = (lo ^ mix(hi) ^ mix(0)) >>> 0;
        expect(stream(wide), `seed ${wide} against ${partner}`).not.toEqual(stream(partner));
        // seed32 names the 32-bit seed of the stream a wide seed had before (the search agents' worlds).
        expect(seed32(wide)).toBe(partner);
      }
    }
    // Seeds within 32 bits (either sign) keep their streams: every recorded game replays.
    expect(stream(-1).slice(0, 2)).toEqual([1290137385, 3912309617]);
    expect(stream(-(2 ** 32) + 1).slice(0, 2)).toEqual([161668272, 4214107961]);
    expect(stream(2 ** 32 - 1).slice(0, 2)).toEqual([1770444912, 3159786597]);
  });

  it("int(n) stays in range and is roughly uniform", () => {
    const rng = Rng.seeded(1);
    const counts = new Array(6).fill(0);
    for (let i = 0; i < 60000; i++) counts[rng.int(6)]++;
    for (const c of counts) expect(Math.abs(c - 10000)).toBeLessThan(500);
    expect(() => rng.int(0)).toThrow(RangeError);
  });

  it("shuffle is a permutation and sample gives distinct items", () => {
    const rng = Rng.seeded(3);
    const xs = Array.from({ length: 52 }, (_, i) => i);
    const shuffled = rng.shuffle(xs.slice());
    expect(shuffled.slice().sort((a, b) => a - b)).toEqual(xs);
    expect(shuffled).not.toEqual(xs);
    const picked = rng.sample(xs, 10);
    expect(new Set(picked).size).toBe(10);
    expect(rng.sample(xs, 100).length).toBe(52);
  });

  it("deriveSeed gives separate streams per label", () => {
    const s = new Set(["agent:0", "agent:1", "env:0", "search"].map((l) => deriveSeed(5, l)));
    expect(s.size).toBe(4);
    expect(deriveSeed(5, "x")).toBe(deriveSeed(5, "x"));
    expect(deriveSeed(5, "x")).not.toBe(deriveSeed(6, "x"));
  });
});
