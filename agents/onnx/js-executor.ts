import { INPUT_NAME, OUTPUT_NAME } from "./contract.ts";
import type { ModelInfo } from "./model-info.ts";
import { DTYPE, GraphUnsupported, readModelGraph, type ConstTensor, type GraphAttribute, type GraphNode, type ModelGraph } from "./onnx-graph.ts";
import { wasmDense, type DenseFn } from "./wasm-dense.ts";

/**
 * An in-process executor for small feed-forward policies: the graphs PyTorch exports for MLPs and
 * slot encoders (MatMul / Gemm / Add / Sub / Mul / Div / Relu / LeakyRelu / Tanh / Sigmoid /
 * Identity / Flatten / Reshape / Slice / Concat / Constant, ai.onnx opsets 10 to 23, float32).
 *
 * Why: onnxruntime-node costs about 50 us per `session.run` whatever the model, while such a
 * network is a few thousand multiply-adds per observation. The executor runs one observation at a
 * time (a batch is a loop), so a decision's logits never depend on what else was in its batch.
 * Observations are mostly zeros and one-hots, so MatMul and Gemm keep their weights input-major
 * ([in, out]) and add one weight row per non-zero input: the first layer costs
 * (non-zero inputs x width), not (inputs x width). That loop runs in a small WebAssembly SIMD
 * module (wasm-dense.ts) over one memory holding weights and activations; without WebAssembly
 * SIMD, in plain JavaScript.
 *
 * Precision: float32 weights, activations and accumulation, as onnxruntime; the summation order
 * differs, so the two agree to about 1e-6 relative, not bit for bit (the tests hold them to 1e-4).
 * The logits of an observation never depend on the batch it was run in.
 *
 * Everything it cannot run exactly as onnxruntime would (other ops, dynamic shapes, a batch axis
 * that is sliced or merged, non-finite weights, unknown attributes) makes compileJsExecutor throw
 * GraphUnsupported with the reason; the caller then uses onnxruntime.
 */
export interface JsExecutor {
  readonly obsSize: number;
  readonly actionSize: number;
  /** Ops in execution order (Constant nodes left out), for messages and benches, e.g. "MatMul Add Relu MatMul Add". */
  readonly ops: string;
  /** Multiply-adds per observation if every input were non-zero. */
  readonly denseMacs: number;
  /**
   * Expected multiply-adds per observation: layers that read the observation itself (through
   * slices, reshapes and concatenations only) counted at a fifth, as observations are mostly zeros.
   */
  readonly sparseMacs: number;
  /** True when the dense loop runs in WebAssembly SIMD (false: plain JavaScript). */
  readonly simd: boolean;
  /** Logits of n observations laid out row by row (n * obsSize) into out (n * actionSize). */
  run(input: Float32Array, n: number, out: Float32Array): void;
}

const OBS_DENSITY = 0.2; // measured: sevens 83 of 426 features are non-zero, shephy 37/138, dcg 86/3378
const MAX_BYTES = 256 << 20; // a network this large gains nothing from skipping onnxruntime's per-run cost
const MAX_IR = 11; // what onnxruntime 1.30 reads
const MIN_OPSET = 10; // Slice takes its bounds as inputs from opset 10 on
const MAX_OPSET = 23;

interface Static {
  readonly kind: "static";
  readonly t: ConstTensor;
}
/** A per-observation tensor: shape without the batch axis, values in a buffer reused per sample. */
interface Batched {
  readonly kind: "batched";
  readonly rest: readonly number[];
  readonly data: Float32Array;
  /** Only moved, never computed, from the observation: mostly zeros. */
  readonly raw?: boolean;
}
type Value = Static | Batched;
type Step = () => void;

const sizeOf = (dims: readonly number[]) => dims.reduce((a, b) => a * b, 1);
const shapeText = (dims: readonly number[]) => `[${dims.join(", ")}]`;

/**
 * Where buffers come from while a model is being compiled: compilation is synchronous, so one
 * module-level arena at a time. The first pass allocates ordinary arrays and counts the bytes;
 * the second, when WebAssembly SIMD is there, places everything in the module's memory.
 */
interface Arena {
  alloc(length: number): Float32Array;
  readonly dense: DenseFn | null;
}
let arena: Arena | null = null;

