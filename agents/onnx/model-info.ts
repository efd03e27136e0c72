import { ProtobufError, ProtobufReader, readFields, text, WIRE, type Field } from "./protobuf.ts";

/** A graph input or output as the ModelProto declares it. */
export interface TensorSignature {
  readonly name: string;
  /** TensorProto.DataType: 1 = float32. 0 when the type is not a tensor. */
  readonly elemType: number;
  /** Per dimension: a fixed size, a symbolic name (dynamic), or null (unknown); null = no shape. */
  readonly dims: readonly (number | string | null)[] | null;
}

export interface ModelInfo {
  readonly irVersion: number;
  readonly opsetVersion: number | null;
  readonly metadata: Readonly<Record<string, string>>;
  readonly inputs: readonly TensorSignature[];
  readonly outputs: readonly TensorSignature[];
  readonly initializers: ReadonlySet<string>;
}

export class ModelFormatError extends Error {
  constructor(
    message: string,
    readonly truncated: boolean,
  ) {
    super(message);
    this.name = "ModelFormatError";
  }
}

// Field numbers from onnx.proto3.
const MODEL = { irVersion: 1, graph: 7, opsetImport: 8, metadataProps: 14 } as const;
const GRAPH = { initializer: 5, input: 11, output: 12 } as const;

/**
 * Reads what the model contract needs straight from the ModelProto bytes. Anything that does not
 * parse as protobuf, lacks ir_version or a graph, or uses a known field with the wrong wire type is
 * "not an ONNX model"; a field that runs past the end of the data means the file is truncated.
 */
export function readModelInfo(bytes: Uint8Array): ModelInfo {
  let irVersion: number | null = null;
  let graph: Uint8Array | null = null;
  let opsetVersion: number | null = null;
  const metadata: Record<string, string> = Object.create(null);
  const reader = new ProtobufReader(bytes);
  try {
    while (!reader.atEnd()) {
      const f = reader.next();
      switch (f.field) {
        case MODEL.irVersion:
          expectWire(f, WIRE.varint, "ir_version");
          irVersion = f.value;
          break;
        case MODEL.graph:
          expectWire(f, WIRE.len, "graph");
          graph = f.bytes;
          break;
        case MODEL.opsetImport: {
          expectWire(f, WIRE.len, "opset_import");
          let domain = "";
          let version = 0;
          for (const g of readFields(f.bytes)) {
            if (g.field === 1 && g.wire === WIRE.len) domain = text(g.bytes);
            if (g.field === 2 && g.wire === WIRE.varint) version = g.value;
          }
          if (domain === "" || domain === "ai.onnx") opsetVersion = version;
          break;
        }
        case MODEL.metadataProps: {
          expectWire(f, WIRE.len, "metadata_props");
          let key = "";
          let value = "";
          for (const g of readFields(f.bytes)) {
            if (g.field === 1 && g.wire === WIRE.len) key = text(g.bytes);
            if (g.field === 2 && g.wire === WIRE.len) value = text(g.bytes);
          }
          if (key === "__proto__") break;
          metadata[key] = value;
          break;
        }
        default:
          break;
      }
    }
  } catch (e) {
    if (e instanceof ProtobufError) {
      // A cut-off file usually still starts like a model; random bytes rarely do.
      const truncated = e.truncated && irVersion !== null;
      throw new ModelFormatError(truncated ? `the file is truncated (${e.message})` : `not an ONNX model (${e.message})`, truncated);
    }
    throw e;
  }
  if (irVersion === null || graph === null) {
    throw new ModelFormatError(`not an ONNX model (no ${irVersion === null ? "ir_version" : "graph"} field)`, false);
  }
  const inputs: TensorSignature[] = [];
  const outputs: TensorSignature[] = [];
  const initializers = new Set<string>();
  try {
    for (const f of readFields(graph)) {
      if (f.wire !== WIRE.len) continue;
      if (f.field === GRAPH.input) inputs.push(readValueInfo(f.bytes));
      else if (f.field === GRAPH.output) outputs.push(readValueInfo(f.bytes));
      else if (f.field === GRAPH.initializer) {
        for (const g of readFields(f.bytes)) if (g.field === 8 && g.wire === WIRE.len) initializers.add(text(g.bytes));
      }
    }
  } catch (e) {
    if (e instanceof ProtobufError) throw new ModelFormatError(`not an ONNX model (graph: ${e.message})`, false);
    throw e;
  }
  return { irVersion, opsetVersion, metadata, inputs, outputs, initializers };
}

function expectWire(f: Field, wire: number, name: string): void {
  if (f.wire !== wire) throw new ProtobufError(`field ${f.field} (${name}) has wire type ${f.wire}, expected ${wire}`, false);
}

// ValueInfoProto {name = 1, type = 2}; TypeProto {tensor_type = 1}; TypeProto.Tensor {elem_type = 1,
// shape = 2}; TensorShapeProto {dim = 1}; Dimension {dim_value = 1, dim_param = 2}.
function readValueInfo(bytes: Uint8Array): TensorSignature {
  let name = "";
  let elemType = 0;
  let dims: (number | string | null)[] | null = null;
  for (const f of readFields(bytes)) {
    if (f.field === 1 && f.wire === WIRE.len) name = text(f.bytes);
    if (f.field !== 2 || f.wire !== WIRE.len) continue;
    for (const t of readFields(f.bytes)) {
      if (t.field !== 1 || t.wire !== WIRE.len) continue;
      for (const u of readFields(t.bytes)) {
        if (u.field === 1 && u.wire === WIRE.varint) elemType = u.value;
        if (u.field !== 2 || u.wire !== WIRE.len) continue;
        dims = [];
        for (const d of readFields(u.bytes)) {
          if (d.field !== 1 || d.wire !== WIRE.len) continue;
          let dim: number | string | null = null;
          for (const v of readFields(d.bytes)) {
            if (v.field === 1 && v.wire === WIRE.varint) dim = v.value;
            if (v.field === 2 && v.wire === WIRE.len) dim = text(v.bytes);
          }
          dims.push(dim);
        }
      }
    }
  }
  return { name, elemType, dims };
}
