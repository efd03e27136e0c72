/**
 * `npm run load`: a bounded load test on loopback. Starts a server in a child process on
 * 127.0.0.1, opens many sessions, steps them all concurrently for a fixed time, then stops by
 * itself and reports errors, steps and the server's RSS over time (memory should stay flat).
 *
 *   npm run load -- [--sessions 200] [--seconds 60] [--envs 4] [--game sevens] [--sample 5]
 * Exit code 1 when any request failed.
 */
import { spawn } from "node:child_process";
import { Agent, request } from "node:http";
import { fileURLToPath } from "node:url";
import { Packr, Unpackr } from "msgpackr";
import { buildApp } from "../env/server/index.ts";
import { adapters } from "../env/games/index.ts";
import { intArg, main, parseCli, UsageError, printUsage } from "./cli.ts";

const packr = new Packr({ useRecords: false });
const unpackr = new Unpackr({ useRecords: false, mapsAsObjects: true });

async function serve(maxSessions: number, sampleSeconds: number): Promise<void> {
  const app = buildApp({ maxSessions: Math.max(maxSessions, 1), maxTotalEnvs: 1_000_000 });
  const address = await app.listen({ host: "127.0.0.1", port: 0 });
  process.stdout.write(JSON.stringify({ address }) + "\n");
  // Memory after a full GC is what the server really retains; report it on stdout every sample.
  const gc = (globalThis as { gc?: () => void }).gc;
  setInterval(() => {
    gc?.();
    const m = process.memoryUsage();
    process.stdout.write(JSON.stringify({ rss: m.rss, heap: m.heapUsed }) + "\n");
  }, sampleSeconds * 1000).unref();
  process.on("SIGTERM", () => void app.close().then(() => process.exit(0)));
}

function call(agent: Agent, method: string, url: string, body?: unknown): Promise<{ status: number; body: any }> {
  const payload = body === undefined ? undefined : packr.pack(body);
  return new Promise((resolve, reject) => {
    const headers: Record<string, string | number> = { accept: "application/msgpack" };
    if (payload) Object.assign(headers, { "content-type": "application/msgpack", "content-length": payload.length });
    const req = request(url, { method, agent, headers }, (res) => {
      const chunks: Buffer[] = [];
      res.on("data", (c: Buffer) => chunks.push(c));
      res.on("end", () => {
        const raw = Buffer.concat(chunks);
        resolve({ status: res.statusCode ?? 0, body: raw.length ? unpackr.unpack(raw) : null });
      });
      res.on("error", reject);
    });
    req.on("error", reject);
    req.end(payload);
  });
}

function pickLegal(mask: { shape: number[]; data: Uint8Array }, state: { x: number }): number[] {
  const [n, size] = mask.shape as [number, number];
  const out: number[] = [];
  for (let i = 0; i < n; i++) {
    const legal: number[] = [];
    for (let a = 0; a < size; a++) if (mask.data[i * size + a]) legal.push(a);
    state.x = (Math.imul(state.x, 1103515245) + 12345) >>> 0;
    out.push(legal.length ? legal[(state.x >>> 8) % legal.length]! : 0);
  }
  return out;
}

const mib = (b: number) => (b / 1048576).toFixed(1);