function alloc(length: number): Float32Array {
  return arena!.alloc(length);
}

/** Compiles the model for the JS executor; `simd: false` keeps the plain JavaScript loop (tests, benches). */
export function compileJsExecutor(bytes: Uint8Array, info: ModelInfo, options: { readonly simd?: boolean } = {}): JsExecutor {
  const graph = readModelGraph(bytes);
  let total = 0;
  const counting: Arena = {
    alloc(length) {
      total += Math.ceil(length / 4) * 16; // 16-byte aligned, as SIMD loads like
      if (total > MAX_BYTES) throw new GraphUnsupported(`the model needs more than ${MAX_BYTES / (1 << 20)} MB of weights and activations`);
      return new Float32Array(length);
    },
    dense: null,
  };
  const plain = withArena(counting, () => build(graph, info));
  const wasm = options.simd === false ? null : wasmDense(total);
  if (wasm === null) return plain;
  let at = 0;
  const placed: Arena = {
    alloc(length) {
      const view = new Float32Array(wasm.memory.buffer, at, length);
      at += Math.ceil(length / 4) * 16;
      return view;
    },
    dense: wasm.dense,
  };
  return withArena(placed, () => build(graph, info));
}

function withArena<T>(a: Arena, f: () => T): T {
  arena = a;
  try {
    return f();
  } finally {
    arena = null;
  }
}

function build(graph: ModelGraph, info: ModelInfo): JsExecutor {
  if (info.irVersion < 3 || info.irVersion > MAX_IR) throw new GraphUnsupported(`IR version ${info.irVersion}`);
  const opset = info.opsetVersion;
  if (opset === null || opset < MIN_OPSET || opset > MAX_OPSET) throw new GraphUnsupported(`opset ${opset ?? "none"} (the executor knows ${MIN_OPSET}..${MAX_OPSET})`);
  const obsSig = info.inputs.find((i) => i.name === INPUT_NAME);
  const outSig = info.outputs.find((o) => o.name === OUTPUT_NAME);
  const obsSize = obsSig?.dims?.length === 2 ? obsSig.dims[1] : undefined;
  const declaredActions = outSig?.dims?.length === 2 ? outSig.dims[1] : undefined;
  if (typeof obsSize !== "number" || obsSize <= 0) throw new GraphUnsupported(`input "${INPUT_NAME}" has no fixed width`);
  if (obsSig!.elemType !== DTYPE.float || outSig?.elemType !== DTYPE.float) throw new GraphUnsupported("input or output is not float32");

  const values = new Map<string, Value>();
  for (const [name, t] of graph.initializers) values.set(name, { kind: "static", t });
  const input: Batched = { kind: "batched", rest: [obsSize], data: alloc(obsSize), raw: true };
  values.set(INPUT_NAME, input);

  // Only the nodes the logits depend on (a value head or debug outputs cost nothing).
  const producer = new Map<string, number>();
  graph.nodes.forEach((n, k) => n.outputs.forEach((o) => producer.set(o, k)));
  const needed = new Set<number>();
  const stack = [OUTPUT_NAME];
  while (stack.length > 0) {
    const k = producer.get(stack.pop()!);
    if (k === undefined || needed.has(k)) continue;
    needed.add(k);
    for (const i of graph.nodes[k]!.inputs) if (i !== "") stack.push(i);
  }

  const steps: Step[] = [];
  const ops: string[] = [];
  let denseMacs = 0;
  let sparseMacs = 0;
  graph.nodes.forEach((node, k) => {
    if (!needed.has(k)) return;
    if (node.domain !== "" && node.domain !== "ai.onnx") throw new GraphUnsupported(`op ${node.domain}.${node.opType}`);
    const args = node.inputs.map((name) => {
      if (name === "") return null;
      const v = values.get(name);
      // Graphs are topologically sorted; anything else (or a missing value) is left to onnxruntime.
      if (v === undefined) throw new GraphUnsupported(`${node.opType} reads "${name}" before it is computed`);
      return v;
    });
    const compiled = compileNode(node, args, opset);
    if (compiled.step) steps.push(compiled.step);
    denseMacs += compiled.macs ?? 0;
    sparseMacs += (compiled.macs ?? 0) * (args[0]?.kind === "batched" && args[0].raw ? OBS_DENSITY : 1);
    if (node.opType !== "Constant") ops.push(node.opType);
    if (node.outputs.length !== 1 && !(node.outputs.length > 1 && node.outputs.slice(1).every((o) => o === ""))) {
      throw new GraphUnsupported(`${node.opType} has ${node.outputs.length} outputs`);
    }
    if (values.has(node.outputs[0]!)) throw new GraphUnsupported(`value "${node.outputs[0]}" is computed twice`);
    values.set(node.outputs[0]!, compiled.value);
  });

  const logits = values.get(OUTPUT_NAME);
  if (logits === undefined) throw new GraphUnsupported(`nothing computes "${OUTPUT_NAME}"`);
  if (logits.kind !== "batched" || logits.rest.length !== 1) {
    throw new GraphUnsupported(`"${OUTPUT_NAME}" is not a [batch, actions] tensor here`);
  }
  const actionSize = logits.rest[0]!;
  if (typeof declaredActions === "number" && declaredActions !== actionSize) {
    throw new GraphUnsupported(`"${OUTPUT_NAME}" is declared with ${declaredActions} actions but computes ${actionSize}`);
  }
  const inData = input.data;
  const outData = logits.data;
  const count = steps.length;
  return {
    obsSize,
    actionSize,
    ops: ops.join(" "),
    denseMacs,
    sparseMacs,
    simd: arena!.dense !== null,
    run(batch: Float32Array, n: number, out: Float32Array): void {
      for (let s = 0; s < n; s++) {
        inData.set(batch.subarray(s * obsSize, (s + 1) * obsSize));
        for (let k = 0; k < count; k++) steps[k]!();
        const base = s * actionSize;
        for (let j = 0; j < actionSize; j++) out[base + j] = outData[j]!;
      }
    },
  };
}

