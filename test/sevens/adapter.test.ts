import { describe, expect, it } from "vitest";
import { Rng, unwrap } from "../../engine/core/index.ts";
import { sevens } from "../../engine/sevens/index.ts";
import { sevensAdapter } from "../../env/games/sevens.ts";

const configs = [{}, { seats: 3, passLimit: 3, voluntaryPass: true }, { seats: 6, startPlayer: "diamond7", passLimit: 1 }];

describe("sevens adapter", () => {
  it("action ids are injective over every legal list, in range, and equal card id / 52 for pass", () => {
    const { actions } = sevensAdapter;
    expect(actions.size).toBe(53);
    for (const raw of configs) {
      const config = unwrap(sevens.parseConfig(raw));
      for (let seed = 0; seed < 60; seed++) {
        const rng = Rng.seeded(seed);
        let s = sevens.setup(config, seed);
        while (sevens.actor(s) !== "terminal") {
          const legal = sevens.legal(s);
          const view = sevens.view(s, s.current);
          const ids = legal.map((d) => actions.encode(view, d));
          expect(new Set(ids).size).toBe(ids.length);
          for (const [i, d] of legal.entries()) {
            expect(ids[i]).toBe(d.kind === "play" ? d.card : 52);
            expect(ids[i]! >= 0 && ids[i]! < actions.size).toBe(true);
          }
          s = sevens.applyTrusted(s, legal[rng.int(legal.length)]!);
        }
      }
    }
  });

  it("the observation fills its layout from the view: own hand, playable cards, turn, relative seats", () => {
    const { observation } = sevensAdapter;
    const at = (name: string) => observation.layout.find((f) => f.name === name)!.offset;
    const s = sevens.setup(unwrap(sevens.parseConfig({})), 8);
    const out = new Float32Array(observation.size).fill(9);
    observation.encode(sevens.view(s, 0), out);
    const hand = s.cells.flatMap((c, card) => (c === 0 ? [card] : []));
    for (let card = 0; card < 52; card++) {
      expect(out[at("cellMine") + card]).toBe(hand.includes(card) ? 1 : 0);
      expect(out[at("cellPlaced") + card]).toBe(card % 13 === 6 ? 1 : 0);
    }
    const playable = sevens.legal(s).flatMap((d) => (d.kind === "play" ? [d.card] : []));
    for (let card = 0; card < 52; card++) expect(out[at("cellPlayable") + card]).toBe(playable.includes(card) ? 1 : 0);
    expect(out[at("myTurn")]).toBe(1);
    expect(out[at("turn")]).toBe(1);
    expect(Array.from(out.subarray(at("seatPresent"), at("seatPresent") + 6))).toEqual([1, 1, 1, 1, 1, 0]);
    // Seat 3's observation: its own slot 0 has 9 cards, seat 0 (to move) is slot 2.
    observation.encode(sevens.view(s, 3), out);
    expect(out[at("handSize")]).toBeCloseTo(9 / 13);
    expect(out[at("myTurn")]).toBe(0);
    expect(out[at("turn") + 2]).toBe(1);
    expect(sevensAdapter.observation.version).toBe("sevens-obs-v1");
  });

  it("the observation does not change when hidden hands are re-dealt", () => {
    const { observation } = sevensAdapter;
    const rng = Rng.seeded(1);
    let s = sevens.setup(unwrap(sevens.parseConfig({})), 2);
    for (let i = 0; i < 9; i++) {
      const legal = sevens.legal(s);
      s = sevens.applyTrusted(s, legal[rng.int(legal.length)]!);
    }
    const a = new Float32Array(observation.size);
    const b = new Float32Array(observation.size);
    observation.encode(sevens.view(s, 1), a);
    const d = sevens.determinize(sevens.view(s, 1), 1, Rng.seeded(5));
    expect(d.cells).not.toEqual(s.cells);
    observation.encode(sevens.view(d, 1), b);
    expect(Array.from(b)).toEqual(Array.from(a));
  });
});
