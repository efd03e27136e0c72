import { setFlagsFromString } from "node:v8";

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
 * workers get the default young generation back.
 */
export function restoreWorkerYoungGeneration(execArgv: readonly string[] = process.execArgv): boolean {
  if (!execArgv.some((a) => a.startsWith("--max-semi-space-size"))) return false;
  setFlagsFromString("--max-semi-space-size=0");
  return true;
}
