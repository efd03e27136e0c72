import { ProtobufError, ProtobufReader, readFields, text, WIRE, type Field } from "./protobuf.ts";

/**
 * The computation inside a ModelProto: nodes in file order and constant tensors (initializers),
 * enough for the in-process executor (js-executor.ts) to decide whether it can run the model and
 * to load its weights. Reading never refuses a model: whatever this reader does not understand
 * (external data, other element types, malformed nested fields) is reported as a reason, and the
 * model is left to onnxruntime, which gives the authoritative error if the model is broken.
 */

/** A constant tensor: float32 values (as read, exact) or int64 values (as numbers, see int64()). */
export interface ConstTensor {
  readonly dims: readonly number[];
  /** TensorProto.DataType: 1 = float32, 7 = int64. */
  readonly dataType: number;
  readonly floats: Float32Array | null;
  readonly ints: readonly number[] | null;
}

export interface GraphAttribute {
  readonly name: string;
  /** AttributeProto.type: 1 float, 2 int, 4 tensor, 6 floats, 7 ints; 0 when absent. */
  readonly type: number;
  readonly f: number;
  readonly i: number;
  readonly t: ConstTensor | null;
  readonly floats: readonly number[];
  readonly ints: readonly number[];
  /** Kinds this reader keeps no value for (strings, graphs, ...): present, not understood. */
  readonly opaque: boolean;
}

export interface GraphNode {
  readonly opType: string;
  readonly domain: string;
  readonly inputs: readonly string[];
  readonly outputs: readonly string[];
  readonly attributes: ReadonlyMap<string, GraphAttribute>;
}

export interface ModelGraph {
  readonly nodes: readonly GraphNode[];
  readonly initializers: ReadonlyMap<string, ConstTensor>;
}

/** The executor cannot (or will not) run this model; the reason is a readable phrase. */
export class GraphUnsupported extends Error {
  constructor(message: string) {
    super(message);
    this.name = "GraphUnsupported";
  }
}

export const DTYPE = { float: 1, int64: 7 } as const;
/** Bounds on what the reader accepts: rank, and values per constant tensor. */
const MAX_RANK = 8;
const MAX_VALUES = 1 << 27;

// Field numbers from onnx.proto3.
const GRAPH = { node: 1, initializer: 5 } as const;
const NODE = { input: 1, output: 2, opType: 4, attribute: 5, domain: 7 } as const;
const ATTR = { name: 1, f: 2, i: 3, t: 5, floats: 7, ints: 8, type: 20 } as const;
const TENSOR = { dims: 1, dataType: 2, segment: 3, floatData: 4, int32Data: 5, int64Data: 7, name: 8, rawData: 9, externalData: 13, dataLocation: 14 } as const;

/** Reads the graph's nodes and initializers; throws GraphUnsupported with the reason otherwise. */
export function readModelGraph(model: Uint8Array): ModelGraph {
  try {
    let graph: Uint8Array | null = null;
    for (const f of readFields(model)) if (f.field === 7 && f.wire === WIRE.len) graph = f.bytes;
    if (graph === null) throw new GraphUnsupported("the model has no graph");
    const nodes: GraphNode[] = [];
    const initializers = new Map<string, ConstTensor>();
    for (const f of readFields(graph)) {
      if (f.wire !== WIRE.len) continue;
      if (f.field === GRAPH.node) nodes.push(readNode(f.bytes));
      else if (f.field === GRAPH.initializer) {
        const { name, tensor } = readTensor(f.bytes);
        if (initializers.has(name)) throw new GraphUnsupported(`initializer "${name}" is defined twice`);
        initializers.set(name, tensor);
      }
    }
    return { nodes, initializers };
  } catch (e) {
    if (e instanceof ProtobufError) throw new GraphUnsupported(`the graph does not parse (${e.message})`);
    throw e;
  }
}

