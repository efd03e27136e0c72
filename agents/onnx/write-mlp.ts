import { Rng } from "../../engine/core/index.ts";
import { INPUT_NAME, OUTPUT_NAME, VALUE_NAME } from "./contract.ts";
import { ProtobufWriter } from "./protobuf.ts";

export interface MlpSpec {
  readonly obsSize: number;
  readonly hidden: number;
  readonly actionSize: number;
  /** metadata_props to write (game, obs_version, action_spec_hash...). */
  readonly metadata: Readonly<Record<string, string>>;
  readonly seed: number;
  /** Override the declared batch dimension (default: dynamic "batch"). */
  readonly batch?: number;
  /** Multiplies every random weight (0: the outputs are the biases alone, whatever the input). */
  readonly weightScale?: number;
  /** Added to the output bias per action id (a planted prior for tests). */
  readonly logitBias?: Readonly<Record<number, number>>;
  /** Adds the optional `value` output, value = relu(obs W1 + b1) Wv + bv, with this bias bv. */
  readonly valueBias?: number;
  /** Declared width of the value output (default 1; tests write wrong ones). */
  readonly valueWidth?: number;
  /**
   * Reshapes the logits to this shape (-1: inferred) while still declaring [batch, actionSize]:
   * [1, actionSize] is a model that only runs at batch 1 (tests of the load-time batch check).
   */
  readonly logitsShape?: readonly number[];
}

/**
 * Writes a small ONNX MLP, logits = relu(obs W1 + b1) W2 + b2, as ModelProto bytes with our own
 * protobuf writer: no Python needed to get a model that honours the contract (tests, benches,
 * server smoke tests). Opset 13, IR 8, weights as raw little-endian float32 initializers, seeded.
 */
export function writeMlp(spec: MlpSpec): Uint8Array {
  const rng = Rng.seeded(spec.seed);
  const weights = (rows: number, cols: number) => {
    const scale = Math.sqrt(2 / rows) * (spec.weightScale ?? 1);
    return Float32Array.from({ length: rows * cols }, () => (rng.nextFloat() * 2 - 1) * scale);
  };
  // Drawn in this order (tests rebuild the same weights from the seed).
  const w1 = weights(spec.obsSize, spec.hidden);
  const b1 = weights(1, spec.hidden);
  const w2 = weights(spec.hidden, spec.actionSize);
  const b2 = weights(1, spec.actionSize);
  for (const [id, bias] of Object.entries(spec.logitBias ?? {})) {
    const before = b2[Number(id)];
    if (before === undefined) throw new RangeError(`writeMlp: logitBias names action ${id}, outside [0, ${spec.actionSize})`);
    b2[Number(id)] = before + bias;
  }
  const graph = new ProtobufWriter()
    .messageField(1, node("MatMul", [INPUT_NAME, "w1"], ["h1"]))
    .messageField(1, node("Add", ["h1", "b1"], ["h2"]))
    .messageField(1, node("Relu", ["h2"], ["h3"]))
    .messageField(1, node("MatMul", ["h3", "w2"], ["h4"]))
    .messageField(1, node("Add", ["h4", "b2"], [spec.logitsShape === undefined ? OUTPUT_NAME : "h5"]))
    .stringField(2, "cardgym_mlp")
    .messageField(5, tensor("w1", [spec.obsSize, spec.hidden], w1))
    .messageField(5, tensor("b1", [spec.hidden], b1))
    .messageField(5, tensor("w2", [spec.hidden, spec.actionSize], w2))
    .messageField(5, tensor("b2", [spec.actionSize], b2))
    .messageField(11, valueInfo(INPUT_NAME, spec.batch, spec.obsSize))
    .messageField(12, valueInfo(OUTPUT_NAME, spec.batch, spec.actionSize));
  if (spec.logitsShape !== undefined) {
    graph.messageField(1, node("Reshape", ["h5", "fixed_shape"], [OUTPUT_NAME])).messageField(5, int64Tensor("fixed_shape", spec.logitsShape));
  }
  const { valueBias } = spec;
  if (valueBias !== undefined) {
    const width = spec.valueWidth ?? 1;
    const bv = weights(1, width).map((x) => x + valueBias);
    graph
      .messageField(1, node("MatMul", ["h3", "wv"], ["v1"]))
      .messageField(1, node("Add", ["v1", "bv"], [VALUE_NAME]))
      .messageField(5, tensor("wv", [spec.hidden, width], weights(spec.hidden, width)))
      .messageField(5, tensor("bv", [width], bv))
      .messageField(12, valueInfo(VALUE_NAME, spec.batch, width));
  }
  const model = new ProtobufWriter()
    .varintField(1, 8) // ir_version
    .stringField(2, "cardgym")
    .messageField(7, graph)
    .messageField(8, new ProtobufWriter().stringField(1, "").varintField(2, 13));
  for (const [key, value] of Object.entries(spec.metadata)) {
    model.messageField(14, new ProtobufWriter().stringField(1, key).stringField(2, value));
  }
  return model.finish();
}

function node(op: string, inputs: string[], outputs: string[]): ProtobufWriter {
  const w = new ProtobufWriter();
  for (const i of inputs) w.stringField(1, i);
  for (const o of outputs) w.stringField(2, o);
  return w.stringField(3, `${op}_${outputs[0]}`).stringField(4, op);
}

function tensor(name: string, dims: number[], data: Float32Array): ProtobufWriter {
  const w = new ProtobufWriter();
  for (const d of dims) w.varintField(1, d);
  const raw = new Uint8Array(data.length * 4);
  const dv = new DataView(raw.buffer);
  data.forEach((x, i) => dv.setFloat32(i * 4, x, true));
  return w.varintField(2, 1).stringField(8, name).bytesField(9, raw);
}

function int64Tensor(name: string, values: readonly number[]): ProtobufWriter {
  const raw = new Uint8Array(values.length * 8);
  const dv = new DataView(raw.buffer);
  values.forEach((x, i) => dv.setBigInt64(i * 8, BigInt(x), true));
  return new ProtobufWriter().varintField(1, values.length).varintField(2, 7).stringField(8, name).bytesField(9, raw);
}

function valueInfo(name: string, batch: number | undefined, width: number): ProtobufWriter {
  const batchDim = batch === undefined ? new ProtobufWriter().stringField(2, "batch") : new ProtobufWriter().varintField(1, batch);
  const shape = new ProtobufWriter().messageField(1, batchDim).messageField(1, new ProtobufWriter().varintField(1, width));
  const tensorType = new ProtobufWriter().varintField(1, 1).messageField(2, shape);
  return new ProtobufWriter().stringField(1, name).messageField(2, new ProtobufWriter().messageField(1, tensorType));
}