main(async () => {
  const usage = "npm run load -- [--sessions 200] [--seconds 60] [--envs 4] [--game sevens] [--sample 5]";
  const { values } = parseCli(usage, {
    role: { type: "string" },
    sessions: { type: "string" },
    seconds: { type: "string" },
    envs: { type: "string" },
    game: { type: "string" },
    sample: { type: "string" },
  });
  if (values.help) return printUsage(usage);
  const sessions = intArg(values.sessions, "sessions", 200, 1, 10_000);
  const sample = intArg(values.sample, "sample", 5, 1, 600);
  if (values.role === "server") return serve(sessions, sample);
  const seconds = intArg(values.seconds, "seconds", 60, 1, 3600);
  const envs = intArg(values.envs, "envs", 4, 1, 1024);
  const game = values.game ?? "sevens";
  if (!adapters.has(game)) throw new UsageError(`--game: no adapter for "${game}"; have ${[...adapters.keys()].join(", ")}`);

  const child = spawn(
    process.execPath,
    ["--expose-gc", "--import", "tsx", fileURLToPath(import.meta.url), "--role", "server", "--sessions", String(sessions), "--sample", String(sample)],
    { stdio: ["ignore", "pipe", "inherit"] },
  );
  const samples: { t: number; rss: number; heap: number }[] = [];
  let start = performance.now();
  const { address } = await new Promise<{ address: string }>((resolve, reject) => {
    let buf = "";
    child.stdout!.on("data", (c: Buffer) => {
      buf += c.toString();
      for (let nl = buf.indexOf("\n"); nl >= 0; nl = buf.indexOf("\n")) {
        const line = JSON.parse(buf.slice(0, nl));
        buf = buf.slice(nl + 1);
        if (line.address) resolve(line);
        else samples.push({ t: (performance.now() - start) / 1000, rss: line.rss, heap: line.heap });
      }
    });
    child.on("exit", (code) => reject(new Error(`load server exited early (${code})`)));
  });
  const agent = new Agent({ keepAlive: true, maxSockets: sessions });
  const errors = new Map<string, number>();
  const fail = (what: string) => errors.set(what, (errors.get(what) ?? 0) + 1);
  let steps = 0;
  let episodes = 0;
  try {
    console.log(`load: ${sessions} sessions x ${envs} envs of ${game}, ${seconds} s, server ${address} (child process)`);
    const ids: string[] = [];
    for (let k = 0; k < sessions; k++) {
      const r = await call(agent, "POST", `${address}/v1/sessions`, { game, numEnvs: envs, seed: k });
      if (r.status !== 201) throw new Error(`creating session ${k}: ${r.status} ${JSON.stringify(r.body)}`);
      ids.push(r.body.session);
    }
    start = performance.now();
    samples.length = 0;
    const end = start + seconds * 1000;
    await Promise.all(
      ids.map(async (id, k) => {
        const rng = { x: k + 1 };
        let r = await call(agent, "POST", `${address}/v1/sessions/${id}/reset`, {});
        if (r.status !== 200) return fail(`reset ${r.status} ${r.body?.error?.code}`);
        while (performance.now() < end) {
          r = await call(agent, "POST", `${address}/v1/sessions/${id}/step`, { actions: pickLegal(r.body.mask, rng) });
          if (r.status !== 200) {
            fail(`step ${r.status} ${r.body?.error?.code}`);
            return;
          }
          steps++;
          for (const v of r.body.terminated.data as Uint8Array) episodes += v;
        }
      }),
    ).catch((e: Error) => fail(`transport: ${e.message}`));
    const elapsed = (performance.now() - start) / 1000;
    for (const id of ids) await call(agent, "DELETE", `${address}/v1/sessions/${id}`);
    const totalErrors = [...errors.values()].reduce((a, b) => a + b, 0);
    console.log(
      `steps: ${steps} requests (${(steps / elapsed).toFixed(0)}/s), ${steps * envs} env-steps (${((steps * envs) / elapsed).toFixed(0)}/s), ${episodes} episodes ended`,
    );
    console.log(`errors: ${totalErrors}${totalErrors ? " " + JSON.stringify(Object.fromEntries(errors)) : ""}`);
    console.log("server memory after GC over time (s: RSS MiB / heap MiB):");
    console.log("  " + samples.map((s) => `${s.t.toFixed(0)}s: ${mib(s.rss)}/${mib(s.heap)}`).join(", "));
    if (samples.length >= 4) {
      const half = Math.floor(samples.length / 2);
      const avg = (xs: typeof samples, k: "rss" | "heap") => xs.reduce((a, s) => a + s[k], 0) / xs.length;
      for (const k of ["rss", "heap"] as const) {
        const first = avg(samples.slice(1, half), k);
        const second = avg(samples.slice(half), k);
        console.log(
          `${k} first half (after warm-up) ${mib(first)} MiB, second half ${mib(second)} MiB: ${(((second - first) / first) * 100).toFixed(1)}% change`,
        );
      }
    }
    return totalErrors === 0 ? 0 : 1;
  } finally {
    child.kill("SIGTERM");
    agent.destroy();
  }
});
