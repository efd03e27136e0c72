import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { FastifyInstance } from "fastify";
import { buildApp } from "../../env/server/index.ts";
import { Client, fetchTransport, maskedPicker, tensor } from "./client.ts";

/**
 * The hard budget, on a real listening server with one session worker (so the bystander shares
 * the worker that must be replaced): the most expensive agent spec admission allows, at the
 * largest numEnvs, is cut off by the budget (503 step_timeout when it runs over), /healthz keeps
 * answering while it runs, and a bystander session's replies and state hashes stay byte-identical
 * to a server that never saw the expensive session. Over-cost specs get 400. How fast the 503 and
 * /healthz come back is measured by a benchmark (npm run bench:healthz), not asserted here.
 */
const BUDGET = 1500;
const MAX_ENVS = 64;
const MAX_COST = 1_000_000;
// The costliest specs admission lets through at MAX_ENVS (agents/cost.ts), and one unit more.
const PER_ENV = MAX_COST / MAX_ENVS; // 15625
const ADMITTED = {
  mcts: `mcts:iters=${PER_ENV}`,
  computer: "computer:dets=32,rollouts=30", // 32*30*16 = 15360 <= 15625
  onnx: `onnx:builtin/dcg-ppo-v1,maxMB=${Math.floor(PER_ENV / 4)}`,
};
const OVER = {
  mcts: `mcts:iters=${PER_ENV + 1}`,
  computer: "computer:dets=32,rollouts=31",
  onnx: `onnx:builtin/dcg-ppo-v1,maxMB=${Math.floor(PER_ENV / 4) + 1}`,
};

const options = { workers: 1, stepTimeoutMs: BUDGET, maxEnvsPerSession: MAX_ENVS, maxAgentCost: MAX_COST, exposeStateHashes: true };
let faulty: FastifyInstance;
let clean: FastifyInstance;
let a: Client;
let b: Client;
let baseA: string;

beforeAll(async () => {
  faulty = buildApp(options);
  clean = buildApp(options);
  baseA = await faulty.listen({ host: "127.0.0.1", port: 0 });
  a = new Client(fetchTransport(baseA));
  b = new Client(fetchTransport(await clean.listen({ host: "127.0.0.1", port: 0 })));
});
afterAll(async () => {
  await faulty?.close();
  await clean?.close();
});

/** A bystander driven identically on both servers; every reply is compared byte for byte. */
class Bystander {
  private ids: [string, string] = ["", ""];
  private mask: Uint8Array = new Uint8Array();
  private readonly pick = maskedPicker(11);
  private size = 0;
  async open(): Promise<void> {
    const body = { game: "sevens", numEnvs: 4, seed: 21 };
    this.ids = [await a.create(body), await b.create(body)];
    const ra = await a.call("POST", `/v1/sessions/${this.ids[0]}/reset`);
    const rb = await b.call("POST", `/v1/sessions/${this.ids[1]}/reset`);
    expect(Buffer.compare(ra.raw, rb.raw)).toBe(0);
    this.mask = tensor(ra.body.mask) as Uint8Array;
    this.size = this.mask.length / 4;
  }
  async step(): Promise<void> {
    const actions = this.pick(this.mask, 4, this.size);
    const [ra, rb] = await Promise.all([
      a.call("POST", `/v1/sessions/${this.ids[0]}/step`, { actions }),
      b.call("POST", `/v1/sessions/${this.ids[1]}/step`, { actions }),
    ]);
    expect(ra.status, JSON.stringify(ra.body)).toBe(200);
    expect(Buffer.compare(ra.raw, rb.raw)).toBe(0);
    this.mask = tensor(ra.body.mask) as Uint8Array;
  }
  async sameHashes(): Promise<void> {
    const ha = (await a.ok("GET", `/v1/sessions/${this.ids[0]}`)).hashes;
    const hb = (await b.ok("GET", `/v1/sessions/${this.ids[1]}`)).hashes;
    expect(ha).toEqual(hb);
    expect(ha.every((h: unknown) => typeof h === "string")).toBe(true);
  }
}

