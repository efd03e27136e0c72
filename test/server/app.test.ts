import { afterEach, describe, expect, it } from "vitest";
import { pack, unpack } from "msgpackr";
import { buildApp } from "../../env/server/index.ts";
import type { ServerOptions } from "../../env/server/index.ts";
import { fixtureAdapters, fixtureRegistry } from "../fixtures/count-game.ts";
import { gateWaiting, openGate, testAgentFactory } from "../fixtures/agents.ts";
import { Client, injectTransport, maskedPicker, tensor } from "./client.ts";

const apps: ReturnType<typeof buildApp>[] = [];
function setup(o: ServerOptions = {}) {
  const app = buildApp({ registry: fixtureRegistry, adapters: fixtureAdapters, createAgent: testAgentFactory, exposeStateHashes: true, ...o });
  apps.push(app);
  return { app, client: new Client(injectTransport(app)) };
}
afterEach(async () => {
  openGate();
  await Promise.all(apps.splice(0).map((a) => a.close()));
});

const A = 6;

async function state(client: Client, id: string): Promise<{ step: number; hashes: string[] }> {
  const info = await client.ok("GET", `/v1/sessions/${id}`);
  return { step: info.step, hashes: info.hashes };
}

describe("games and specs", () => {
  it("lists served games and their specs; unknown games are 404", async () => {
    const { client } = setup();
    const games = await client.ok("GET", "/v1/games");
    expect(games.games.map((g: any) => g.id)).toEqual(["count"]);
    expect(games.games[0].actionSize).toBe(6);
    const spec = await client.ok("GET", "/v1/games/count/spec");
    expect(spec.observation.size).toBe(19);
    expect(spec.actionSpecHash).toBe(games.games[0].actionSpecHash);
    const missing = await client.call("GET", "/v1/games/nope/spec");
    expect(missing.status).toBe(404);
    expect(missing.body.error.code).toBe("unknown_game");
    const create = await client.call("POST", "/v1/sessions", { game: "nope" });
    expect(create.status).toBe(404);
    expect(create.body.error.code).toBe("unknown_game");
  });
});