interface Compiled {
  readonly value: Value;
  readonly step?: Step;
  readonly macs?: number;
}

function compileNode(node: GraphNode, args: (Value | null)[], opset: number): Compiled {
  const op = node.opType;
  switch (op) {
    case "Constant":
      return { value: { kind: "static", t: constantOf(node) } };
    case "Identity":
      attrs(node, []);
      return { value: batched(node, args, 0) };
    case "Relu":
    case "Tanh":
    case "Sigmoid":
    case "LeakyRelu": {
      attrs(node, op === "LeakyRelu" ? ["alpha"] : []);
      const x = batched(node, args, 0);
      const y = fresh(x.rest);
      const a = x.data;
      const b = y.data;
      const n = a.length;
      const kind = op === "Relu" ? UNARY.relu : op === "Tanh" ? UNARY.tanh : op === "Sigmoid" ? UNARY.sigmoid : UNARY.leakyRelu;
      const alpha = Math.fround(floatAttr(node, "alpha", 0.01));
      return { value: y, step: () => unaryKernel(kind, a, b, n, alpha) };
    }
    case "Add":
    case "Sub":
    case "Mul":
    case "Div":
      attrs(node, []);
      return binary(node, args);
    case "MatMul":
      attrs(node, []);
      return dense(node, batched(node, args, 0), floatStatic(node, args, 1), false, 1, null, 1);
    case "Gemm": {
      attrs(node, ["alpha", "beta", "transA", "transB"]);
      if (intAttr(node, "transA", 0) !== 0) throw new GraphUnsupported("Gemm with transA=1 (it would transpose the batch axis)");
      const x = batched(node, args, 0);
      if (x.rest.length !== 1) throw new GraphUnsupported(`Gemm on a rank ${x.rest.length + 1} input`);
      const c = args[2] ? floatStatic(node, args, 2) : null;
      return dense(node, x, floatStatic(node, args, 1), intAttr(node, "transB", 0) !== 0, floatAttr(node, "alpha", 1), c, floatAttr(node, "beta", 1));
    }
    case "Flatten": {
      attrs(node, ["axis"]);
      const x = batched(node, args, 0);
      const rank = x.rest.length + 1;
      let axis = intAttr(node, "axis", 1);
      if (axis < 0) axis += rank;
      if (axis !== 1) throw new GraphUnsupported(`Flatten with axis ${intAttr(node, "axis", 1)} (it would merge the batch axis)`);
      return { value: { ...x, rest: [sizeOf(x.rest)] } };
    }
    case "Reshape":
      attrs(node, opset >= 14 ? ["allowzero"] : []);
      return reshape(node, batched(node, args, 0), intStatic(node, args, 1));
    case "Slice":
      attrs(node, []);
      return slice(node, args);
    case "Concat":
      attrs(node, ["axis"]);
      return concat(node, args);
    default:
      throw new GraphUnsupported(`op ${op}`);
  }
}