function readNode(bytes: Uint8Array): GraphNode {
  const inputs: string[] = [];
  const outputs: string[] = [];
  let opType = "";
  let domain = "";
  const attributes = new Map<string, GraphAttribute>();
  for (const f of readFields(bytes)) {
    if (f.wire !== WIRE.len) continue;
    if (f.field === NODE.input) inputs.push(text(f.bytes));
    else if (f.field === NODE.output) outputs.push(text(f.bytes));
    else if (f.field === NODE.opType) opType = text(f.bytes);
    else if (f.field === NODE.domain) domain = text(f.bytes);
    else if (f.field === NODE.attribute) {
      const a = readAttribute(f.bytes);
      if (attributes.has(a.name)) throw new GraphUnsupported(`node ${opType || "?"} has attribute "${a.name}" twice`);
      attributes.set(a.name, a);
    }
  }
  if (opType === "") throw new GraphUnsupported("a node has no op_type");
  return { opType, domain, inputs, outputs, attributes };
}

function readAttribute(bytes: Uint8Array): GraphAttribute {
  let name = "";
  let type = 0;
  let f = 0;
  let i = 0;
  let t: ConstTensor | null = null;
  const floats: number[] = [];
  const ints: number[] = [];
  let opaque = false;
  // Signed: attribute ints are int64 (axis=-1 is ten bytes).
  for (const g of readFields(bytes, true)) {
    switch (g.field) {
      case ATTR.name:
        if (g.wire === WIRE.len) name = text(g.bytes);
        break;
      case ATTR.type:
        if (g.wire === WIRE.varint) type = g.value;
        break;
      case ATTR.f:
        if (g.wire !== WIRE.fixed32) throw new GraphUnsupported(`attribute field f has wire type ${g.wire}`);
        f = float32At(g.bytes, 0);
        break;
      case ATTR.i:
        if (g.wire !== WIRE.varint) throw new GraphUnsupported(`attribute field i has wire type ${g.wire}`);
        i = g.value;
        break;
      case ATTR.t:
        if (g.wire !== WIRE.len) throw new GraphUnsupported(`attribute field t has wire type ${g.wire}`);
        t = readTensor(g.bytes).tensor;
        break;
      case ATTR.floats:
        for (const v of repeatedFloats(g)) floats.push(v);
        break;
      case ATTR.ints:
        for (const v of repeatedInt64(g)) ints.push(v);
        break;
      default:
        opaque = true; // strings, graphs, sparse tensors, type protos: not used by the ops we run
    }
  }
  return { name, type, f, i, t, floats, ints, opaque };
}

