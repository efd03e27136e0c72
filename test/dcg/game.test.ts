import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { canonicalJson, Rng, stateHash } from "../../engine/core/index.ts";
import { dcg, type BattleData, type Decision } from "../../engine/dcg/index.ts";
import type { Card } from "../../engine/dcg/battle-data.ts";
import { HOME } from "../../engine/dcg/board.ts";
import { visible } from "../../engine/dcg/view.ts";
import { other as otherSeat } from "../../engine/dcg/battle-data.ts";
import { dcgAdapter } from "../../env/games/dcg.ts";

const cfg = (raw: unknown = {}) => {
  const c = dcg.parseConfig(raw);
  if (!c.ok) throw new Error(c.error.message);
  return c.value;
};

/** A card record whose every read throws: where a reader must not look. */
function unreadable(): Card {
  return new Proxy({} as Card, {
    get: (_, key) => {
      throw new Error(`read ${String(key)} of a card in a book`);
    },
  });
}

function randomGame(seed: number, config = cfg(), onStep?: (s: BattleData, legal: readonly Decision[]) => void) {
  const rng = Rng.seeded(seed * 7919 + 1);
  let s = dcg.setup(config, seed);
  let n = 0;
  while (dcg.actor(s) !== "terminal") {
    const legal = dcg.legal(s);
    onStep?.(s, legal);
    s = dcg.applyTrusted(s, legal[rng.int(legal.length)]!);
    n++;
    if (n > dcg.maxDecisions(config)) throw new Error(`seed ${seed}: over maxDecisions`);
  }
  return { state: s, decisions: n };
}

describe("config", () => {
  it("has the documented defaults", () => {
    expect(cfg()).toEqual({
      seats: 2,
      books: ["vanguard", "bastion"],
      hp: 15,
      turnLimit: 40,
      handStart: 4,
      mpCap: 8,
      mpGain: 2,
      mpFirst: 3,
      mpSecond: 4,
      attackCount: 2,
      bookSize: 20,
      opsPerTurn: 30,
      timeoutMs: null,
    });
  });

  it.each([
    [{ seats: 3 }, "seats"],
    [{ hp: 0 }, "hp"],
    [{ turnLimit: "40" }, "turnLimit"],
    [{ colour: 1 }, "colour"],
    [{ books: ["vanguard"] }, "books"],
    [{ books: ["vanguard", "nope"] }, "books[1]"],
    [{ books: ["vanguard", { strategy: ["est"], cards: [] }] }, "books[1].strategy"],
    [{ books: [{ strategy: ["est", "est", "est", "est", "bubble"], cards: [] }, "vanguard"] }, "books[0].strategy[4]"],
    [{ books: [{ strategy: ["vogaros", "abilma-esthasha", "est", "est", "est"], cards: [] }, "vanguard"] }, "books[0].strategy[1]"],
    [{ handStart: 16 }, "handStart"],
  ])("rejects %j naming %s", (raw, path) => {
    const r = dcg.parseConfig(raw);
    expect(r.ok).toBe(false);
    if (!r.ok) {
      expect(r.error.code).toBe("invalid_config");
      expect(r.error.path).toBe(path);
    }
  });

  it("rejects books of the wrong size and too many copies", () => {
    const strategy = ["est", "est", "agnis", "agnis", "blitz"];
    const short = dcg.parseConfig({ books: [{ strategy, cards: ["est"] }, "vanguard"] });
    expect(!short.ok && short.error.path).toBe("books[0].cards");
    const copies = dcg.parseConfig({ books: [{ strategy, cards: ["bubble", "bubble", "bubble", "bubble", ...Array(11).fill("agnis")] }, "vanguard"] });
    expect(!copies.ok && copies.error.message).toMatch(/copies/);
    const ok = dcg.parseConfig({
      books: [
        {
          strategy,
          cards: [
            "bubble",
            "bubble",
            "bubble",
            "mirage",
            "mirage",
            "mirage",
            "pitfall",
            "pitfall",
            "pitfall",
            "stone-wall",
            "stone-wall",
            "stone-wall",
            "farhalla",
            "farhalla",
            "vogaros",
          ],
        },
        "tempo",
      ],
    });
    expect(ok.ok).toBe(true);
  });
});

