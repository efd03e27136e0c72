/**
 * tsx scripts/bench-engine-vs.ts --old <checkout> [--game dcg] [--seconds S] [--rounds N]
 *
 * Random-playout decisions per CPU second of one game's engine in this checkout against another
 * checkout's (e.g. a `git worktree add` of an older commit), in one process, alternating round by
 * round so that machine load hits both alike. Rates are per second of this process's own CPU time
 * (user + system), so time the core spent on other processes of a busy machine is not counted. Same loop as `npm run bench`: setup + legal() + a uniform
 * pick + applyTrusted per decision, the same seeds on both sides. Prints each side's best and
 * median round and the ratio of medians. A benchmark, not a test.
 */
import { resolve } from "node:path";
import { loadCheckoutEngine, type CheckoutEngine } from "./checkout-engine.ts";
import { intArg, main, parseCli, UsageError, printUsage } from "./cli.ts";

const USAGE = "tsx scripts/bench-engine-vs.ts --old <checkout> [--game dcg] [--seconds S] [--rounds N]";

/** This process's CPU time (user + system) in ms: unlike the wall clock, it does not count the time other processes had the core. */
function cpuMs(): number {
  const u = process.cpuUsage();
  return (u.user + u.system) / 1000;
}

/** Decisions per CPU second over about `ms` of this process's CPU time. */
function measure(side: CheckoutEngine, ms: number, firstSeed: number): number {
  const { game, Rng } = side;
  const config = game.parseConfig({}).value;
  const rng = Rng.seeded(firstSeed);
  let decisions = 0;
  let seed = firstSeed;
  const start = cpuMs();
  let now = start;
  while (now - start < ms) {
    let s = game.setup(config, seed++);
    while (game.actor(s) !== "terminal") {
      const legal = game.legal(s);
      s = game.applyTrusted(s, legal[rng.int(legal.length)]);
      decisions++;
    }
    now = cpuMs();
  }
  return decisions / ((now - start) / 1000);
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

main(async () => {
  const { values } = parseCli(USAGE, { old: { type: "string" }, game: { type: "string" }, seconds: { type: "string" }, rounds: { type: "string" } });
  if (values.help) return printUsage(USAGE);
  if (!values.old) throw new UsageError(`--old is required\nusage: ${USAGE}`);
  const id = values.game ?? "dcg";
  const seconds = intArg(values.seconds, "seconds", 10, 1, 3600);
  const rounds = intArg(values.rounds, "rounds", 10, 2, 1000);
  const sides = { old: await loadCheckoutEngine(resolve(values.old), id), new: await loadCheckoutEngine(resolve("."), id) };
  for (const s of Object.values(sides)) measure(s, 500, 999_999);
  const rates: Record<string, number[]> = { old: [], new: [] };
  for (let r = 0; r < rounds; r++) {
    const order = r % 2 === 0 ? (["old", "new"] as const) : (["new", "old"] as const);
    for (const k of order) rates[k]!.push(measure(sides[k], (seconds * 1000) / rounds / 2, 1 + r * 1_000_000));
  }
  const line = (k: string) =>
    `best ${Math.round(Math.max(...rates[k]!)).toLocaleString("en-US")}  median ${Math.round(median(rates[k]!)).toLocaleString("en-US")} decisions per CPU second`;
  console.log(`${id} random playouts ${new Date().toISOString()}, ${rounds} alternating rounds, ${seconds} CPU seconds in all, old = ${values.old}`);
  console.log(`  old ${line("old")}\n  new ${line("new")}\n  new/old (median) ${(median(rates.new!) / median(rates.old!)).toFixed(2)}x`);
  return 0;
});
