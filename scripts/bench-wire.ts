/**
 * `npm run bench:wire`: env-steps/s through the real HTTP + msgpack stack, from a Node client with
 * a keep-alive connection, one request in flight (how a trainer steps one session), at 1, 16, 64
 * and 256 envs per request; with a bare fastify msgpack echo as the baseline, measured in slices
 * alternating with each row's (so "vs bare echo" compares like with like on a machine whose other
 * load comes and goes; the echo row sums all its slices). The servers run in a child process so
 * client and server do not share an event loop.
 *
 * The transport is a Unix domain socket by default (what the Python package's embedded server
 * uses), or loopback TCP with `--transport tcp` (a server reached by host:port). `--obs-dtype`
 * creates the sessions with that obsDtype (docs/protocol.md). "game CPU µs/req" is the same
 * stepping in this process without a transport (the game's work); "non-game share" is the rest of
 * the server's CPU per request. CARDGYM_BENCH_SERVER_FLAGS passes node flags to the server process
 * (e.g. "--cpu-prof --cpu-prof-dir=/tmp/prof" to profile it).
 *
 * The server process runs this file bundled by scripts/run-bundled.mjs (as `npm start` runs the
 * server), or under tsx with `--server tsx`.
 *
 * `--clients K` measures the session runtime instead (docs/protocol.md, Runtime): servers with 0
 * (sessions on the event loop), 1 and 2 worker threads side by side in alternating slices, each
 * driven by K concurrent clients (own connection and session each) at `--envs` envs per request
 * (default 64), plus the 1-env request rate of each, and the stepping rate of the worker pool
 * itself with 1 and 2 workers and no HTTP (K sessions stepped through SessionRuntime).
 *
 *   npm run bench:wire -- [--game sevens] [--seconds 3] [--envs 1,16,64,256] [--transport unix|tcp] [--obs-dtype float32|float16|uint8|bits] [--server bundled|tsx]
 *   npm run bench:wire -- --clients 2 [--envs 64] [--game sevens] [--seconds 3] [--transport unix|tcp]
 */
import { spawn, type ChildProcess } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { join } from "node:path";
import { Agent, request } from "node:http";
import { fileURLToPath } from "node:url";
import { cpus, loadavg, tmpdir } from "node:os";
import { Packr, Unpackr } from "msgpackr";
import Fastify from "fastify";
import { buildApp } from "../env/server/index.ts";
import { SessionRuntime } from "../env/server/runtime.ts";
import { DEFAULT_MODEL_DIR } from "../agents/paths.ts";
import { createAgent } from "../agents/spec.ts";
import { registry as shippedRegistry } from "../engine/games.ts";
import { LearningFacilitator } from "../env/learning-facilitator.ts";
import { adapters } from "../env/games/index.ts";
import { intArg, main, parseCli, UsageError, printUsage } from "./cli.ts";

const packr = new Packr({ useRecords: false });
const unpackr = new Unpackr({ useRecords: false, mapsAsObjects: true });

async function serve(transport: Transport, workers: number | undefined): Promise<void> {
  const app = buildApp({ maxEnvsPerSession: 4096, ...(workers === undefined ? {} : { workers }) });
  const echo = Fastify({ logger: false });
  echo.removeAllContentTypeParsers();
  echo.addContentTypeParser("application/msgpack", { parseAs: "buffer" }, (_req, body, done) => {
    try {
      done(null, unpackr.unpack(body as Buffer));
    } catch (e) {
      done(e as Error, undefined);
    }
  });
  echo.post("/echo", (req, reply) => reply.type("application/msgpack").send(packr.pack(req.body)));
  const urls: Record<string, { app: string; echo: string }> = {};
  if (transport === "unix") {
    const dir = mkdtempSync(join(tmpdir(), "cardgym-bench-"));
    process.on("exit", () => rmSync(dir, { recursive: true, force: true }));
    await app.listen({ path: join(dir, "app.sock") });
    await echo.listen({ path: join(dir, "echo.sock") });
    urls.unix = { app: `unix:${join(dir, "app.sock")}|`, echo: `unix:${join(dir, "echo.sock")}|` }; // "|" ends the socket path (see post)
  } else {
    urls.tcp = { app: await app.listen({ host: "127.0.0.1", port: 0 }), echo: await echo.listen({ host: "127.0.0.1", port: 0 }) };
  }
  process.stdout.write(JSON.stringify(urls[transport]) + "\n");
  process.on("SIGTERM", () => {
    void Promise.all([app.close(), echo.close()]).then(() => process.exit(0));
  });
}

