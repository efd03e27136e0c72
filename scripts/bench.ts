/**
 * npm run bench [-- --seconds S] [--game id]
 * Random-playout throughput per registered game on one core: setup + legal() + a uniform pick +
 * applyTrusted per decision, the loop an RL environment or a search bot runs. Games are measured
 * in alternation (round robin, several rounds) so machine noise hits all of them alike.
 */
import { Rng, unwrap, type AnyGame } from "../engine/core/index.ts";
import { registry } from "../engine/games.ts";
import { intArg, main, parseCli, printUsage } from "./cli.ts";

const USAGE = "npm run bench [-- --seconds S] [--game id] [--rounds N]";

main(() => {
  const { values } = parseCli(USAGE, { seconds: { type: "string" }, game: { type: "string" }, rounds: { type: "string" } });
  if (values.help) return printUsage(USAGE);
  const seconds = intArg(values.seconds, "seconds", 3, 1, 600);
  const rounds = intArg(values.rounds, "rounds", 3, 1, 100);
  const games = values.game ? [unwrap(registry.get(values.game))] : registry.all();
  const totals = new Map<string, { decisions: number; games: number; ms: number }>();
  for (const g of games) warm(g);
  for (let r = 0; r < rounds; r++) {
    for (const g of games) {
      const t = totals.get(g.info.id) ?? { decisions: 0, games: 0, ms: 0 };
      const out = measure(g, (seconds * 1000) / rounds, 1 + r * 1_000_000);
      t.decisions += out.decisions;
      t.games += out.games;
      t.ms += out.ms;
      totals.set(g.info.id, t);
      process.stderr.write(`  round ${r + 1}/${rounds} ${g.info.id}: ${Math.round(out.decisions / (out.ms / 1000)).toLocaleString("en-US")} decisions/s\n`);
    }
  }
  console.log(`random playouts, one core, node ${process.version}, ${seconds}s per game in ${rounds} alternating rounds`);
  console.log("| game | decisions/s | games/s | decisions/game |");
  console.log("|---|---:|---:|---:|");
  for (const [id, t] of totals) {
    const s = t.ms / 1000;
    console.log(
      `| ${id} | ${Math.round(t.decisions / s).toLocaleString("en-US")} | ${Math.round(t.games / s).toLocaleString("en-US")} | ${(t.decisions / t.games).toFixed(1)} |`,
    );
  }
});

function warm(game: AnyGame): void {
  measure(game, 300, 999_999_999);
}

function measure(game: AnyGame, budgetMs: number, firstSeed: number) {
  const config = unwrap(game.parseConfig({}));
  const rng = Rng.seeded(firstSeed);
  let decisions = 0;
  let games = 0;
  const start = performance.now();
  let now = start;
  let seed = firstSeed;
  while (now - start < budgetMs) {
    let s = game.setup(config, seed++);
    while (game.actor(s) !== "terminal") {
      const legal = game.legal(s);
      s = game.applyTrusted(s, legal[rng.int(legal.length)]);
      decisions++;
    }
    games++;
    now = performance.now();
  }
  return { decisions, games, ms: now - start };
}
