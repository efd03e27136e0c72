/**
 * tsx scripts/bench-env-vs.ts --old <checkout> [--old <checkout>...] [--game dcg] [--envs 1,64] [--opponent random] [--model-root DIR] [--seconds S] [--rounds N]
 *
 * Env-steps per CPU second of a learning session (what a Python trainer's vector env costs on the
 * engine's side, not raw engine playouts: bench-engine-vs measures those) in this checkout against
 * other checkouts' (e.g. `git worktree add`s of older commits), in one process. Each side runs in
 * a worker thread of its own (scripts/bench-env-side.ts) started with the resource limits its own
 * checkout gives the server's session workers (its env/server/heap.ts sessionWorkerLimits at the
 * server's default --worker-heap; a checkout without that function passed the old-generation cap
 * alone), so every side steps with the heap its server would give it. There each side builds the
 * session the server's session worker builds (LearningFacilitator.create with the game's RL
 * adapter, the agent factory and reuseReplies; a checkout from before that option ignores it),
 * the learner at seat 0 against `--opponent` (an agent spec; "random" is what a session gets when
 * no seats are given; `self-play`: every seat the trainer's, as cardgym.selfplay.vector_env plays, one
 * decision per env-step; `onnx:path=<file>` models resolve against `--model-root`, on every side, so
 * a checkout that does not ship a model can seat it: `--opponent onnx:path=dcg-exit-v2.onnx
 * --model-root models/builtin`), resets it, then steps it with a uniformly random legal action
 * per env read from the reply's mask, as a trainer does. Each env count gets fresh workers (what a
 * server's worker holding one such session has: nothing of another env count's heap), warmed up
 * for 5 CPU seconds each (at 256 envs a worker's rate still rose for several seconds after one:
 * compiled code and heap sizes settle slowly, and a long-running session sees the settled rate);
 * then every side runs once per round, in an order that rotates from round
 * to round, the same seeds on every side. Rates are per second of the process's CPU time while
 * that side runs (the other workers wait). Prints each side's median and best round and, for each
 * old checkout, the new/old ratio of medians.
 * A benchmark, not a test.
 */
import { join, resolve } from "node:path";
import { pathToFileURL } from "node:url";
import { Worker, type ResourceLimits } from "node:worker_threads";
import type { MeasureRequest, SideInit, SideReply } from "./bench-env-side.ts";
import { intArg, main, parseCli, UsageError, printUsage } from "./cli.ts";
import { reportSides, rotatingRounds } from "./side-by-side.ts";

const USAGE =
  "tsx scripts/bench-env-vs.ts --old <checkout> [--old <checkout>...] [--game dcg] [--envs 1,64] [--opponent random] [--model-root DIR] [--seconds S] [--rounds N]";

const SIDE_URL = new URL("./bench-env-side.ts", import.meta.url);
/** CPU time each side's fresh worker steps a session before the rounds of an env count. */
const WARMUP_MS = 5000;

/** A side's worker and the one request it may have open at a time. */
interface Side {
  readonly root: string;
  readonly limits: ResourceLimits;
  measure(req: MeasureRequest): Promise<number>;
  close(): Promise<number>;
}

/**
 * The resource limits the checkout at `root` starts its session workers with: its
 * sessionWorkerLimits (env/server/heap.ts) at the server's default worker heap where it has that
 * function, else the old-generation cap alone, which is what the checkouts before it passed.
 */
async function sessionWorkerLimitsOf(root: string): Promise<ResourceLimits> {
  const url = (p: string) => pathToFileURL(join(root, p)).href;
  const { DEFAULT_LIMITS } = await import(url("env/server/options.ts"));
  const heapMb = DEFAULT_LIMITS.workerHeapMb as number;
  const heap = await import(url("env/server/heap.ts"));
  return typeof heap.sessionWorkerLimits === "function" ? (heap.sessionWorkerLimits(heapMb) as ResourceLimits) : { maxOldGenerationSizeMb: heapMb };
}

/** Starts the worker of the side at `root` and waits until it has loaded its checkout. */
async function startSide(root: string, game: string, modelRoot: string): Promise<Side> {
  const limits = await sessionWorkerLimitsOf(root);
  const init: SideInit = { root, game, modelRoot };
  // Under tsx the worker must register tsx's loader before it can import TypeScript.
  const worker = new Worker(
    `import(${JSON.stringify(import.meta.resolve("tsx/esm/api"))}).then((m) => { m.register(); return import(${JSON.stringify(SIDE_URL.href)}); });`,
    { eval: true, workerData: init, resourceLimits: limits },
  );
  let waiting: { resolve: (m: SideReply) => void; reject: (e: Error) => void } | null = null;
  const next = () =>
    new Promise<SideReply>((res, rej) => {
      waiting = { resolve: res, reject: rej };
    });
  const settle = (f: (w: NonNullable<typeof waiting>) => void) => {
    const w = waiting;
    waiting = null;
    if (w) f(w);
  };
  worker.on("message", (m: SideReply) => settle((w) => (m.kind === "error" ? w.reject(new Error(`${root}: ${m.message}`)) : w.resolve(m))));
  worker.on("error", (e) => settle((w) => w.reject(e)));
  worker.on("exit", (code) => settle((w) => w.reject(new Error(`${root}: its worker exited (${code})`))));
  const ready = next();
  await ready;
  return {
    root,
    limits,
    measure: async (req) => {
      const reply = next();
      worker.postMessage(req);
      const m = await reply;
      if (m.kind !== "rate") throw new Error(`${root}: its worker answered ${m.kind}`);
      return m.rate;
    },
    close: () => worker.terminate(),
  };
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
  // A process-wide --max-semi-space-size would win over every worker's own young generation.
  if (process.execArgv.some((a) => a.startsWith("--max-semi-space-size")))
    throw new UsageError("run without --max-semi-space-size: each side's worker gets its checkout's own limits");
  const game = values.game ?? "dcg";
  const opponent = values.opponent ?? "random";
  const envCounts = (values.envs ?? "1,64").split(",").map((s) => intArg(s, "envs", 1, 1, 1024));
  const seconds = intArg(values.seconds, "seconds", 20, 1, 3600);
  const rounds = intArg(values.rounds, "rounds", 6, 2, 1000);
  const modelRoot = values["model-root"] === undefined ? "" : resolve(values["model-root"]);
  const roots = [...olds.map((o) => resolve(o)), resolve(".")];
  const slice = (seconds * 1000) / rounds / roots.length / envCounts.length;
  console.log(`${game} env-steps in process vs ${opponent} ${new Date().toISOString()}, ${rounds} rotating rounds, ${seconds} CPU seconds in all`);
  for (const numEnvs of envCounts) {
    // Fresh workers for each env count: what ran before (other env counts, their heaps) does not carry over.
    const sides: Side[] = [];
    try {
      for (const root of roots) sides.push(await startSide(root, game, modelRoot));
      if (numEnvs === envCounts[0]) for (const s of sides) console.log(`  ${s.root}: its worker's resource limits ${JSON.stringify(s.limits)}`);
      for (const s of sides) await s.measure({ numEnvs, opponent, ms: WARMUP_MS, seed: 999_999 });
      const rates = await rotatingRounds(sides, rounds, (side, r) => side.measure({ numEnvs, opponent, ms: slice, seed: 1 + r * 1000 }));
      console.log(`  ${numEnvs} env(s):`);
      reportSides(olds, rates, "env-steps per CPU second", "    ", (m) => `(${(1e6 / m).toFixed(1)} us/env-step)`);
    } finally {
      await Promise.all(sides.map((s) => s.close()));
    }
  }
});
