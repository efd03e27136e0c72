import { describe, expect, it } from "vitest";
import { Rng } from "../../engine/core/index.ts";
import { Card, CARD_COPIES, shephy, SHEEP_PER_RANK } from "../../engine/shephy/index.ts";
import type { ShephyState } from "../../engine/shephy/index.ts";
import { shephyAdapter } from "../../env/games/shephy.ts";
import { chooseSheep, play, randomGame, scenario, selectSheep } from "./scenario.ts";

describe("config", () => {
  it("defaults to one seat, basic mode", () => {
    expect(shephy.parseConfig(undefined)).toEqual({ ok: true, value: { seats: 1, mode: "basic" } });
    expect(shephy.parseConfig({ mode: "challenge" })).toEqual({ ok: true, value: { seats: 1, mode: "challenge" } });
  });
  it("rejects bad fields, naming them", () => {
    const cases: [unknown, string | undefined][] = [
      [{ seats: 2 }, "seats"],
      [{ seats: 0 }, "seats"],
      [{ seats: "1" }, "seats"],
      [{ mode: "hard" }, "mode"],
      [{ mode: 1 }, "mode"],
      [{ level: 3 }, "level"],
      [[1], undefined],
      ["basic", undefined],
    ];
    for (const [raw, path] of cases) {
      const r = shephy.parseConfig(raw);
      expect(r.ok, JSON.stringify(raw)).toBe(false);
      if (!r.ok) {
        expect(r.error.code).toBe("invalid_config");
        expect(r.error.path).toBe(path);
      }
    }
  });
  it("info: one seat, not zero-sum", () => {
    expect(shephy.info).toMatchObject({ id: "shephy", minSeats: 1, maxSeats: 1, defaultSeats: 1, zeroSum: false });
  });
});

describe("view", () => {
  it("hides the deck order and the rng; shows the deck only during Inspiration's choice", () => {
    const s = shephy.setup({ seats: 1, mode: "basic" }, 9);
    const v = shephy.view(s, 0);
    expect(v.deck).toBeNull();
    expect(v.deckSize).toBe(17);
    expect(JSON.stringify(v)).not.toContain("rng");
    expect(v).toMatchObject({ actor: 0, decision: "play", hand: s.hand, field: s.field, enemy: 1 });
    expect(shephy.view(s, "spectator")).toEqual({ ...v, viewer: "spectator" });
    const insp = play(scenario({ hand: [Card.Inspiration, Card.Storm], deck: [Card.Wolves, Card.Meteor, Card.Slump] }), Card.Inspiration);
    expect(shephy.view(insp, 0)).toMatchObject({ decision: "chooseDeck", deck: [Card.Meteor, Card.Slump, Card.Wolves] });
  });
  it("two states differing only in deck order give the same view", () => {
    const a = scenario({ hand: [Card.Storm], deck: [1, 2, 3, 4] });
    const b = scenario({ hand: [Card.Storm], deck: [4, 3, 2, 1] });
    expect(shephy.view(a, 0)).toEqual(shephy.view(b, 0));
  });
  it("shows the pending effect and what is asked", () => {
    const s = selectSheep(play(scenario({ field: [1, 3, 30], hand: [Card.GoldenHooves] }), Card.GoldenHooves), 3);
    expect(shephy.view(s, 0)).toMatchObject({ decision: "select", pending: { card: Card.GoldenHooves, source: Card.GoldenHooves, selected: [1] } });
    const end = play(scenario({ field: [1], hand: [Card.Shephion] }), Card.Shephion);
    expect(shephy.view(end, 0)).toMatchObject({ actor: "terminal", decision: "none", result: "loss" });
  });
});

function statesOf(seeds: number, mode: "basic" | "challenge" = "basic"): ShephyState[] {
  const out: ShephyState[] = [];
  for (let seed = 0; seed < seeds; seed++) {
    randomGame(shephy.setup({ seats: 1, mode }, seed), seed + 1000, (b) => out.push(b));
  }
  return out;
}

