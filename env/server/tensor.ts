/** The dtypes a reply's tensors carry (numpy names). */
export type Dtype = "float32" | "float16" | "uint8" | "int32" | "bool";

/**
 * An array of numbers in a reply: sent as `{dtype, shape, data}` with data the raw little-endian
 * bytes as a msgpack bin (wire.ts documents the format). Its own file so the msgpack writer can
 * encode it in place, without first building the `{dtype, shape, data}` object.
 */
export class Tensor {
  constructor(
    readonly dtype: Dtype,
    readonly shape: readonly number[],
    /** float16: the IEEE half-precision bit patterns. */
    readonly values: Float32Array | Uint16Array | Uint8Array | Int32Array,
  ) {}
}