// ---- arguments and attributes ----

function batched(node: GraphNode, args: (Value | null)[], k: number): Batched {
  const v = args[k];
  if (!v || v.kind !== "batched") throw new GraphUnsupported(`${node.opType}'s input ${k + 1} is ${v ? "a constant" : "missing"} (expected a per-observation tensor)`);
  return v;
}

function staticArg(node: GraphNode, args: (Value | null)[], k: number): ConstTensor {
  const v = args[k];
  if (!v || v.kind !== "static") throw new GraphUnsupported(`${node.opType}'s input ${k + 1} is ${v ? "computed" : "missing"} (expected a constant)`);
  return v.t;
}

function floatStatic(node: GraphNode, args: (Value | null)[], k: number): ConstTensor & { floats: Float32Array } {
  const t = staticArg(node, args, k);
  if (t.floats === null) throw new GraphUnsupported(`${node.opType}'s input ${k + 1} is not float32`);
  return t as ConstTensor & { floats: Float32Array };
}

function intStatic(node: GraphNode, args: (Value | null)[], k: number): readonly number[] {
  const t = staticArg(node, args, k);
  if (t.ints === null || t.dims.length > 1) throw new GraphUnsupported(`${node.opType}'s input ${k + 1} is not a list of int64`);
  return t.ints;
}

function attrs(node: GraphNode, allowed: readonly string[]): void {
  for (const [name, a] of node.attributes) {
    if (!allowed.includes(name) || a.opaque) throw new GraphUnsupported(`${node.opType} with attribute "${name}"`);
  }
}

function attribute(node: GraphNode, name: string): GraphAttribute | undefined {
  return node.attributes.get(name);
}

// AttributeProto.AttributeType: the value is read only when the declared type says it is there.
const ATTR_TYPE = { float: 1, int: 2, tensor: 4, floats: 6, ints: 7 } as const;

function typed(node: GraphNode, name: string, type: number): GraphAttribute | undefined {
  const a = attribute(node, name);
  if (a !== undefined && a.type !== type) throw new GraphUnsupported(`${node.opType} attribute "${name}" has type ${a.type}, expected ${type}`);
  return a;
}

function intAttr(node: GraphNode, name: string, fallback: number): number {
  return typed(node, name, ATTR_TYPE.int)?.i ?? fallback;
}

function floatAttr(node: GraphNode, name: string, fallback: number): number {
  return typed(node, name, ATTR_TYPE.float)?.f ?? fallback;
}

function fresh(rest: readonly number[]): Batched {
  return { kind: "batched", rest, data: alloc(sizeOf(rest)) };
}

const CONSTANT_ATTRS = new Map<string, number>([
  ["value", ATTR_TYPE.tensor],
  ["value_float", ATTR_TYPE.float],
  ["value_floats", ATTR_TYPE.floats],
  ["value_int", ATTR_TYPE.int],
  ["value_ints", ATTR_TYPE.ints],
]);

function constantOf(node: GraphNode): ConstTensor {
  if (node.attributes.size !== 1) throw new GraphUnsupported(`Constant with ${node.attributes.size} attributes`);
  const [name, a] = [...node.attributes][0]!;
  const want = CONSTANT_ATTRS.get(name);
  if (want !== undefined) typed(node, name, want);
  switch (name) {
    case "value":
      if (a.t === null) break;
      return a.t;
    case "value_float":
      return { dims: [], dataType: DTYPE.float, floats: Float32Array.of(a.f), ints: null };
    case "value_floats":
      return { dims: [a.floats.length], dataType: DTYPE.float, floats: Float32Array.from(a.floats), ints: null };
    case "value_int":
      return { dims: [], dataType: DTYPE.int64, floats: null, ints: [a.i] };
    case "value_ints":
      return { dims: [a.ints.length], dataType: DTYPE.int64, floats: null, ints: a.ints };
  }
  throw new GraphUnsupported(`Constant with attribute "${name}"`);
}

