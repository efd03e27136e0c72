import { describe, expect, it } from "vitest";
import { ProtobufError, ProtobufReader, ProtobufWriter, readFields } from "../../agents/onnx/protobuf.ts";
import { readModelInfo, ModelFormatError } from "../../agents/onnx/model-info.ts";
import { writeMlp } from "../../agents/onnx/write-mlp.ts";

describe("protobuf reader", () => {
  it("round-trips varints up to 2^53 and length-delimited fields", () => {
    const values = [0, 1, 127, 128, 300, 2 ** 31, 2 ** 32 + 5, Number.MAX_SAFE_INTEGER];
    const w = new ProtobufWriter();
    values.forEach((v, i) => w.varintField(i + 1, v));
    w.stringField(20, "héllo");
    const fields = readFields(w.finish());
    expect(fields.slice(0, values.length).map((f) => f.value)).toEqual(values);
    expect(new TextDecoder().decode(fields[values.length]!.bytes)).toBe("héllo");
  });

  it("reports fields that run past the end as truncation", () => {
    const bytes = new ProtobufWriter().stringField(1, "abcdef").finish();
    const r = new ProtobufReader(bytes.subarray(0, 4));
    expect(() => r.next()).toThrow(ProtobufError);
    try {
      new ProtobufReader(bytes.subarray(0, 4)).next();
    } catch (e) {
      expect((e as ProtobufError).truncated).toBe(true);
    }
  });

  it("tells a cut-off model (truncated) from bytes that never were one", () => {
    const model = writeMlp({ obsSize: 4, hidden: 3, actionSize: 2, metadata: { game: "x" }, seed: 1 });
    expect(readModelInfo(model).metadata).toEqual({ game: "x" });
    const cut = () => readModelInfo(model.subarray(0, model.length - 40));
    expect(cut).toThrow(ModelFormatError);
    expect(cut).toThrow(/truncated/);
    expect(() => readModelInfo(new TextEncoder().encode("hello world, not protobuf"))).toThrow(/not an ONNX model/);
    expect(() => readModelInfo(new ProtobufWriter().varintField(1, 8).finish())).toThrow(/no graph/);
  });
});