describe("determinize", () => {
  const states = statesOf(40, "challenge");
  it("gives a state whose view equals the original view", () => {
    const rng = Rng.seeded(5);
    for (const s of states) {
      const v = shephy.view(s, 0);
      const d = shephy.determinize(v, 0, rng);
      expect(shephy.view(d, 0)).toEqual(v);
      expect(shephy.legal(d)).toEqual(shephy.legal(s));
    }
  });
  it("re-deals the hidden deck order across rngs, keeping its contents", () => {
    const s = shephy.setup({ seats: 1, mode: "basic" }, 3);
    const v = shephy.view(s, 0);
    const orders = new Set<string>();
    for (let i = 0; i < 8; i++) {
      const d = shephy.determinize(v, 0, Rng.seeded(i));
      expect(d.deck.slice().sort((a, b) => a - b)).toEqual(s.deck.slice().sort((a, b) => a - b));
      orders.add(JSON.stringify(d.deck));
      expect(d.rng).not.toEqual(s.rng);
    }
    expect(orders.size).toBeGreaterThan(1);
  });
  it("keeps the revealed deck during Inspiration's choice", () => {
    const s = play(scenario({ hand: [Card.Inspiration, Card.Storm], deck: [Card.Wolves, Card.Meteor, Card.Slump] }), Card.Inspiration);
    const d = shephy.determinize(shephy.view(s, 0), 0, Rng.seeded(1));
    expect(d.deck).toEqual(s.deck);
  });
});

describe("action codec and observation", () => {
  const states = [...statesOf(60, "basic"), ...statesOf(60, "challenge")];
  it("encodes each legal list injectively into [0, size)", () => {
    const seen = new Set<number>();
    for (const s of states) {
      const v = shephy.view(s, 0);
      const ids = shephy.legal(s).map((d) => shephyAdapter.actions.encode(v, d));
      for (const id of ids) {
        expect(Number.isInteger(id) && id >= 0 && id < shephyAdapter.actions.size).toBe(true);
        seen.add(id);
      }
      expect(new Set(ids).size).toBe(ids.length);
    }
    // Random play reaches most of the action space (every play type, every sub-decision kind).
    expect(seen.size).toBeGreaterThan(50);
  });
  it("writes finite floats, and distinguishes the pending decision kind", () => {
    const out = new Float32Array(shephyAdapter.observation.size);
    const kinds = new Map<string, string>();
    for (const s of states) {
      out.fill(Number.NaN);
      const v = shephy.view(s, 0);
      shephyAdapter.observation.encode(v, out);
      expect(out.every((x) => Number.isFinite(x))).toBe(true);
      const f = shephyAdapter.observation.layout.find((l) => l.name === "decision")!;
      const key = Array.from(out.slice(f.offset, f.offset + f.length)).join(",");
      if (kinds.has(key)) expect(kinds.get(key)).toBe(v.decision);
      kinds.set(key, v.decision);
    }
    expect(kinds.size).toBe(6);
  });
  it("encodes the deck composition from public information", () => {
    const s = shephy.setup({ seats: 1, mode: "basic" }, 11);
    const out = new Float32Array(shephyAdapter.observation.size);
    shephyAdapter.observation.encode(shephy.view(s, 0), out);
    const f = shephyAdapter.observation.layout.find((l) => l.name === "deck")!;
    const deck = Array.from(out.slice(f.offset, f.offset + f.length)).map((x, t) => Math.round(x * CARD_COPIES[t]!));
    const want = new Array(19).fill(0);
    for (const c of s.deck) want[c]++;
    expect(deck).toEqual(want);
  });
});