// ---- kernels ----

/**
 * MatMul (x [.., k] by w [k, n]) and Gemm (alpha x w' + beta c, w' = w or its transpose) as one
 * kernel: weights input-major, one row per non-zero input, summed in float64.
 */
function dense(
  node: GraphNode,
  x: Batched,
  w: ConstTensor & { floats: Float32Array },
  transB: boolean,
  alpha: number,
  c: (ConstTensor & { floats: Float32Array }) | null,
  beta: number,
): Compiled {
  if (w.dims.length !== 2) throw new GraphUnsupported(`${node.opType} with a rank ${w.dims.length} weight`);
  const k = x.rest[x.rest.length - 1]!;
  const [r0, r1] = w.dims as [number, number];
  const [wk, n] = transB ? [r1, r0] : [r0, r1];
  if (x.rest.length === 0 || wk !== k) throw new GraphUnsupported(`${node.opType} of ${shapeText([-1, ...x.rest])} by ${shapeText(w.dims)}${transB ? " transposed" : ""}`);
  // Skipping zero inputs is exact only when every weight is finite (0 x inf is NaN).
  for (let i = 0; i < w.floats.length; i++) if (!Number.isFinite(w.floats[i]!)) throw new GraphUnsupported(`${node.opType} has non-finite weights`);
  const weights = alloc(k * n);
  if (transB) {
    for (let j = 0; j < n; j++) for (let i = 0; i < k; i++) weights[i * n + j] = w.floats[j * k + i]!;
  } else weights.set(w.floats);
  let bias: Float64Array | null = null; // beta * c, broadcast over the outputs
  if (c !== null) {
    const size = sizeOf(c.dims);
    const ok = c.dims.length <= 2 && (size === 1 || (size === n && c.dims[c.dims.length - 1] === n));
    if (!ok) throw new GraphUnsupported(`Gemm with a bias of shape ${shapeText(c.dims)} for ${n} outputs`);
    bias = new Float64Array(n);
    for (let j = 0; j < n; j++) bias[j] = beta * c.floats[size === 1 ? 0 : j]!;
  }
  const y = fresh([...x.rest.slice(0, -1), n]);
  const rows = sizeOf(x.rest) / k;
  const [a, out] = [x.data, y.data];
  // The closure only forwards: V8 optimises typed-array loops on parameters far better than on
  // captured variables (measured 3x).
  const wasm = arena!.dense;
  if (wasm !== null) {
    const [ao, wo, oo] = [a.byteOffset, weights.byteOffset, out.byteOffset];
    const finish = bias !== null || alpha !== 1;
    const step: Step = () => {
      wasm(ao, rows, k, n, wo, oo);
      if (finish) scaleBiasKernel(out, rows, n, alpha, bias);
    };
    return { value: y, step, macs: rows * k * n };
  }
  const step: Step = () => denseKernel(a, weights, out, rows, k, n, alpha, bias);
  return { value: y, step, macs: rows * k * n };
}

function scaleBiasKernel(out: Float32Array, rows: number, n: number, alpha: number, bias: Float64Array | null): void {
  for (let r = 0; r < rows; r++) {
    const ob = r * n;
    if (bias !== null) for (let j = 0; j < n; j++) out[ob + j] = alpha * out[ob + j]! + bias[j]!;
    else for (let j = 0; j < n; j++) out[ob + j] = alpha * out[ob + j]!;
  }
}