describe("sessions over msgpack", () => {
  it("same seed -> byte-identical reset and step replies", async () => {
    const runs: Buffer[][] = [];
    for (let r = 0; r < 2; r++) {
      const { client } = setup();
      const id = await client.create({ game: "count", numEnvs: 8, seed: 99 });
      const pick = maskedPicker(4);
      const raws: Buffer[] = [];
      let reply = await client.call("POST", `/v1/sessions/${id}/reset`);
      raws.push(reply.raw);
      for (let t = 0; t < 80; t++) {
        reply = await client.call("POST", `/v1/sessions/${id}/step`, { actions: pick(tensor(reply.body.mask) as Uint8Array, 8, A) });
        expect(reply.status).toBe(200);
        raws.push(reply.raw);
      }
      runs.push(raws);
    }
    expect(runs[0]!.length).toBe(81);
    runs[0]!.forEach((raw, t) => expect(Buffer.compare(raw, runs[1]![t]!), `reply ${t}`).toBe(0));
  });

  it("sends tensors as raw little-endian bytes with dtype and shape", async () => {
    const { client } = setup();
    const id = await client.create({ game: "count", numEnvs: 3, seed: 1 });
    const r = await client.ok("POST", `/v1/sessions/${id}/reset`);
    expect(r.obs.dtype).toBe("float32");
    expect(r.obs.shape).toEqual([3, 19]);
    expect(r.obs.data).toBeInstanceOf(Uint8Array);
    expect(r.obs.data.length).toBe(3 * 19 * 4);
    expect(r.mask).toMatchObject({ dtype: "uint8", shape: [3, 6] });
    expect(r.terminated).toMatchObject({ dtype: "bool", shape: [3] });
    expect(r.seat).toMatchObject({ dtype: "int32", shape: [3] });
    expect(r.info.returns).toMatchObject({ dtype: "float32", shape: [3, 2] });
    const obs = tensor(r.obs) as Float32Array;
    // The "last card" one-hot says "none played" at the start of every env.
    for (let i = 0; i < 3; i++) expect(obs[i * 19 + 1]).toBe(1);
  });

  it("the mask route matches the last reply and can carry labels", async () => {
    const { client } = setup();
    const id = await client.create({ game: "count", numEnvs: 2, seed: 5 });
    const r = await client.ok("POST", `/v1/sessions/${id}/reset`);
    const m = await client.ok("GET", `/v1/sessions/${id}/mask?labels=true`);
    expect(Buffer.compare(Buffer.from(m.mask.data), Buffer.from(r.mask.data))).toBe(0);
    const mask = tensor(m.mask);
    m.labels.forEach((row: { id: number; label: string }[], i: number) => {
      const ids = row.map((x) => x.id);
      expect(ids).toEqual([0, 1, 2, 3, 4, 5].filter((a) => mask[i * A + a]));
      for (const x of row) expect(x.label).toBe(`play ${x.id + 1}`);
    });
  });

  it("an illegal or out-of-range action -> 400 naming it; state and step index unchanged", async () => {
    const { client } = setup();
    const id = await client.create({ game: "count", numEnvs: 4, seed: 2 });
    let r = await client.ok("POST", `/v1/sessions/${id}/reset`);
    r = await client.ok("POST", `/v1/sessions/${id}/step`, { actions: maskedPicker(1)(tensor(r.mask) as Uint8Array, 4, A) });
    const before = await state(client, id);
    expect(before.step).toBe(1);
    const mask = tensor(r.mask) as Uint8Array;
    const good = maskedPicker(2)(mask, 4, A);
    const illegal = [0, 1, 2, 3, 4, 5].find((a) => !mask[3 * A + a])!;
    const bad = await client.call("POST", `/v1/sessions/${id}/step`, { actions: [...good.slice(0, 3), illegal] });
    expect(bad.status).toBe(400);
    expect(bad.body.error.code).toBe("illegal_action");
    expect(bad.body.error.message).toContain(`action ${illegal}`);
    expect(bad.body.error.env).toBe(3);
    expect(bad.body.error.action).toBe(illegal);
    const range = await client.call("POST", `/v1/sessions/${id}/step`, { actions: [-1, ...good.slice(1)] });
    expect(range.status).toBe(400);
    expect(range.body.error.code).toBe("action_out_of_range");
    expect(range.body.error.message).toContain("action -1");
    const count = await client.call("POST", `/v1/sessions/${id}/step`, { actions: good.slice(1) });
    expect(count.status).toBe(400);
    expect(count.body.error.code).toBe("wrong_action_count");
    expect(await state(client, id)).toEqual(before);
    const ok = await client.call("POST", `/v1/sessions/${id}/step`, { actions: good });
    expect(ok.status).toBe(200);
    expect(ok.body.step).toBe(2);
  });

  it("reset takes no body, an empty msgpack body, {} or {seed}", async () => {
    const { app, client } = setup();
    const id = await client.create({ game: "count", numEnvs: 2, seed: 6 });
    const url = `/v1/sessions/${id}/reset`;
    const none = await app.inject({ method: "POST", url });
    const empty = await app.inject({ method: "POST", url, payload: Buffer.alloc(0), headers: { "content-type": "application/msgpack" } });
    const obj = await client.call("POST", url, {});
    const seeded = await client.call("POST", url, { seed: 6 });
    for (const r of [none.statusCode, empty.statusCode, obj.status, seeded.status]) expect(r).toBe(200);
    // Reseeding with the creation seed reproduces the first reset byte for byte.
    expect(Buffer.compare(seeded.raw, none.rawPayload)).toBe(0);
    expect(Buffer.compare(obj.raw, none.rawPayload)).not.toBe(0);
  });

  it("stepping before reset is a 409", async () => {
    const { client } = setup();
    const id = await client.create({ game: "count", numEnvs: 1 });
    const r = await client.call("POST", `/v1/sessions/${id}/step`, { actions: [0] });
    expect(r.status).toBe(409);
    expect(r.body.error.code).toBe("reset_required");
  });

  it("refuses bad session parameters with 400 and a message naming the field", async () => {
    const { client } = setup();
    const cases: [unknown, string, RegExp][] = [
      [{ game: "count", config: { target: "x" } }, "invalid_config", /target must be an integer/],
      [{ game: "count", config: { colour: 1 } }, "invalid_config", /unknown config field "colour"/],
      [{ game: "count", seats: ["learner", "nosuch"] }, "invalid_seats", /unknown agent "nosuch"/],
      [{ game: "count", seats: ["random", "random"] }, "invalid_seats", /at least one seat/],
      [{ game: "count", numEnvs: 0 }, "invalid_body", /numEnvs/],
      [{ game: "count", seed: 1.5 }, "invalid_body", /seed/],
      [{ game: "count", extra: 1 }, "invalid_body", /additional properties/],
      [{ config: {} }, "invalid_body", /game/],
    ];
    for (const [body, code, message] of cases) {
      const r = await client.call("POST", "/v1/sessions", body);
      expect(r.status, JSON.stringify(body)).toBe(400);
      expect(r.body.error.code).toBe(code);
      expect(r.body.error.message).toMatch(message);
    }
  });
});