describe("setup: Initial -> Cointoss -> Strategy -> BattleStart", () => {
  it("the seeded coin toss picks the first player; it is who places first", () => {
    const firsts = new Set<number>();
    for (let seed = 1; seed <= 20; seed++) {
      const s = dcg.setup(cfg(), seed);
      expect(s.state).toEqual({ kind: "Strategy", seat: s.first });
      expect(s.players.map((p) => p.hp)).toEqual([15, 15]);
      firsts.add(s.first);
      expect(dcg.setup(cfg(), seed)).toEqual(s);
    }
    expect(firsts).toEqual(new Set([0, 1]));
  });

  it("StrategyMove places, moves and swaps within Home; confirm needs all 5 placed; then books shuffled, 4 cards each, MP 3/4", () => {
    let s = dcg.setup(cfg(), 3);
    const seat = s.first;
    const legal0 = dcg.legal(s);
    expect(legal0.every((d) => d.kind === "strategyMove")).toBe(true);
    expect(legal0).toHaveLength(5 * 15);
    const home = HOME[seat];
    const base = seat * 20;
    for (let i = 0; i < 5; i++) s = dcg.applyTrusted(s, { kind: "strategyMove", card: base + i, cell: home[i]! });
    // swap the first two
    s = dcg.applyTrusted(s, { kind: "strategyMove", card: base, cell: home[1]! });
    expect([s.cards[base]!.cell, s.cards[base + 1]!.cell]).toEqual([home[1], home[0]]);
    expect(dcg.legal(s).some((d) => d.kind === "strategyConfirm")).toBe(true);
    s = dcg.applyTrusted(s, { kind: "strategyConfirm" });
    expect(s.state).toEqual({ kind: "Strategy", seat: otherSeat(seat) });
    // the other player sees nothing of the placement
    const v = dcg.view(s, otherSeat(seat));
    for (let i = 0; i < 5; i++) expect(v.cards[base + i]).toBeNull();
    const other = otherSeat(seat) * 20;
    for (let i = 0; i < 5; i++) s = dcg.applyTrusted(s, { kind: "strategyMove", card: other + i, cell: HOME[otherSeat(seat)][14 - i]! });
    s = dcg.applyTrusted(s, { kind: "strategyConfirm" });
    expect(s.turn).toBe(1);
    expect(s.turnPlayer).toBe(seat);
    expect(s.state.kind).toBe("Main"); // no DrawOrCharge on the very first turn
    expect(s.hands.map((h) => h.length)).toEqual([4, 4]);
    expect(s.books.map((b) => b.length)).toEqual([11, 11]);
    expect(s.players[seat].mp).toBe(3);
    expect(s.players[otherSeat(seat)].mp).toBe(4);
    expect(s.cards.filter((c) => c.layer === "Field")).toHaveLength(10);
    expect(s.cells[home[1]!]).toBe(base);
    // the first player's second turn gains MP
    s = dcg.applyTrusted(s, { kind: "turnFinish" });
    expect(s.players[otherSeat(seat)].mp).toBe(4);
    s = dcg.applyTrusted(s, { kind: "drawOrCharge", charge: true });
    s = dcg.applyTrusted(s, { kind: "turnFinish" });
    expect(s.players[seat].mp).toBe(5);
  });

  it("the shuffle differs across seeds", () => {
    const orders = new Set<string>();
    for (let seed = 1; seed <= 5; seed++) {
      let s = dcg.setup(cfg(), seed);
      while (s.turn === 0) s = dcg.applyTrusted(s, dcg.legal(s).at(-1)!.kind === "strategyConfirm" ? { kind: "strategyConfirm" } : dcg.legal(s)[0]!);
      orders.add(canonicalJson(s.hands));
    }
    expect(orders.size).toBeGreaterThan(1);
  });
});