/** The same loop in JavaScript, for hosts without WebAssembly SIMD. */
function denseKernel(a: Float32Array, w: Float32Array, out: Float32Array, rows: number, k: number, n: number, alpha: number, bias: Float64Array | null): void {
  const n4 = n - (n & 3);
  for (let r = 0; r < rows; r++) {
    const ob = r * n;
    const ab = r * k;
    for (let j = 0; j < n; j++) out[ob + j] = 0;
    for (let i = 0; i < k; i++) {
      const v = a[ab + i]!;
      if (v === 0) continue; // most observation features are zero
      const wb = i * n;
      let j = 0;
      for (; j < n4; j += 4) {
        out[ob + j] += v * w[wb + j]!;
        out[ob + j + 1] += v * w[wb + j + 1]!;
        out[ob + j + 2] += v * w[wb + j + 2]!;
        out[ob + j + 3] += v * w[wb + j + 3]!;
      }
      for (; j < n; j++) out[ob + j] += v * w[wb + j]!;
    }
    if (bias !== null) for (let j = 0; j < n; j++) out[ob + j] = alpha * out[ob + j]! + bias[j]!;
    else if (alpha !== 1) for (let j = 0; j < n; j++) out[ob + j] = alpha * out[ob + j]!;
  }
}

const UNARY = { relu: 0, tanh: 1, sigmoid: 2, leakyRelu: 3 } as const;

function unaryKernel(kind: number, a: Float32Array, b: Float32Array, n: number, alpha: number): void {
  if (kind === UNARY.relu) {
    for (let i = 0; i < n; i++) {
      const v = a[i]!;
      b[i] = v > 0 ? v : v === v ? 0 : v; // NaN stays NaN
    }
  } else if (kind === UNARY.tanh) for (let i = 0; i < n; i++) b[i] = Math.tanh(a[i]!);
  else if (kind === UNARY.sigmoid) for (let i = 0; i < n; i++) b[i] = 1 / (1 + Math.exp(-a[i]!));
  else {
    for (let i = 0; i < n; i++) {
      const v = a[i]!;
      b[i] = v < 0 ? alpha * v : v;
    }
  }
}

const BINARY = { add: 0, sub: 1, mul: 2, div: 3 } as const;

function binaryKernel(kind: number, a: Float32Array, b: Float32Array, out: Float32Array, n: number): void {
  if (kind === BINARY.add) for (let i = 0; i < n; i++) out[i] = a[i]! + b[i]!;
  else if (kind === BINARY.sub) for (let i = 0; i < n; i++) out[i] = a[i]! - b[i]!;
  else if (kind === BINARY.mul) for (let i = 0; i < n; i++) out[i] = a[i]! * b[i]!;
  else for (let i = 0; i < n; i++) out[i] = a[i]! / b[i]!;
}

function gatherKernel(a: Float32Array, index: Int32Array, out: Float32Array): void {
  for (let i = 0; i < out.length; i++) out[i] = a[index[i]!]!;
}

function concatKernel(sources: readonly Float32Array[], lengths: Int32Array, outer: number, out: Float32Array): void {
  let o = 0;
  for (let r = 0; r < outer; r++) {
    for (let p = 0; p < sources.length; p++) {
      const src = sources[p]!;
      const len = lengths[p]!;
      const from = r * len;
      for (let i = 0; i < len; i++) out[o++] = src[from + i]!;
    }
  }
}

function binary(node: GraphNode, args: (Value | null)[]): Compiled {
  const [p, q] = [args[0], args[1]];
  if (!p || !q) throw new GraphUnsupported(`${node.opType} with a missing input`);
  const op = node.opType;
  const kind = op === "Add" ? BINARY.add : op === "Sub" ? BINARY.sub : op === "Mul" ? BINARY.mul : BINARY.div;
  if (p.kind === "batched" && q.kind === "batched") {
    if (shapeText(p.rest) !== shapeText(q.rest)) throw new GraphUnsupported(`${op} of ${shapeText(p.rest)} and ${shapeText(q.rest)} per observation`);
    const y = fresh(p.rest);
    const [a, b, out] = [p.data, q.data, y.data];
    return { value: y, step: () => binaryKernel(kind, a, b, out, out.length) };
  }
  if (p.kind === "static" && q.kind === "static") throw new GraphUnsupported(`${op} of two constants`);
  const x = p.kind === "batched" ? p : (q as Batched);
  const t = p.kind === "static" ? p.t : (q as Static).t;
  if (t.floats === null) throw new GraphUnsupported(`${op} with a non-float32 constant`);
  const c = broadcastTo(node, t as ConstTensor & { floats: Float32Array }, x.rest);
  const y = fresh(x.rest);
  const [a, out] = [x.data, y.data];
  // Operand order matters for Sub and Div.
  const step: Step = p.kind === "static" ? () => binaryKernel(kind, c, a, out, out.length) : () => binaryKernel(kind, a, c, out, out.length);
  return { value: y, step };
}

