import { describe, expect, it } from "vitest";
import { fieldOffsets, type ObservationField } from "../../env/codec.ts";

const layout: ObservationField[] = [
  { name: "a", offset: 0, length: 3, description: "" },
  { name: "b", offset: 3, length: 2, description: "" },
];

describe("fieldOffsets", () => {
  it("gives each named field's offset", () => {
    expect(fieldOffsets(layout, ["b", "a"])).toEqual({ a: 0, b: 3 });
  });

  it("refuses a name the layout lacks (an encoder would otherwise write to out[NaN] and lose the feature)", () => {
    expect(() => fieldOffsets(layout, ["a", "c"])).toThrow(/no field "c" \(fields: a, b\)/);
  });
});
