/**
 * `npm run bench:hop -- [--seconds S] [--rounds N] [--bytes B]`: what one round trip
 * between the event-loop thread and a session worker costs, by the ways a server could hand a
 * request over: postMessage (what the HTTP path does), a SharedArrayBuffer with Atomics
 * wait/notify where the event loop waits with Atomics.waitAsync (it must not block), and the same
 * with a blocking Atomics.wait (the floor of a shared-memory handoff between two threads or
 * processes; not usable on a server's event loop), and a Unix socket round trip to the worker (what
 * the fast path does, there between Python and a worker). The worker copies
 * a B-byte reply (a 1-env sevens step reply is about 1.8 KB) each time. Rounds interleave the
 * three; figures are round trips/s and CPU µs per round trip (both threads, process.cpuUsage).
 */
import { connect } from "node:net";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Worker } from "node:worker_threads";
import { intArg, main, parseCli, printUsage } from "./cli.ts";

const USAGE = "npm run bench:hop -- [--seconds S] [--rounds N] [--bytes B]";

const WORKER = `
const { parentPort, workerData } = require("node:worker_threads");
const { createServer } = require("node:net");
const { sab, bytes, socketPath } = workerData;
createServer((c) => c.on("data", () => c.write(Buffer.alloc(bytes, 7)))).listen(socketPath);
const ctl = new Int32Array(sab, 0, 2);
const data = new Uint8Array(sab, 8);
const reply = new Uint8Array(bytes).fill(7);
parentPort.on("message", (m) => {
  if (m === "ring") {
    // Serve the ring until told to stop: wait for a request (ctl[0] = 1), answer (ctl[0] = 2).
    for (;;) {
      Atomics.wait(ctl, 0, 0);
      const v = Atomics.load(ctl, 0);
      if (v === 3) { Atomics.store(ctl, 0, 0); parentPort.postMessage("ring-stopped"); return; }
      if (v !== 1) continue;
      data.set(reply, 0);
      Atomics.store(ctl, 0, 2);
      Atomics.notify(ctl, 0);
      while (Atomics.load(ctl, 0) === 2) Atomics.wait(ctl, 0, 2);
    }
  }
  parentPort.postMessage(reply.slice());
});
`;

/** Atomics.waitAsync (Node 16+; not yet in the TypeScript lib this project targets). */
const waitAsync = (Atomics as unknown as { waitAsync(a: Int32Array, i: number, v: number): { async: boolean; value: Promise<string> | string } }).waitAsync;

interface Result {
  trips: number;
  wall: number;
  cpuUs: number;
}

async function measure(seconds: number, trip: () => Promise<void> | void): Promise<Result> {
  const c0 = process.cpuUsage();
  const t0 = performance.now();
  let trips = 0;
  while (performance.now() - t0 < seconds * 1000) {
    for (let i = 0; i < 100; i++) await trip();
    trips += 100;
  }
  const cpu = process.cpuUsage(c0);
  return { trips, wall: (performance.now() - t0) / 1000, cpuUs: cpu.user + cpu.system };
}

main(async () => {
  const { values } = parseCli(USAGE, { seconds: { type: "string" }, rounds: { type: "string" }, bytes: { type: "string" } });
  if (values.help) return printUsage(USAGE);
  const seconds = intArg(values.seconds, "seconds", 2, 1, 600);
  const rounds = intArg(values.rounds, "rounds", 3, 1, 100);
  const bytes = intArg(values.bytes, "bytes", 1800, 1, 1 << 20);
  const sab = new SharedArrayBuffer(8 + bytes);
  const ctl = new Int32Array(sab, 0, 2);
  const dir = mkdtempSync(join(tmpdir(), "cg-hop-"));
  const socketPath = join(dir, "hop.sock");
  const worker = new Worker(WORKER, { eval: true, workerData: { sab, bytes, socketPath } });
  const out = new Uint8Array(bytes);

  const postMessageTrip = () =>
    new Promise<void>((resolve) => {
      worker.once("message", (m: Uint8Array) => {
        out.set(m);
        resolve();
      });
      worker.postMessage("go");
    });
  const ringRequest = () => {
    Atomics.store(ctl, 0, 1);
    Atomics.notify(ctl, 0);
  };
  const ringDone = () => {
    out.set(new Uint8Array(sab, 8, bytes));
    Atomics.store(ctl, 0, 0);
    Atomics.notify(ctl, 0);
  };
  const ringAsyncTrip = async () => {
    ringRequest();
    const w = waitAsync(ctl, 0, 1);
    if (w.async) await w.value;
    ringDone();
  };
  const ringBlockingTrip = () => {
    ringRequest();
    Atomics.wait(ctl, 0, 1);
    ringDone();
  };
  await postMessageTrip(); // the worker is up (and listening)
  const sock = await new Promise<ReturnType<typeof connect>>((resolve, reject) => {
    const s = connect({ path: socketPath }, () => resolve(s));
    s.once("error", reject);
  });
  let got = 0;
  let wake: (() => void) | null = null;
  sock.on("data", (chunk: Buffer) => {
    out.set(chunk.subarray(0, Math.min(chunk.length, bytes - got)), got);
    got += chunk.length;
    if (got >= bytes && wake) {
      got = 0;
      const w = wake;
      wake = null;
      w();
    }
  });
  const socketTrip = () =>
    new Promise<void>((resolve) => {
      wake = resolve;
      sock.write(Buffer.alloc(8));
    });
  const ways: [string, () => Promise<void> | void, boolean][] = [
    ["postMessage", postMessageTrip, false],
    ["SAB ring, Atomics.waitAsync", ringAsyncTrip, true],
    ["SAB ring, blocking Atomics.wait", ringBlockingTrip, true],
    ["Unix socket", socketTrip, false],
  ];
  const results = new Map<string, Result[]>(ways.map(([name]) => [name, []]));
  for (let r = 0; r < rounds; r++) {
    for (const [name, trip, ring] of r % 2 === 0 ? ways : [...ways].reverse()) {
      if (ring) worker.postMessage("ring");
      results.get(name)!.push(await measure(seconds, trip));
      if (ring) {
        const stopped = new Promise((resolve) => worker.once("message", resolve));
        Atomics.store(ctl, 0, 3);
        Atomics.notify(ctl, 0);
        await stopped;
      }
    }
  }
  sock.destroy();
  await worker.terminate();
  rmSync(dir, { recursive: true, force: true });
  const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
  console.log(`${new Date().toISOString().slice(0, 16)} UTC, ${rounds} rounds of ${seconds} s, ${bytes}-byte replies`);
  for (const [name, rs] of results) {
    const rate = median(rs.map((x) => x.trips / x.wall));
    const cpu = median(rs.map((x) => x.cpuUs / x.trips));
    console.log(`${name.padEnd(34)} ${Math.round(rate).toLocaleString("en").padStart(10)} round trips/s   ${cpu.toFixed(1).padStart(6)} CPU us each`);
  }
  return 0;
});