type Transport = "unix" | "tcp";

const agent = new Agent({ keepAlive: true, maxSockets: 1 });

/** POSTs to `http://host:port/path` or `unix:/socket/path|/path` (the bench's own notation). */
function post(url: string, body: Buffer, via: Agent = agent): Promise<Buffer> {
  const headers = { "content-type": "application/msgpack", accept: "application/msgpack", "content-length": body.length };
  const bar = url.indexOf("|");
  const target = url.startsWith("unix:") ? { socketPath: url.slice(5, bar), path: url.slice(bar + 1) } : new URL(url);
  return new Promise((resolve, reject) => {
    const req = request(
      { ...("socketPath" in target ? target : { host: target.hostname, port: target.port, path: target.pathname }), method: "POST", agent: via, headers },
      (res) => {
        const chunks: Buffer[] = [];
        res.on("data", (c: Buffer) => chunks.push(c));
        res.on("end", () => {
          const out = Buffer.concat(chunks);
          if ((res.statusCode ?? 0) >= 300) reject(new Error(`${url} -> ${res.statusCode}: ${JSON.stringify(unpackr.unpack(out))}`));
          else resolve(out);
        });
        res.on("error", reject);
      },
    );
    req.on("error", reject);
    req.end(body);
  });
}

/** A random legal action per env from a reply's mask (the client's share of the work). */
function chooser(seed: number) {
  let x = seed || 1;
  return (mask: { shape: number[]; data: Uint8Array }): number[] => {
    const [n, size] = mask.shape as [number, number];
    const out = new Array<number>(n);
    const legal: number[] = [];
    for (let i = 0; i < n; i++) {
      legal.length = 0;
      const row = i * size;
      for (let a = 0; a < size; a++) if (mask.data[row + a]) legal.push(a);
      x ^= x << 13;
      x ^= x >>> 17;
      x ^= x << 5;
      out[i] = legal.length ? legal[(x >>> 0) % legal.length]! : 0;
    }
    return out;
  };
}

/** CPU seconds (user + system) a process has used so far, from /proc (Linux); NaN elsewhere. */
function cpuSecondsOf(pid: number): number {
  try {
    const fields = readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1]!.split(" ");
    return (Number(fields[11]) + Number(fields[12])) / 100; // utime, stime in clock ticks (USER_HZ = 100)
  } catch {
    return NaN;
  }
}

let serverPid = 0;

interface Timing {
  requests: number;
  envSteps: number;
  perSecond: number;
  envPerSecond: number;
  /** CPU microseconds per request, in the server and in this client. */
  serverUs: number;
  clientUs: number;
}

async function timed(seconds: number, once: () => Promise<number>, warmMs = Math.max(1000, seconds * 100)): Promise<Timing> {
  // Warm up (JIT tiers, connection) before measuring: at least a second, so a row measures the
  // steady state a long training run sees, not the optimizing compiler's first passes.
  const warm = performance.now() + warmMs;
  while (performance.now() < warm) await once();
  let requests = 0;
  let envSteps = 0;
  const server0 = serverPid ? cpuSecondsOf(serverPid) : NaN;
  const client0 = process.cpuUsage();
  const start = performance.now();
  const end = start + seconds * 1000;
  while (performance.now() < end) {
    envSteps += await once();
    requests++;
  }
  const s = (performance.now() - start) / 1000;
  const client = process.cpuUsage(client0);
  const serverUs = ((cpuSecondsOf(serverPid) - server0) * 1e6) / requests;
  const clientUs = (client.user + client.system) / requests;
  return { requests, envSteps, perSecond: requests / s, envPerSecond: envSteps / s, serverUs, clientUs };
}