function readTensor(bytes: Uint8Array): { name: string; tensor: ConstTensor } {
  const dims: number[] = [];
  let dataType = 0;
  let name = "";
  let raw: Uint8Array | null = null;
  const floatFields: Field[] = [];
  const int64Fields: Field[] = [];
  for (const g of readFields(bytes, true)) {
    switch (g.field) {
      case TENSOR.dims:
        if (g.wire === WIRE.len) for (const v of repeatedInt64(g)) dims.push(v);
        else if (g.wire === WIRE.varint) dims.push(g.value);
        else throw new GraphUnsupported(`tensor dims have wire type ${g.wire}`);
        break;
      case TENSOR.dataType:
        if (g.wire === WIRE.varint) dataType = g.value;
        break;
      case TENSOR.name:
        if (g.wire === WIRE.len) name = text(g.bytes);
        break;
      case TENSOR.rawData:
        if (g.wire === WIRE.len) raw = g.bytes;
        break;
      case TENSOR.floatData:
        floatFields.push(g);
        break;
      case TENSOR.int64Data:
        int64Fields.push(g);
        break;
      case TENSOR.segment:
        throw new GraphUnsupported(`tensor "${name}" is segmented`);
      case TENSOR.externalData:
        throw new GraphUnsupported(`tensor "${name}" keeps its data in an external file`);
      case TENSOR.dataLocation:
        if (g.value !== 0) throw new GraphUnsupported(`tensor "${name}" keeps its data in an external file`);
        break;
      case TENSOR.int32Data:
        throw new GraphUnsupported(`tensor "${name}" has int32_data (element type ${dataType})`);
      default:
        break;
    }
  }
  const label = name === "" ? "a constant tensor" : `tensor "${name}"`;
  if (dims.length > MAX_RANK) throw new GraphUnsupported(`${label} has rank ${dims.length}`);
  let count = 1;
  for (const d of dims) {
    if (!Number.isSafeInteger(d) || d < 0) throw new GraphUnsupported(`${label} has dimension ${d}`);
    count *= d;
    if (count > MAX_VALUES) throw new GraphUnsupported(`${label} has more than ${MAX_VALUES} values`);
  }
  if (dataType === DTYPE.float) {
    let floats: Float32Array;
    if (raw !== null) {
      if (floatFields.length > 0) throw new GraphUnsupported(`${label} has both raw_data and float_data`);
      if (raw.length !== count * 4) throw new GraphUnsupported(`${label} has ${raw.length} bytes of raw_data for ${count} float32 values`);
      floats = new Float32Array(count);
      for (let k = 0; k < count; k++) floats[k] = float32At(raw, k * 4);
    } else {
      const values: number[] = [];
      for (const g of floatFields) for (const v of repeatedFloats(g)) values.push(v); // no spread: lists can be long
      if (values.length !== count) throw new GraphUnsupported(`${label} has ${values.length} float_data values for ${count} elements`);
      floats = Float32Array.from(values);
    }
    return { name, tensor: { dims, dataType, floats, ints: null } };
  }
  if (dataType === DTYPE.int64) {
    let ints: number[];
    if (raw !== null) {
      if (int64Fields.length > 0) throw new GraphUnsupported(`${label} has both raw_data and int64_data`);
      if (raw.length !== count * 8) throw new GraphUnsupported(`${label} has ${raw.length} bytes of raw_data for ${count} int64 values`);
      const dv = new DataView(raw.buffer, raw.byteOffset, raw.length);
      ints = [];
      for (let k = 0; k < count; k++) ints.push(dv.getInt32(k * 8 + 4, true) * 4294967296 + dv.getUint32(k * 8, true));
    } else {
      ints = [];
      for (const g of int64Fields) for (const v of repeatedInt64(g)) ints.push(v);
      if (ints.length !== count) throw new GraphUnsupported(`${label} has ${ints.length} int64_data values for ${count} elements`);
    }
    return { name, tensor: { dims, dataType, floats: null, ints } };
  }
  throw new GraphUnsupported(`${label} has element type ${dataType} (only float32 and int64 are read)`);
}

function float32At(bytes: Uint8Array, at: number): number {
  return new DataView(bytes.buffer, bytes.byteOffset + at, 4).getFloat32(0, true);
}

/** A repeated float field: packed (wire 2) or one value per field (wire 5). */
function repeatedFloats(g: Field): number[] {
  if (g.wire === WIRE.fixed32) return [float32At(g.bytes, 0)];
  if (g.wire !== WIRE.len || g.bytes.length % 4 !== 0) throw new GraphUnsupported(`a float list has wire type ${g.wire} and ${g.bytes.length} bytes`);
  const out: number[] = [];
  for (let k = 0; k < g.bytes.length; k += 4) out.push(float32At(g.bytes, k));
  return out;
}

/** A repeated int64 field: packed (wire 2) or one varint per field (wire 0, already signed). */
function repeatedInt64(g: Field): number[] {
  if (g.wire === WIRE.varint) return [g.value];
  if (g.wire !== WIRE.len) throw new GraphUnsupported(`an int list has wire type ${g.wire}`);
  const r = new ProtobufReader(g.bytes, g.bytes.length, 0, true);
  const out: number[] = [];
  while (!r.atEnd()) out.push(r.int64());
  return out;
}
