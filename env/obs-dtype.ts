import type { ObservationEncoder } from "./codec.ts";
import { EnvRequestError } from "./errors.ts";

/**
 * How a session's observations travel (the session's `obsDtype`). Encoders always write float32;
 * the wire form is chosen per session to make replies lighter:
 * - `float32` (default): the floats as they are.
 * - `float16`: IEEE half precision, round to nearest even (about 3 significant digits; small
 *   integers and 0/1 exact). numpy reads it as `<f2`.
 * - `uint8`: one byte per value, the numerator k of value = k / steps[field], where the game's
 *   encoder declares, for the session's config, that every value of the field is such a fraction
 *   with k in 0..255 (ObservationEncoder.steps). Decoded as float32(k) / float32(steps), which
 *   gives back exactly the float32 the encoder wrote. Offered only where the encoder declares it.
 * - `bits`: like `uint8`, but the fields that are 0 or 1 (steps 1, high 1) are packed 8 to a byte
 *   (little-endian bit order, fields in layout order) ahead of the other fields' bytes, per row.
 */
export type ObsDtype = "float32" | "float16" | "uint8" | "bits";
export const OBS_DTYPES: readonly ObsDtype[] = ["float32", "float16", "uint8", "bits"];

/** What a client needs to decode a session's `obs` (served in the session's create reply). */
export interface ObsWireInfo {
  readonly dtype: ObsDtype;
  /** uint8 and bits: per layout field, the denominator of its values (value = k / steps). */
  readonly steps?: readonly number[];
  /** bits: how many features are packed as bits, and the packed bytes per row ahead of the rest. */
  readonly bitFeatures?: number;
  readonly bitBytes?: number;
  /** Bytes per observation row on the wire (bits: bitBytes + the byte-valued features). */
  readonly rowBytes: number;
}

/** A wire tensor's dtype and its values, ready for the msgpack writer. */
export interface WireObs {
  readonly dtype: "float32" | "float16" | "uint8";
  /** Shape on the wire: bits rows become [..., rowBytes]. */
  readonly shape: readonly number[];
  readonly values: Float32Array | Uint16Array | Uint8Array;
}

export class ObsWire {
  readonly info: ObsWireInfo;
  /** Per feature: 1 / its field's steps (uint8/bits), the multiplier back to the numerator's scale. */
  private readonly scale: Float64Array | null;
  /** bits: feature indices packed as bits, and the others in order. */
  private readonly bitIndex: Int32Array | null;
  private readonly byteIndex: Int32Array | null;

  private constructor(
    readonly dtype: ObsDtype,
    private readonly size: number,
    steps: readonly number[] | null,
    encoder: ObservationEncoder,
  ) {
    if (steps === null) {
      this.scale = null;
      this.bitIndex = null;
      this.byteIndex = null;
      this.info = { dtype, rowBytes: dtype === "float32" ? 4 * size : 2 * size };
      return;
    }
    const scale = new Float64Array(size);
    const bits: number[] = [];
    const bytes: number[] = [];
    encoder.layout.forEach((f, i) => {
      const d = steps[i]!;
      const binary = d === 1 && f.high !== undefined && f.high <= 1;
      for (let j = f.offset; j < f.offset + f.length; j++) {
        scale[j] = d;
        (dtype === "bits" && binary ? bits : bytes).push(j);
      }
    });
    this.scale = scale;
    if (dtype === "bits") {
      this.bitIndex = Int32Array.from(bits);
      this.byteIndex = Int32Array.from(bytes);
      const bitBytes = Math.ceil(bits.length / 8);
      this.info = { dtype, steps: [...steps], bitFeatures: bits.length, bitBytes, rowBytes: bitBytes + bytes.length };
    } else {
      this.bitIndex = null;
      this.byteIndex = null;
      this.info = { dtype, steps: [...steps], rowBytes: size };
    }
  }

  /**
   * The wire form for a session of this encoder and parsed config. Throws EnvRequestError
   * (invalid_config) when the encoder does not declare the steps uint8/bits need.
   */
  static create(dtype: ObsDtype, encoder: ObservationEncoder, config: unknown, game: string): ObsWire {
    if (dtype === "float32" || dtype === "float16") return new ObsWire(dtype, encoder.size, null, encoder);
    const steps = encoder.steps?.(config) ?? null;
    if (steps === null) {
      throw new EnvRequestError(
        "invalid_config",
        `obsDtype "${dtype}" needs an observation whose every value is a small fraction k/steps (0 <= k <= 255), which ${game}'s encoder does not declare${encoder.steps ? " for this config" : ""}; use "float32" or "float16"`,
      );
    }
    if (steps.length !== encoder.layout.length || steps.some((d) => !Number.isInteger(d) || d < 1 || d > 255)) {
      throw new Error(`${game}: the encoder's steps must be one integer in 1..255 per layout field`);
    }
    return new ObsWire(dtype, encoder.size, steps, encoder);
  }