/** Sums timings of the same thing measured in several slices. */
function merge(parts: Timing[]): Timing {
  const requests = parts.reduce((n, t) => n + t.requests, 0);
  const envSteps = parts.reduce((n, t) => n + t.envSteps, 0);
  const secs = parts.reduce((n, t) => n + t.requests / t.perSecond, 0);
  const avg = (k: "serverUs" | "clientUs") => parts.reduce((n, t) => n + t[k] * t.requests, 0) / requests;
  return { requests, envSteps, perSecond: requests / secs, envPerSecond: envSteps / secs, serverUs: avg("serverUs"), clientUs: avg("clientUs") };
}

/**
 * The app and the bare echo measured in alternating slices (SLICES of each), so that load from
 * other jobs, which comes and goes, weighs on both sides of the ratio alike.
 */
const SLICES = 3;
async function sideBySide(seconds: number, app: () => Promise<number>, echo: () => Promise<number>): Promise<{ app: Timing; echo: Timing }> {
  const a: Timing[] = [];
  const e: Timing[] = [];
  await timed(0.001, app); // warm both before the first slice
  await timed(0.001, echo);
  for (let k = 0; k < SLICES; k++) {
    a.push(await timed(seconds / SLICES, app, 50));
    e.push(await timed(seconds / SLICES, echo, 50));
  }
  return { app: merge(a), echo: merge(e) };
}

/** The same stepping in this process, no transport: its CPU per request is the game's work. */
function inProcess(game: string, numEnvs: number, seconds: number): Promise<Timing> {
  const adapter = adapters.get(game)!;
  const f = LearningFacilitator.create({ adapter, numEnvs, seed: 1 });
  const pick = chooser(7);
  const size = adapter.actions.size;
  return (async () => {
    let b = await f.reset();
    const r = await timed(seconds, async () => {
      b = await f.step(pick({ shape: [numEnvs, size], data: b.mask }));
      return numEnvs;
    });
    return r;
  })();
}

/** Starts a bench server process (bundled, or under tsx) and resolves with its URLs. */
async function startServer(
  transport: Transport,
  tsx: boolean,
  workers: number | undefined,
): Promise<{ child: ChildProcess; urls: { app: string; echo: string } }> {
  // The server side runs bundled, as npm start and the Python package run the server (--server tsx: under tsx).
  const self = fileURLToPath(import.meta.url);
  const how = tsx ? ["--import", "tsx", self] : [fileURLToPath(new URL("./run-bundled.mjs", import.meta.url)), self];
  const flags = (process.env.CARDGYM_BENCH_SERVER_FLAGS ?? "").split(" ").filter(Boolean);
  const extra = workers === undefined ? [] : ["--workers", String(workers)];
  const child = spawn(process.execPath, [...flags, ...how, "--role", "server", "--transport", transport, ...extra], { stdio: ["ignore", "pipe", "inherit"] });
  const urls = await new Promise<{ app: string; echo: string }>((resolve, reject) => {
    let buf = "";
    child.stdout!.on("data", (c: Buffer) => {
      buf += c.toString();
      const nl = buf.indexOf("\n");
      if (nl >= 0) resolve(JSON.parse(buf.slice(0, nl)));
    });
    child.on("exit", (code) => reject(new Error(`bench server exited early (${code})`)));
  });
  return { child, urls };
}

