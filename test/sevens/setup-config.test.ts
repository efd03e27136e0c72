import { describe, expect, it } from "vitest";
import { unwrap } from "../../engine/core/index.ts";
import { sevens, cardOf, rankOf, OPENING, PLACED } from "../../engine/sevens/index.ts";

const sevensIds = [0, 1, 2, 3].map((s) => cardOf(s, 7));

describe("setup", () => {
  it("'seat0': the four 7s are on the table, the other 48 dealt round-robin (10,10,10,9,9), seat 0 starts", () => {
    const s = sevens.setup(unwrap(sevens.parseConfig({})), 42);
    for (const c of sevensIds) expect(s.cells[c]).toBe(OPENING);
    expect(s.handSize).toEqual([10, 10, 10, 9, 9]);
    for (let seat = 0; seat < 5; seat++) expect(s.cells.filter((v) => v === seat).length).toBe(s.handSize[seat]);
    expect(s.cells.filter((v) => v >= PLACED).length).toBe(4);
    expect(s.current).toBe(0);
    expect(s.finishOrder).toEqual([]);
    expect(s.killed).toEqual([0, 0, 0, 0, 0]);
  });

  it("deals differently for different seeds and identically for the same seed", () => {
    const c = unwrap(sevens.parseConfig({ seats: 3 }));
    expect(sevens.setup(c, 1)).toEqual(sevens.setup(c, 1));
    expect(sevens.setup(c, 1).cells).not.toEqual(sevens.setup(c, 2).cells);
    expect(sevens.setup(c, 1).handSize).toEqual([16, 16, 16]);
  });

  it("'diamond7': all 52 dealt, each 7 put out by its holder, the holder of ♦7 starts", () => {
    const c = unwrap(sevens.parseConfig({ startPlayer: "diamond7" }));
    const starters = new Set<number>();
    for (let seed = 0; seed < 40; seed++) {
      const s = sevens.setup(c, seed);
      const holders = sevensIds.map((card) => s.cells[card]! - PLACED);
      for (const h of holders) expect(h >= 0 && h < 5).toBe(true);
      expect(s.current).toBe(holders[2]);
      starters.add(s.current);
      // Round-robin over 52 gives 11,11,10,10,10 before the 7s go out.
      const dealt = [11, 11, 10, 10, 10];
      for (let seat = 0; seat < 5; seat++) {
        expect(s.handSize[seat]).toBe(dealt[seat]! - holders.filter((h) => h === seat).length);
        expect(s.cells.filter((v) => v === seat).length).toBe(s.handSize[seat]);
      }
      expect(s.cells.filter((v, card) => v >= PLACED && rankOf(card) !== 7)).toEqual([]);
    }
    expect(starters.size).toBeGreaterThan(1);
  });
});

describe("config validation", () => {
  it("fills defaults", () => {
    expect(unwrap(sevens.parseConfig({}))).toEqual({
      seats: 5,
      passLimit: null,
      voluntaryPass: false,
      startPlayer: "seat0",
      turnTimeoutSec: null,
      shaping: false,
    });
    expect(unwrap(sevens.parseConfig(undefined)).seats).toBe(5);
  });

  it.each([
    [{ seats: 2 }, "seats"],
    [{ seats: 7 }, "seats"],
    [{ seats: 4.5 }, "seats"],
    [{ passLimit: -1 }, "passLimit"],
    [{ passLimit: "3" }, "passLimit"],
    [{ voluntaryPass: "yes" }, "voluntaryPass"],
    [{ voluntaryPass: true }, "voluntaryPass"],
    [{ startPlayer: "clubs7" }, "startPlayer"],
    [{ turnTimeoutSec: 0 }, "turnTimeoutSec"],
    [{ shaping: 1 }, "shaping"],
    [{ numPlayers: 4 }, "numPlayers"],
  ])("rejects %j naming %s", (raw, field) => {
    const r = sevens.parseConfig(raw);
    expect(r.ok).toBe(false);
    if (!r.ok) {
      expect(r.error.code).toBe("invalid_config");
      expect(r.error.path).toBe(field);
      expect(r.error.message).toContain(field);
    }
  });

  it("rejects a non-object config", () => {
    expect(sevens.parseConfig([1]).ok).toBe(false);
    expect(sevens.parseConfig("x").ok).toBe(false);
  });

  it("accepts the traditional variant", () => {
    const c = unwrap(sevens.parseConfig({ seats: 4, passLimit: 3, voluntaryPass: true, startPlayer: "diamond7", turnTimeoutSec: 20 }));
    expect(c).toMatchObject({ passLimit: 3, voluntaryPass: true, turnTimeoutSec: 20 });
  });
});
