import { describe, expect, it } from "vitest";
import { Packr, Unpackr } from "msgpackr";
import { encodeMsgpack } from "../../env/server/msgpack-writer.ts";
import { checkPlainMsgpack, encodeReply, replyFormat, Tensor } from "../../env/server/wire.ts";

const unpackr = new Unpackr({ useRecords: false, mapsAsObjects: true, int64AsType: "number" });
const plain = (v: unknown): unknown =>
  v instanceof Uint8Array
    ? Array.from(v)
    : Array.isArray(v)
      ? v.map(plain)
      : v && typeof v === "object"
        ? Object.fromEntries(Object.entries(v).map(([k, x]) => [k, plain(x)]))
        : v;

describe("reply msgpack writer", () => {
  const ints = [
    0,
    1,
    127,
    128,
    255,
    256,
    65535,
    65536,
    2 ** 32 - 1,
    2 ** 32,
    Number.MAX_SAFE_INTEGER,
    -1,
    -32,
    -33,
    -128,
    -129,
    -32768,
    -32769,
    -(2 ** 31),
    -(2 ** 31) - 1,
    -Number.MAX_SAFE_INTEGER,
  ];
  const strings = ["", "a", "x".repeat(31), "x".repeat(32), "y".repeat(255), "y".repeat(256), "z".repeat(70_000), "♠♥♦♣ 七並べ"];
  const bins = [0, 1, 32, 33, 255, 256, 65535, 65536].map((n) => Uint8Array.from({ length: n }, (_, i) => (i * 7) & 255));
  const values: unknown[] = [
    null,
    true,
    false,
    ...ints,
    0.5,
    -1.25,
    1e300,
    ...strings,
    ...bins,
    Array.from({ length: 15 }, (_, i) => i),
    Array.from({ length: 16 }, (_, i) => i),
    Array.from({ length: 70_000 }, (_, i) => i % 3),
    Object.fromEntries(Array.from({ length: 15 }, (_, i) => [`k${i}`, i])),
    Object.fromEntries(Array.from({ length: 16 }, (_, i) => [`k${i}`, [i, { deep: "x" }]])),
    { a: { b: { c: [1, "two", null, false, new Uint8Array([1, 2, 3])] } } },
  ];

  it("round-trips every kind of value through a standard msgpack decoder", () => {
    for (const v of values) {
      const buf = encodeMsgpack(v);
      expect(plain(unpackr.unpack(buf))).toEqual(plain(v));
      // The server's own strict scanner accepts what it sends.
      expect(() => checkPlainMsgpack(buf)).not.toThrow();
    }
  });

  it("gives the same bytes as msgpackr's standard encoding for integers, strings and maps", () => {
    const packr = new Packr({ useRecords: false, moreTypes: false, variableMapSize: true });
    for (const v of [...ints.filter((n) => n >= -(2 ** 31) && n < 2 ** 32), ...strings, { a: 1, b: [1, 2], c: "x" }]) {
      expect(Buffer.compare(encodeMsgpack(v), packr.pack(v)), JSON.stringify(v).slice(0, 40)).toBe(0);
    }
  });

  it("skips undefined fields and refuses what JSON-like data cannot hold", () => {
    expect(unpackr.unpack(encodeMsgpack({ a: 1, b: undefined }))).toEqual({ a: 1 });
    expect(() => encodeMsgpack({ f: () => 1 })).toThrow(/cannot encode/);
  });

  it("encodes tensors as {dtype, shape, data: bin of little-endian bytes}", () => {
    const buf = encodeReply({ t: new Tensor("float32", [2], Float32Array.from([1.5, -2])) }, "msgpack") as Buffer;
    const t = unpackr.unpack(buf).t;
    expect(t.dtype).toBe("float32");
    expect(t.shape).toEqual([2]);
    expect(Array.from(new Uint8Array(t.data))).toEqual([0, 0, 0xc0, 0x3f, 0, 0, 0, 0xc0]);
    expect(JSON.parse(encodeReply({ t: new Tensor("int32", [2], Int32Array.from([3, -4])) }, "json") as string)).toEqual({
      t: { dtype: "int32", shape: [2], data: [3, -4] },
    });
  });

  it("writes tensors in place with the same bytes as their {dtype, shape, data} maps, views into shared buffers included", () => {
    const shared = new ArrayBuffer(4 * 300 + 64);
    const obs = new Float32Array(shared, 0, 300).map((_, i) => i / 7);
    const seat = new Int32Array(shared, 1200, 3).fill(-1);
    const mask = new Uint8Array(shared, 1212, 40).map((_, i) => i & 1);
    const tensors = { obs: new Tensor("float32", [3, 100], obs), seat: new Tensor("int32", [3], seat), mask: new Tensor("uint8", [2, 20], mask) };
    const asMap = (t: Tensor) => ({ dtype: t.dtype, shape: t.shape, data: new Uint8Array(t.values.buffer, t.values.byteOffset, t.values.byteLength) });
    const reply = { step: 3, mode: "single", ...tensors, skipped: undefined, info: { seat: tensors.seat, list: [tensors.mask] } };
    const plainReply = {
      step: 3,
      mode: "single",
      obs: asMap(tensors.obs),
      seat: asMap(tensors.seat),
      mask: asMap(tensors.mask),
      info: { seat: asMap(tensors.seat), list: [asMap(tensors.mask)] },
    };
    const bytes = encodeReply(reply, "msgpack") as Buffer;
    expect(Buffer.compare(bytes, encodeMsgpack(plainReply))).toBe(0);
    const back = unpackr.unpack(bytes);
    expect(Array.from(new Float32Array(new Uint8Array(back.obs.data).slice().buffer))).toEqual(Array.from(obs));
    expect(Array.from(new Int32Array(new Uint8Array(back.info.seat.data).slice().buffer))).toEqual([-1, -1, -1]);
  });

  it("writes every tensor kind as its map would be written, also when a kind recurs (tensor heads are cached by dtype and shape)", () => {
    const asMap = (t: Tensor) => ({ dtype: t.dtype, shape: t.shape, data: new Uint8Array(t.values.buffer, t.values.byteOffset, t.values.byteLength) });
    const tensors = [
      new Tensor("float32", [1, 451], new Float32Array(451).fill(0.25)),
      new Tensor("uint8", [1, 53], new Uint8Array(53).fill(1)),
      new Tensor("bool", [1], Uint8Array.of(1)),
      new Tensor("float16", [2, 3], new Uint16Array(6).fill(0x3c00)),
      new Tensor("int32", [2, 2, 2], new Int32Array(8).fill(-7)),
      // Heads the number key cannot hold: rank 4, a dimension of 2^15, an empty shape.
      new Tensor("uint8", [1, 1, 1, 2], Uint8Array.of(1, 2)),
      new Tensor("uint8", [32768], new Uint8Array(32768).fill(3)),
      new Tensor("int32", [], Int32Array.of(9)),
      // The same dtype and shape as the bool above with another data length (the head holds the length).
      new Tensor("bool", [1], Uint8Array.of(0, 1, 0)),
      new Tensor("bool", [1], Uint8Array.of(1)),
    ];
    for (let round = 0; round < 3; round++) {
      for (const t of tensors) {
        const value = { step: round, t, again: t };
        expect(Buffer.compare(encodeMsgpack(value), encodeMsgpack({ step: round, t: asMap(t), again: asMap(t) })), `${t.dtype} [${t.shape.join(",")}]`).toBe(0);
      }
    }
  });
});

describe("reply format negotiation", () => {
  it("is msgpack unless JSON is asked for or sent", () => {
    expect(replyFormat(undefined, undefined)).toBe("msgpack");
    expect(replyFormat("*/*", "application/json")).toBe("json");
    expect(replyFormat("application/json", "application/msgpack")).toBe("json");
    expect(replyFormat("application/msgpack", "application/json")).toBe("msgpack");
    expect(replyFormat(undefined, "application/msgpack")).toBe("msgpack");
  });
});
