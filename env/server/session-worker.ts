/**
 * Entry of a session worker thread (env/server/runtime.ts starts it). It holds the sessions the
 * main thread pinned to it in a SessionHost and answers one request at a time; binary replies are
 * transferred to the main thread, not copied. With the fast path on, it also serves its sessions'
 * frames on its own Unix socket (env/server/fast-path.ts), marking each request in a shared
 * buffer so that the main thread can hold it to the step budget. Kept a module of its own,
 * resolved next to the runtime module (source: session-worker.ts; bundles: session-worker.mjs
 * beside serve.mjs).
 */
import { parentPort, workerData } from "node:worker_threads";
import { FastPathServer, type FastEvent } from "./fast-path.ts";
import type { FromWorker, HostReply, ToWorker } from "./host-protocol.ts";
import { SessionHost } from "./session-host.ts";
import { loadSetup, type WorkerInit } from "./session-module.ts";

const port = parentPort;
if (!port) throw new Error("session-worker.ts runs as a worker thread only");
const init = workerData as WorkerInit;
const host = new SessionHost(await loadSetup(init));

/** Every message to the HTTP thread goes through here, so that it is one of the FromWorker kinds. */
const post = (message: FromWorker, transfer: ArrayBuffer[] = []): void => port.postMessage(message, transfer);

port.on("message", (m: ToWorker) => {
  void host.handle(m.req).then((reply) => post({ kind: "reply", seq: m.seq, reply }, transferables(reply)));
});

let fastPath = false;
if (init.fastPath) {
  const { path, maxFrame, maxEnvsPerSession, state } = init.fastPath;
  const busy = new Int32Array(state, 0, 1);
  const since = new Float64Array(state, 8, 1);
  const counts = new Float64Array(state, 16, 2);
  const server = new FastPathServer(
    {
      handle: (req) => host.handle(req),
      keyed: (key) => host.keyed(key),
      event: (event: FastEvent) => post({ kind: "fast", event }),
      busy: (handle) => {
        if (handle !== 0) since[0] = Date.now();
        Atomics.store(busy, 0, handle);
      },
      stepped: (envs) => {
        counts[0] = (counts[0] ?? 0) + 1;
        counts[1] = (counts[1] ?? 0) + envs;
      },
    },
    { path, maxFrame, maxEnvsPerSession },
  );
  try {
    await server.listen();
    fastPath = true;
  } catch (e) {
    post({ kind: "fastUnavailable", message: e instanceof Error ? e.message : String(e) });
  }
}
post({ kind: "ready", fastPath });

/** The payload's buffer when the payload owns all of it (small Buffers share a pool and are copied instead). */
function transferables(reply: HostReply): ArrayBuffer[] {
  const p = reply.payload;
  if (p instanceof Uint8Array && p.byteOffset === 0 && p.byteLength === p.buffer.byteLength && p.buffer instanceof ArrayBuffer) return [p.buffer];
  return [];
}
