/**
 * Seeded PRNG whose whole state is four uint32 words kept inside the game state.
 *
 * Algorithm: sfc32 (Chris Doty-Humphrey's Small Fast Counting generator), passes PractRand to
 * multiple TB, 128-bit state, trivially serialisable as JSON numbers. Seeding goes through
 * splitmix32 so that nearby seeds give unrelated streams.
 *
 * Usage inside a rule: `const rng = Rng.load(state.rng)`, draw, then `next.rng = rng.save()`.
 * Separate streams (game, each agent, search) come from `deriveSeed(seed, label)`.
 */
export type RngState = readonly [number, number, number, number];

function splitmix32(x: number): [number, number] {
  x = (x + 0x9e3779b9) | 0;
  let z = x;
  z = Math.imul(z ^ (z >>> 16), 0x85ebca6b);
  z = Math.imul(z ^ (z >>> 13), 0xc2b2ae35);
  z ^= z >>> 16;
  return [x, z >>> 0];
}

export class Rng {
  private a: number;
  private b: number;
  private c: number;
  private d: number;

  private constructor(a: number, b: number, c: number, d: number) {
    this.a = a | 0;
    this.b = b | 0;
    this.c = c | 0;
    this.d = d | 0;
  }

  /**
   * A fresh generator from an integer seed (any safe integer): every seed starts a stream of its
   * own, so the seeds of a live table (53 random bits) hold 2^53 deals, not 2^32.
   */
  static seeded(seed: number): Rng {
    if (!Number.isSafeInteger(seed)) throw new RangeError(`seed must be a safe integer, got ${seed}`);
    // Split the safe integer into two 32-bit halves and run both through splitmix32, so that
    // seeds differing in either half (or in sign) start unrelated streams.
    const lo = (((seed % 0x100000000) + 0x100000000) % 0x100000000) | 0;
    const hi = Math.floor(seed / 0x100000000) | 0;
    let [s, v] = splitmix32(hi);
    [s, v] = splitmix32(s ^ v ^ lo);
    const out: number[] = [v];
    for (let i = 0; i < 3; i++) {
      [s, v] = splitmix32(s);
      out.push(v);
    }
    // The words above depend on the one 32-bit word s ^ v ^ lo, so a high half of its own must
    // reach the state another way: its own splitmix32 chain, XORed into the last three words.
    // Seeds within 32 bits of zero (high half 0 or -1) keep the streams they always had.
    if (hi !== 0 && hi !== -1) {
      let h = hi ^ 0x6a09e667;
      for (let i = 1; i < 4; i++) {
        [h, v] = splitmix32(h);
        out[i] = (out[i]! ^ v) | 0;
      }
    }
    const rng = new Rng(out[0]!, out[1]!, out[2]!, out[3]! | 1);
    for (let i = 0; i < 12; i++) rng.nextU32(); // warm up, as sfc32's author recommends
    return rng;
  }

  static load(state: RngState): Rng {
    return new Rng(state[0], state[1], state[2], state[3]);
  }

  save(): RngState {
    return [this.a >>> 0, this.b >>> 0, this.c >>> 0, this.d >>> 0];
  }

  nextU32(): number {
    const t = (((this.a + this.b) | 0) + this.d) | 0;
    this.d = (this.d + 1) | 0;
    this.a = this.b ^ (this.b >>> 9);
    this.b = (this.c + (this.c << 3)) | 0;
    this.c = (this.c << 21) | (this.c >>> 11);
    this.c = (this.c + t) | 0;
    return t >>> 0;
  }

  /** Uniform float in [0, 1). */
  nextFloat(): number {
    return this.nextU32() / 0x100000000;
  }

  /** Uniform integer in [0, n), unbiased (rejection sampling). n must be in 1..2^32. */
  int(n: number): number {
    if (!(n >= 1 && n <= 0x100000000 && Number.isInteger(n))) throw new RangeError(`Rng.int: bad bound ${n}`);
    // limit = the largest multiple of n that is <= 2^32, so that x % n is uniform below it. Both
    // remainders use exact floor division: x and 2^32 exceed int32, where `%` is a slow fmod call
    // (a quarter of a sevens rollout's time), and for integers below 2^33 the double quotient
    // never rounds up to the next integer (the gap to it is >= 1/x > 2^-53 relative).
    const limit = Math.floor(0x100000000 / n) * n;
    for (;;) {
      const x = this.nextU32();
      if (x < limit) return x - Math.floor(x / n) * n;
    }
  }

  pick<T>(items: readonly T[]): T {
    if (items.length === 0) throw new RangeError("Rng.pick: empty list");
    return items[this.int(items.length)]!;
  }

  /** In-place Fisher-Yates shuffle; returns the same array. */
  shuffle<T>(items: T[]): T[] {
    for (let i = items.length - 1; i > 0; i--) {
      const j = this.int(i + 1);
      const t = items[i]!;
      items[i] = items[j]!;
      items[j] = t;
    }
    return items;
  }

  /** k distinct items chosen uniformly, in draw order. */
  sample<T>(items: readonly T[], k: number): T[] {
    const copy = items.slice();
    const n = Math.min(k, copy.length);
    for (let i = 0; i < n; i++) {
      const j = i + this.int(copy.length - i);
      const t = copy[i]!;
      copy[i] = copy[j]!;
      copy[j] = t;
    }
    return copy.slice(0, n);
  }
}

/**
 * The seed in [0, 2^32) whose stream is the one `Rng.seeded(seed)` started before seeds beyond 32
 * bits had streams of their own: until then every seed's stream was that of one 32-bit word. The
 * search agents seed their sampled worlds through it, so they sample exactly the worlds they always
 * did (their play is pinned by tests and measured in the docs); their seeds are no secret.
 */
export function seed32(seed: number): number {
  if (!Number.isSafeInteger(seed)) throw new RangeError(`seed must be a safe integer, got ${seed}`);
  const lo = (((seed % 0x100000000) + 0x100000000) % 0x100000000) | 0;
  const hi = Math.floor(seed / 0x100000000) | 0;
  const [s, v] = splitmix32(hi);
  const [s0, v0] = splitmix32(0);
  return (s ^ v ^ lo ^ s0 ^ v0) >>> 0;
}

/** A seed for an independent stream (agent, search, env i), derived from a base seed and a label. */
export function deriveSeed(seed: number, label: string | number): number {
  let h = 0x811c9dc5 ^ (seed | 0);
  const text = `${Math.floor(seed / 0x100000000)}:${label}`;
  for (let i = 0; i < text.length; i++) {
    h ^= text.charCodeAt(i);
    h = Math.imul(h, 0x01000193);
  }
  const [, v] = splitmix32(h);
  return v;
}
