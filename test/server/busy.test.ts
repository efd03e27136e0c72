import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { FastifyInstance } from "fastify";
import { buildApp } from "../../env/server/index.ts";
import { fixtureAdapters, fixtureRegistry } from "../fixtures/count-game.ts";
import { Client, fetchTransport } from "./client.ts";

/**
 * One request at a time per session (docs/protocol.md): while a reset or step is in flight, every
 * other request to that session (mask, render, another reset or step) gets 409 session_busy and
 * changes nothing; other sessions are served meanwhile. The slow agent (300 ms per decision) sits
 * at seat 0, so it decides during the reset and during every step.
 */
let app: FastifyInstance;
let client: Client;

beforeAll(async () => {
  app = buildApp({
    registry: fixtureRegistry,
    adapters: fixtureAdapters,
    sessionModule: new URL("../fixtures/session-module.ts", import.meta.url),
    workers: 1,
  });
  client = new Client(fetchTransport(await app.listen({ host: "127.0.0.1", port: 0 })));
});
afterAll(async () => {
  await app?.close();
});

const slowSession = () => client.create({ game: "count", numEnvs: 1, seed: 4, seats: ["slow:ms=300", "learner"] });

describe("session_busy", () => {
  it("GET /mask and /render during an in-flight step get 409 session_busy; afterwards they answer", async () => {
    const id = await slowSession();
    const reset = await client.ok("POST", `/v1/sessions/${id}/reset`);
    const legal = Array.from(reset.mask.data as Uint8Array).findIndex((v) => v === 1);
    const step = client.call("POST", `/v1/sessions/${id}/step`, { actions: [legal] });
    await new Promise((r) => setTimeout(r, 50));
    const mask = await client.call("GET", `/v1/sessions/${id}/mask`);
    const render = await client.call("GET", `/v1/sessions/${id}/render`);
    expect(mask.status).toBe(409);
    expect(mask.body.error.code).toBe("session_busy");
    expect(render.status).toBe(409);
    expect((await step).status).toBe(200);
    expect((await client.call("GET", `/v1/sessions/${id}/mask`)).status).toBe(200);
  });

  it("of four concurrent resets of one session, one runs and three get 409 session_busy", async () => {
    const id = await slowSession();
    const replies = await Promise.all(Array.from({ length: 4 }, () => client.call("POST", `/v1/sessions/${id}/reset`, { seed: 9 })));
    const statuses = replies.map((r) => r.status).sort();
    expect(statuses).toEqual([200, 409, 409, 409]);
    for (const r of replies) if (r.status === 409) expect(r.body.error.code).toBe("session_busy");
    const info = await client.ok("GET", `/v1/sessions/${id}`);
    expect(info.status).toBe("ok");
  });
});