describe("views and determinize", () => {
  it("hide the opponent's hand, book order, feint identity and the RNG", () => {
    const seen = { feint: 0 };
    for (let seed = 1; seed <= 10; seed++) {
      randomGame(seed, cfg(), (s) => {
        for (const seat of [0, 1] as const) {
          const v = dcg.view(s, seat);
          const text = canonicalJson(v);
          expect(text).not.toContain("rng");
          for (const id of s.hands[otherSeat(seat)]) expect(v.cards[id]).toBeNull();
          for (const id of s.books[seat]) expect(v.cards[id]).toBeNull();
          expect(v.players[otherSeat(seat)].handSize).toBe(s.hands[otherSeat(seat)].length);
          const f = s.players[otherSeat(seat)].feint;
          if (f >= 0) {
            seen.feint++;
            expect(v.cards[f]).toBeNull();
            expect(v.feintOwners[s.cards[f]!.cell]).toBe(otherSeat(seat));
            expect(v.players[otherSeat(seat)].feintCell).toBe(s.cards[f]!.cell);
          }
        }
        const spectator = dcg.view(s, "spectator");
        expect(spectator.hand).toEqual([]);
      });
    }
    expect(seen.feint).toBeGreaterThan(0);
  });

  it("share the state's cells, hand and graves lists, which later applies never write", () => {
    const kept: { view: ReturnType<typeof dcg.view>; text: string }[] = [];
    for (let seed = 1; seed <= 4; seed++) {
      randomGame(seed, cfg(), (s) => {
        for (const seat of [0, 1] as const) {
          const v = dcg.view(s, seat);
          expect(v.cells).toBe(s.cells);
          expect(v.hand).toBe(s.hands[seat]);
          expect(v.graves).toBe(s.graves);
          kept.push({ view: v, text: canonicalJson(v) });
        }
      });
    }
    // Every view still says what it said when it was taken, the game having gone on since.
    for (const { view, text } of kept) expect(canonicalJson(view)).toBe(text);
  });

  it("show each card as its layer allows, without reading the records of cards in a book", () => {
    const board = JSON.parse(readFileSync(new URL("../../docs/examples/dcg-board.json", import.meta.url), "utf8")) as unknown;
    const configs = [cfg(), cfg({ books: ["venom", "tempo"] }), cfg({ cardPool: { generate: { seed: 3, cards: 40 } } }), cfg({ board })];
    let books = 0;
    configs.forEach((config, k) => {
      randomGame(k + 1, config, (s) => {
        const pool = dcg.poolFor(s.cfg);
        // A card in a book answers no reads: the view must not look at it.
        const sealed = s.cards.map((c, id) => (s.books[0].includes(id) || s.books[1].includes(id) ? unreadable() : c));
        books += s.books[0].length + s.books[1].length;
        for (const viewer of [0, 1, "spectator"] as const) {
          const v = dcg.view({ ...s, cards: sealed }, viewer);
          expect(v.cards).toEqual(s.cards.map((c, id) => (visible(s, pool, id, viewer) ? c : null)));
          expect({ ...v, cards: null }).toEqual({ ...dcg.view(s, viewer), cards: null });
        }
      });
    });
    expect(books).toBeGreaterThan(1000);
  });

  it("determinize samples each config's own cards, with views of configs of other books asked in turn", () => {
    // The game keeps each config's card instances by config object: one must never answer for another.
    const configs = [cfg({ books: ["venom", "tempo"] }), cfg({ books: ["vanguard", "bastion"] }), cfg({ cardPool: { generate: { seed: 5, cards: 80 } } })];
    const states = configs.map((c, i) => dcg.setup(c, i + 1));
    for (let round = 0; round < 3; round++) {
      states.forEach((s, i) => {
        const sample = dcg.determinize(dcg.view(s, 0), 0, Rng.seeded(round * 10 + i));
        expect(sample.cfg).toBe(configs[i]);
        expect(sample.cards.map((c) => c.def)).toEqual(s.cards.map((c) => c.def));
      });
    }
  });

  it("determinize(view) reproduces the view, and the hidden part varies with the rng", () => {
    let checked = 0;
    for (let seed = 1; seed <= 6; seed++) {
      let step = 0;
      randomGame(seed, cfg(), (s) => {
        if (step++ % 7 !== 0) return;
        for (const seat of [0, 1] as const) {
          const v = dcg.view(s, seat);
          const a = dcg.determinize(v, seat, Rng.seeded(1));
          const b = dcg.determinize(v, seat, Rng.seeded(2));
          expect(dcg.view(a, seat)).toEqual(v);
          expect(dcg.view(b, seat)).toEqual(v);
          // the sampled state is playable: its legal list encodes from the same view
          if (dcg.actor(a) === seat) expect(dcg.legal(a).map((d) => canonicalJson(d))).toEqual(dcg.legal(s).map((d) => canonicalJson(d)));
          if (s.turn > 2 && s.hands[otherSeat(seat)].length > 1) {
            const c = [1, 2, 3, 4, 5].map((r) => canonicalJson(dcg.determinize(v, seat, Rng.seeded(r)).hands[otherSeat(seat)].map((id) => s.cards[id]!.def)));
            if (new Set(c).size > 1) checked++;
          }
        }
      });
    }
    expect(checked).toBeGreaterThan(10);
  });
});

