/**
 * tsx scripts/bench-env-heap.ts [--root <checkout>] [--game dcg] [--envs 1,256] [--steps 400] [--seed N] [--top K] [--depth D]
 *
 * The heap a learning session's env holds, of this checkout or another one (--root, e.g. a `git
 * worktree add` of an older commit): for each env count, a session built as the server's session
 * worker builds it (scripts/bench-env-side.ts), the learner at seat 0 against `random`, reset and
 * stepped --steps times with a uniformly random legal action per env, then the heap after a full
 * collection with the session alive, less the heap before it was made. The difference between
 * the largest and the smallest env count, per env added, is what one env holds; reply buffers'
 * backing stores (the observation rows) are outside the heap and reported apart ("array
 * buffers"). Then a heap snapshot of each of the two sessions, the objects' own sizes summed by
 * kind (constructor, or V8's name for arrays, strings, code...) and the difference per env added:
 * which kinds of object an env's bytes are, largest first (--top, default 25). Last, what each
 * env of the largest session retains (the dominator tree of the snapshot, heap-snapshot.ts),
 * averaged over its envs, by property path from the env's slot in the session to --depth levels
 * (default 3): "env.game.~object:system / Context" is an object reached from env.game through
 * objects env.game dominates, an "env.~..." path something two of the slot's fields share.
 * A benchmark, not a test: the figures depend on the run (seeds, steps), not on the machine.
 */
import { rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { setFlagsFromString, writeHeapSnapshot } from "node:v8";
import { runInNewContext } from "node:vm";
import { loadSessions, pickActions, picker, type Batch, type CreateSession, type Session } from "./bench-env-side.ts";
import { intArg, main, parseCli, printUsage } from "./cli.ts";
import { HeapGraph, type PathBytes } from "./heap-snapshot.ts";

const USAGE = "tsx scripts/bench-env-heap.ts [--root <checkout>] [--game dcg] [--envs 1,256] [--steps 400] [--seed N] [--top K] [--depth D]";

setFlagsFromString("--expose-gc");
const gc = runInNewContext("gc") as () => void;

/** A full collection, twice (the first may leave what finalizers and weak maps free for the second). */
function collect(): void {
  gc();
  gc();
}

/** Heap in use and array buffers' backing stores, bytes, after a full collection. */
function heapNow(): { heap: number; buffers: number } {
  collect();
  const m = process.memoryUsage();
  return { heap: m.heapUsed, buffers: m.arrayBuffers };
}

/** A session of `numEnvs` envs, reset and stepped `steps` times with random legal actions. */
async function steppedSession(create: CreateSession, numEnvs: number, steps: number, seed: number): Promise<Session> {
  const session = create(numEnvs, "random", seed);
  let batch: Batch = await session.reset(seed);
  const actionSize = batch.mask.length / numEnvs;
  const actions = new Int32Array(numEnvs);
  const ids = new Int32Array(actionSize);
  const pick = picker(seed);
  const step = session.stepNow ? session.stepNow.bind(session) : session.step.bind(session);
  for (let i = 0; i < steps; i++) {
    pickActions(batch.mask, actionSize, actions, pick, ids);
    const b = step(actions);
    batch = b instanceof Promise ? await b : b;
  }
  return session;
}

/**
 * A heap snapshot of this process, summed by kind and broken down per env slot to `depth` levels
 * (averaged over the slots). The snapshot's graph lives only in here: held in the caller's frame, it
 * would be in the next snapshot.
 */
function snapshotSummary(tag: string, depth: number): { kinds: Map<string, number>; paths: PathBytes[] } {
  const file = writeHeapSnapshot(join(tmpdir(), `bench-env-heap-${process.pid}-${tag}.heapsnapshot`));
  let graph: HeapGraph;
  try {
    graph = new HeapGraph(file);
  } finally {
    rmSync(file, { force: true });
  }
  const slots = envSlots(graph);
  const n = Math.max(1, slots.length);
  const paths = graph.breakdown(slots, depth).map((p) => ({ ...p, retained: p.retained / n, own: p.own / n, objects: p.objects / n }));
  return { kinds: graph.sizesByKind(), paths };
}

/** The env slots of the (one) learning session in a snapshot: its LearningFacilitator's `envs`. */
function envSlots(graph: HeapGraph): number[] {
  const facilitator = graph.find("object", "LearningFacilitator");
  const envs = facilitator === null ? null : graph.child(facilitator, "envs");
  if (envs === null) return [];
  return [...graph.edges(envs)].filter(([label]) => label === "[]").map(([, v]) => v);
}

/** Paths of the per-env breakdown retaining fewer bytes an env than this are left out. */
const minPathBytes = 150;

const kb = (bytes: number) => `${(bytes / 1024).toFixed(1)} KB`;

main(async () => {
  const { values } = parseCli(USAGE, {
    root: { type: "string" },
    game: { type: "string" },
    envs: { type: "string" },
    steps: { type: "string" },
    seed: { type: "string" },
    top: { type: "string" },
    depth: { type: "string" },
  });
  if (values.help) return printUsage(USAGE);
  const root = resolve(values.root ?? ".");
  const game = values.game ?? "dcg";
  const counts = (values.envs ?? "1,256").split(",").map((s) => intArg(s, "envs", 1, 1, 4096));
  const steps = intArg(values.steps, "steps", 400, 0, 1_000_000);
  const seed = intArg(values.seed, "seed", 1, 0, 2 ** 31 - 1);
  const top = intArg(values.top, "top", 25, 1, 1000);
  const depth = intArg(values.depth, "depth", 3, 0, 20);
  const create = await loadSessions({ root, game, modelRoot: "" });
  // Warm up: compiled code, card memos and pools are the process's, not an env's.
  await steppedSession(create, 4, 50, seed + 7);
  console.log(`${game} env heap of ${root}, ${steps} steps, ${new Date().toISOString()}`);
  const per: { numEnvs: number; heap: number; buffers: number; kinds: Map<string, number>; paths: PathBytes[] }[] = [];
  for (const numEnvs of counts) {
    const before = heapNow();
    const kept: Session[] = [await steppedSession(create, numEnvs, steps, seed)];
    const after = heapNow();
    const { kinds, paths } = snapshotSummary(String(numEnvs), depth);
    const heap = after.heap - before.heap;
    const buffers = after.buffers - before.buffers;
    console.log(`  ${numEnvs} env(s): heap ${kb(heap)} (${kb(heap / numEnvs)} an env), array buffers ${kb(buffers)} (${kb(buffers / numEnvs)} an env)`);
    per.push({ numEnvs, heap, buffers, kinds, paths });
    kept.length = 0;
  }
  const lo = per[0];
  const hi = per[per.length - 1];
  if (!lo || !hi || hi.numEnvs === lo.numEnvs) return;
  const added = hi.numEnvs - lo.numEnvs;
  console.log(
    `  per env added (${lo.numEnvs} -> ${hi.numEnvs} envs): heap ${kb((hi.heap - lo.heap) / added)}, array buffers ${kb((hi.buffers - lo.buffers) / added)}`,
  );
  const rows = [...new Set([...lo.kinds.keys(), ...hi.kinds.keys()])]
    .map((k) => ({ k, d: ((hi.kinds.get(k) ?? 0) - (lo.kinds.get(k) ?? 0)) / added }))
    .sort((a, b) => b.d - a.d);
  const total = rows.reduce((s, r) => s + r.d, 0);
  console.log(`  heap snapshot, own sizes per env added by kind (${kb(total)} in all):`);
  for (const { k, d } of rows.slice(0, top)) console.log(`    ${(d / 1024).toFixed(2).padStart(8)} KB  ${k}`);
  console.log(
    `  what an env retains in the ${hi.numEnvs}-env session, by path from its env slot (dominator tree; bytes an env, retained / own, objects an env):`,
  );
  for (const p of hi.paths.filter((r) => r.retained >= minPathBytes).sort((a, b) => (a.path < b.path ? -1 : 1)))
    console.log(`    ${p.retained.toFixed(0).padStart(7)} ${p.own.toFixed(0).padStart(6)} ${p.objects.toFixed(1).padStart(6)}  env${p.path} (${p.kind})`);
});