/** Env-steps/s of `k` clients stepping their own `n`-env sessions concurrently for `ms` (each its own connection). */
async function concurrent(app: string, game: string, k: number, n: number, ms: number): Promise<number> {
  const clients = await Promise.all(
    Array.from({ length: k }, async (_, i) => {
      const via = new Agent({ keepAlive: true, maxSockets: 1 });
      const created = unpackr.unpack(await post(`${app}/v1/sessions`, packr.pack({ game, numEnvs: n, seed: 1 + i }), via));
      const base = `${app}/v1/sessions/${created.session}`;
      const reply = unpackr.unpack(await post(`${base}/reset`, packr.pack({}), via));
      return { via, base, reply, pick: chooser(n + i) };
    }),
  );
  const drive = async (until: number) => {
    let steps = 0;
    await Promise.all(
      clients.map(async (c) => {
        while (performance.now() < until) {
          c.reply = unpackr.unpack(await post(`${c.base}/step`, packr.pack({ actions: c.pick(c.reply.mask) }), c.via));
          steps += n;
        }
      }),
    );
    return steps;
  };
  await drive(performance.now() + Math.min(1000, ms / 2)); // warm up
  const t0 = performance.now();
  const steps = await drive(t0 + ms);
  const rate = steps / ((performance.now() - t0) / 1000);
  for (const c of clients) c.via.destroy();
  return rate;
}

/** The worker pool with no HTTP: k sessions of n envs stepped concurrently through SessionRuntime. */
async function poolRate(workers: number, game: string, k: number, n: number, ms: number): Promise<number> {
  const ids = Array.from({ length: k }, (_, i) => `s${i}`);
  const runtime = new SessionRuntime({
    workers,
    stepTimeoutMs: 60_000,
    setup: { registry: shippedRegistry, adapters, createAgent, modelDir: DEFAULT_MODEL_DIR },
    sessionModule: null,
    modelDir: DEFAULT_MODEL_DIR,
    workerHeapMb: 4096,
    log: () => undefined,
    sessionsOn: () => [],
    lost: () => undefined,
  });
  try {
    const state = await Promise.all(
      ids.map(async (id, i) => {
        const slot = runtime.place(n);
        await runtime.call(slot, { op: "create", session: id, body: { game, numEnvs: n, seed: 1 + i }, format: "msgpack" });
        const r = await runtime.call(slot, { op: "reset", session: id, body: {}, format: "msgpack" });
        return { id, slot, reply: unpackr.unpack(r.payload as Uint8Array), pick: chooser(n + i) };
      }),
    );
    const drive = async (until: number) => {
      let steps = 0;
      await Promise.all(
        state.map(async (s) => {
          while (performance.now() < until) {
            const r = await runtime.call(s.slot, { op: "step", session: s.id, body: { actions: s.pick(s.reply.mask) }, format: "msgpack" });
            s.reply = unpackr.unpack(r.payload as Uint8Array);
            steps += n;
          }
        }),
      );
      return steps;
    };
    await drive(performance.now() + Math.min(1000, ms / 2));
    const t0 = performance.now();
    const steps = await drive(t0 + ms);
    return steps / ((performance.now() - t0) / 1000);
  } finally {
    await runtime.close();
  }
}

/** 1-env requests/s of one client (the latency a single trainer sees). */
async function oneEnvRate(app: string, game: string, ms: number): Promise<number> {
  return (await concurrent(app, game, 1, 1, ms)) / 1;
}