describe("action codec and observation", () => {
  it("encodes every legal decision to a distinct id in range, from the actor's view", () => {
    for (let seed = 1; seed <= 25; seed++) {
      randomGame(seed, cfg(), (s, legal) => {
        const actor = dcg.actor(s) as number;
        const view = dcg.view(s, actor);
        const ids = legal.map((d) => dcgAdapter.actions.encode(view, d));
        expect(new Set(ids).size).toBe(ids.length);
        for (const id of ids) expect(id >= 0 && id < dcgAdapter.actions.size).toBe(true);
      });
    }
  });

  it("observations are finite, of the declared size, and differ between seats", () => {
    const { state } = randomGame(4);
    let s = dcg.setup(cfg(), 4);
    const rng = Rng.seeded(9);
    for (let i = 0; i < 60; i++) s = dcg.applyTrusted(s, dcg.legal(s)[rng.int(dcg.legal(s).length)]!);
    const out0 = new Float32Array(dcgAdapter.observation.size);
    const out1 = new Float32Array(dcgAdapter.observation.size);
    dcgAdapter.observation.encode(dcg.view(s, 0), out0);
    dcgAdapter.observation.encode(dcg.view(s, 1), out1);
    expect(out0.every(Number.isFinite)).toBe(true);
    expect(Buffer.from(out0.buffer).equals(Buffer.from(out1.buffer))).toBe(false);
    dcgAdapter.observation.encode(dcg.view(state, 0), out0);
    expect(dcgAdapter.observation.version).toBe("dcg-obs-v2");
  });
});

describe("random games", () => {
  it("a few hundred random games end within maxDecisions with zero-sum returns, every starter card played", () => {
    const summoned = new Set<number>();
    const outcomes = new Set<number>();
    const books = [
      ["vanguard", "bastion"],
      ["venom", "tempo"],
      ["tempo", "vanguard"],
      ["bastion", "venom"],
    ];
    let n = 0;
    for (let seed = 1; seed <= 240; seed++) {
      const config = cfg({ books: books[seed % 4] });
      const { state } = randomGame(seed, config, (s, legal) => {
        for (const d of legal) if (d.kind === "summon" || d.kind === "feint") summoned.add(s.cards[d.card]!.def);
      });
      const r = dcg.returns(state);
      expect(r[0]! + r[1]!).toBe(0);
      expect(state.finished).toBe(true);
      outcomes.add(state.winner);
      n++;
    }
    expect(n).toBe(240);
    expect(summoned.size).toBe(dcg.pool.cards.length);
    expect(outcomes).toEqual(new Set([0, 1, -1]));
  });

  it("is deterministic: same seed and decisions, same hashes; apply never mutates its input", () => {
    const run = (seed: number) => {
      const hashes: string[] = [];
      const rng = Rng.seeded(seed);
      let s = dcg.setup(cfg(), seed);
      while (dcg.actor(s) !== "terminal") {
        const before = stateHash(s);
        const legal = dcg.legal(s);
        const next = dcg.applyTrusted(s, legal[rng.int(legal.length)]!);
        expect(stateHash(s)).toBe(before);
        s = next;
        hashes.push(stateHash(s));
      }
      return hashes;
    };
    expect(run(11)).toEqual(run(11));
  });
});
