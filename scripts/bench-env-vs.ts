/**
 * tsx scripts/bench-env-vs.ts --old <checkout> [--old <checkout>...] [--game dcg] [--envs 1,64] [--opponent random] [--model-root DIR] [--seconds S] [--rounds N]
 *
 * Env-steps per CPU second of a learning session in process (what a Python trainer's vector env
 * costs on the engine's side, not raw engine playouts: bench-engine-vs measures those) in this
 * checkout against other checkouts' (e.g. `git worktree add`s of older commits), in one process.
 * Each side builds the session the server's session worker builds (LearningFacilitator.create with
 * the game's RL adapter, the agent factory and reuseReplies; a checkout from before that option
 * ignores it), the learner at seat 0 against `--opponent` (an agent spec; "random" is what a session gets when no seats are given;
 * `onnx:path=<file>` models resolve against `--model-root`, on every side, so a checkout that does not
 * ship a model can seat it: `--opponent onnx:path=dcg-exit-v2.onnx --model-root models/builtin`), resets it, then steps it
 * with a uniformly random legal action per env read from the reply's mask, as a trainer does.
 * Every side runs once per round at each env count, in an order that rotates from round to round,
 * the same seeds on every side. Rates are per second of this process's own CPU time. Prints each
 * side's median and best round and, for each old checkout, the new/old ratio of medians.
 * A benchmark, not a test.
 */
import { join, resolve } from "node:path";
import { pathToFileURL } from "node:url";
import { intArg, main, parseCli, UsageError, printUsage } from "./cli.ts";
import { cpuMs, reportSides, rotatingRounds } from "./side-by-side.ts";

const USAGE =
  "tsx scripts/bench-env-vs.ts --old <checkout> [--old <checkout>...] [--game dcg] [--envs 1,64] [--opponent random] [--model-root DIR] [--seconds S] [--rounds N]";

/** The parts of a step reply the bench reads (every checkout's reply has them). */
interface Batch {
  readonly mask: Uint8Array;
}

/** A session as both old and new checkouts offer it: stepNow (synchronous) where the checkout has it, else step. */
interface Session {
  reset(seed: number): Batch | Promise<Batch>;
  stepNow?(actions: ArrayLike<number>): Batch | Promise<Batch>;
  step(actions: ArrayLike<number>): Promise<Batch>;
}

interface Side {
  readonly root: string;
  create(numEnvs: number, opponent: string, seed: number): Session;
}

/** The learning-session factory of the checkout at `root`, as its session worker builds sessions. */
async function loadSide(root: string, game: string, modelRoot: string): Promise<Side> {
  const url = (p: string) => pathToFileURL(join(root, p)).href;
  const lf = await import(url("env/learning-facilitator.ts"));
  const { adapters } = await import(url("env/games/index.ts"));
  const { createAgent } = await import(url("agents/spec.ts"));
  const adapter = adapters.get(game);
  if (!adapter) throw new UsageError(`${root}: no RL adapter for ${game}`);
  const seatsOf = (opponent: string): string[] => {
    const n = adapter.game.info.defaultSeats as number;
    return ["learner", ...Array.from({ length: n - 1 }, () => opponent)];
  };
  return {
    root,
    create: (numEnvs, opponent, seed) =>
      lf.LearningFacilitator.create({
        adapter,
        seats: seatsOf(opponent),
        numEnvs,
        seed,
        maxDecisions: null,
        createAgent,
        modelRoot,
        reuseReplies: true,
      }) as Session,
  };
}

/** A small seeded generator (xorshift32) for the trainer's random picks: the same picks on every side. */
function picker(seed: number): (n: number) => number {
  let x = seed >>> 0 || 1;
  return (n) => {
    x ^= x << 13;
    x ^= x >>> 17;
    x ^= x << 5;
    return (x >>> 0) % n;
  };
}

/** Fills `actions` with a uniformly random legal action id per env, read from the mask. */
function pickActions(mask: Uint8Array, actionSize: number, actions: Int32Array, pick: (n: number) => number, ids: Int32Array): void {
  for (let i = 0; i < actions.length; i++) {
    let count = 0;
    const row = i * actionSize;
    for (let a = 0; a < actionSize; a++) if (mask[row + a]) ids[count++] = a;
    // An env whose episode ended has an empty mask: its action is ignored (it autoresets).
    actions[i] = count === 0 ? 0 : ids[pick(count)]!;
  }
}

/** Env-steps per CPU second of `side` with `numEnvs` envs over about `ms` of CPU time. */
async function measure(side: Side, numEnvs: number, opponent: string, ms: number, seed: number): Promise<number> {
  const session = side.create(numEnvs, opponent, seed);
  let batch = await session.reset(seed);
  const actionSize = batch.mask.length / numEnvs;
  const actions = new Int32Array(numEnvs);
  const ids = new Int32Array(actionSize);
  const pick = picker(seed);
  const step = session.stepNow ? session.stepNow.bind(session) : session.step.bind(session);
  let steps = 0;
  const start = cpuMs();
  let now = start;
  while (now - start < ms) {
    for (let k = 0; k < 16; k++) {
      pickActions(batch.mask, actionSize, actions, pick, ids);
      const b = step(actions);
      batch = b instanceof Promise ? await b : b;
      steps += numEnvs;
    }
    now = cpuMs();
  }
  return steps / ((now - start) / 1000);
}

main(async () => {
  const { values } = parseCli(USAGE, {
    old: { type: "string", multiple: true },
    game: { type: "string" },
    envs: { type: "string" },
    opponent: { type: "string" },
    "model-root": { type: "string" },
    seconds: { type: "string" },
    rounds: { type: "string" },
  });
  if (values.help) return printUsage(USAGE);
  const olds = values.old ?? [];
  if (olds.length === 0) throw new UsageError(`--old is required\nusage: ${USAGE}`);
  const game = values.game ?? "dcg";
  const opponent = values.opponent ?? "random";
  const envCounts = (values.envs ?? "1,64").split(",").map((s) => intArg(s, "envs", 1, 1, 1024));
  const seconds = intArg(values.seconds, "seconds", 20, 1, 3600);
  const rounds = intArg(values.rounds, "rounds", 6, 2, 1000);
  const modelRoot = values["model-root"] === undefined ? "" : resolve(values["model-root"]);
  const sides = [...(await Promise.all(olds.map((o) => loadSide(resolve(o), game, modelRoot)))), await loadSide(resolve("."), game, modelRoot)];
  const slice = (seconds * 1000) / rounds / sides.length / envCounts.length;
  console.log(`${game} env-steps in process vs ${opponent} ${new Date().toISOString()}, ${rounds} rotating rounds, ${seconds} CPU seconds in all`);
  for (const numEnvs of envCounts) {
    for (const s of sides) await measure(s, numEnvs, opponent, 300, 999_999);
    const rates = await rotatingRounds(sides, rounds, (side, r) => measure(side, numEnvs, opponent, slice, 1 + r * 1000));
    console.log(`  ${numEnvs} env(s):`);
    reportSides(olds, rates, "env-steps per CPU second", "    ", (m) => `(${(1e6 / m).toFixed(1)} us/env-step)`);
  }
});
