/**
 * tsx scripts/bench-env-heap.ts [--root <checkout>] [--game dcg] [--envs 1,256] [--steps 400] [--seed N] [--top K]
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
 * which kinds of object an env's bytes are, largest first (--top, default 25).
 * A benchmark, not a test: the figures depend on the run (seeds, steps), not on the machine.
 */
import { readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { setFlagsFromString, writeHeapSnapshot } from "node:v8";
import { runInNewContext } from "node:vm";
import { loadSessions, pickActions, picker, type Batch, type CreateSession, type Session } from "./bench-env-side.ts";
import { intArg, main, parseCli, printUsage } from "./cli.ts";

const USAGE = "tsx scripts/bench-env-heap.ts [--root <checkout>] [--game dcg] [--envs 1,256] [--steps 400] [--seed N] [--top K]";

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

/** The parts of a V8 heap snapshot the summary reads. */
interface HeapSnapshot {
  snapshot: { meta: { node_fields: string[]; node_types: [string[], ...unknown[]] } };
  nodes: number[];
  strings: string[];
}

/** Own sizes of a heap snapshot's objects, summed per kind: "type:name" for objects, closures and arrays, the type alone for strings, code, numbers... */
function sizesByKind(file: string): Map<string, number> {
  const snap = JSON.parse(readFileSync(file, "utf8")) as HeapSnapshot;
  const fields = snap.snapshot.meta.node_fields;
  const types = snap.snapshot.meta.node_types[0];
  const width = fields.length;
  const typeAt = fields.indexOf("type");
  const nameAt = fields.indexOf("name");
  const sizeAt = fields.indexOf("self_size");
  const named = new Set(["object", "closure", "array", "hidden", "native", "object shape", "code"]);
  const out = new Map<string, number>();
  for (let i = 0; i < snap.nodes.length; i += width) {
    const type = types[snap.nodes[i + typeAt]!] ?? "?";
    const kind = named.has(type) ? `${type}:${snap.strings[snap.nodes[i + nameAt]!] ?? "?"}` : type;
    out.set(kind, (out.get(kind) ?? 0) + snap.nodes[i + sizeAt]!);
  }
  return out;
}

/** Writes a heap snapshot to a temporary file, sums it by kind and removes the file. */
function snapshotKinds(tag: string): Map<string, number> {
  const file = writeHeapSnapshot(join(tmpdir(), `bench-env-heap-${process.pid}-${tag}.heapsnapshot`));
  try {
    return sizesByKind(file);
  } finally {
    rmSync(file, { force: true });
  }
}

const kb = (bytes: number) => `${(bytes / 1024).toFixed(1)} KB`;

main(async () => {
  const { values } = parseCli(USAGE, {
    root: { type: "string" },
    game: { type: "string" },
    envs: { type: "string" },
    steps: { type: "string" },
    seed: { type: "string" },
    top: { type: "string" },
  });
  if (values.help) return printUsage(USAGE);
  const root = resolve(values.root ?? ".");
  const game = values.game ?? "dcg";
  const counts = (values.envs ?? "1,256").split(",").map((s) => intArg(s, "envs", 1, 1, 4096));
  const steps = intArg(values.steps, "steps", 400, 0, 1_000_000);
  const seed = intArg(values.seed, "seed", 1, 0, 2 ** 31 - 1);
  const top = intArg(values.top, "top", 25, 1, 1000);
  const create = await loadSessions({ root, game, modelRoot: "" });
  // Warm up: compiled code, card memos and pools are the process's, not an env's.
  await steppedSession(create, 4, 50, seed + 7);
  console.log(`${game} env heap of ${root}, ${steps} steps, ${new Date().toISOString()}`);
  const per: { numEnvs: number; heap: number; buffers: number; kinds: Map<string, number> }[] = [];
  for (const numEnvs of counts) {
    const before = heapNow();
    const kept: Session[] = [await steppedSession(create, numEnvs, steps, seed)];
    const after = heapNow();
    const kinds = snapshotKinds(String(numEnvs));
    const heap = after.heap - before.heap;
    const buffers = after.buffers - before.buffers;
    console.log(`  ${numEnvs} env(s): heap ${kb(heap)} (${kb(heap / numEnvs)} an env), array buffers ${kb(buffers)} (${kb(buffers / numEnvs)} an env)`);
    per.push({ numEnvs, heap, buffers, kinds });
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
});
