import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { FastifyInstance } from "fastify";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { buildApp } from "../../env/server/index.ts";
import { Client, fetchTransport, maskedPicker, tensor } from "./client.ts";
import { FastClient, type FastReply } from "./fast-path-client.ts";

/**
 * The fast path (env/server/fast-path.ts) against HTTP: two servers with real worker threads, one
 * driven over HTTP and one over framed Unix sockets with the same seeds and actions, must give
 * byte-identical replies and the same state hashes, for every game and both autoreset modes. Bad
 * frames get typed errors (never a crash; the connection is closed only when the stream cannot be
 * resynchronised), an attached session refuses HTTP steps, and a fast-path request that runs past
 * the budget is cut off by the main thread's watchdog like an HTTP one.
 */
const BUDGET = 1500;
let dir: string;
let httpApp: FastifyInstance;
let fastApp: FastifyInstance;
let http: Client;
let fast: Client;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), "cg-fast-"));
  const options = { workers: 2, stepTimeoutMs: BUDGET, exposeStateHashes: true, maxEnvsPerSession: 64 };
  httpApp = buildApp(options);
  fastApp = buildApp({ ...options, fastPath: join(dir, "s.sock") });
  http = new Client(fetchTransport(await httpApp.listen({ host: "127.0.0.1", port: 0 })));
  fast = new Client(fetchTransport(await fastApp.listen({ host: "127.0.0.1", port: 0 })));
});
afterAll(async () => {
  await httpApp?.close();
  await fastApp?.close();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

/** Creates a session on the fast-path server and attaches a connection to it. */
async function attached(body: Record<string, unknown>): Promise<{ id: string; conn: FastClient; socket: string; key: string }> {
  const id = await fast.create(body);
  const grant = await fast.ok("POST", `/v1/sessions/${id}/fast-path`);
  expect(grant.socket.startsWith(join(dir, "s.sock.w"))).toBe(true);
  const conn = await FastClient.open(grant.socket);
  const r = await conn.attach(grant.key);
  expect(r?.kind, JSON.stringify(r?.body)).toBe(0);
  return { id, conn, socket: grant.socket, key: grant.key };
}

async function hashes(client: Client, id: string): Promise<string[]> {
  return (await client.ok("GET", `/v1/sessions/${id}`)).hashes;
}

describe("the fast path is the HTTP protocol without HTTP", () => {
  const cases: [string, Record<string, unknown>][] = [
    ["sevens", { game: "sevens", numEnvs: 8, seed: 3 }],
    ["dcg", { game: "dcg", numEnvs: 4, seed: 9, maxDecisions: 60 }],
    ["shephy", { game: "shephy", numEnvs: 4, seed: 1, autoreset: "same-step" }],
    ["blackpoker", { game: "blackpoker", numEnvs: 4, seed: 2, illegalAction: "terminate" }],
    ["sevens, multi", { game: "sevens", numEnvs: 4, seed: 5, seats: ["learner", "learner", "learner", "learner", "learner"] }],
  ];
  for (const [name, body] of cases) {
    it(`${name}: byte-identical replies and equal state hashes for the same seeds and actions`, async () => {
      const hid = await http.create(body);
      const f = await attached(body);
      const n = body.numEnvs as number;
      const pick = maskedPicker(17);
      let h = await http.call("POST", `/v1/sessions/${hid}/reset`, { seed: 40 });
      let r = await f.conn.reset({ seed: 40 });
      expect(Buffer.compare(h.raw, r!.raw)).toBe(0);
      let ended = 0;
      for (let step = 0; step < 150; step++) {
        const mask = tensor(h.body.mask) as Uint8Array;
        const actions = pick(mask, n, mask.length / n);
        // Now and then an out-of-range action: the same refusal (or, with terminate, the same ending).
        if (step % 37 === 36) actions[0] = 10_000;
        h = await http.call("POST", `/v1/sessions/${hid}/step`, { actions });
        r = await f.conn.step(actions);
        expect(r!.status).toBe(h.status);
        expect(Buffer.compare(h.raw, r!.raw)).toBe(0);
        if (h.status !== 200) h = await http.call("GET", `/v1/sessions/${hid}/mask`);
        else ended += [...(tensor(h.body.terminated) as Uint8Array), ...(tensor(h.body.truncated) as Uint8Array)].reduce((a, b) => a + b, 0);
        if (step === 75) {
          h = await http.call("POST", `/v1/sessions/${hid}/reset`, { envs: [1], seeds: [77] });
          r = await f.conn.reset({ envs: [1], seeds: [77] });
          expect(Buffer.compare(h.raw, r!.raw)).toBe(0);
        }
      }
      expect(ended).toBeGreaterThan(0);
      expect(await hashes(fast, f.id)).toEqual(await hashes(http, hid));
      f.conn.close();
    });
  }

  it("a diverging action gives a different reply and different hashes (the comparison can fail)", async () => {
    const body = { game: "sevens", numEnvs: 1, seed: 8 };
    const hid = await http.create(body);
    const f = await attached(body);
    const h = await http.call("POST", `/v1/sessions/${hid}/reset`);
    await f.conn.reset();
    const mask = tensor(h.body.mask) as Uint8Array;
    const legal = [...mask.keys()].filter((a) => mask[a]);
    expect(legal.length).toBeGreaterThan(1);
    expect((await http.call("POST", `/v1/sessions/${hid}/step`, { actions: [legal[0]!] })).status).toBe(200);
    expect((await f.conn.step([legal[1]!]))?.kind).toBe(0);
    expect(await hashes(fast, f.id)).not.toEqual(await hashes(http, hid));
    f.conn.close();
  });
});

/**
 * A reply in env/reply-layout.ts's layout as the msgpack reply's tensors would carry it: each
 * array's bytes, by the msgpack reply's key path.
 */
function laidOut(raw: Buffer): { step: number; arrays: Record<string, Buffer> } {
  const h = (i: number) => raw.readInt32LE(4 * i);
  const [step, flags, n, s, obs, rewards, a] = [h(0), h(1), h(2), h(3), h(4), h(5), h(6)];
  const arrays: Record<string, Buffer> = {};
  let at = 32;
  const take = (key: string | null, bytes: number) => {
    if (key !== null) arrays[key] = raw.subarray(at, at + bytes);
    at += bytes;
  };
  take("seat", 4 * n);
  take("info.episode", 4 * n);
  take("info.episodeStep", 4 * n);
  take((flags & 1) === 0 ? "info.learnerSeat" : null, 4 * n);
  take("reward", 4 * rewards);
  take("info.returns", 4 * n * s);
  take("obs", 4 * obs);
  take("terminated", n);
  take("truncated", n);
  take((flags & 2) !== 0 ? "info.illegal" : null, n);
  take("mask", n * a);
  expect(at).toBe(raw.length);
  return { step, arrays };
}

/** The tensors of a msgpack batch reply, by key path, as bytes. */
function tensorsOf(body: Record<string, any>): Record<string, Buffer> {
  const out: Record<string, Buffer> = {};
  for (const key of ["obs", "mask", "reward", "terminated", "truncated", "seat"]) out[key] = Buffer.from(body[key].data);
  for (const [key, t] of Object.entries(body.info as Record<string, any>)) out[`info.${key}`] = Buffer.from(t.data);
  return out;
}

describe("replies in the fixed layout (request flag 1)", () => {
  const cases: [string, Record<string, unknown>][] = [
    ["sevens, 1 env (what cardgym.make asks for)", { game: "sevens", numEnvs: 1, seed: 4, learnerSeat: "alternating", maxDecisions: 40 }],
    ["blackpoker, illegal actions terminate", { game: "blackpoker", numEnvs: 4, seed: 2, illegalAction: "terminate" }],
    [
      "sevens, multi, every seat observed",
      { game: "sevens", numEnvs: 3, seed: 5, seats: ["learner", "learner", "learner", "learner", "learner"], observe: "all" },
    ],
    ["dcg", { game: "dcg", numEnvs: 2, seed: 9, maxDecisions: 60 }],
  ];
  for (const [name, body] of cases) {
    it(`${name}: carry exactly the arrays and step of the HTTP reply, and refusals stay msgpack errors`, async () => {
      const hid = await http.create(body);
      const f = await attached(body);
      const n = body.numEnvs as number;
      const pick = maskedPicker(23);
      const same = (h: { body: any }, r: FastReply | null, where: string) => {
        expect(r?.layout, where).toBe(1);
        const got = laidOut(r!.raw);
        expect(got.step, where).toBe(h.body.step);
        expect(Object.keys(got.arrays).sort(), where).toEqual(Object.keys(tensorsOf(h.body)).sort());
        for (const [key, bytes] of Object.entries(tensorsOf(h.body))) expect(Buffer.compare(got.arrays[key]!, bytes), `${where}: ${key}`).toBe(0);
      };
      let h = await http.call("POST", `/v1/sessions/${hid}/reset`, { seed: 40 });
      same(h, await f.conn.reset({ seed: 40 }, 1), "reset");
      let illegal = 0;
      for (let step = 0; step < 120; step++) {
        const mask = tensor(h.body.mask) as Uint8Array;
        const actions = pick(mask, n, mask.length / n);
        if (step % 29 === 28) actions[0] = 10_000;
        h = await http.call("POST", `/v1/sessions/${hid}/step`, { actions });
        const r = await f.conn.step(actions, 1);
        if (h.status !== 200) {
          // A refusal (illegalAction "raise"): the same msgpack error body, layout 0.
          expect([r!.kind, r!.layout, r!.status]).toEqual([1, 0, h.status]);
          expect(Buffer.compare(h.raw, r!.raw)).toBe(0);
          h = await http.call("GET", `/v1/sessions/${hid}/mask`);
          continue;
        }
        same(h, r, `step ${step}`);
        if (h.body.info.illegal) illegal++;
      }
      if (body.illegalAction === "terminate") expect(illegal).toBeGreaterThan(0);
      expect(await hashes(fast, f.id)).toEqual(await hashes(http, hid));
      f.conn.close();
    });
  }

  it("sessions whose batches do not fit the layout (same-step autoreset, uint8 observations) answer in msgpack, byte for byte HTTP's", async () => {
    for (const body of [
      { game: "shephy", numEnvs: 2, seed: 1, autoreset: "same-step" },
      { game: "sevens", numEnvs: 1, seed: 3, obsDtype: "uint8" },
    ]) {
      const hid = await http.create(body);
      const f = await attached(body);
      let h = await http.call("POST", `/v1/sessions/${hid}/reset`, { seed: 6 });
      let r = await f.conn.reset({ seed: 6 }, 1);
      expect(r?.layout).toBe(0);
      expect(Buffer.compare(h.raw, r!.raw)).toBe(0);
      const pick = maskedPicker(5);
      for (let step = 0; step < 40; step++) {
        const mask = tensor(h.body.mask) as Uint8Array;
        const actions = pick(mask, body.numEnvs, mask.length / body.numEnvs);
        h = await http.call("POST", `/v1/sessions/${hid}/step`, { actions });
        r = await f.conn.step(actions, 1);
        expect(r?.layout).toBe(0);
        expect(Buffer.compare(h.raw, r!.raw)).toBe(0);
      }
      f.conn.close();
    }
  });
});

describe("untrusted frames", () => {
  it("answers every bad frame with a typed error and keeps serving", async () => {
    const f = await attached({ game: "sevens", numEnvs: 2, seed: 1 });
    const code = (r: Awaited<ReturnType<FastClient["next"]>>) => (r?.kind === 1 ? r.body.error.code : r ? "ok" : "closed");
    expect(code(await f.conn.step([0, 0]))).toBe("reset_required");
    expect(code(await f.conn.reset())).toBe("ok");
    expect(code(await f.conn.step([0]))).toBe("wrong_action_count");
    expect(code(await f.conn.frame(3, new Uint8Array(7)))).toBe("malformed_frame");
    expect(code(await f.conn.frame(9))).toBe("unknown_op");
    expect(code(await f.conn.reset({ seed: "x" }))).toBe("invalid_body");
    expect(code(await f.conn.reset({ bogus: 1 }))).toBe("invalid_body");
    expect(code(await f.conn.frame(2, Uint8Array.of(0xc1)))).toBe("malformed_body");
    expect(code(await f.conn.frame(2, Uint8Array.of(0xd4, 0x01, 0x02)))).toBe("malformed_body");
    expect(code(await f.conn.frame(3, new Uint8Array(4 * 3)))).toBe("wrong_action_count");
    expect(code(await f.conn.frame(3, new Uint8Array(4 * 65)))).toBe("invalid_body");
    expect(code(await f.conn.attach(f.key))).toBe("already_attached");
    // HTTP may read an attached session but not step it.
    expect((await fast.call("POST", `/v1/sessions/${f.id}/step`, { actions: [0, 0] })).body.error.code).toBe("session_attached");
    expect((await fast.call("GET", `/v1/sessions/${f.id}/render?env=0`)).status).toBe(200);
    // A second connection cannot take the session while the first holds it.
    const other = await FastClient.open(f.socket);
    expect(code(await other.step([0, 0]))).toBe("not_attached");
    expect(code(await other.attach("not-a-key"))).toBe("unknown_key");
    expect(code(await other.attach(f.key))).toBe("session_busy");
    // Still usable after all of it.
    expect(code(await f.conn.reset({ seed: 2 }))).toBe("ok");
    other.close();
    f.conn.close();
  });

  it("closes only the connection whose frame length is out of bounds", async () => {
    const f = await attached({ game: "sevens", numEnvs: 1, seed: 1 });
    const huge = Buffer.alloc(8);
    huge.writeUInt32LE(0xffffffff, 0);
    const r = await f.conn.raw(huge);
    expect(r?.body.error.code).toBe("frame_too_large");
    expect(await f.conn.next()).toBeNull();
    const short = await FastClient.open(f.socket);
    const tiny = Buffer.alloc(8);
    tiny.writeUInt32LE(2, 0);
    expect((await short.raw(tiny))?.body.error.code).toBe("malformed_frame");
    expect(await short.next()).toBeNull();
    // The session can be attached again (the key still holds) and the server is fine.
    const again = await FastClient.open(f.socket);
    expect((await again.attach(f.key))?.kind).toBe(0);
    expect((await again.reset())?.kind).toBe(0);
    again.close();
    expect((await fast.call("GET", "/healthz")).status).toBe(200);
  });

  it("survives random garbage on many connections", async () => {
    const f = await attached({ game: "sevens", numEnvs: 1, seed: 4 });
    let x = 12345;
    const rand = () => {
      x ^= x << 13;
      x ^= x >>> 17;
      x ^= x << 5;
      return x >>> 0;
    };
    for (let c = 0; c < 30; c++) {
      const conn = await FastClient.open(f.socket);
      const n = 4 + (rand() % 60);
      const bytes = Buffer.alloc(4 + n);
      bytes.writeUInt32LE(n, 0);
      for (let i = 4; i < bytes.length; i++) bytes[i] = rand() & 0xff;
      if (c % 3 === 0) bytes[4] = 1 + (rand() % 3); // a valid op with a garbage payload
      const r = await conn.raw(bytes);
      expect(r === null || r.kind === 1 || r.kind === 0).toBe(true);
      conn.close();
    }
    expect((await f.conn.reset())?.kind).toBe(0);
    f.conn.close();
  });

  it("stops answering a client that does not read its replies, and answers everything once it reads", async () => {
    const f = await attached({ game: "sevens", numEnvs: 64, seed: 3, illegalAction: "terminate" });
    expect((await f.conn.reset())?.kind).toBe(0);
    const frames = 300;
    const steps = async () => (await fast.ok("GET", "/metrics")).steps as number;
    const start = await steps();
    // 300 steps sent at once and none of their ~110 KB replies read (an out-of-range action: every
    // reply is a whole batch that ends the episodes by terminate).
    const head = Buffer.alloc(8);
    head.writeUInt32LE(4 + 4 * 64, 0);
    head[4] = 3;
    const one = Buffer.concat([head, Buffer.from(new Int32Array(64).fill(9999).buffer)]);
    f.conn.pause();
    f.conn.send(Buffer.concat(Array.from({ length: frames }, () => one)));
    // Wait until the server has stopped stepping (five equal counts in a row), then check it held back.
    let last = -1;
    for (let same = 0; same < 5;) {
      await new Promise((r) => setTimeout(r, 50));
      const now = await steps();
      same = now === last && now > start ? same + 1 : 0;
      last = now;
    }
    expect(last - start).toBeLessThan(frames);
    f.conn.resume();
    for (let i = 0; i < frames; i++) expect((await f.conn.next())?.kind).toBe(0);
    expect((await steps()) - start).toBe(frames);
    f.conn.close();
  });

  it("refuses unknown sessions and servers without a socket", async () => {
    expect((await fast.call("POST", "/v1/sessions/nope/fast-path")).body.error.code).toBe("unknown_session");
    const id = await http.create({ game: "sevens" });
    expect((await http.call("POST", `/v1/sessions/${id}/fast-path`)).body.error.code).toBe("fast_path_off");
  });
});

describe("the budget and the session's life", () => {
  it("a fast-path step past the budget quarantines its session with step_timeout; on the replaced worker HTTP sessions are rebuilt, fast-path ones reported lost", async () => {
    // One worker, so that the runaway session, a fast-path bystander and an HTTP bystander share it.
    const oneApp = buildApp({ workers: 1, stepTimeoutMs: BUDGET, exposeStateHashes: true, maxEnvsPerSession: 64, fastPath: join(dir, "one.sock") });
    try {
      const one = new Client(fetchTransport(await oneApp.listen({ host: "127.0.0.1", port: 0 })));
      const open = async (body: Record<string, unknown>) => {
        const id = await one.create(body);
        const grant = await one.ok("POST", `/v1/sessions/${id}/fast-path`);
        const conn = await FastClient.open(grant.socket);
        expect((await conn.attach(grant.key))?.kind).toBe(0);
        return { id, conn };
      };
      // The HTTP bystander, driven the same way on the reference server (which never times out).
      const body = { game: "sevens", numEnvs: 2, seed: 6 };
      const [hid, rid] = [await one.create(body), await http.create(body)];
      const pickH = maskedPicker(9);
      const stepBoth = async (mask: Uint8Array) => {
        const actions = pickH(mask, 2, mask.length / 2);
        const [a, b] = [await one.call("POST", `/v1/sessions/${hid}/step`, { actions }), await http.call("POST", `/v1/sessions/${rid}/step`, { actions })];
        expect(a.status).toBe(200);
        expect(Buffer.compare(a.raw, b.raw)).toBe(0);
        return tensor(a.body.mask) as Uint8Array;
      };
      let hmask = tensor((await one.call("POST", `/v1/sessions/${hid}/reset`)).body.mask) as Uint8Array;
      await http.call("POST", `/v1/sessions/${rid}/reset`);
      for (let i = 0; i < 5; i++) hmask = await stepBoth(hmask);
      const bystander = await open({ game: "sevens", numEnvs: 2, seed: 6 });
      expect((await bystander.conn.reset())?.kind).toBe(0);
      const f = await open({ game: "dcg", numEnvs: 64, seed: 5, seats: ["learner", "mcts:iters=15625"] });
      const pick = maskedPicker(3);
      let r = await f.conn.reset();
      for (let s = 0; r && r.kind === 0 && s < 500; s++) {
        const mask = tensor(r.body.mask) as Uint8Array;
        r = await f.conn.step(pick(mask, 64, mask.length / 64));
      }
      expect(r).toBeNull();
      const info = await one.ok("GET", `/v1/sessions/${f.id}`);
      expect(info.status).toBe("quarantined");
      expect(info.quarantine.code).toBe("step_timeout");
      // The fast-path bystander's steps were never logged on the main thread: reported lost, not rebuilt.
      const b = await one.ok("GET", `/v1/sessions/${bystander.id}`);
      expect([b.status, b.quarantine?.code]).toEqual(["quarantined", "session_lost"]);
      expect(await bystander.conn.next()).toBeNull();
      // The HTTP bystander was rebuilt exactly: it goes on with the reference's replies and hashes.
      for (let i = 0; i < 5; i++) hmask = await stepBoth(hmask);
      expect(await hashes(one, hid)).toEqual(await hashes(http, rid));
      // And new sessions attach and step on the fresh worker.
      const fresh = await open({ game: "sevens", numEnvs: 1, seed: 7 });
      expect((await fresh.conn.reset())?.kind).toBe(0);
      fresh.conn.close();
    } finally {
      await oneApp.close();
    }
  });

  it("a session held by a connection is not expired as idle, its steps count in /metrics; deleting it ends its frames", async () => {
    const f = await attached({ game: "sevens", numEnvs: 1, seed: 1 });
    const before = await fast.ok("GET", "/metrics");
    const r0 = await f.conn.reset();
    expect(r0?.kind).toBe(0);
    const mask = tensor(r0!.body.mask) as Uint8Array;
    expect((await f.conn.step([mask.indexOf(1)]))?.kind).toBe(0);
    const after = await fast.ok("GET", "/metrics");
    expect([after.steps - before.steps, after.envSteps - before.envSteps]).toEqual([1, 1]);
    const info = await fast.ok("GET", `/v1/sessions/${f.id}`);
    expect([info.step, info.envSteps, info.reset]).toEqual([1, 1, true]);
    const entry = fastApp.cardgym.sessions.find(f.id)!;
    entry.lastUsed = 0;
    fastApp.cardgym.sweep();
    expect(fastApp.cardgym.sessions.find(f.id)).toBeDefined();
    await fast.ok("DELETE", `/v1/sessions/${f.id}`);
    const r = await f.conn.step([0]);
    expect(r?.kind).toBe(1);
    f.conn.close();
  });
});