describe("random full games", () => {
  it("end within maxDecisions with sane returns, conserving cards and sheep", () => {
    for (const mode of ["basic", "challenge"] as const) {
      const bound = shephy.maxDecisions({ seats: 1, mode });
      for (let seed = 0; seed < 300; seed++) {
        const start = shephy.setup({ seats: 1, mode }, seed);
        const { state, decisions } = randomGame(start, seed, (_before, d, after) => {
          expect(after.field.length).toBeLessThanOrEqual(7);
          expect(after.hand.length).toBeLessThanOrEqual(5);
          expect(after.field.every((r, i) => i === 0 || after.field[i - 1]! <= r)).toBe(true);
          expect(after.deck.length + after.hand.length + after.discard.length + after.exile.length).toBe(22);
          for (let k = 0; k < 7; k++) expect(after.stock[k]! + after.field.filter((r) => r === k).length).toBe(SHEEP_PER_RANK);
          if (d.kind === "select") expect(after.pending!.selected.length).toBeLessThanOrEqual(after.field.length);
        });
        expect(decisions).toBeLessThanOrEqual(bound);
        const [r] = shephy.returns(state);
        if (mode === "basic") expect(r === 1 || r === -1).toBe(true);
        else expect(r! >= 0 && r! <= 1).toBe(true);
      }
    }
  });
  it("apply never mutates its input", () => {
    let s = shephy.setup({ seats: 1, mode: "challenge" }, 77);
    const rng = Rng.seeded(3);
    while (shephy.actor(s) !== "terminal") {
      const before = JSON.stringify(s);
      const legal = shephy.legal(s);
      const next = shephy.applyTrusted(s, legal[rng.int(legal.length)]!);
      expect(JSON.stringify(s)).toBe(before);
      s = next;
    }
  });
});

describe("bounds", () => {
  it("selection only grows: a selected card cannot be selected again, so toggling cannot loop", () => {
    let s = play(scenario({ field: [1, 1, 1, 3, 3, 10, 30], hand: [Card.Dominion] }), Card.Dominion);
    let steps = 0;
    while (shephy.legal(s).some((d) => d.kind === "select")) {
      const d = shephy.legal(s).find((x) => x.kind === "select")!;
      s = shephy.applyTrusted(s, d);
      steps++;
    }
    expect(steps).toBe(7);
    expect(shephy.legal(s)).toEqual([{ kind: "confirm" }]);
  });
  it("maxDecisions covers the longest play: All-purpose as Dominion on a full field", () => {
    const per = shephy.maxDecisions({ seats: 1, mode: "basic" }) / 66;
    let s = scenario({ field: [1, 1, 1, 3, 3, 10, 30], hand: [Card.AllPurposeSheep, Card.Dominion] });
    let n = 0;
    s = play(s, Card.AllPurposeSheep);
    n++;
    s = shephy.applyTrusted(
      s,
      shephy.legal(s).find((d) => d.kind === "chooseHand" && s.hand[d.index] === Card.Dominion)!,
    );
    n++;
    while (s.pending !== null) {
      const legal = shephy.legal(s);
      s = shephy.applyTrusted(s, legal[0]!);
      n++;
    }
    expect(n).toBe(10);
    expect(n).toBeLessThanOrEqual(per);
  });
});

describe("describe and render", () => {
  it("describes decisions in one readable line", () => {
    const s = scenario({ field: [1, 3, 10, 100], hand: [Card.BeFruitful, Card.Storm] });
    expect(shephy.describe(s, { kind: "play", index: 0 })).toBe("play Be Fruitful");
    const t = play(s, Card.Storm);
    expect(shephy.describe(t, { kind: "chooseField", index: 3 })).toBe("choose field card 3 (100)");
    expect(shephy.describe(chooseSheep(t, 1), { kind: "chooseField", index: 0 })).toBe("choose field card 0 (3)");
  });
  it("renders field, stock, hand, piles, enemy and the pending effect", () => {
    const s = play(scenario({ field: [1, 3, 10, 100], hand: [Card.Storm, Card.Wolves], enemy: 10 }), Card.Storm);
    const text = shephy.render(s);
    expect(text).toContain("[3]100");
    expect(text).toContain("enemy sheep: 10");
    expect(text).toContain("Stock: 1:6");
    expect(text).toContain("Wolves");
    expect(text).toMatch(/Deck \d+ \| Discard 1 \| Exile 0/);
    expect(text).toContain("Pending: Storm, 2 to release");
  });
});
