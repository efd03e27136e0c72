/**
 * `npm run load:tables`: a bounded load test of live tables on loopback. Starts a server in a
 * child process (a throwaway data dir), keeps N tables of agents playing (paced like a real game),
 * attaches spectators over WebSocket, runs for a fixed time, then stops by itself and reports
 * errors, decisions, push latency (decision applied on the server -> frame received by a
 * spectator, both on this machine's clock) and the server's memory over time.
 *
 *   npm run load:tables -- [--tables 500] [--spectators 100] [--seconds 60] [--warmup 60] [--bot-delay 500] [--sample 5]
 * The first --warmup seconds run the same load unmeasured, so games of every age are in play when
 * measuring starts (all tables start together; without it memory rises until the first games end).
 * Exit code 1 when any request or socket failed.
 */
import { spawn } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import WebSocket from "ws";
import { buildApp } from "../env/server/index.ts";
import { intArg, main, parseCli, printUsage } from "./cli.ts";

const TABLE_KINDS = [
  { game: "sevens", seats: ["random", "random", "random"] },
  // A shorter dcg (10 turns, ~90 decisions) so games end within the run and a steady state shows.
  { game: "dcg", seats: ["random", "random"], config: { turnLimit: 10 } },
  { game: "blackpoker", seats: ["random", "random"] },
];

async function serve(dataDir: string, sampleSeconds: number, maxTables: number): Promise<void> {
  // Few finished tables in memory, so a steady state shows within the run (the rest stay on disk).
  const app = buildApp({ dataDir, maxTables, maxFinishedTables: 100 });
  const address = await app.listen({ host: "127.0.0.1", port: 0 });
  process.stdout.write(JSON.stringify({ address }) + "\n");
  const gc = (globalThis as { gc?: () => void }).gc;
  setInterval(() => {
    gc?.();
    const m = process.memoryUsage();
    process.stdout.write(JSON.stringify({ rss: m.rss, heap: m.heapUsed, held: app.cardgym.tables?.stats().decisionsHeld ?? 0 }) + "\n");
  }, sampleSeconds * 1000).unref();
  process.on("SIGTERM", () => void app.close().then(() => process.exit(0)));
}

const mib = (b: number) => (b / 1048576).toFixed(1);

function percentile(sorted: number[], p: number): number {
  if (sorted.length === 0) return NaN;
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!;
}

