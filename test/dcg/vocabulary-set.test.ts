import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { Rng } from "../../engine/core/index.ts";
import { dcg, type BattleData, type Decision } from "../../engine/dcg/index.ts";
import { checkCardFiles } from "../../scripts/cards/check-card-files.ts";

/**
 * The shipped vocabulary set (cards/vocabulary.json, docs/cards.md "The vocabulary set"): the
 * vocabulary the default pool cannot ship without changing the observation width, on cards with
 * books. It validates like any user set, and random games between its books end cleanly.
 */
const FILE = new URL("../../cards/vocabulary.json", import.meta.url);
const SET = JSON.parse(readFileSync(FILE, "utf8")) as { cards: { id: string }[]; books: { id: string }[] };
const GAMES = 200;
/** Decisions that put a card into play (strategy rubrics included). */
const PLAYS = new Set(["strategyMove", "summon", "feint", "reactSummon", "reactFeint"]);

describe("the vocabulary card set (cards/vocabulary.json)", () => {
  it("passes validate-cards (schema and the session's loader) with its books", () => {
    const r = checkCardFiles([FILE.pathname]);
    expect(r.problems).toEqual([]);
    expect(SET.books.length).toBeGreaterThanOrEqual(2);
    const cfg = dcg.parseConfig({ cardSet: SET, books: [SET.books[0]!.id, SET.books[1]!.id] });
    expect(cfg.ok ? "ok" : cfg.error.message).toBe("ok");
  });

  it(`${GAMES} random games between its books end cleanly, every card of the set played`, () => {
    const books = SET.books.map((b) => b.id);
    const pairs = books.flatMap((a) => books.map((b) => [a, b]));
    const plays = new Map<string, number>();
    for (let g = 0; g < GAMES; g++) {
      const cfg = dcg.parseConfig({ cardSet: SET, books: pairs[g % pairs.length] });
      if (!cfg.ok) throw new Error(cfg.error.message);
      const pool = dcg.poolFor(cfg.value);
      const rng = Rng.seeded(g * 7919 + 5);
      let s: BattleData = dcg.setup(cfg.value, g);
      let n = 0;
      while (dcg.actor(s) !== "terminal") {
        const legal = dcg.legal(s);
        expect(legal.length, `game ${g}: no legal decision`).toBeGreaterThan(0);
        const d: Decision = legal[rng.int(legal.length)]!;
        if (PLAYS.has(d.kind)) {
          const id = pool.cards[s.cards[(d as { card: number }).card]!.def]!.id;
          plays.set(id, (plays.get(id) ?? 0) + 1);
        }
        s = dcg.applyTrusted(s, d);
        if (++n > dcg.maxDecisions(cfg.value)) throw new Error(`game ${g}: over maxDecisions`);
      }
      const r = dcg.returns(s);
      expect(r[0]! + r[1]!).toBe(0);
    }
    expect(SET.cards.filter((c) => !plays.has(c.id)).map((c) => c.id)).toEqual([]);
  });
});
