/**
 * tsx scripts/bench-playouts.ts [--root <checkout>] [--game dcg] [--games N]
 *
 * A fixed amount of engine work for timing one checkout against another from outside (e.g.
 * `/usr/bin/time -v`, run alternately): N random playouts from seeds 1..N with the engine of
 * `--root` (default: this checkout; another one is typically a `git worktree add` of an older
 * commit), the same loop as `npm run bench` (setup + legal() + a uniform pick + applyTrusted per
 * decision) and the same picks for the same engine behaviour. Prints the decisions played (equal on
 * both sides when the rules are unchanged) and this process's decisions per CPU second. A
 * benchmark, not a test.
 */
import { resolve } from "node:path";
import { loadCheckoutEngine } from "./checkout-engine.ts";
import { intArg, main, parseCli, printUsage } from "./cli.ts";

const USAGE = "tsx scripts/bench-playouts.ts [--root <checkout>] [--game dcg] [--games N]";

main(async () => {
  const { values } = parseCli(USAGE, { root: { type: "string" }, game: { type: "string" }, games: { type: "string" } });
  if (values.help) return printUsage(USAGE);
  const root = resolve(values.root ?? ".");
  const id = values.game ?? "dcg";
  const count = intArg(values.games, "games", 2000, 1, 10_000_000);
  const { game, Rng } = await loadCheckoutEngine(root, id);
  const config = game.parseConfig({}).value;
  const rng = Rng.seeded(1);
  const before = process.cpuUsage();
  let decisions = 0;
  for (let seed = 1; seed <= count; seed++) {
    let s = game.setup(config, seed);
    while (game.actor(s) !== "terminal") {
      const legal = game.legal(s);
      s = game.applyTrusted(s, legal[rng.int(legal.length)]);
      decisions++;
    }
  }
  const used = process.cpuUsage(before);
  const cpuSeconds = (used.user + used.system) / 1e6;
  console.log(
    `${id}: ${count} random playouts, ${decisions} decisions, ${cpuSeconds.toFixed(2)} CPU s, ${Math.round(decisions / cpuSeconds)} decisions per CPU second (${root})`,
  );
  return 0;
});
