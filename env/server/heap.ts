import { setFlagsFromString } from "node:v8";
import type { ResourceLimits } from "node:worker_threads";

/**
 * Node flags the server process is started with (`npm start`, the Python package's embedded
 * server): the event-loop thread only parses requests, routes them and writes the workers' reply
 * bytes, so a 1 MiB young generation is enough for it, and an idle server holds about 3.5 MiB less
 * (docs/benchmarks.md, "Idle server memory"). package.json's start script and
 * python/cardgym/server.py pass these; a test checks that they agree with this list.
 */
export const SERVER_NODE_FLAGS = ["--max-semi-space-size=1"] as const;

/**
 * V8 reads --max-semi-space-size when it creates an isolate, and the flag wins over a worker's
 * resourceLimits: without this, every session worker would also get the 1 MiB young generation, and
 * stepping allocates enough for that to cost 15-40% of the throughput at 64 envs per request. Reset
 * to V8's default (0) once the event loop's heap exists and before the first worker starts, the
 * workers get the young generation of their own resourceLimits (sessionWorkerLimits).
 */
export function restoreWorkerYoungGeneration(execArgv: readonly string[] = process.execArgv): boolean {
  if (!execArgv.some((a) => a.startsWith("--max-semi-space-size"))) return false;
  setFlagsFromString("--max-semi-space-size=0");
  return true;
}

/**
 * The young generation a session worker may grow to (MiB; V8 splits it into two semi-spaces and a
 * large-object space, so 96 allows 32 MiB semi-spaces where V8's default stops at 16). A learning
 * session's state is a persistent structure: an env's unchanged cards live until that env is
 * stepped again, one env-step of every other env later, so with many envs they outlive a 16 MiB
 * semi-space, and every minor collection copies and promotes them (at 256 envs about 3.5 MiB a
 * collection against 0.2 MiB at 64, and a fifth of the CPU). V8 grows the semi-spaces only while
 * much survives; a busy worker holds up to about 30 MiB more than with the default, an idle one
 * nothing (docs/benchmarks.md, "dcg env-steps of a session worker").
 */
export const SESSION_WORKER_YOUNG_MB = 96;

/** The resource limits a session worker starts with: `heapMb` of old generation, SESSION_WORKER_YOUNG_MB of young. */
export function sessionWorkerLimits(heapMb: number): ResourceLimits {
  return { maxOldGenerationSizeMb: heapMb, maxYoungGenerationSizeMb: SESSION_WORKER_YOUNG_MB };
}
