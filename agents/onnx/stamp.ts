import { ProtobufWriter, readFields, text, WIRE } from "./protobuf.ts";

const METADATA_PROPS = 14;

/**
 * The same ModelProto with its metadata_props replaced by `metadata`: every other top-level field
 * (graph, weights, opsets) is copied unchanged, in order. For renaming what a model was trained
 * against (an encoder version whose floats did not change); never for making a model with another
 * layout pass the contract: scripts/stamp-model.ts checks the sizes first.
 */
export function withMetadata(model: Uint8Array, metadata: Readonly<Record<string, string>>): Uint8Array {
  const out = new ProtobufWriter();
  for (const f of readFields(model)) {
    if (f.field === METADATA_PROPS) continue;
    if (f.wire === WIRE.varint) out.varintField(f.field, f.value);
    else if (f.wire === WIRE.len) out.bytesField(f.field, f.bytes);
    else throw new Error(`ModelProto field ${f.field} has wire type ${f.wire}, which no ONNX top-level field uses`);
  }
  for (const [key, value] of Object.entries(metadata)) {
    out.messageField(METADATA_PROPS, new ProtobufWriter().stringField(1, key).stringField(2, value));
  }
  return out.finish();
}

/** metadata_props in file order (readModelInfo keeps the last of a repeated key; this keeps all). */
export function metadataEntries(model: Uint8Array): [string, string][] {
  const out: [string, string][] = [];
  for (const f of readFields(model)) {
    if (f.field !== METADATA_PROPS || f.wire !== WIRE.len) continue;
    let key = "";
    let value = "";
    for (const g of readFields(f.bytes)) {
      if (g.field === 1 && g.wire === WIRE.len) key = text(g.bytes);
      if (g.field === 2 && g.wire === WIRE.len) value = text(g.bytes);
    }
    out.push([key, value]);
  }
  return out;
}
