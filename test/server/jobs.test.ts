import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { FastifyInstance } from "fastify";
import { buildApp } from "../../env/server/index.ts";
import { JobTimeout } from "../../env/server/runtime.ts";
import { registry } from "../../engine/games.ts";
import { Client, injectTransport, maskedPicker, tensor } from "./client.ts";

/**
 * The job API other parts of the server (live tables) use to run agent decisions on the session
 * workers under a budget: a decision comes back as an index into the legal list, the same for the
 * same job on any worker; a job past its budget rejects with JobTimeout, its worker is replaced and
 * a session on that worker is rebuilt with nothing lost.
 */
let app: FastifyInstance;
beforeAll(() => {
  app = buildApp({ workers: 1, stepTimeoutMs: 5000, exposeStateHashes: true });
});
afterAll(async () => {
  await app?.close();
});

function decideJob(agent: string, seed: number) {
  const game = registry.get("dcg");
  if (!game.ok) throw new Error("no dcg");
  const g = game.value;
  const config = g.parseConfig({});
  if (!config.ok) throw new Error("bad config");
  const state = g.setup(config.value, 7);
  const seat = g.actor(state);
  if (seat === "terminal") throw new Error("terminal at setup");
  const legal = g.legal(state);
  return { kind: "decide", game: "dcg", agent, seed, seat, view: g.view(state, seat), legal, step: 0 };
}

describe("runJob", () => {
  it("runs an agent decision on the pool; a job past its budget times out and the session beside it is untouched", async () => {
    const job = decideJob("computer", 3);
    const a = (await app.cardgym.runJob(job, { budgetMs: 5000 })) as number;
    expect(Number.isInteger(a) && a >= 0 && a < job.legal.length).toBe(true);
    expect(await app.cardgym.runJob(job, { budgetMs: 5000, affinity: "table-1" })).toBe(a);

    const client = new Client(injectTransport(app));
    const id = await client.create({ game: "sevens", numEnvs: 2, seed: 3 });
    const r = await client.ok("POST", `/v1/sessions/${id}/reset`);
    const pick = maskedPicker(5);
    await client.ok("POST", `/v1/sessions/${id}/step`, { actions: pick(tensor(r.mask) as Uint8Array, 2, (r.mask.shape as number[])[1]!) });
    const before = (await client.ok("GET", `/v1/sessions/${id}`)).hashes;

    // A hundred million iterations would take hours: the rejection proves the budget cut it off.
    await expect(app.cardgym.runJob(decideJob("mcts:iters=100000000", 1), { budgetMs: 300 })).rejects.toBeInstanceOf(JobTimeout);
    expect((await client.ok("GET", `/v1/sessions/${id}`)).hashes).toEqual(before);
    expect(await app.cardgym.runJob(job, { budgetMs: 5000 })).toBe(a);
  });

  it("a request its worker cannot be sent (structured clone refuses it) fails alone, whether the worker was ready or still starting", async () => {
    const job = decideJob("random", 2);
    const unsendable = { ...job, view: { nested: () => 1 } };
    // A fresh server: the first job waits for its worker to start and is sent from the worker's "ready" event.
    const fresh = buildApp({ workers: 1, stepTimeoutMs: 5000 });
    try {
      await expect(fresh.cardgym.runJob(unsendable, { budgetMs: 5000 })).rejects.toThrow(/could not be handed to its session worker/);
      expect(typeof (await fresh.cardgym.runJob(job, { budgetMs: 5000 }))).toBe("number");
      // Now with the worker ready: the same, and the slot is not held by the failed request.
      await expect(fresh.cardgym.runJob(unsendable, { budgetMs: 5000 })).rejects.toThrow(/could not be handed to its session worker/);
      expect(typeof (await fresh.cardgym.runJob(job, { budgetMs: 5000 }))).toBe("number");
    } finally {
      await fresh.close();
    }
  });
});