/**
 * Polls /healthz (every answer must be 200) while `busy` is pending; resolves with how many answers
 * came back before `busy` settled.
 */
async function healthWhile(busy: Promise<unknown>): Promise<number> {
  let settled = false;
  const done = busy.then(
    () => (settled = true),
    () => (settled = true),
  );
  let answered = 0;
  while (!settled) {
    const r = await fetch(`${baseA}/healthz`);
    await r.arrayBuffer();
    expect(r.status).toBe(200);
    if (!settled) answered++;
    await new Promise((res) => setTimeout(res, 25));
  }
  await done;
  return answered;
}

/** Creates a 64-env dcg session with the spec at seat 1, resets it, and steps it until a reply is not 200 or `maxSteps` pass. */
async function drive(spec: string, maxSteps: number): Promise<{ status: number; code?: string; id: string }> {
  const id = await a.create({ game: "dcg", numEnvs: MAX_ENVS, seed: 5, seats: ["learner", spec] });
  const pick = maskedPicker(3);
  let r = await a.call("POST", `/v1/sessions/${id}/reset`);
  for (let s = 0; r.status === 200 && s < maxSteps; s++) {
    const mask = tensor(r.body.mask) as Uint8Array;
    r = await a.call("POST", `/v1/sessions/${id}/step`, { actions: pick(mask, MAX_ENVS, mask.length / MAX_ENVS) });
  }
  return { status: r.status, code: r.body?.error?.code, id };
}

describe("the step budget holds for every agent kind", () => {
  it("refuses over-cost specs with 400 agent_too_costly naming the limit", async () => {
    for (const spec of Object.values(OVER)) {
      const r = await a.call("POST", "/v1/sessions", { game: "dcg", numEnvs: MAX_ENVS, seats: ["learner", spec] });
      expect(r.status, spec).toBe(400);
      expect(r.body.error.code).toBe("agent_too_costly");
      expect(r.body.error.message).toContain(`--max-agent-cost ${MAX_COST}`);
      expect(r.body.error.limit).toBe(MAX_COST);
    }
  });

  it("mcts and computer at the admission limit: 503 step_timeout, /healthz answering meanwhile, the bystander untouched", async () => {
    const by = new Bystander();
    await by.open();
    for (let i = 0; i < 3; i++) await by.step();
    for (const kind of ["mcts", "computer"] as const) {
      const bad = drive(ADMITTED[kind], 20);
      const health = healthWhile(bad);
      // The bystander keeps stepping meanwhile (its requests wait behind the stuck one on the same worker).
      for (let i = 0; i < 3; i++) await by.step();
      const r = await bad;
      expect(r.status, kind).toBe(503);
      expect(r.code).toBe("step_timeout");
      for (let i = 0; i < 3; i++) await by.step();
      expect(await health, "/healthz answers while the over-budget session runs").toBeGreaterThan(0);
      const info = await a.ok("GET", `/v1/sessions/${r.id}`);
      expect(info.status).toBe("quarantined");
      expect((await a.call("POST", `/v1/sessions/${r.id}/reset`)).body.error.code).toBe("session_quarantined");
      await by.sameHashes();
    }
  });

  it("onnx at the admission limit: answered (200, or 503 when over budget), /healthz answering meanwhile, the bystander untouched", async () => {
    const by = new Bystander();
    await by.open();
    const bad = drive(ADMITTED.onnx, 3);
    const health = healthWhile(bad);
    for (let i = 0; i < 3; i++) await by.step();
    const r = await bad;
    expect([200, 503]).toContain(r.status);
    if (r.status === 503) expect(r.code).toBe("step_timeout");
    expect(await health, "/healthz answers while the costly session runs").toBeGreaterThan(0);
    await by.sameHashes();
  });
});