main(async () => {
  const usage = "npm run load:tables -- [--tables 500] [--spectators 100] [--seconds 60] [--warmup 60] [--bot-delay 500] [--sample 5]";
  const { values } = parseCli(usage, {
    role: { type: "string" },
    "data-dir": { type: "string" },
    tables: { type: "string" },
    spectators: { type: "string" },
    seconds: { type: "string" },
    warmup: { type: "string" },
    "bot-delay": { type: "string" },
    sample: { type: "string" },
  });
  if (values.help) return printUsage(usage);
  const tables = intArg(values.tables, "tables", 500, 1, 5000);
  const sample = intArg(values.sample, "sample", 5, 1, 600);
  if (values.role === "server") return serve(values["data-dir"]!, sample, tables + 100);
  const spectators = intArg(values.spectators, "spectators", 100, 0, 10_000);
  const seconds = intArg(values.seconds, "seconds", 60, 1, 3600);
  const botDelay = intArg(values["bot-delay"], "bot-delay", 500, 0, 60_000);
  const warmup = intArg(values.warmup, "warmup", 60, 0, 3600);

  const dataDir = mkdtempSync(join(tmpdir(), "cardgym-load-tables-"));
  const child = spawn(
    process.execPath,
    [
      "--expose-gc",
      "--import",
      "tsx",
      fileURLToPath(import.meta.url),
      "--role",
      "server",
      "--data-dir",
      dataDir,
      "--tables",
      String(tables),
      "--sample",
      String(sample),
    ],
    { stdio: ["ignore", "pipe", "inherit"] },
  );
  const exited = new Promise<void>((r) => child.once("exit", () => r()));
  const samples: { t: number; rss: number; heap: number; held: number }[] = [];
  let start = performance.now();
  const { address } = await new Promise<{ address: string }>((resolve, reject) => {
    let buf = "";
    child.stdout!.on("data", (c: Buffer) => {
      buf += c.toString();
      for (let nl = buf.indexOf("\n"); nl >= 0; nl = buf.indexOf("\n")) {
        const line = JSON.parse(buf.slice(0, nl));
        buf = buf.slice(nl + 1);
        if (line.address) resolve(line);
        else samples.push({ t: (performance.now() - start) / 1000, rss: line.rss, heap: line.heap, held: line.held });
      }
    });
    child.on("exit", (code) => reject(new Error(`load server exited early (${code})`)));
  });
  const ws = address.replace(/^http/, "ws");
  const errors = new Map<string, number>();
  const fail = (what: string) => errors.set(what, (errors.get(what) ?? 0) + 1);
  const latencies: number[] = [];
  let frames = 0;
  let created = 0;
  let finished = 0;
  const live = new Set<string>();
  let stopping = false;

  const create = async (k: number): Promise<void> => {
    const kind = TABLE_KINDS[k % TABLE_KINDS.length]!;
    const res = await fetch(`${address}/v1/tables`, {
      method: "POST",
      headers: { "content-type": "application/json", accept: "application/json" },
      body: JSON.stringify({ ...kind, seed: k, facilitator: "audience", deadlines: { botDelayMs: botDelay } }),
    });
    const body = (await res.json()) as { table?: string; error?: { code: string } };
    if (res.status !== 201 || !body.table) {
      fail(`create ${res.status} ${body.error?.code}`);
      return;
    }
    created++;
    live.add(body.table);
  };

  /** One spectator: watches a live table until it ends, then moves to another (until stop). */
  const spectate = (k: number): Promise<void> =>
    new Promise((resolve) => {
      const next = () => {
        if (stopping) return resolve();
        const ids = [...live];
        if (ids.length === 0) return void setTimeout(next, 200);
        const id = ids[(k * 7919 + frames) % ids.length]!;
        const socket = new WebSocket(`${ws}/v1/tables/${id}/spectate`);
        let done = false;
        socket.on("message", (data) => {
          const now = Date.now();
          const m = JSON.parse(String(data));
          if (m.type === "error") fail(`spectate ${m.error.code}`);
          if (m.type !== "spectate") return;
          frames++;
          for (const e of m.events) latencies.push(now - e.at);
          if (m.status === "finished" || stopping) {
            done = true;
            socket.close();
          }
        });
        socket.on("error", (e) => fail(`spectator socket: ${e.message}`));
        socket.on("close", () => {
          if (!done && !stopping) fail("spectator socket closed early");
          next();
        });
      };
      next();
    });

  try {
    console.log(
      `load: ${tables} live tables of agents (bot delay ${botDelay} ms) + ${spectators} spectators, ${warmup} s warm-up then ${seconds} s measured, server ${address} (child process)`,
    );
    for (let k = 0; k < tables; k++) await create(k);
    const warmEnd = performance.now() + warmup * 1000;
    const end = warmEnd + seconds * 1000;
    const appliedNow = async (): Promise<number> =>
      ((await fetch(`${address}/metrics`, { headers: { accept: "application/json" } }).then((r) => r.json())) as { tables: { decisionsApplied: number } })
        .tables.decisionsApplied;
    let appliedAtStart = 0;
    let measuring = warmup === 0;
    if (measuring) {
      start = performance.now();
      samples.length = 0;
    }
    const watchers = Array.from({ length: spectators }, (_, k) => spectate(k));
    // Keep `tables` games running: replace finished ones (bounded by the clock).
    let k = tables;
    while (performance.now() < end) {
      if (!measuring && performance.now() >= warmEnd) {
        measuring = true;
        start = performance.now();
        samples.length = 0;
        latencies.length = 0;
        appliedAtStart = await appliedNow();
        frames = 0;
        created = 0;
        finished = 0;
      }
      await new Promise((r) => setTimeout(r, 1000));
      const res = await fetch(`${address}/v1/tables?status=playing`, { headers: { accept: "application/json" } });
      const playing = new Set(((await res.json()) as { tables: { table: string }[] }).tables.map((t) => t.table));
      for (const id of [...live]) {
        if (!playing.has(id)) {
          live.delete(id);
          finished++;
        }
      }
      while (live.size < tables && performance.now() < end) await create(k++);
    }
    stopping = true;
    const elapsed = (performance.now() - start) / 1000;
    await Promise.race([Promise.all(watchers), new Promise((r) => setTimeout(r, 5000))]);
    const metrics = await fetch(`${address}/metrics`, { headers: { accept: "application/json" } }).then((r) => r.json());
    latencies.sort((a, b) => a - b);
    const totalErrors = [...errors.values()].reduce((a, b) => a + b, 0);
    const applied = metrics.tables.decisionsApplied - appliedAtStart;
    console.log(
      `tables: ${created} created, ${finished} finished in ${elapsed.toFixed(0)} s; decisions applied (each journaled with fsync): ${applied} (${(applied / elapsed).toFixed(0)}/s); spectator frames: ${frames} (${(frames / elapsed).toFixed(0)}/s)`,
    );
    console.log(`server holds ${metrics.tables.inMemory} tables in memory (${metrics.tables.live} live) with ${metrics.tables.decisionsHeld} decisions`);
    console.log(
      `push latency (decision applied -> spectator frame received), ${latencies.length} events: p50 ${percentile(latencies, 50)} ms, p99 ${percentile(latencies, 99)} ms, max ${latencies.at(-1)} ms`,
    );
    console.log(
      `errors: ${totalErrors}${totalErrors ? " " + JSON.stringify(Object.fromEntries(errors)) : ""}; server errors: ${JSON.stringify(metrics.errors)}`,
    );
    console.log("server memory after GC over time (s: RSS MiB / heap MiB / decisions held in memory):");
    console.log("  " + samples.map((s) => `${s.t.toFixed(0)}s: ${mib(s.rss)}/${mib(s.heap)}/${s.held}`).join(", "));
    if (samples.length >= 4) {
      const half = Math.floor(samples.length / 2);
      const avg = (xs: typeof samples, key: "rss" | "heap") => xs.reduce((a, s) => a + s[key], 0) / xs.length;
      for (const key of ["rss", "heap"] as const) {
        const first = avg(samples.slice(1, half), key);
        const second = avg(samples.slice(half), key);
        console.log(
          `${key} first half (after warm-up) ${mib(first)} MiB, second half ${mib(second)} MiB: ${(((second - first) / first) * 100).toFixed(1)}% change`,
        );
      }
    }
    return totalErrors === 0 ? 0 : 1;
  } finally {
    child.kill("SIGTERM");
    await exited;
    rmSync(dataDir, { recursive: true, force: true });
  }
});
