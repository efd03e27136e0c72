import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { canonicalEqual, canonicalJson, canonicalProblem, hashString, stateHash } from "../../engine/core/index.ts";

describe("canonical JSON and state hash", () => {
  it("ignores key order and undefined fields", () => {
    expect(canonicalJson({ b: 1, a: [1, { d: 2, c: 3 }], u: undefined })).toBe('{"a":[1,{"c":3,"d":2}],"b":1}');
    expect(stateHash({ x: 1, y: 2 })).toBe(stateHash({ y: 2, x: 1 }));
  });

  it("is sensitive to any change of value, type or order", () => {
    const hs = new Set([{ a: 1 }, { a: 2 }, { a: "1" }, { a: [1, 2] }, { a: [2, 1] }, { b: 1 }].map(stateHash));
    expect(hs.size).toBe(6);
  });

  it("refuses values JSON cannot carry faithfully", () => {
    expect(() => canonicalJson({ a: NaN })).toThrow(/non-finite/);
    expect(() => canonicalJson({ a: Infinity })).toThrow(/non-finite/);
    expect(() => canonicalJson([undefined])).toThrow(/undefined/);
    expect(() => canonicalJson({ f: () => 1 })).toThrow(/function/);
    expect(canonicalJson(-0)).toBe("0");
  });

  it("pins the hash function (records and golden files depend on it)", () => {
    expect(hashString("")).toMatchInlineSnapshot(`"ab3e7c0bebb6c228"`);
    expect(stateHash({ game: "sevens", turn: 3 })).toMatchInlineSnapshot(`"564faf58ff18526e"`);
  });

  it("stateHash agrees with canonical JSON equality", () => {
    const a = { z: [1, 2.5, "x", null, true, { q: -3 }], a: { b: 2 ** 40, c: -0 } };
    const b = JSON.parse('{"a":{"c":0,"b":1099511627776},"z":[1,2.5,"x",null,true,{"q":-3}]}');
    expect(canonicalJson(a)).toBe(canonicalJson(b));
    expect(stateHash(a)).toBe(stateHash(b));
    expect(stateHash([1, 2])).not.toBe(stateHash(["1", "2"]));
    expect(stateHash({ a: [] })).not.toBe(stateHash({ a: {} }));
    expect(stateHash(["ab"])).not.toBe(stateHash(["a", "b"]));
    expect(() => stateHash({ a: NaN })).toThrow(/non-finite/);
  });

  it("refuses absurd nesting instead of overflowing the stack", () => {
    let deep: unknown = 1;
    for (let i = 0; i < 1000; i++) deep = [deep];
    expect(() => canonicalJson(deep)).toThrow(/deeper/);
  });
});

/** canonicalJson's text, or the message it refuses with. */
function textOrRefusal(v: unknown): { text: string } | { refused: string } {
  try {
    return { text: canonicalJson(v) };
  } catch (e) {
    return { refused: (e as Error).message };
  }
}

/** canonicalEqual's answer must be what comparing the two canonical texts gives (refused = equal to nothing). */
function expectSameAsText(a: unknown, b: unknown): void {
  const ta = textOrRefusal(a);
  const tb = textOrRefusal(b);
  const byText = "text" in ta && "text" in tb && ta.text === tb.text;
  expect(canonicalEqual(a, b), `${JSON.stringify(ta)} vs ${JSON.stringify(tb)}`).toBe(byText);
  expect(canonicalEqual(b, a)).toBe(byText);
}

// Plain data with the awkward corners: -0, undefined fields, small key sets that collide often.
const leaf = fc.oneof(fc.constantFrom(0, -0, 1, -1, 2, 0.5, "0", "1", "", "a", true, false, null), fc.integer({ min: -3, max: 3 }));
const { value: plain } = fc.letrec((tie) => ({
  value: fc.oneof({ depthSize: "small" }, leaf, tie("array"), tie("object")),
  array: fc.array(tie("value"), { maxLength: 3 }),
  object: fc.dictionary(fc.constantFrom("a", "b", "kind", "index", "0"), fc.oneof(tie("value"), fc.constant(undefined)), { maxKeys: 3 }),
}));

describe("canonicalEqual and canonicalProblem (the checked apply's membership test and validation)", () => {
  it("canonicalEqual agrees with comparing canonicalJson texts on arbitrary pairs", () => {
    fc.assert(
      fc.property(plain, plain, (a, b) => expectSameAsText(a, b)),
      { numRuns: 3000 },
    );
  });

  it("canonicalEqual agrees with the texts on near misses of a decision", () => {
    const d = { kind: "play", index: 2 };
    const misses: unknown[] = [
      { kind: "play", index: 2 },
      { index: 2, kind: "play" },
      { kind: "play", index: 2, extra: undefined },
      { kind: "play", index: 2, extra: 0 },
      { kind: "play" },
      { kind: "play", index: "2" },
      { kind: "play", index: 2.0000001 },
      { kind: "play", index: [2] },
      { kind: "play", index: null },
      { kind: "Play", index: 2 },
      ["play", 2],
      { 0: "play", 1: 2 },
      { kind: "play", index: NaN },
      { kind: "play", index: Infinity },
      { kind: "play", index: 2, f: () => 2 },
      { kind: "play", index: 2n },
      "play",
      null,
      undefined,
      Object.assign(Object.create({ index: 2 }), { kind: "play" }),
      // The right field count, the index only inherited: not an own field, so not equal.
      Object.assign(Object.create({ index: 2 }), { kind: "play", other: 1 }),
    ];
    for (const m of misses) expectSameAsText(d, m);
    expectSameAsText({ a: -0 }, { a: 0 });
    expectSameAsText({ a: [1, 2] }, { a: new Uint8Array([1, 2]) });
    expectSameAsText({ a: [1, 2] }, { a: new Float64Array([1, 2.5]) });
    expectSameAsText([undefined], [undefined]);
    expectSameAsText({}, []);
    expect(canonicalEqual(d, { index: 2, kind: "play", u: undefined })).toBe(true);
    expect(canonicalEqual(d, { kind: "play", index: 2, extra: 0 })).toBe(false);
  });

  it("canonicalEqual refuses nesting canonicalJson refuses, typed arrays counted as one level deeper", () => {
    const nest = (inner: unknown, levels: number): unknown => {
      let v = inner;
      for (let i = 0; i < levels; i++) v = [v];
      return v;
    };
    for (const levels of [254, 255, 256, 257]) {
      expectSameAsText(nest(1, levels), nest(1, levels));
      expectSameAsText(nest(new Uint8Array([1]), levels), nest([1], levels));
    }
  });

  it("canonicalProblem is null exactly when canonicalJson writes the value, and its message otherwise", () => {
    const refusals: unknown[] = [{ a: NaN }, [1, undefined], { f: () => 1 }, { s: Symbol("x") }, { b: 1n }, undefined, { a: [Infinity] }];
    let deep: unknown = 1;
    for (let i = 0; i < 300; i++) deep = [deep];
    for (const v of [...refusals, deep, { ok: 1, u: undefined }, new Uint16Array([3]), -0]) {
      const t = textOrRefusal(v);
      expect(canonicalProblem(v)).toBe("refused" in t ? t.refused : null);
    }
    fc.assert(
      fc.property(plain, (v) => {
        expect(canonicalProblem(v)).toBe(null);
      }),
      { numRuns: 500 },
    );
  });
});