describe("bad input never hurts a session (quality 15, 16)", () => {
  it("gives each bad input its status code and leaves the session unchanged", async () => {
    const { app, client } = setup({ bodyLimit: 4096 });
    const id = await client.create({ game: "count", numEnvs: 2, seed: 8 });
    const r0 = await client.ok("POST", `/v1/sessions/${id}/reset`);
    const before = await state(client, id);
    const url = `/v1/sessions/${id}/step`;
    const raw = async (payload: Buffer | string, contentType?: string) => {
      const res = await app.inject({
        method: "POST",
        url,
        payload,
        headers: { accept: "application/json", ...(contentType ? { "content-type": contentType } : {}) },
      });
      return { status: res.statusCode, body: JSON.parse(res.body) };
    };
    const deep = (n: number): unknown => (n === 0 ? 1 : [deep(n - 1)]);
    const cases: [string, () => Promise<{ status: number; body: any }>, number, string][] = [
      ["truncated msgpack", () => raw(Buffer.from([0x81, 0xa7, 0x61]), "application/msgpack"), 400, "malformed_body"],
      ["reserved byte", () => raw(Buffer.from([0xc1]), "application/msgpack"), 400, "malformed_body"],
      ["empty msgpack", () => raw(Buffer.alloc(0), "application/msgpack"), 400, "invalid_body"],
      ["trailing bytes", () => raw(Buffer.concat([pack({ actions: [0, 0] }), Buffer.from([0x01])]), "application/msgpack"), 400, "malformed_body"],
      ["record extension", () => raw(Buffer.from([0xd4, 0x72, 0x40]), "application/msgpack"), 400, "malformed_body"],
      ["typed-array extension", () => raw(Buffer.from([0xc7, 0x05, 0x74, 0x0b, 0, 0, 0, 0]), "application/msgpack"), 400, "malformed_body"],
      ["timestamp extension", () => raw(Buffer.from([0xd6, 0xff, 0, 0, 0, 1]), "application/msgpack"), 400, "malformed_body"],
      [
        "uint64 beyond 2^53",
        () => raw(Buffer.from([0x81, 0xa7, ...Buffer.from("actions"), 0x91, 0xcf, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff]), "application/msgpack"),
        400,
        "malformed_body",
      ],
      [
        "array longer than body",
        () => raw(Buffer.from([0x81, 0xa7, ...Buffer.from("actions"), 0xdd, 0xff, 0xff, 0xff, 0xff]), "application/msgpack"),
        400,
        "malformed_body",
      ],
      ["nesting too deep (msgpack)", () => raw(pack({ actions: deep(40) }), "application/msgpack"), 400, "malformed_body"],
      ["nesting too deep (JSON)", () => raw(JSON.stringify({ actions: deep(40) }), "application/json"), 400, "malformed_body"],
      ["malformed JSON", () => raw("{actions:", "application/json"), 400, "malformed_body"],
      ["prototype poisoning (JSON)", () => raw('{"actions":[0,0],"__proto__":{"x":1}}', "application/json"), 400, "malformed_body"],
      ["__proto__ key (msgpack)", () => raw(pack({ actions: [0, 0], ["__proto__"]: 1 }), "application/msgpack"), 400, "invalid_body"],
      ["wrong type: string", () => raw(pack({ actions: "0,0" }), "application/msgpack"), 400, "invalid_body"],
      ["wrong type: numeric string", () => raw(pack({ actions: ["0", 0] }), "application/msgpack"), 400, "invalid_body"],
      ["wrong type: float", () => raw(pack({ actions: [0.5, 0] }), "application/msgpack"), 400, "invalid_body"],
      ["wrong type: binary", () => raw(pack({ actions: Buffer.from([0, 0]) }), "application/msgpack"), 400, "invalid_body"],
      ["missing field", () => raw(pack({}), "application/msgpack"), 400, "invalid_body"],
      ["unknown field", () => raw(pack({ actions: [0, 0], shadow: true }), "application/msgpack"), 400, "invalid_body"],
      ["not an object", () => raw(pack([0, 0]), "application/msgpack"), 400, "invalid_body"],
      ["out-of-range action", () => raw(pack({ actions: [6, 6] }), "application/msgpack"), 400, "action_out_of_range"],
      ["action beyond int32", () => raw(pack({ actions: [2 ** 40, 0] }), "application/msgpack"), 400, "invalid_body"],
      ["oversized body", () => raw(pack({ actions: new Array(5000).fill(0) }), "application/msgpack"), 413, "body_too_large"],
      ["wrong content type", () => raw("actions=0,0", "text/plain"), 415, "unsupported_media_type"],
      ["form content type", () => raw("actions=0", "application/x-www-form-urlencoded"), 415, "unsupported_media_type"],
    ];
    for (const [name, send, status, code] of cases) {
      const res = await send();
      expect(res.status, name).toBe(status);
      expect(res.body.error?.code, name).toBe(code);
      expect(typeof res.body.error.message, name).toBe("string");
      expect(await state(client, id), name).toEqual(before);
    }
    // Unknown and malformed session ids.
    const unknown = await client.call("POST", "/v1/sessions/AAAAAAAAAAAAAAAA/step", { actions: [0, 0] });
    expect(unknown.status).toBe(404);
    expect(unknown.body.error.code).toBe("unknown_session");
    const badId = await client.call("POST", "/v1/sessions/a$b/step", { actions: [0, 0] });
    expect(badId.status).toBe(400);
    expect(badId.body.error.code).toBe("bad_request");
    const noRoute = await client.call("GET", "/v2/nothing");
    expect(noRoute.status).toBe(404);
    expect(noRoute.body.error.code).toBe("not_found");
    // After all that, the session steps as if nothing happened.
    const ok = await client.call("POST", url, { actions: maskedPicker(1)(tensor(r0.mask) as Uint8Array, 2, A) });
    expect(ok.status).toBe(200);
    expect(ok.body.step).toBe(1);
  });

  it("accepts JSON for debugging and answers in JSON with tensors as number arrays", async () => {
    const { app } = setup();
    const post = (url: string, body: unknown) =>
      app.inject({ method: "POST", url, payload: JSON.stringify(body), headers: { "content-type": "application/json" } });
    const created = await post("/v1/sessions", { game: "count", numEnvs: 2, seed: 4 });
    expect(created.statusCode).toBe(201);
    expect(created.headers["content-type"]).toContain("application/json");
    const id = created.json().session;
    const reset = await post(`/v1/sessions/${id}/reset`, {});
    const r = reset.json();
    expect(r.obs.shape).toEqual([2, 19]);
    expect(r.obs.data).toHaveLength(38);
    expect(r.mask.data).toHaveLength(12);
    const actions = maskedPicker(3)(Uint8Array.from(r.mask.data), 2, A);
    const step = await post(`/v1/sessions/${id}/step`, { actions });
    expect(step.statusCode).toBe(200);
    expect(step.json().step).toBe(1);
    // No reply carries a seed or RNG state (quality 9).
    const labels = await app.inject({ method: "GET", url: `/v1/sessions/${id}/mask?labels=1`, headers: { accept: "application/json" } });
    for (const body of [created.body, reset.body, step.body, labels.body]) expect(body).not.toMatch(/"(seed|rng)"/);
    // The same step in msgpack gives the same numbers.
    const { client } = setup();
    const id2 = await client.create({ game: "count", numEnvs: 2, seed: 4 });
    await client.ok("POST", `/v1/sessions/${id2}/reset`);
    const m = await client.ok("POST", `/v1/sessions/${id2}/step`, { actions });
    expect(Array.from(tensor(m.obs))).toEqual(step.json().obs.data);
  });
});