/** A constant broadcast (numpy rules) over one observation's shape; it may not widen the batch axis. */
function broadcastTo(node: GraphNode, t: ConstTensor & { floats: Float32Array }, rest: readonly number[]): Float32Array {
  const full = rest.length + 1;
  if (t.dims.length > full) throw new GraphUnsupported(`${node.opType} broadcasts a ${shapeText(t.dims)} constant over ${shapeText([-1, ...rest])}`);
  if (t.dims.length === full && t.dims[0] !== 1) throw new GraphUnsupported(`${node.opType} with a constant of shape ${shapeText(t.dims)} along the batch axis`);
  const dims = rest.map((d, i) => {
    const at = i - (rest.length - t.dims.length); // index into t.dims (right-aligned), may be < 0
    const td = at >= 0 ? t.dims[at]! : 1;
    if (td !== 1 && td !== d) throw new GraphUnsupported(`${node.opType} broadcasts ${shapeText(t.dims)} over ${shapeText([-1, ...rest])}`);
    return td;
  });
  // When t has rank rest.length + 1, its leading 1 is dropped: dims lines up with rest.
  const out = new Float32Array(sizeOf(rest));
  const index = new Array<number>(rest.length).fill(0);
  for (let o = 0; o < out.length; o++) {
    let src = 0;
    for (let i = 0; i < rest.length; i++) src = src * dims[i]! + (dims[i] === 1 ? 0 : index[i]!);
    out[o] = t.floats[src]!;
    for (let i = rest.length - 1; i >= 0; i--) {
      if (++index[i]! < rest[i]!) break;
      index[i] = 0;
    }
  }
  return out;
}

function reshape(node: GraphNode, x: Batched, shape: readonly number[]): Compiled {
  const allowZero = intAttr(node, "allowzero", 0) !== 0;
  if (shape.length === 0) throw new GraphUnsupported("Reshape to a scalar");
  const total = sizeOf(x.rest);
  const inFull = [-1, ...x.rest];
  const first = shape[0]!;
  if (!(first === -1 || (first === 0 && !allowZero))) throw new GraphUnsupported(`Reshape to ${shapeText(shape)} (the batch axis must stay first)`);
  let unknown = -1;
  const rest: number[] = [];
  for (let i = 1; i < shape.length; i++) {
    let d = shape[i]!;
    if (d === 0 && !allowZero) {
      if (i >= inFull.length) throw new GraphUnsupported(`Reshape to ${shapeText(shape)} copies a missing axis`);
      d = inFull[i]!;
    }
    if (d === -1) {
      if (unknown >= 0 || first === -1) throw new GraphUnsupported(`Reshape to ${shapeText(shape)} with two unknown sizes`);
      unknown = rest.length;
    } else if (!Number.isSafeInteger(d) || d < 0) throw new GraphUnsupported(`Reshape to ${shapeText(shape)}`);
    rest.push(d);
  }
  if (unknown >= 0) {
    const known = rest.reduce((a, d, i) => (i === unknown ? a : a * d), 1);
    if (known === 0 || total % known !== 0) throw new GraphUnsupported(`Reshape of ${total} values to ${shapeText(shape)}`);
    rest[unknown] = total / known;
  }
  if (sizeOf(rest) !== total) throw new GraphUnsupported(`Reshape of ${shapeText(inFull)} to ${shapeText(shape)} changes the batch size`);
  return { value: { ...x, rest } };
}

const BIG = 2 ** 31 - 1; // "to the end" as exporters write it is INT64_MAX or INT32_MAX

