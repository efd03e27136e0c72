import { describe, expect, it } from "vitest";
import { canonicalJson, hashString, stateHash } from "../../engine/core/index.ts";

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
