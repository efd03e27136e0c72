/** Board files (docs/board-file.md): a dcg position as config.board, checked, set up and replayed. */
import { readFileSync } from "node:fs";
import { Ajv2020 } from "ajv/dist/2020.js";
import { describe, expect, it } from "vitest";
import { canonicalJson, parseRecord, replay, Rng, stateHash, unwrap } from "../../engine/core/index.ts";
import { registry } from "../../engine/games.ts";
import { dcg, type BattleData, type Decision } from "../../engine/dcg/index.ts";
import { BOARD_BOOK_MAX, boardCell } from "../../engine/dcg/board-file.ts";
import { cellOf } from "../../engine/dcg/board.ts";
import { buildBoardSchema } from "../../engine/dcg/schema.ts";
import { dcgAdapter } from "../../env/games/dcg.ts";
import { runMatch } from "../../agents/match.ts";
import { playthrough } from "../conformance/harness.ts";
import { leakProblems, redeals } from "../conformance/leak.ts";
import { createAgentReady } from "../../agents/spec.ts";

const docs = (name: string) => readFileSync(new URL(`../../docs/${name}`, import.meta.url), "utf8");
/** The example board of docs/board-file.md (the file the doc shows and runs). */
const EXAMPLE = JSON.parse(docs("examples/dcg-board.json"));
const example = () => structuredClone(EXAMPLE);

const cfg = (raw: unknown) => {
  const c = dcg.parseConfig(raw);
  if (!c.ok) throw new Error(c.error.message);
  return c.value;
};
const refuse = (board: unknown, extra: Record<string, unknown> = {}) => {
  const c = dcg.parseConfig({ ...extra, board });
  if (c.ok) throw new Error("accepted");
  return c.error;
};
const idOf = (s: BattleData, instance: number) => dcg.pool.cards[s.cards[instance]!.def]!.id;

describe("board file: setup", () => {
  it("the doc shows the example file as it is", () => {
    const block = /```json\n([\s\S]*?)\n```/.exec(docs("board-file.md"))![1]!;
    expect(JSON.parse(block)).toEqual(EXAMPLE);
  });

  it("starts at the turn player's Main with every card where the board puts it", () => {
    const s = dcg.setup(cfg({ board: example() }), 1);
    expect(s.state).toEqual({ kind: "Main" });
    expect([s.turn, s.turnPlayer, s.first]).toEqual([5, 0, 0]);
    expect(dcg.actor(s)).toBe(0);
    expect(s.players.map((p) => [p.hp, p.mp, p.attacks])).toEqual([
      [9, 5, 2],
      [7, 6, 2],
    ]);
    for (const seat of [0, 1] as const) {
      const p = EXAMPLE.players[seat];
      for (const u of p.field) {
        const id = s.cells[boardCell(u.cell)]!;
        expect(idOf(s, id)).toBe(u.card);
        expect(s.cards[id]).toMatchObject({ owner: seat, layer: "Field", cell: boardCell(u.cell), life: u.life ?? dcg.pool.cards[s.cards[id]!.def]!.life });
        expect(s.cards[id]!.ailment).toBe(u.ailment ?? "none");
      }
      expect(s.hands[seat].map((id) => idOf(s, id))).toEqual(p.hand);
      // The book is listed top first; the next draw is the end of BattleData's list.
      expect(s.books[seat].map((id) => idOf(s, id)).reverse()).toEqual(p.book);
      expect(s.graves[seat].map((id) => idOf(s, id))).toEqual(p.grave ?? []);
    }
    const feint = s.feints[cellOf(3, 4)]!;
    expect(idOf(s, feint)).toBe("mirage");
    expect(s.players[1].feint).toBe(feint);
    expect(s.cards.length).toBe(21);
  });

  it("settles the board as after any command: area abilities reach the units next to their producer", () => {
    // banner-knight on C2 and hexer on C4 each carry an AreaAbility; blitz on C3 stands next to both.
    const s = dcg.setup(cfg({ board: example() }), 1);
    const blitz = s.cells[boardCell("C3")]!;
    const producers = s.cards[blitz]!.attached.filter((a) => a.area).map((a) => idOf(s, a.producer));
    expect(producers.sort()).toEqual(["banner-knight", "hexer"]);
    // Without its neighbours the same unit carries only its own ability.
    const alone = example();
    alone.players[0].field = [{ card: "blitz", cell: "C3" }];
    alone.players[1].field = [];
    const t = dcg.setup(cfg({ board: alone }), 1);
    expect(t.cards[t.cells[boardCell("C3")]!]!.attached.every((a) => !a.area)).toBe(true);
  });

  it("a NightmareAbility's seal is computed for the loaded board", () => {
    // Vogaros's own abilities are sealed while its owner has more than 10 HP.
    const sealedAt = (hp: number) => {
      const b = example();
      b.players[0].hp = hp;
      b.players[0].field.push({ card: "vogaros", cell: "E0" });
      const s = dcg.setup(cfg({ board: b }), 1);
      return s.cards[s.cells[boardCell("E0")]!]!.sealed;
    };
    expect(sealedAt(9)).toBe(false);
    expect(sealedAt(12)).toBe(true);
  });

  it("a default config has no board and sets up from the books as before", () => {
    expect("board" in cfg({})).toBe(false);
    expect(dcg.setup(cfg({}), 3).state.kind).toBe("Strategy");
  });

  it("cells may be numbers or names; turn parity picks the first player", () => {
    const b = example();
    b.players[0].field[0].cell = 12; // C2
    b.turn = 4;
    const s = dcg.setup(cfg({ board: b }), 1);
    expect(idOf(s, s.cells[12]!)).toBe("banner-knight");
    expect(s.first).toBe(1);
  });

  it("cards of a config's cardSet may stand on the board", () => {
    const cardSet = { cards: [{ id: "test-golem", name: "Test Golem", kind: "rubric", cost: 1, attack: 3, life: 3 }] };
    const b = example();
    b.players[1].field.push({ card: "test-golem", cell: "A5" });
    const c = cfg({ cardSet, board: b });
    const s = dcg.setup(c, 1);
    expect(dcg.poolFor(c).cards[s.cards[s.cells[boardCell("A5")]!]!.def]!.id).toBe("test-golem");
    expect(refuse(b).path).toBe("board.players[1].field[3].card");
  });

  it("a unit without a life enters at its full life, printed life through its own Life abilities, as a summon does", () => {
    const giant = { id: "test-giant", name: "Test Giant", kind: "rubric", cost: 2, attack: 2, life: 5 };
    const cardSet = { cards: [{ ...giant, abilities: [{ type: "ParameterAbility", parameter: "Life", calc: { mode: "Add", amount: 3 } }] }] };
    const b = example();
    b.players[1].field.push({ card: "test-giant", cell: "A5" }, { card: "test-giant", cell: "A1", life: 2 });
    const s = dcg.setup(cfg({ cardSet, board: b }), 1);
    expect(s.cards[s.cells[boardCell("A5")]!]!.life).toBe(8);
    expect(s.cards[s.cells[boardCell("A1")]!]!.life).toBe(2);
  });
});

