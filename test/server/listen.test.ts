import { describe, expect, it } from "vitest";
import { request } from "node:http";
import { buildApp } from "../../env/server/index.ts";
import { fixtureAdapters, fixtureRegistry } from "../fixtures/count-game.ts";
import { gateWaiting, openGate, testAgentFactory } from "../fixtures/agents.ts";
import { Client, fetchTransport, maskedPicker, tensor } from "./client.ts";

const make = () => buildApp({ registry: fixtureRegistry, adapters: fixtureAdapters, createAgent: testAgentFactory });
const A = 6;

describe("a real listening server on 127.0.0.1", () => {
  it("plays full episodes over msgpack and refuses a body without a content type (415)", async () => {
    const app = make();
    const base = await app.listen({ host: "127.0.0.1", port: 0 });
    try {
      expect(base).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
      const client = new Client(fetchTransport(base));
      const id = await client.create({ game: "count", numEnvs: 16, seed: 3 });
      let r = await client.ok("POST", `/v1/sessions/${id}/reset`);
      const pick = maskedPicker(2);
      let episodesDone = 0;
      for (let t = 0; t < 200; t++) {
        r = await client.ok("POST", `/v1/sessions/${id}/step`, { actions: pick(tensor(r.mask) as Uint8Array, 16, A) });
        episodesDone += Array.from(tensor(r.terminated)).reduce((s, v) => s + v, 0);
      }
      expect(episodesDone).toBeGreaterThan(16);
      const untyped = await new Promise<number>((resolve, reject) => {
        const req = request(`${base}/v1/sessions/${id}/step`, { method: "POST" }, (res) => {
          res.resume();
          resolve(res.statusCode ?? 0);
        });
        req.on("error", reject);
        req.end("garbage");
      });
      expect(untyped).toBe(415);
    } finally {
      await app.close();
    }
  });

  it("graceful shutdown: close() waits for an in-flight step, which completes with 200", async () => {
    const app = make();
    const base = await app.listen({ host: "127.0.0.1", port: 0 });
    const client = new Client(fetchTransport(base));
    const id = await client.create({ game: "count", numEnvs: 1, seed: 1, seats: ["learner", "gate"] });
    const r = await client.ok("POST", `/v1/sessions/${id}/reset`);
    const inFlight = client.call("POST", `/v1/sessions/${id}/step`, { actions: maskedPicker(1)(tensor(r.mask) as Uint8Array, 1, A) });
    while (gateWaiting() === 0) await new Promise((res) => setTimeout(res, 1));
    let closed = false;
    const closing = app.close().then(() => {
      closed = true;
    });
    await new Promise((res) => setTimeout(res, 50));
    expect(closed).toBe(false);
    openGate();
    const reply = await inFlight;
    expect(reply.status).toBe(200);
    expect(reply.body.step).toBe(1);
    await closing;
    expect(closed).toBe(true);
    await expect(fetch(`${base}/healthz`)).rejects.toThrow();
  });
});
