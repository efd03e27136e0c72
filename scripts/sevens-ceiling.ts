/**
 * npm run sevens-ceiling -- [--games N] [--seed N] [--config JSON] [--endgame K --deals-bound M] [--max-nodes N]
 * The most any agent can score against `random` on the arena's own sevens games
 * (`npm run arena -- --game sevens --agents random,HERO --games N --seed N`): a clairvoyant hero
 * that knows every hand and every random seat's stream searches its own choices exhaustively
 * (agents/arena/sevens-ceiling.ts). With --endgame K it also bounds a hero that knows the hands but
 * not the random seats' choices once K or fewer cards are left in hands (on the first M games,
 * --deals-bound; the bound costs about ten times more per four cards of K).
 */
import { deriveSeed, Rng } from "../engine/core/index.ts";
import { sevens, type SevensConfig, type SevensState } from "../engine/sevens/index.ts";
import {
  arenaGames,
  clairvoyant,
  foresightBound,
  handsKnownPlanner,
  handsKnownSearch,
  heroScore,
  replay,
  type CeilingGame,
  type SearchObjective,
} from "../agents/arena/sevens-ceiling.ts";
import { carefulPlay } from "../agents/evaluators/sevens-plan.ts";
import { MAX_SEARCH_ITERATIONS } from "../agents/computer.ts";
import { wilson } from "../agents/arena/stats.ts";
import { intArg, jsonArg, main, parseCli, printUsage, UsageError } from "./cli.ts";

const USAGE =
  "npm run sevens-ceiling -- [--games N] [--seed N] [--config JSON] [--endgame K] [--deals-bound M] [--planner P] [--planner-endgame K] [--search N] [--search-objective rank|pair] [--max-nodes N] [-q]";