describe("board file: errors name the JSON path", () => {
  const cases: [string, (b: any) => void, string, RegExp][] = [
    ["a cell off the board", (b) => (b.players[1].field[0].cell = 35), "board.players[1].field[0].cell", /a cell: an integer 0..34/],
    ["a bad cell name", (b) => (b.players[0].field[2].cell = "F1"), "board.players[0].field[2].cell", /got "F1"/],
    ["two units on one cell", (b) => (b.players[1].field[0].cell = "C2"), "board.players[1].field[0].cell", /C2 already holds board.players\[0\].field\[0\]/],
    ["an unknown card", (b) => (b.players[0].hand[1] = "no-such-card"), "board.players[0].hand[1]", /unknown card "no-such-card"/],
    ["a feint as a unit", (b) => (b.players[0].field[0].card = "pitfall"), "board.players[0].field[0].card", /is a feint/],
    ["a unit as a feint", (b) => (b.players[1].feint.card = "est"), "board.players[1].feint.card", /not a feint card/],
    ["a feint outside its placement rows", (b) => (b.players[1].feint.cell = "A1"), "board.players[1].feint.cell", /placement rows/],
    ["a missing field", (b) => delete b.players[0].hp, "board.players[0].hp", /required/],
    ["an unknown field", (b) => (b.players[0].deck = []), "board.players[0].deck", /unknown field/],
    ["three players", (b) => b.players.push(b.players[0]), "board.players", /exactly 2 players/],
    ["hp over the config's", (b) => (b.players[0].hp = 16), "board.players[0].hp", /config's hp \(15\)/],
    ["mp over the config's cap", (b) => (b.players[1].mp = 9), "board.players[1].mp", /mpCap \(8\)/],
    ["turn beyond the limit", (b) => (b.turn = 41), "board.turn", /turnLimit \(40\)/],
    ["a dead unit", (b) => (b.players[0].field[1].life = 0), "board.players[0].field[1].life", /1..99/],
    ["a full hand and more", (b) => (b.players[0].hand = Array(8).fill("est")), "board.players[0].hand", /at most 7 card ids, got 8/],
    ["a book too long", (b) => (b.players[0].book = Array(BOARD_BOOK_MAX + 1).fill("est")), "board.players[0].book", /at most 40/],
    ["turnPlayer 2", (b) => (b.turnPlayer = 2), "board.turnPlayer", /0 or 1/],
  ];
  for (const [what, edit, path, message] of cases) {
    it(what, () => {
      const b = example();
      edit(b);
      const e = refuse(b);
      expect(e.code).toBe("invalid_config");
      expect(e.path).toBe(path);
      expect(e.message.startsWith(`${path}: `)).toBe(true);
      expect(e.message).toMatch(message);
      expect(e.message).not.toMatch(/\n\s+at /);
    });
  }

  it("not an object at all", () => {
    expect(refuse("C2").path).toBe("board");
    expect(refuse(null).message).toMatch(/^board: must be an object/);
  });
});

describe("board file: play and replay", () => {
  it("a game from the board plays to the end and its record replays to the same hash", async () => {
    const config = cfg({ board: example() });
    const agents = [];
    for (const [seat, spec] of ["random", "computer"].entries()) agents.push(unwrap(await createAgentReady(spec, { seed: 5, seat, game: "dcg" })));
    const result = await runMatch({ game: dcg, config, seed: 9, agents });
    expect(dcg.actor(result.finalState as BattleData)).toBe("terminal");
    const record = unwrap(parseRecord(JSON.parse(JSON.stringify(result.record))));
    expect((record.config as { board?: unknown }).board).toEqual(EXAMPLE);
    expect(unwrap(replay(registry, record)).finalHash).toBe(result.finalHash);
  });

  it("determinize on a board's view keeps what the seat sees", () => {
    let s = dcg.setup(cfg({ board: example() }), 2);
    const rng = Rng.seeded(3);
    for (let step = 0; step < 60 && dcg.actor(s) !== "terminal"; step++) {
      for (const seat of [0, 1] as const) {
        const v = dcg.view(s, seat);
        expect(dcg.view(dcg.determinize(v, seat, Rng.seeded(step)), seat)).toEqual(v);
      }
      const legal = dcg.legal(s) as Decision[];
      const view = dcg.view(s, dcg.actor(s) as number);
      // Every legal decision of a board position has an action id and decodes back.
      for (const d of legal) expect(canonicalJson(dcgAdapter.actions.decode!(view, dcgAdapter.actions.encode(view, d)))).toBe(canonicalJson(d));
      s = dcg.applyTrusted(s, legal[rng.int(legal.length)]!);
    }
  });

  it("no leaks beyond the board itself: re-dealing what a seat cannot see keeps its view and observation", () => {
    const count = { hidden: 0, own: 0 };
    for (const seed of [1, 2, 3]) {
      const run = playthrough(dcg, dcgAdapter, { board: example() }, seed);
      const rng = Rng.seeded(seed);
      for (let i = 0; i < run.states.length; i += 5) {
        for (const seat of [0, 1]) expect(leakProblems(dcg, dcgAdapter, redeals.dcg!, run.states[i], seat, rng, count)).toEqual([]);
      }
    }
    expect(count.hidden).toBeGreaterThan(0);
  });

  it("the seed only drives what happens after the position", () => {
    const a = dcg.setup(cfg({ board: example() }), 1);
    const b = dcg.setup(cfg({ board: example() }), 2);
    expect({ ...a, rng: null }).toEqual({ ...b, rng: null });
    expect(stateHash(a)).not.toBe(stateHash(b));
  });
});

describe("docs/board-file.schema.json", () => {
  it("is the schema generated from engine/dcg/board-file.ts (run npx tsx scripts/card-schema.ts after a change)", () => {
    expect(JSON.parse(docs("board-file.schema.json"))).toEqual(buildBoardSchema());
  });

  it("accepts the example and refuses what the schema part of the check refuses", () => {
    const ajv = new Ajv2020({ allErrors: true, strict: true, strictRequired: false, strictTuples: false });
    const validate = ajv.compile(buildBoardSchema());
    expect(validate(EXAMPLE), JSON.stringify(validate.errors)).toBe(true);
    const bad = example();
    bad.players[1].field[0].cell = "Z9";
    expect(validate(bad)).toBe(false);
  });
});
