/**
 * npm run bench:apply [-- --game id] [--seconds S] [--rounds N]
 *
 * What the checked `apply` (the path untrusted decisions take: the server, records) costs per
 * decision against `applyTrusted`, per game. Random playouts are recorded first (every state and
 * the decision taken in it); then the same steps are replayed through each path in alternating
 * rounds, so machine load hits both alike. The checked path gets a fresh copy of each decision, as
 * a decision decoded from the wire would be (the copies are made before the clock starts). Prints
 * CPU microseconds per decision for each path and their ratio. A benchmark, not a test.
 */
import { Rng, unwrap, type AnyGame } from "../engine/core/index.ts";
import { registry } from "../engine/games.ts";
import { intArg, main, parseCli, printUsage } from "./cli.ts";

const USAGE = "npm run bench:apply [-- --game id] [--seconds S] [--rounds N]";

interface Steps {
  readonly states: unknown[];
  readonly decisions: unknown[];
  /** The same decisions as fresh plain copies (what a caller hands the checked path). */
  readonly copies: unknown[];
}

/** About `count` steps of random playouts, seeds from 1. */
function record(game: AnyGame, count: number): Steps {
  const config = unwrap(game.parseConfig({}));
  const rng = Rng.seeded(12345);
  const steps: Steps = { states: [], decisions: [], copies: [] };
  for (let seed = 1; steps.states.length < count; seed++) {
    let s = game.setup(config, seed);
    while (game.actor(s) !== "terminal") {
      const legal = game.legal(s);
      const d = legal[rng.int(legal.length)];
      steps.states.push(s);
      steps.decisions.push(d);
      steps.copies.push(structuredClone(d));
      s = game.applyTrusted(s, d);
    }
  }
  return steps;
}

/** This process's CPU time (user + system) in ms: on a busy machine, unlike the wall clock, it leaves out other processes' turns. */
function cpuMs(): number {
  const u = process.cpuUsage();
  return (u.user + u.system) / 1000;
}

/** CPU microseconds per decision of one path over the recorded steps, repeated for about `ms` of CPU time. */
function measure(game: AnyGame, steps: Steps, checked: boolean, ms: number): number {
  const n = steps.states.length;
  let done = 0;
  const start = cpuMs();
  let now = start;
  while (now - start < ms) {
    if (checked) {
      for (let i = 0; i < n; i++) {
        const out = game.apply(steps.states[i], steps.copies[i]);
        if (!out.ok) throw new Error(`${game.info.id}: a recorded decision was refused: ${out.error.message}`);
      }
    } else {
      for (let i = 0; i < n; i++) game.applyTrusted(steps.states[i], steps.decisions[i]);
    }
    done += n;
    now = cpuMs();
  }
  return ((now - start) * 1000) / done;
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

main(() => {
  const { values } = parseCli(USAGE, { game: { type: "string" }, seconds: { type: "string" }, rounds: { type: "string" } });
  if (values.help) return printUsage(USAGE);
  const seconds = intArg(values.seconds, "seconds", 4, 1, 600);
  const rounds = intArg(values.rounds, "rounds", 6, 2, 100);
  const games = values.game ? [unwrap(registry.get(values.game))] : registry.all();
  console.log(`checked apply vs applyTrusted, node ${process.version}, ${seconds} CPU seconds per game in ${rounds} alternating rounds`);
  console.log("| game | applyTrusted CPU us/decision | apply (checked) CPU us/decision | checked / trusted |");
  console.log("|---|---:|---:|---:|");
  for (const game of games) {
    const steps = record(game, 2000);
    measure(game, steps, false, 200);
    measure(game, steps, true, 200);
    const trusted: number[] = [];
    const checked: number[] = [];
    const slice = (seconds * 1000) / rounds / 2;
    for (let r = 0; r < rounds; r++) {
      const order = r % 2 === 0 ? [false, true] : [true, false];
      for (const c of order) (c ? checked : trusted).push(measure(game, steps, c, slice));
    }
    const t = median(trusted);
    const c = median(checked);
    console.log(`| ${game.info.id} | ${t.toFixed(2)} | ${c.toFixed(2)} | ${(c / t).toFixed(1)}x |`);
  }
});
