import { describe, expect, it } from "vitest";
import { Rng } from "../../engine/core/index.ts";
import { dcg, type BattleData, type Decision } from "../../engine/dcg/index.ts";

/**
 * The random-play suite over every ordered pair of preset books: games end within maxDecisions
 * with zero-sum returns and no error, and every shipped card is played (summoned or set, from the
 * hand or as a reaction) at least 20 times.
 */
const PLAYS = new Set(["summon", "feint", "reactSummon", "reactFeint"]);
const GAMES = 640;

describe("random play with every preset book", () => {
  it(`${GAMES} games: every card played at least 20 times, every game ends cleanly`, () => {
    const books = dcg.presets.map((b) => b.id);
    const pairs = books.flatMap((a) => books.map((b) => [a, b]));
    const plays = new Array<number>(dcg.pool.cards.length).fill(0);
    const winners = new Set<number>();
    for (let g = 0; g < GAMES; g++) {
      const cfg = dcg.parseConfig({ books: pairs[g % pairs.length] });
      if (!cfg.ok) throw new Error(cfg.error.message);
      const rng = Rng.seeded(g * 7919 + 13);
      let s: BattleData = dcg.setup(cfg.value, g);
      let n = 0;
      while (dcg.actor(s) !== "terminal") {
        const legal = dcg.legal(s);
        const d: Decision = legal[rng.int(legal.length)]!;
        if (PLAYS.has(d.kind)) plays[s.cards[(d as { card: number }).card]!.def]! += 1;
        s = dcg.applyTrusted(s, d);
        if (++n > dcg.maxDecisions(cfg.value)) throw new Error(`game ${g}: over maxDecisions`);
      }
      const r = dcg.returns(s);
      expect(r[0]! + r[1]!).toBe(0);
      winners.add(s.winner);
    }
    const rare = dcg.pool.cards.map((c, i) => [c.id, plays[i]!] as const).filter(([, n]) => n < 20);
    expect(rare, `cards played fewer than 20 times: ${JSON.stringify(rare)}`).toEqual([]);
    expect(winners).toEqual(new Set([0, 1, -1]));
  });
});
