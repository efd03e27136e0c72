import { describe, expect, it } from "vitest";
import { Rng, canonicalJson, unwrap } from "../../engine/core/index.ts";
import { sevens, HIDDEN, PLACED, playableCards, type SevensState } from "../../engine/sevens/index.ts";

/** A mid-game state from a seeded random playout. */
function midGame(seed: number, steps: number, raw: Record<string, unknown> = {}): SevensState {
  const rng = Rng.seeded(seed + 1000);
  let s = sevens.setup(unwrap(sevens.parseConfig(raw)), seed);
  for (let i = 0; i < steps && sevens.actor(s) !== "terminal"; i++) {
    const legal = sevens.legal(s);
    s = sevens.applyTrusted(s, legal[rng.int(legal.length)]!);
  }
  return s;
}

describe("view", () => {
  it("shows the viewer's own hand and hides which other hand holds each card", () => {
    const s = midGame(3, 12);
    for (let seat = 0; seat < 5; seat++) {
      const v = sevens.view(s, seat);
      expect(v.hand).toEqual(s.cells.flatMap((c, card) => (c === seat ? [card] : [])));
      for (let card = 0; card < 52; card++) {
        const real = s.cells[card]!;
        if (real >= PLACED || real === seat) expect(v.cells[card]).toBe(real);
        else expect(v.cells[card]).toBe(HIDDEN);
      }
      expect(v.handSize).toEqual(s.handSize);
      expect(v.killed).toEqual(s.killed);
      expect(v.turn).toBe(s.current);
      expect(v.pending).toBe("move");
      expect(JSON.stringify(v)).not.toContain("rng");
    }
    const spectator = sevens.view(s, "spectator");
    expect(spectator.hand).toEqual([]);
    expect(spectator.cells.filter((c) => c < PLACED).every((c) => c === HIDDEN)).toBe(true);
  });

  it("over whole random games, every viewer's cells, hand and playable cards are their definitions", () => {
    // The view reads the board in one pass of bit masks; this is what it must equal, written plainly.
    let states = 0;
    for (let seed = 0; seed < 12; seed++) {
      const raw = seed % 3 === 0 ? { seats: 3 } : seed % 3 === 1 ? { seats: 6, voluntaryPass: true, passLimit: 3 } : {};
      const rng = Rng.seeded(seed + 50);
      let s = sevens.setup(unwrap(sevens.parseConfig(raw)), seed);
      for (;;) {
        for (const viewer of [...Array.from({ length: s.config.seats }, (_, k) => k), "spectator" as const]) {
          const v = sevens.view(s, viewer);
          const own = viewer === "spectator" ? -1 : viewer;
          expect(v.cells).toEqual(s.cells.map((c) => (c >= PLACED || c === own ? c : HIDDEN)));
          expect(v.hand).toEqual(s.cells.flatMap((c, card) => (c === own ? [card] : [])));
          expect(v.playable).toEqual(own < 0 ? [] : playableCards(s.cells, own));
          expect(v.canPass).toBe(own === s.current && sevens.legal(s).some((d) => d.kind === "pass"));
        }
        states++;
        if (sevens.actor(s) === "terminal") break;
        const legal = sevens.legal(s);
        s = sevens.applyTrusted(s, legal[rng.int(legal.length)]!);
      }
    }
    expect(states).toBeGreaterThan(300);
  });

  it("two states differing only in the other hands look the same to a seat", () => {
    const s = midGame(5, 10);
    // Swap two cards between seats 1 and 2.
    const a = s.cells.indexOf(1);
    const b = s.cells.indexOf(2);
    const cells = s.cells.slice();
    cells[a] = 2;
    cells[b] = 1;
    const t = { ...s, cells };
    expect(canonicalJson(sevens.view(t, 0))).toBe(canonicalJson(sevens.view(s, 0)));
    expect(canonicalJson(sevens.view(t, 1))).not.toBe(canonicalJson(sevens.view(s, 1)));
  });

  it("canPass is true only for the viewer to move, when passing is allowed", () => {
    const s = midGame(7, 6);
    const legalHasPass = sevens.legal(s).some((d) => d.kind === "pass");
    for (let seat = 0; seat < 5; seat++) expect(sevens.view(s, seat).canPass).toBe(seat === s.current && legalHasPass);
  });

  it("at the end: no turn, no pending decision", () => {
    const s = midGame(9, 10_000);
    const v = sevens.view(s, 0);
    expect(v.turn).toBeNull();
    expect(v.pending).toBeNull();
  });
});

describe("determinize", () => {
  it("gives a state the seat cannot tell apart, with the hidden hands actually varying", () => {
    for (const raw of [{}, { seats: 3, passLimit: 2, voluntaryPass: true }, { seats: 6, startPlayer: "diamond7" }]) {
      for (const steps of [0, 7, 20]) {
        const s = midGame(11 + steps, steps, raw);
        const seat = (steps + 1) % s.config.seats;
        const view = sevens.view(s, seat);
        const seen = new Set<string>();
        for (let k = 0; k < 8; k++) {
          const d = sevens.determinize(view, seat, Rng.seeded(k));
          expect(canonicalJson(sevens.view(d, seat))).toBe(canonicalJson(view));
          for (let t = 0; t < s.config.seats; t++) expect(d.cells.filter((c) => c === t).length).toBe(s.handSize[t]);
          expect(sevens.legal(d).length).toBeGreaterThan(0);
          seen.add(canonicalJson(d.cells));
        }
        expect(seen.size).toBeGreaterThan(1);
      }
    }
  });

  it("a determinized state plays on to a legal end", () => {
    const s = midGame(21, 15);
    let d = sevens.determinize(sevens.view(s, 2), 2, Rng.seeded(3));
    const rng = Rng.seeded(4);
    let n = 0;
    while (sevens.actor(d) !== "terminal") {
      const legal = sevens.legal(d);
      const out = sevens.apply(d, legal[rng.int(legal.length)]);
      if (!out.ok) expect.fail(out.error.message);
      d = out.state;
      expect(++n).toBeLessThan(500);
    }
    expect(Math.abs(sevens.returns(d).reduce((a, b) => a + b, 0))).toBeLessThan(1e-12);
  });
});