  /** The observations (rows of `size` floats, shape [..., size]) in this session's wire form. */
  encode(shape: readonly number[], obs: Float32Array): WireObs {
    switch (this.dtype) {
      case "float32":
        return { dtype: "float32", shape, values: obs };
      case "float16":
        return { dtype: "float16", shape, values: toFloat16(obs) };
      case "uint8":
        return { dtype: "uint8", shape, values: this.toUint8(obs) };
      case "bits":
        return { dtype: "uint8", shape: [...shape.slice(0, -1), this.info.rowBytes], values: this.toBits(obs) };
    }
  }

  private toUint8(obs: Float32Array): Uint8Array {
    const scale = this.scale!;
    const size = this.size;
    const out = new Uint8Array(obs.length);
    for (let r = 0; r < obs.length; r += size) {
      // k/steps * steps is within a rounding error of the integer k >= 0: round half up.
      for (let j = 0; j < size; j++) out[r + j] = (obs[r + j]! * scale[j]! + 0.5) | 0;
    }
    return out;
  }

  private toBits(obs: Float32Array): Uint8Array {
    const scale = this.scale!;
    const bits = this.bitIndex!;
    const bytes = this.byteIndex!;
    const size = this.size;
    const rowBytes = this.info.rowBytes;
    const bitBytes = this.info.bitBytes!;
    const nbits = bits.length;
    const rows = obs.length / size;
    const out = new Uint8Array(rows * rowBytes);
    for (let r = 0; r < rows; r++) {
      const src = r * size;
      let dst = r * rowBytes;
      // Eight features per output byte, no read-modify-write of the output.
      let b = 0;
      for (; b + 8 <= nbits; b += 8) {
        out[dst++] =
          +(obs[src + bits[b]!] !== 0) |
          (+(obs[src + bits[b + 1]!] !== 0) << 1) |
          (+(obs[src + bits[b + 2]!] !== 0) << 2) |
          (+(obs[src + bits[b + 3]!] !== 0) << 3) |
          (+(obs[src + bits[b + 4]!] !== 0) << 4) |
          (+(obs[src + bits[b + 5]!] !== 0) << 5) |
          (+(obs[src + bits[b + 6]!] !== 0) << 6) |
          (+(obs[src + bits[b + 7]!] !== 0) << 7);
      }
      if (b < nbits) {
        let last = 0;
        for (let k = 0; b + k < nbits; k++) last |= +(obs[src + bits[b + k]!] !== 0) << k;
        out[dst] = last;
      }
      dst = r * rowBytes + bitBytes;
      for (let k = 0; k < bytes.length; k++) {
        const j = bytes[k]!;
        out[dst + k] = (obs[src + j]! * scale[j]! + 0.5) | 0;
      }
    }
    return out;
  }
}

const f32 = new Float32Array(1);
const u32 = new Uint32Array(f32.buffer);

/** float32 -> IEEE 754 binary16 bits, round to nearest even; overflow to infinity, NaN kept. */
export function float16Bits(x: number): number {
  f32[0] = x;
  const b = u32[0]!;
  const sign = (b >>> 16) & 0x8000;
  const exp = (b >>> 23) & 0xff;
  let mant = b & 0x7fffff;
  if (exp === 0xff) return sign | 0x7c00 | (mant !== 0 ? 0x200 : 0);
  const e = exp - 127 + 15;
  if (e >= 0x1f) return sign | 0x7c00;
  if (e <= 0) {
    if (e < -10) return sign; // below half the smallest subnormal: zero
    mant |= 0x800000;
    const shift = 14 - e;
    const half = 1 << (shift - 1);
    const rest = mant & ((1 << shift) - 1);
    let m = mant >>> shift;
    if (rest > half || (rest === half && (m & 1) === 1)) m++;
    return sign | m;
  }
  let h = sign | (e << 10) | (mant >>> 13);
  const rest = mant & 0x1fff;
  if (rest > 0x1000 || (rest === 0x1000 && (h & 1) === 1)) h++; // may carry into the exponent: still right
  return h;
}

function toFloat16(obs: Float32Array): Uint16Array {
  const out = new Uint16Array(obs.length);
  for (let i = 0; i < obs.length; i++) {
    const x = obs[i]!;
    // The common values of encoders, without the bit work.
    out[i] = x === 0 ? (Object.is(x, -0) ? 0x8000 : 0) : x === 1 ? 0x3c00 : float16Bits(x);
  }
  return out;
}