describe("limits, expiry and auth (quality 17)", () => {
  it("limits sessions, envs per session and envs in total", async () => {
    const { client } = setup({ maxSessions: 2, maxEnvsPerSession: 8, maxTotalEnvs: 12 });
    const big = await client.call("POST", "/v1/sessions", { game: "count", numEnvs: 9 });
    expect(big.status).toBe(400);
    expect(big.body.error.code).toBe("invalid_body");
    await client.create({ game: "count", numEnvs: 8 });
    const tooMany = await client.call("POST", "/v1/sessions", { game: "count", numEnvs: 5 });
    expect(tooMany.status).toBe(429);
    expect(tooMany.body.error.code).toBe("too_many_envs");
    const second = await client.create({ game: "count", numEnvs: 4 });
    const third = await client.call("POST", "/v1/sessions", { game: "count", numEnvs: 1 });
    expect(third.status).toBe(429);
    expect(third.body.error.code).toBe("too_many_sessions");
    await client.ok("DELETE", `/v1/sessions/${second}`);
    await client.create({ game: "count", numEnvs: 1 });
    const m = await client.ok("GET", "/metrics");
    expect(m.sessions).toBe(2);
    expect(m.envs).toBe(9);
  });

  it("expires idle sessions (410 afterwards) but keeps used ones", async () => {
    let now = 1_000_000;
    const { app, client } = setup({ idleTimeoutMs: 60_000, now: () => now });
    const idle = await client.create({ game: "count" });
    const used = await client.create({ game: "count" });
    now += 40_000;
    await client.ok("POST", `/v1/sessions/${used}/reset`);
    now += 30_000;
    expect(app.cardgym.sweep()).toBe(1);
    const gone = await client.call("POST", `/v1/sessions/${idle}/reset`);
    expect(gone.status).toBe(410);
    expect(gone.body.error.code).toBe("session_gone");
    expect(gone.body.error.message).toContain("expired");
    expect((await client.call("POST", `/v1/sessions/${used}/step`, { actions: [0] })).status).not.toBe(410);
  });

  it("answers /healthz and /metrics in JSON unless msgpack is asked for (curl sends accept */*)", async () => {
    const { app } = setup();
    for (const url of ["/healthz", "/metrics"]) {
      for (const headers of [{}, { accept: "*/*" }, { accept: "application/json" }]) {
        const r = await app.inject({ method: "GET", url, headers });
        expect(r.headers["content-type"], `${url} ${JSON.stringify(headers)}`).toMatch(/^application\/json/);
        expect(r.json()).toEqual(expect.objectContaining({ sessions: 0 }));
      }
      const packed = await app.inject({ method: "GET", url, headers: { accept: "application/msgpack" } });
      expect(packed.headers["content-type"]).toBe("application/msgpack");
      expect(unpack(packed.rawPayload)).toEqual(expect.objectContaining({ sessions: 0 }));
    }
    // The RL routes keep msgpack as their default.
    expect((await app.inject({ method: "GET", url: "/v1/games" })).headers["content-type"]).toBe("application/msgpack");
  });

  it("requires the bearer token when one is set (not for /healthz)", async () => {
    const { app } = setup({ token: "s3cret" });
    expect((await app.inject({ method: "GET", url: "/healthz" })).statusCode).toBe(200);
    const none = await app.inject({ method: "GET", url: "/v1/games", headers: { accept: "application/json" } });
    expect(none.statusCode).toBe(401);
    expect(none.json().error.code).toBe("unauthorized");
    expect(none.headers["www-authenticate"]).toContain("Bearer");
    const wrong = await app.inject({ method: "GET", url: "/v1/games", headers: { authorization: "Bearer s3cre7" } });
    expect(wrong.statusCode).toBe(401);
    const right = await app.inject({ method: "GET", url: "/v1/games", headers: { authorization: "Bearer s3cret" } });
    expect(right.statusCode).toBe(200);
  });

  it("a step that outlives the step timeout -> 503 and the session is quarantined", async () => {
    const { client } = setup({ stepTimeoutMs: 30 });
    const id = await client.create({ game: "count", seats: ["learner", "gate"], numEnvs: 1 });
    const r = await client.call("POST", `/v1/sessions/${id}/reset`);
    expect(r.status).toBe(200); // the learner moves first: no agent decision in reset
    const step = await client.call("POST", `/v1/sessions/${id}/step`, { actions: maskedPicker(1)(tensor(r.body.mask) as Uint8Array, 1, A) });
    expect(step.status).toBe(503);
    expect(step.body.error.code).toBe("step_timeout");
    openGate();
    const after = await client.call("POST", `/v1/sessions/${id}/step`, { actions: [0] });
    expect(after.status).toBe(409);
    expect(after.body.error.code).toBe("session_quarantined");
  });

  it("one request at a time per session: a concurrent step is a 409 and changes nothing", async () => {
    const { client } = setup();
    const id = await client.create({ game: "count", seats: ["learner", "gate"], numEnvs: 1, seed: 3 });
    const r = await client.ok("POST", `/v1/sessions/${id}/reset`);
    const actions = maskedPicker(1)(tensor(r.mask) as Uint8Array, 1, A);
    const first = client.call("POST", `/v1/sessions/${id}/step`, { actions });
    while (gateWaiting() === 0) await new Promise((res) => setTimeout(res, 1));
    const second = await client.call("POST", `/v1/sessions/${id}/step`, { actions });
    expect(second.status).toBe(409);
    expect(second.body.error.code).toBe("session_busy");
    openGate();
    const done = await first;
    expect(done.status).toBe(200);
    expect(done.body.step).toBe(1);
  });
});

