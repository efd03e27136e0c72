import { deriveSeed, must, Rng } from "../engine/core/index.ts";
import { dcg, type BattleData } from "../engine/dcg/index.ts";
import type { GenerateSpec } from "../engine/dcg/generate.ts";
import { runMatch } from "./match.ts";
import { createAgent } from "./spec.ts";

/**
 * The balance check of a generated card pool (docs/cards.md, "Generated pools"): a round robin
 * between the pool's books, every ordered pair (both seats) equally often, `games` games in all.
 * A book's score is (wins + draws / 2) / games played. The pool is balanced when every book's
 * score lies in BALANCE_BAND.
 */
export const BALANCE_BAND = [0.3, 0.7] as const;

export interface BookScore {
  readonly book: string;
  readonly games: number;
  readonly wins: number;
  readonly draws: number;
  readonly score: number;
}

export interface BalanceReport {
  readonly spec: GenerateSpec;
  readonly agent: string;
  readonly games: number;
  readonly books: readonly BookScore[];
  /** Seat 0's score over all games (the first player's edge, for reference). */
  readonly firstSeat: number;
  readonly decisions: number;
  readonly balanced: boolean;
}

export interface BalanceOptions {
  readonly games: number;
  /** An agent spec for both seats (`random`, `computer`, ...); default random. */
  readonly agent?: string;
  readonly seed?: number;
  readonly onGame?: (done: number, total: number) => void;
}

/** Plays the round robin; throws on any engine error (which the check exists to find). */
export async function balanceCheck(spec: GenerateSpec, options: BalanceOptions): Promise<BalanceReport> {
  const agent = options.agent ?? "random";
  const base = options.seed ?? 1;
  const probe = dcg.parseConfig({ cardPool: { generate: spec } });
  if (!probe.ok) throw new Error(probe.error.message);
  const books = dcg
    .presetsFor(probe.value)
    .map((b) => b.id)
    .filter((id) => !dcg.presets.some((p) => p.id === id));
  const pairs = books.flatMap((a) => books.filter((b) => b !== a).map((b) => [a, b] as const));
  const tally = new Map(books.map((b) => [b, { games: 0, wins: 0, draws: 0 }]));
  let first = 0;
  let decisions = 0;
  for (let g = 0; g < options.games; g++) {
    const pair = must(pairs[g % pairs.length], "pool balance: the pairing of a game");
    const config = { cardPool: { generate: spec }, books: [...pair] };
    const seed = deriveSeed(base, `pool-balance:${g}`);
    let winner: number;
    if (agent === "random") {
      // The random agent inline: no views built, so 1000 games fit in a unit test.
      const cfg = dcg.parseConfig(config);
      if (!cfg.ok) throw new Error(cfg.error.message);
      const rng = Rng.seeded(seed);
      let s: BattleData = dcg.setup(cfg.value, seed);
      const limit = dcg.maxDecisions(cfg.value);
      let n = 0;
      // rng.pick(dcg.legal(s)) without the list: the same decision (Game.sampleLegal).
      const pick = (k: number): number => rng.int(k);
      while (dcg.actor(s) !== "terminal") {
        s = dcg.applyTrusted(s, dcg.sampleLegal(s, pick));
        if (++n > limit) throw new Error(`game ${g}: over maxDecisions (${limit})`);
      }
      decisions += n;
      winner = s.winner;
    } else {
      const agents = [0, 1].map((seat) => {
        const a = createAgent(agent, { seed, seat, game: "dcg" });
        if (!a.ok) throw new Error(a.error.message);
        return a.value;
      });
      const r = await runMatch({ game: dcg, config, seed, agents });
      decisions += r.decisions;
      const [seat0, seat1] = r.returns;
      winner = must(seat0, "pool balance: the first seat's return") > 0 ? 0 : must(seat1, "pool balance: the second seat's return") > 0 ? 1 : -1;
    }
    pair.forEach((book, seat) => {
      const t = must(tally.get(book), `pool balance: the tally of book ${book}`);
      t.games++;
      if (winner === seat) t.wins++;
      else if (winner < 0) t.draws++;
    });
    first += winner === 0 ? 1 : winner < 0 ? 0.5 : 0;
    options.onGame?.(g + 1, options.games);
  }
  const scores = books.map((book) => {
    const t = must(tally.get(book), `pool balance: the tally of book ${book}`);
    return { book, ...t, score: t.games === 0 ? 0.5 : (t.wins + t.draws / 2) / t.games };
  });
  return {
    spec,
    agent,
    games: options.games,
    books: scores,
    firstSeat: options.games === 0 ? 0.5 : first / options.games,
    decisions,
    balanced: scores.every((b) => b.score >= BALANCE_BAND[0] && b.score <= BALANCE_BAND[1]),
  };
}