function slice(node: GraphNode, args: (Value | null)[]): Compiled {
  const x = batched(node, args, 0);
  const starts = intStatic(node, args, 1);
  const ends = intStatic(node, args, 2);
  const full = x.rest.length + 1;
  const axes = args[3] ? intStatic(node, args, 3) : starts.map((_, i) => i);
  const stepsList = args[4] ? intStatic(node, args, 4) : starts.map(() => 1);
  if (ends.length !== starts.length || axes.length !== starts.length || stepsList.length !== starts.length) throw new GraphUnsupported("Slice with lists of different lengths");
  const begin = x.rest.map(() => 0);
  const stride = x.rest.map(() => 1);
  const count = [...x.rest];
  const seen = new Set<number>();
  for (let k = 0; k < starts.length; k++) {
    let axis = axes[k]!;
    if (axis < 0) axis += full;
    if (axis < 0 || axis >= full || seen.has(axis)) throw new GraphUnsupported(`Slice on axis ${axes[k]}`);
    seen.add(axis);
    const st = stepsList[k]!;
    if (axis === 0) {
      // The batch axis must be kept whole: start at 0, end past any batch, step 1.
      if (!(st === 1 && (starts[k] === 0 || starts[k]! <= -BIG) && ends[k]! >= BIG)) throw new GraphUnsupported("Slice along the batch axis");
      continue;
    }
    if (st === 0) throw new GraphUnsupported("Slice with step 0");
    const dim = x.rest[axis - 1]!;
    let s = starts[k]!;
    let e = ends[k]!;
    if (s < 0) s += dim;
    if (e < 0) e += dim;
    let n: number;
    if (st > 0) {
      s = Math.min(Math.max(s, 0), dim);
      e = Math.min(Math.max(e, 0), dim);
      n = Math.max(0, Math.ceil((e - s) / st));
    } else {
      s = Math.min(Math.max(s, -1), dim - 1);
      e = Math.min(Math.max(e, -1), dim - 1);
      n = Math.max(0, Math.ceil((s - e) / -st));
    }
    begin[axis - 1] = s;
    stride[axis - 1] = st;
    count[axis - 1] = n;
  }
  const y: Batched = { ...fresh(count), raw: x.raw === true };
  if (x.rest.length === 1 && stride[0] === 1) {
    // A contiguous range of a vector: a view, no copy.
    return { value: { ...x, rest: count, data: x.data.subarray(begin[0]!, begin[0]! + count[0]!) } };
  }
  const index = gatherIndex(x.rest, begin, stride, count);
  const [a, out] = [x.data, y.data];
  return { value: y, step: () => gatherKernel(a, index, out) };
}

function gatherIndex(dims: readonly number[], begin: readonly number[], stride: readonly number[], count: readonly number[]): Int32Array {
  const out = new Int32Array(sizeOf(count));
  const at = count.map(() => 0);
  for (let o = 0; o < out.length; o++) {
    let src = 0;
    for (let i = 0; i < dims.length; i++) src = src * dims[i]! + begin[i]! + at[i]! * stride[i]!;
    out[o] = src;
    for (let i = count.length - 1; i >= 0; i--) {
      if (++at[i]! < count[i]!) break;
      at[i] = 0;
    }
  }
  return out;
}

function concat(node: GraphNode, args: (Value | null)[]): Compiled {
  const parts = args.map((_, k) => batched(node, args, k));
  if (parts.length === 0) throw new GraphUnsupported("Concat of nothing");
  const rank = parts[0]!.rest.length;
  let axis = intAttr(node, "axis", 1);
  if (axis < 0) axis += rank + 1;
  if (axis < 1 || axis > rank) throw new GraphUnsupported(`Concat on axis ${intAttr(node, "axis", 1)}`);
  const ax = axis - 1;
  for (const p of parts) {
    if (p.rest.length !== rank || p.rest.some((d, i) => i !== ax && d !== parts[0]!.rest[i])) {
      throw new GraphUnsupported(`Concat of ${parts.map((q) => shapeText(q.rest)).join(", ")} on axis ${axis}`);
    }
  }
  const rest = [...parts[0]!.rest];
  rest[ax] = parts.reduce((s, p) => s + p.rest[ax]!, 0);
  const y: Batched = { ...fresh(rest), raw: parts.every((p) => p.raw === true) };
  const outer = sizeOf(rest.slice(0, ax));
  const inner = sizeOf(rest.slice(ax + 1));
  const sources = parts.map((p) => p.data);
  const lengths = Int32Array.from(parts, (p) => p.rest[ax]! * inner);
  const out = y.data;
  return { value: y, step: () => concatKernel(sources, lengths, outer, out) };
}
