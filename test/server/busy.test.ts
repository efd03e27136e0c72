import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { FastifyInstance } from "fastify";
import { buildApp } from "../../env/server/index.ts";
import { fixtureAdapters, fixtureRegistry } from "../fixtures/count-game.ts";
import { CrossThreadGate } from "../fixtures/agents.ts";
import { waitUntil } from "../fixtures/hang-guard.ts";
import { Client, fetchTransport } from "./client.ts";

/**
 * One request at a time per session (docs/protocol.md): while a reset or step is in flight, every
 * other request to that session (mask, render, another reset or step) gets 409 session_busy and
 * changes nothing; other sessions are served meanwhile. A gated agent sits at seat 0, so it decides
 * during the reset and during every step, and holds that request in flight until the test opens
 * the gate (on the session worker's thread: a CrossThreadGate).
 */
let app: FastifyInstance;
let client: Client;
const gate = new CrossThreadGate();

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
  gate.close();
});

const gatedSession = () => client.create({ game: "count", numEnvs: 1, seed: 4, seats: ["xgate", "learner"] });

describe("session_busy", () => {
  it("GET /mask and /render during an in-flight step get 409 session_busy; afterwards they answer", async () => {
    const id = await gatedSession();
    const reset = await gate.through(client.ok("POST", `/v1/sessions/${id}/reset`));
    const legal = Array.from(reset.mask.data as Uint8Array).findIndex((v) => v === 1);
    const step = client.call("POST", `/v1/sessions/${id}/step`, { actions: [legal] });
    // The agent waits at the gate: the step is in flight until it is opened.
    await gate.arrival();
    const mask = await client.call("GET", `/v1/sessions/${id}/mask`);
    const render = await client.call("GET", `/v1/sessions/${id}/render`);
    expect(mask.status).toBe(409);
    expect(mask.body.error.code).toBe("session_busy");
    expect(render.status).toBe(409);
    expect((await gate.through(step)).status).toBe(200);
    expect((await client.call("GET", `/v1/sessions/${id}/mask`)).status).toBe(200);
  });

  it("of four concurrent resets of one session, one runs and three get 409 session_busy", async () => {
    const id = await gatedSession();
    const calls = Array.from({ length: 4 }, () => client.call("POST", `/v1/sessions/${id}/reset`, { seed: 9 }));
    // One reset runs and waits at the gate; the other three are answered while it is held.
    const early: number[] = [];
    for (const c of calls) void c.then((r) => early.push(r.status));
    await gate.arrival();
    await waitUntil(() => early.length === 3, "three of the four resets answered while one is in flight");
    expect(early).toEqual([409, 409, 409]);
    const replies = await gate.through(Promise.all(calls));
    const statuses = replies.map((r) => r.status).sort();
    expect(statuses).toEqual([200, 409, 409, 409]);
    for (const r of replies) if (r.status === 409) expect(r.body.error.code).toBe("session_busy");
    const info = await client.ok("GET", `/v1/sessions/${id}`);
    expect(info.status).toBe("ok");
  });
});