async function runtimeBench(game: string, k: number, n: number, seconds: number, transport: Transport, tsx: boolean): Promise<number> {
  const configs = [0, 1, 2];
  const servers = await Promise.all(configs.map((w) => startServer(transport, tsx, w)));
  try {
    console.log(
      `cardgym runtime bench ${new Date().toISOString()}: ${game}, ${k} concurrent clients x ${n} envs/request, 1-env single client, servers with 0/1/2 session workers measured in alternating slices (${SLICES} x ${seconds} s each), over ${transport === "unix" ? "a Unix socket" : "loopback TCP"}`,
    );
    const many = configs.map(() => [] as number[]);
    const one = configs.map(() => [] as number[]);
    const slice = (seconds * 1000) / SLICES;
    for (let r = 0; r < SLICES; r++) {
      for (const [i, s] of servers.entries()) {
        many[i]!.push(await concurrent(s.urls.app, game, k, n, slice));
        one[i]!.push(await oneEnvRate(s.urls.app, game, slice));
      }
    }
    const pool = [1, 2].map(() => [] as number[]);
    for (let r = 0; r < SLICES; r++) for (const [i, w] of [1, 2].entries()) pool[i]!.push(await poolRate(w, game, k, n, slice));
    const mean = (xs: number[]) => xs.reduce((a, b) => a + b, 0) / xs.length;
    const rows = [["server", `${k} clients x ${n} envs: env-steps/s`, "vs 1 worker", "1 client x 1 env: requests/s", "vs event loop"]];
    const base = mean(many[1]!);
    const loop1 = mean(one[0]!);
    for (const [i, w] of configs.entries()) {
      rows.push([
        w === 0 ? "sessions on the event loop (workers 0)" : `${w} worker${w === 1 ? "" : "s"}`,
        mean(many[i]!).toFixed(0),
        (mean(many[i]!) / base).toFixed(2),
        mean(one[i]!).toFixed(0),
        (mean(one[i]!) / loop1).toFixed(2),
      ]);
    }
    rows.push(["pool without HTTP, 1 worker", mean(pool[0]!).toFixed(0), "-", "-", "-"]);
    rows.push(["pool without HTTP, 2 workers", mean(pool[1]!).toFixed(0), (mean(pool[1]!) / mean(pool[0]!)).toFixed(2) + " (vs pool, 1 worker)", "-", "-"]);
    const widths = rows[0]!.map((_, c) => Math.max(...rows.map((row) => row[c]!.length)));
    for (const row of rows) console.log(row.map((cell, c) => (c === 0 ? cell.padEnd(widths[c]!) : cell.padStart(widths[c]!))).join("  "));
    console.log(
      `machine: ${cpus().length} cores, load average ${loadavg()
        .map((x) => x.toFixed(1))
        .join(" ")} (the clients share these cores with the servers)`,
    );
  } finally {
    for (const s of servers) s.child.kill("SIGTERM");
  }
  return 0;
}

