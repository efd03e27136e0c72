import type { AnyGame } from "../engine/core/index.ts";

/**
 * The RL face of one game: decision <-> integer codec and a versioned observation encoder.
 *
 * Legality stays in the engine: the mask is derived from `game.legal(state)` by encoding each legal
 * decision; decoding an integer means finding the legal decision that encodes to it. The codec
 * only needs the acting seat's view (never hidden state), so an ONNX agent can use it too.
 */
export interface ActionCodec<D = any, V = any> {
  /** Number of action ids; every id is in [0, size). */
  readonly size: number;
  /** The id of a legal decision, computed from the actor's view. Distinct legal decisions get distinct ids. */
  encode(view: V, decision: D): number;
  /** Documentation of the id ranges, e.g. "0..51 play card (suit*13+rank-1); 52 pass". */
  readonly layout: string;
  /**
   * Optional: the decision an id names in this view, legal or not (null: it names nothing here).
   * Used only to explain a refused id (game.explain); legality never comes from it.
   */
  decode?(view: V, id: number): D | null;
}

export interface ObservationField {
  readonly name: string;
  readonly offset: number;
  readonly length: number;
  readonly description: string;
  /**
   * Declared range of every float of the field: the encoder never writes a value below `low` or
   * above `high`. Absent: unbounded on that side (the rules do not bound it, e.g. a buffable
   * attack), and a trainer's Box gets -inf/+inf there. Served in the spec; not part of
   * actionSpecHash (bounds describe the inputs, they do not change them).
   */
  readonly low?: number;
  readonly high?: number;
}

export interface ObservationEncoder<V = any> {
  /** Bumped whenever the layout or meaning of any float changes. */
  readonly version: string;
  readonly size: number;
  readonly layout: readonly ObservationField[];
  /**
   * For the `uint8` and `bits` observation dtypes (obs-dtype.ts): per layout field, an integer
   * steps in 1..255 such that, in every game with this parsed config, each value the encoder
   * writes in that field is k / steps for an integer k in 0..255. Absent, or null for a config:
   * those dtypes are refused. Checked over random games by test/env/obs-dtype.test.ts.
   */
  steps?(config: unknown): readonly number[] | null;
  /** Writes exactly `size` floats into out (from offset 0); uses only the view. */
  encode(view: V, out: Float32Array): void;
}

export interface GameAdapter<D = any, V = any> {
  readonly game: AnyGame;
  readonly actions: ActionCodec<D, V>;
  readonly observation: ObservationEncoder<V>;
}

/**
 * Per-float bounds of an encoder, from its fields' declared ranges (+-Infinity where undeclared),
 * as float32 like the observations (and a trainer's Box): 18/13 as float32 is the value an
 * encoder writes for 18/13, and it lies a little above the float64 18/13.
 */
export function observationBounds(encoder: ObservationEncoder): { low: Float32Array; high: Float32Array } {
  const low = new Float32Array(encoder.size).fill(-Infinity);
  const high = new Float32Array(encoder.size).fill(Infinity);
  for (const f of encoder.layout) {
    if (f.low !== undefined) low.fill(f.low, f.offset, f.offset + f.length);
    if (f.high !== undefined) high.fill(f.high, f.offset, f.offset + f.length);
  }
  return { low, high };
}

/** Checks that fields tile [0, size) with no gap or overlap; call it when defining an encoder. */
export function checkLayout(size: number, layout: readonly ObservationField[]): void {
  let at = 0;
  for (const f of layout) {
    if (f.offset !== at) throw new Error(`observation layout: field ${f.name} starts at ${f.offset}, expected ${at}`);
    at += f.length;
  }
  if (at !== size) throw new Error(`observation layout covers ${at} floats, size is ${size}`);
}

/**
 * The offsets of the named fields, checked when the encoder module loads: a name the layout lacks
 * throws here instead of making the encoder write to `out[NaN]` (a silent no-op that would leave
 * a feature at zero). Returns a plain object, so reading an offset in an encoder costs nothing more.
 */
export function fieldOffsets<const N extends string>(layout: readonly ObservationField[], names: readonly N[]): { readonly [K in N]: number } {
  const out: Record<string, number> = {};
  for (const name of names) {
    const field = layout.find((f) => f.name === name);
    if (!field) throw new Error(`observation layout has no field "${name}" (fields: ${layout.map((f) => f.name).join(", ")})`);
    out[name] = field.offset;
  }
  return out as { readonly [K in N]: number };
}