main(() => {
  const { values, positionals } = parseCli(USAGE, {
    games: { type: "string" },
    seed: { type: "string" },
    config: { type: "string" },
    endgame: { type: "string" },
    "deals-bound": { type: "string" },
    "max-nodes": { type: "string" },
    planner: { type: "string" },
    "planner-endgame": { type: "string" },
    search: { type: "string" },
    "search-objective": { type: "string" },
    quiet: { type: "boolean", short: "q" },
  });
  if (values.help)
    return printUsage(
      USAGE,
      "The arena's games of sevens for `--agents random,HERO` (same --games, --seed, --config): the score of a hero that",
      "knows every hand and how every random seat will choose (an upper bound for any agent), and with --endgame K the",
      "bound for a hero that knows the hands but not the random seats' choices from K cards left in hands. With --planner P",
      "it also plays such a hero (a lower bound for it): the sevens planner on the real hands, P playouts per candidate, exact",
      "from --planner-endgame K cards left in hands (default 0: playouts only). With --search N, the agents' deeper search on the",
      "real hands (N iterations per decision, the random seats as uniform chance), maximizing the rank reward or, with",
      "--search-objective pair, the result against the seat it is scored against.",
    );
  if (positionals.length > 0) throw new UsageError(`unexpected argument "${positionals[0]}"\nusage: ${USAGE}`);
  const games = intArg(values.games, "games", 400, 2, 100_000);
  const seed = intArg(values.seed, "seed", 1);
  const maxNodes = intArg(values["max-nodes"], "max-nodes", 5_000_000, 1, 1_000_000_000);
  const endgame = values.endgame === undefined ? null : intArg(values.endgame, "endgame", 0, 0, 48);
  const boundDeals = intArg(values["deals-bound"], "deals-bound", games, 1, games);
  const plannerPlayouts = values.planner === undefined ? null : intArg(values.planner, "planner", 0, 1, 100_000);
  const plannerEndgame = intArg(values["planner-endgame"], "planner-endgame", 0, 0, 48);
  const searchIterations = values.search === undefined ? null : intArg(values.search, "search", 0, 1, MAX_SEARCH_ITERATIONS);
  const objective = searchObjective(values["search-objective"]);
  const parsed = sevens.parseConfig(jsonArg(values.config, "config"));
  if (!parsed.ok) throw new UsageError(`--config: ${parsed.error.message}`);
  const config: SevensConfig = parsed.value;
  if (config.seats < 3) throw new UsageError("--config: the ceiling is for the arena's multi-seat games (3 or more seats)");
  const progress = values.quiet ? () => {} : (text: string) => process.stderr.write(`${text}\n`);

  const all = arenaGames(config, games, seed);
  const start = performance.now();
  const lost: CeilingGame[] = [];
  let wins = 0;
  let unresolved = 0;
  for (const [i, g] of all.entries()) {
    const r = clairvoyant(g, maxNodes);
    if (r.score === null) unresolved++;
    else if (r.score === 1) wins++;
    else lost.push(g);
    if ((i + 1) % 50 === 0 || i + 1 === all.length)
      progress(`clairvoyant: ${i + 1}/${all.length} games, ${wins} won, ${((performance.now() - start) / 1000).toFixed(1)} s`);
  }
  const n = all.length;
  const ci = wilson(wins + unresolved, n);
  console.log(`sevens, ${config.seats} seats, arena games ${games} at seed ${seed} (hero against its pair's random, random fillers)`);
  console.log(
    `clairvoyant hero (every hand and every random seat's choices known): wins ${wins} of ${n}` +
      (unresolved > 0 ? `, ${unresolved} unresolved (counted as wins)` : "") +
      `: ceiling ${pct((wins + unresolved) / n)} [${pct(ci.low)}, ${pct(ci.high)}]`,
  );
  console.log(`games lost whatever the hero does: ${lost.length}`);
  for (const g of lost) console.log(`  ${describeLoss(g)}`);
  if (endgame !== null) {
    const subset = all.slice(0, boundDeals);
    let sum = 0;
    const t0 = performance.now();
    for (const [i, g] of subset.entries()) {
      sum += foresightBound(g, endgame);
      progress(`foresight to ${endgame} cards: ${i + 1}/${subset.length} games, mean ${pct(sum / (i + 1))}, ${((performance.now() - t0) / 1000).toFixed(1)} s`);
    }
    console.log(
      `hands known, random choices unknown once ${endgame} or fewer cards are left in hands (first ${subset.length} games): at most ${pct(sum / subset.length)} expected`,
    );
  }
  if (plannerPlayouts !== null) {
    let won = 0;
    const t0 = performance.now();
    for (const [i, g] of all.entries()) {
      const policy = handsKnownPlanner(plannerPlayouts, plannerEndgame, Rng.seeded(deriveSeed(seed, `hands-known:${g.index}`)));
      won += heroScore(replay(g, policy), g.hero, g.rival);
      if ((i + 1) % 50 === 0 || i + 1 === all.length)
        progress(`hands-known planner: ${i + 1}/${all.length} games, ${won} won, ${((performance.now() - t0) / 1000).toFixed(1)} s`);
    }
    const pi = wilson(won, n);
    console.log(
      `hands known, the planner on them (${plannerPlayouts} playouts per candidate, exact from ${plannerEndgame} cards left): wins ${won} of ${n}, ` +
        `${pct(won / n)} [${pct(pi.low)}, ${pct(pi.high)}] (a lower bound for a hero that knows the hands)`,
    );
  }
  if (searchIterations !== null) {
    let won = 0;
    const t0 = performance.now();
    for (const [i, g] of all.entries()) {
      const policy = handsKnownSearch(g, searchIterations, objective, Rng.seeded(deriveSeed(seed, `hands-known-search:${g.index}`)));
      won += heroScore(replay(g, policy), g.hero, g.rival);
      if ((i + 1) % 50 === 0 || i + 1 === all.length)
        progress(`hands-known search: ${i + 1}/${all.length} games, ${won} won, ${((performance.now() - t0) / 1000).toFixed(1)} s`);
    }
    const si = wilson(won, n);
    console.log(
      `hands known, the deeper search on them (${searchIterations} iterations per decision, objective ${objective}): wins ${won} of ${n}, ` +
        `${pct(won / n)} [${pct(si.low)}, ${pct(si.high)}] (${((performance.now() - t0) / 1000).toFixed(1)} s)`,
    );
  }
  console.log(`(${((performance.now() - start) / 1000).toFixed(1)} s)`);
});

function searchObjective(raw: string | undefined): SearchObjective {
  if (raw === undefined || raw === "rank" || raw === "pair") return raw ?? "rank";
  throw new UsageError(`--search-objective must be rank or pair, got ${JSON.stringify(raw)}`);
}

const pct = (x: number): string => `${(100 * x).toFixed(1)}%`;

/** How a lost game ends when the hero plays carefully: who went out, with how many cards killed. */
function describeLoss(g: CeilingGame): string {
  const rng = Rng.seeded(g.index);
  const end: SevensState = replay(g, (s, legal) => carefulPlay(s, legal, rng));
  const place = (seat: number) => end.finishOrder.indexOf(seat) + 1;
  return (
    `game ${g.index} (deal ${g.deal}, hero seat ${g.hero}, rival seat ${g.rival}): ` +
    `rival out ${ordinal(place(g.rival))} with ${end.killed[g.rival]} killed; ` +
    `hero (careful line) out ${ordinal(place(g.hero))} with ${end.killed[g.hero]} killed`
  );
}

const ordinal = (k: number): string => `${k}${k === 1 ? "st" : k === 2 ? "nd" : k === 3 ? "rd" : "th"}`;
