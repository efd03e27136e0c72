/**
 * Entry of a session worker thread (env/server/runtime.ts starts it). It holds the sessions the
 * main thread pinned to it in a SessionHost and answers one request at a time; binary replies are
 * transferred to the main thread, not copied. Kept a module of its own, resolved next to the
 * runtime module (source: session-worker.ts; bundles: session-worker.mjs beside serve.mjs).
 */
import { parentPort, workerData } from "node:worker_threads";
import { SessionHost, type HostReply, type HostRequest } from "./session-host.ts";
import { loadSetup, type WorkerInit } from "./session-module.ts";

const port = parentPort;
if (!port) throw new Error("session-worker.ts runs as a worker thread only");
const init = workerData as WorkerInit;
const host = new SessionHost(await loadSetup(init));

port.on("message", (m: { seq: number; req: HostRequest }) => {
  void host.handle(m.req).then((reply) => port.postMessage({ seq: m.seq, reply }, transferables(reply)));
});
port.postMessage({ ready: true });

/** The payload's buffer when the payload owns all of it (small Buffers share a pool and are copied instead). */
function transferables(reply: HostReply): ArrayBuffer[] {
  const p = reply.payload;
  if (p instanceof Uint8Array && p.byteOffset === 0 && p.byteLength === p.buffer.byteLength && p.buffer instanceof ArrayBuffer) return [p.buffer];
  return [];
}
