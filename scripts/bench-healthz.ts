/**
 * npm run bench:healthz -- [--budget MS] [--idle N]
 *
 * How fast the server stays while a session is stuck: on a real listening server with one session
 * worker and a step budget of --budget ms (default 1500), the costliest mcts and computer specs
 * admission lets through at 64 envs are stepped until the budget cuts them off (503
 * step_timeout), while /healthz is polled every 25 ms. Prints /healthz latency (p50, p99, max)
 * idle (--idle requests, default 200) and during each stuck step, and how long after the budget
 * the 503 came back. A benchmark, not a test: it reports figures and fails only if the server
 * misbehaves (a /healthz that is not 200, a stuck step that is not cut off).
 * test/server/budget.test.ts checks the behaviour itself.
 */
import { cpus, loadavg } from "node:os";
import { Packr, Unpackr } from "msgpackr";
import { buildApp } from "../env/server/index.ts";
import { intArg, main, parseCli, printUsage } from "./cli.ts";

const USAGE = "npm run bench:healthz -- [--budget MS] [--idle N]";
const MAX_ENVS = 64;
const MAX_COST = 1_000_000;
const PER_ENV = MAX_COST / MAX_ENVS;
const STUCK = { mcts: `mcts:iters=${PER_ENV}`, computer: "computer:dets=32,rollouts=30" };

const packr = new Packr({ useRecords: false });
const unpackr = new Unpackr({ useRecords: false, mapsAsObjects: true });

async function call(base: string, method: string, path: string, body?: unknown): Promise<{ status: number; body: any }> {
  const r = await fetch(base + path, {
    method,
    body: body === undefined ? undefined : new Uint8Array(packr.pack(body)),
    headers: { accept: "application/msgpack", ...(body === undefined ? {} : { "content-type": "application/msgpack" }) },
  });
  const raw = Buffer.from(await r.arrayBuffer());
  return { status: r.status, body: raw.length > 0 ? unpackr.unpack(raw) : null };
}

/** The first legal action of each env, from a [N, A] mask tensor. */
function firstLegal(mask: { shape: number[]; data: Uint8Array }): number[] {
  const [n, size] = mask.shape as [number, number];
  return Array.from({ length: n }, (_, e) => Math.max(0, mask.data.subarray(e * size, (e + 1) * size).indexOf(1)));
}

async function healthOnce(base: string): Promise<number> {
  const t0 = performance.now();
  const r = await fetch(`${base}/healthz`);
  await r.arrayBuffer();
  if (r.status !== 200) throw new Error(`/healthz answered ${r.status}`);
  return performance.now() - t0;
}

/** Polls /healthz every 25 ms while `busy` is pending; returns the latencies. */
async function healthWhile(base: string, busy: Promise<unknown>): Promise<number[]> {
  let settled = false;
  void busy.finally(() => (settled = true)).catch(() => undefined);
  const out: number[] = [];
  while (!settled) {
    out.push(await healthOnce(base));
    await new Promise((r) => setTimeout(r, 25));
  }
  return out;
}

/** Steps a 64-env dcg session with `spec` at seat 1 until a reply is not 200; returns it and how long it took. */
async function stuck(base: string, spec: string): Promise<{ status: number; code: string | undefined; ms: number }> {
  const created = await call(base, "POST", "/v1/sessions", { game: "dcg", numEnvs: MAX_ENVS, seed: 5, seats: ["learner", spec] });
  if (created.status !== 201 && created.status !== 200) throw new Error(`create ${spec}: ${created.status} ${JSON.stringify(created.body)}`);
  const id = created.body.session as string;
  let t0 = performance.now();
  let r = await call(base, "POST", `/v1/sessions/${id}/reset`, {});
  for (let s = 0; r.status === 200 && s < 20; s++) {
    t0 = performance.now();
    r = await call(base, "POST", `/v1/sessions/${id}/step`, { actions: firstLegal(r.body.mask) });
  }
  return { status: r.status, code: r.body?.error?.code, ms: performance.now() - t0 };
}

function quantile(xs: readonly number[], q: number): number {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor(q * s.length))] ?? NaN;
}

function row(label: string, xs: readonly number[]): string {
  const f = (x: number) => x.toFixed(1).padStart(7);
  return `${label.padEnd(24)} ${String(xs.length).padStart(5)} ${f(quantile(xs, 0.5))} ${f(quantile(xs, 0.99))} ${f(Math.max(...xs))}`;
}

main(async () => {
  const { values } = parseCli(USAGE, { budget: { type: "string" }, idle: { type: "string" } });
  if (values.help) return printUsage(USAGE);
  const budget = intArg(values.budget, "budget", 1500, 100);
  const idleN = intArg(values.idle, "idle", 200, 1);
  const app = buildApp({ workers: 1, stepTimeoutMs: budget, maxEnvsPerSession: MAX_ENVS, maxAgentCost: MAX_COST });
  try {
    const base = await app.listen({ host: "127.0.0.1", port: 0 });
    console.log(
      `${new Date().toISOString()}  ${cpus().length} cores, load ${loadavg()
        .map((l) => l.toFixed(2))
        .join(" ")}, budget ${budget} ms`,
    );
    console.log(`${"/healthz latency (ms)".padEnd(24)} ${"n".padStart(5)} ${"p50".padStart(7)} ${"p99".padStart(7)} ${"max".padStart(7)}`);
    const idle: number[] = [];
    for (let i = 0; i < idleN; i++) idle.push(await healthOnce(base));
    console.log(row("idle", idle));
    const late: string[] = [];
    for (const [kind, spec] of Object.entries(STUCK)) {
      const step = stuck(base, spec);
      const during = await healthWhile(base, step);
      const r = await step;
      if (r.status !== 503 || r.code !== "step_timeout") throw new Error(`${spec}: expected 503 step_timeout, got ${r.status} ${r.code}`);
      console.log(row(`during a stuck ${kind}`, during));
      late.push(`${kind} ${r.ms.toFixed(0)} ms (${(r.ms - budget).toFixed(0)} ms past the budget)`);
    }
    console.log(`503 step_timeout after: ${late.join(", ")}`);
  } finally {
    await app.close();
  }
});