describe("fault isolation (quality 18)", () => {
  it("a rule that throws fails the request with 500 and quarantines that session", async () => {
    const { client } = setup();
    const id = await client.create({ game: "count", numEnvs: 2, seed: 1, config: { throwAtStep: 0 } });
    const r = await client.ok("POST", `/v1/sessions/${id}/reset`);
    const boom = await client.call("POST", `/v1/sessions/${id}/step`, { actions: maskedPicker(1)(tensor(r.mask) as Uint8Array, 2, A) });
    expect(boom.status).toBe(500);
    expect(boom.body.error.code).toBe("game_fault");
    expect(boom.body.error.message).toContain("rules exploded");
    for (const [method, url, body] of [
      ["POST", `/v1/sessions/${id}/step`, { actions: [0, 0] }],
      ["POST", `/v1/sessions/${id}/reset`, {}],
      ["GET", `/v1/sessions/${id}/mask`, undefined],
    ] as const) {
      const res = await client.call(method, url, body);
      expect(res.status).toBe(409);
      expect(res.body.error.code).toBe("session_quarantined");
    }
    const info = await client.ok("GET", `/v1/sessions/${id}`);
    expect(info.status).toBe("quarantined");
    expect(info.quarantine.code).toBe("game_fault");
    expect((await client.call("DELETE", `/v1/sessions/${id}`)).status).toBe(200);
    const m = await client.ok("GET", "/metrics");
    expect(m.errors.game_fault).toBe(1);
  });

  it("an agent that throws is an agent_fault, same treatment", async () => {
    const { client } = setup();
    const id = await client.create({ game: "count", numEnvs: 1, seats: ["learner", "throwing:at=0"] });
    const r = await client.ok("POST", `/v1/sessions/${id}/reset`);
    const boom = await client.call("POST", `/v1/sessions/${id}/step`, { actions: maskedPicker(1)(tensor(r.mask) as Uint8Array, 1, A) });
    expect(boom.status).toBe(500);
    expect(boom.body.error.code).toBe("agent_fault");
    expect((await client.call("POST", `/v1/sessions/${id}/reset`)).status).toBe(409);
  });
});

describe("health and metrics", () => {
  it("counts sessions, envs and steps", async () => {
    const { client } = setup();
    const id = await client.create({ game: "count", numEnvs: 3 });
    let r = await client.ok("POST", `/v1/sessions/${id}/reset`);
    for (let t = 0; t < 5; t++) r = await client.ok("POST", `/v1/sessions/${id}/step`, { actions: maskedPicker(t)(tensor(r.mask) as Uint8Array, 3, A) });
    const m = await client.ok("GET", "/metrics");
    expect(m).toMatchObject({ sessions: 1, envs: 3, steps: 5, envSteps: 15, quarantined: 0 });
    expect(m.envStepsPerSecond).toBeGreaterThan(0);
    expect(m.rssBytes).toBeGreaterThan(0);
    expect((await client.ok("GET", "/healthz")).ok).toBe(true);
  });
});
