import { describe, expect, it } from "vitest";
import { Rng, unwrap } from "../../engine/core/index.ts";
import { sevens, standings, DEAD, PLACED, type SevensState } from "../../engine/sevens/index.ts";

const configs = [
  {},
  { seats: 3 },
  { seats: 6 },
  { seats: 4, passLimit: 3, voluntaryPass: true },
  { seats: 5, passLimit: 0 },
  { seats: 6, passLimit: 1, voluntaryPass: true, startPlayer: "diamond7" },
  { seats: 3, startPlayer: "diamond7", shaping: true },
];

/** Invariants that hold after every decision. */
function checkInvariants(s: SevensState): void {
  const n = s.config.seats;
  for (let seat = 0; seat < n; seat++) {
    expect(s.cells.filter((c) => c === seat).length).toBe(s.handSize[seat]);
    expect(s.cells.filter((c) => c === DEAD + seat).length).toBe(s.killed[seat]);
  }
  const done = [...s.finishOrder, ...s.eliminated];
  expect(new Set(done).size).toBe(done.length);
  for (let seat = 0; seat < n; seat++) expect(done.includes(seat)).toBe(s.handSize[seat] === 0);
  if (s.current >= 0) expect(s.handSize[s.current]).toBeGreaterThan(0);
}

describe("random full games", () => {
  it("end within maxDecisions with a full board, a full ranking and rank rewards summing to zero", () => {
    let games = 0;
    for (const raw of configs) {
      const config = unwrap(sevens.parseConfig(raw));
      const bound = sevens.maxDecisions(config);
      for (let seed = 0; seed < 60; seed++) {
        const rng = Rng.seeded(seed * 7 + 1);
        let s = sevens.setup(config, seed);
        let steps = 0;
        while (sevens.actor(s) !== "terminal") {
          const legal = sevens.legal(s);
          expect(legal.length).toBeGreaterThan(0);
          if (steps % 5 === 0) expect(sevens.describe(s, legal[0]!)).toMatch(/^seat \d (plays|passes)/);
          s = sevens.applyTrusted(s, legal[rng.int(legal.length)]!);
          steps++;
          checkInvariants(s);
          expect(steps).toBeLessThanOrEqual(bound);
        }
        expect(s.cells.every((c) => c >= PLACED)).toBe(true);
        expect([...standings(s)].sort()).toEqual(Array.from({ length: config.seats }, (_, i) => i));
        const r = sevens.returns(s);
        expect(Math.abs(r.reduce((a, b) => a + b, 0))).toBeLessThan(1e-12);
        const want = Array.from({ length: config.seats }, (_, i) => 1 - (2 * i) / (config.seats - 1));
        [...r].sort((a, b) => b - a).forEach((x, i) => expect(x).toBeCloseTo(want[i]!, 12));
        expect(sevens.render(s)).toContain("game over");
        games++;
      }
    }
    expect(games).toBe(configs.length * 60);
  });

  it("with a turn timer and a pass limit, games with random timeouts (forced passes) still end within maxDecisions", () => {
    const config = unwrap(sevens.parseConfig({ seats: 4, passLimit: 2, turnTimeoutSec: 5 }));
    const bound = sevens.maxDecisions(config);
    let forced = 0;
    let eliminations = 0;
    for (let seed = 0; seed < 100; seed++) {
      const rng = Rng.seeded(seed);
      let s = sevens.setup(config, seed);
      let steps = 0;
      while (sevens.actor(s) !== "terminal") {
        const exp = sevens.expectation(s);
        expect(exp?.seat).toBe(s.current);
        const legal = sevens.legal(s);
        const timedOut = rng.int(3) === 0;
        const d = timedOut ? exp!.defaultDecision : legal[rng.int(legal.length)];
        if (timedOut && !legal.some((x) => x.kind === "pass")) forced++;
        const out = sevens.apply(s, d);
        if (!out.ok) expect.fail(out.error.message);
        s = out.state;
        checkInvariants(s);
        expect(++steps).toBeLessThanOrEqual(bound);
      }
      eliminations += s.eliminated.length;
    }
    expect(forced).toBeGreaterThan(0);
    expect(eliminations).toBeGreaterThan(0);
  });
});