main(async () => {
  const usage =
    "npm run bench:wire -- [--game sevens] [--seconds 3] [--envs 1,16,64,256] [--transport unix|tcp] [--obs-dtype float32|float16|uint8|bits] [--server bundled|tsx] [--clients K]";
  const { values } = parseCli(usage, {
    role: { type: "string" },
    workers: { type: "string" },
    clients: { type: "string" },
    game: { type: "string" },
    seconds: { type: "string" },
    envs: { type: "string" },
    transport: { type: "string" },
    "obs-dtype": { type: "string" },
    server: { type: "string" },
  });
  if (values.help) return printUsage(usage);
  const obsDtype = values["obs-dtype"] ?? "float32";
  const transport = (values.transport ?? "unix") as Transport;
  if (transport !== "unix" && transport !== "tcp") throw new UsageError(`--transport must be unix or tcp, got "${values.transport}"`);
  if (values.role === "server") return serve(transport, values.workers === undefined ? undefined : intArg(values.workers, "workers", 1, 0, 1024));
  const game = values.game ?? "sevens";
  if (!adapters.has(game)) throw new UsageError(`--game: no adapter for "${game}"; have ${[...adapters.keys()].join(", ")}`);
  const seconds = intArg(values.seconds, "seconds", 3, 1, 600);
  const sizes = (values.envs ?? "1,16,64,256").split(",").map((s) => intArg(s, "envs", 1, 1, 4096));

  if (values.clients !== undefined) {
    const k = intArg(values.clients, "clients", 2, 1, 256);
    const n = values.envs === undefined ? 64 : intArg(values.envs, "envs", 64, 1, 4096);
    return runtimeBench(game, k, n, seconds, transport, values.server === "tsx");
  }
  const workers = values.workers === undefined ? undefined : intArg(values.workers, "workers", 1, 0, 1024);
  const { child, urls } = await startServer(transport, values.server === "tsx", workers);
  serverPid = child.pid ?? 0;
  try {
    console.log(
      `cardgym wire bench ${new Date().toISOString()}: ${game}, obsDtype ${obsDtype}, Node client (http keep-alive, 1 request in flight) over ${transport === "unix" ? "a Unix socket" : "loopback TCP"}, ${seconds} s per row, server in a child process (${values.server === "tsx" ? "under tsx" : "bundled"})`,
    );
    const echoBody = packr.pack({ actions: [0] });
    const echoOnce = async () => {
      await post(`${urls.echo}/echo`, echoBody);
      return 1;
    };
    const echoes: Timing[] = [];
    // CPU per request (server + client) is less sensitive to other load on the machine than wall
    // time; 1e6 / (server + client µs) estimates the rate with a core each and nothing else running.
    const est = (t: Timing) => 1e6 / (t.serverUs + t.clientUs);
    const rows: string[][] = [
      [
        "envs/request",
        "requests/s",
        "env-steps/s",
        "vs bare echo",
        "server CPU µs/req",
        "client CPU µs/req",
        "CPU-bound est. env-steps/s",
        "in-process env-steps/s",
        "game CPU µs/req",
        "non-game share",
      ],
    ];
    for (const n of sizes) {
      const created = unpackr.unpack(
        await post(`${urls.app}/v1/sessions`, packr.pack({ game, numEnvs: n, seed: 1, ...(obsDtype === "float32" ? {} : { obsDtype }) })),
      );
      const base = `${urls.app}/v1/sessions/${created.session}`;
      let reply = unpackr.unpack(await post(`${base}/reset`, packr.pack({})));
      const pick = chooser(n);
      const { app: r, echo } = await sideBySide(
        seconds,
        async () => {
          reply = unpackr.unpack(await post(`${base}/step`, packr.pack({ actions: pick(reply.mask) })));
          return n;
        },
        echoOnce,
      );
      echoes.push(echo);
      const local = await inProcess(game, n, Math.max(1, Math.floor(seconds / 2)));
      rows.push([
        String(n),
        r.perSecond.toFixed(0),
        r.envPerSecond.toFixed(0),
        (r.perSecond / echo.perSecond).toFixed(2),
        r.serverUs.toFixed(0),
        r.clientUs.toFixed(0),
        (est(r) * n).toFixed(0),
        local.envPerSecond.toFixed(0),
        local.clientUs.toFixed(0),
        `${(100 * Math.max(0, 1 - local.clientUs / r.serverUs)).toFixed(0)}%`,
      ]);
    }
    const echo = merge(echoes);
    rows.splice(1, 0, [
      "bare fastify msgpack echo",
      echo.perSecond.toFixed(0),
      "-",
      "1.00",
      echo.serverUs.toFixed(0),
      echo.clientUs.toFixed(0),
      `(${est(echo).toFixed(0)} req/s)`,
      "-",
      "-",
      "-",
    ]);
    const widths = rows[0]!.map((_, c) => Math.max(...rows.map((row) => row[c]!.length)));
    for (const row of rows) console.log(row.map((cell, c) => (c === 0 ? cell.padEnd(widths[c]!) : cell.padStart(widths[c]!))).join("  "));
    console.log("targets: >= 150k env-steps/s at 64 envs/request; at 1 env/request >= 0.80 of the bare echo");
    console.log(
      `machine: ${cpus().length} cores, load average ${loadavg()
        .map((x) => x.toFixed(1))
        .join(" ")} (other jobs skew wall-clock rates; CPU columns less so)`,
    );
  } finally {
    child.kill("SIGTERM");
    agent.destroy();
  }
  return 0;
});
