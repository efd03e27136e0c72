/**
 * A hostile client against every HTTP route (docs/protocol.md, docs/live.md), as seeded property
 * tests: random and structurally plausible but wrong bodies (wrong types, huge and NaN numbers,
 * deep nesting, extension types, truncated msgpack, wrong content types) for the session and table
 * routes of the shipped games. Each answer must be a 4xx (or the route's success) in the
 * documented `{error: {code, message}}` shape with no stack trace, and the server must go on
 * serving a session it held before, unchanged.
 */
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import fc from "fast-check";
import { pack, unpack } from "msgpackr";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { FastifyInstance } from "fastify";
import { buildApp } from "../../env/server/index.ts";
import { mutated, nasty } from "../fixtures/fuzz.ts";
import { registry } from "../../engine/games.ts";
import { stateHash } from "../../engine/core/hash.ts";

/** Seeded, so a run is repeatable; FUZZ_SEED, FUZZ_RUNS (a multiplier) and FUZZ_WORKERS (session worker threads, default 0: in-thread) widen the search by hand. */
const SEED = Number(process.env.FUZZ_SEED ?? 20261127);
const RUNS = Number(process.env.FUZZ_RUNS ?? 1);
const GAMES = ["sevens", "dcg", "shephy", "blackpoker"];
const CONFIG_KEYS = [
  "seats",
  "books",
  "hp",
  "turnLimit",
  "handStart",
  "mpCap",
  "mpGain",
  "mpFirst",
  "mpSecond",
  "attackCount",
  "bookSize",
  "opsPerTurn",
  "timeoutMs",
  "cardSet",
  "cardPool",
  "board",
  "cardSetFile",
  "passLimit",
  "voluntaryPass",
  "startPlayer",
  "turnTimeoutSec",
  "shaping",
  "mode",
  "bothLivesZero",
  "drawRule",
  "chanceAfterRequest",
  "maxTurns",
];
const AGENTS = [
  "random",
  "sandbag",
  "tutorial",
  "computer",
  "mcts",
  "mcts:iters=1",
  "mcts:iters=0",
  "mcts:iters=-1",
  "mcts:iters=1e308",
  "mcts:iters=NaN",
  "mcts:ms=1",
  "computer:dets=0",
  "computer:dets=99999999",
  "onnx:path=../../etc/passwd",
  "onnx:path=",
  "onnx:builtin/nope",
  "onnx:builtin/../../x",
  "onnx:maxMB=-1",
  "learner",
  "external",
  "open",
  "open:random",
  "human",
  "random:x=1",
  ":",
  "=",
  "mcts:iters",
  "mcts:=3",
  "__proto__",
  "constructor",
  "toString",
];

const dir = mkdtempSync(join(tmpdir(), "cardgym-fuzz-"));
let app: FastifyInstance;
beforeAll(() => {
  app = buildApp({ workers: Number(process.env.FUZZ_WORKERS ?? 0), exposeStateHashes: true, dataDir: dir, webDir: null, maxSessions: 10_000 });
});
afterAll(async () => {
  await app.close();
  rmSync(dir, { recursive: true, force: true });
});

const plausibleConfig = fc.dictionary(fc.constantFrom(...CONFIG_KEYS), nasty, { maxKeys: 4 });

/** Mostly right, now and then wrong: a body that gets past the first checks often enough to reach the deeper ones. */
const mostly = <T>(good: fc.Arbitrary<T>) => fc.oneof({ weight: 12, arbitrary: good }, { weight: 1, arbitrary: nasty });

const createBody = fc
  .record(
    {
      game: mostly(fc.constantFrom(...GAMES)),
      config: mostly(plausibleConfig),
      seats: mostly(fc.array(fc.constantFrom(...AGENTS), { minLength: 1, maxLength: 6 })),
      numEnvs: mostly(fc.integer({ min: 1, max: 3 })),
      seed: mostly(fc.integer()),
      maxDecisions: mostly(fc.constantFrom(null, 1, 50)),
      autoreset: mostly(fc.constantFrom("next-step", "same-step")),
      learnerSeat: mostly(fc.constantFrom("fixed", "alternating", "random")),
      illegalAction: mostly(fc.constantFrom("reject", "terminate")),
      illegalReward: mostly(fc.double({ min: -2, max: 2, noNaN: true })),
      obsDtype: mostly(fc.constantFrom("float32", "float16", "uint8", "bits")),
      observe: mostly(fc.constantFrom("all", "acting")),
      extra: fc.oneof({ weight: 1, arbitrary: nasty }, { weight: 12, arbitrary: fc.constant(undefined) }),
    },
    { requiredKeys: ["game"] },
  )
  .map((b) => Object.fromEntries(Object.entries(b).filter(([, v]) => v !== undefined)));

interface Answer {
  status: number;
  body: any;
  text: string;
}

async function send(method: string, url: string, payload: Buffer | string | undefined, contentType?: string, accept = "application/json"): Promise<Answer> {
  const res = await app.inject({
    method: method as "POST",
    url,
    payload,
    headers: { accept, ...(contentType ? { "content-type": contentType } : {}) },
  });
  const text = res.body;
  let body: any;
  try {
    body = res.headers["content-type"]?.toString().includes("msgpack") ? unpack(res.rawPayload) : JSON.parse(text);
  } catch {
    body = undefined;
  }
  return { status: res.statusCode, body, text };
}

/** The project's rule for any answer to a hostile request. */
function expectClean(a: Answer, what: string): void {
  expect(a.status, `${what} -> ${a.status} ${a.text.slice(0, 300)}`).toBeLessThan(500);
  expect(a.body, `${what}: body is not decodable: ${a.text.slice(0, 300)}`).toBeDefined();
  expect(a.text, what).not.toMatch(/\n\s+at |node:internal|\.ts:\d+/);
  if (a.status >= 400) {
    expect(typeof a.body.error?.code, `${what}: ${a.text.slice(0, 300)}`).toBe("string");
    expect(typeof a.body.error?.message, what).toBe("string");
  }
}

/** A body in one of the encodings a client may send (or get wrong). */
const encoded = (value: unknown) =>
  fc.oneof(
    { weight: 8, arbitrary: fc.constant<[Buffer | string, string | undefined]>([pack(value), "application/msgpack"]) },
    { weight: 3, arbitrary: fc.constant<[Buffer | string, string | undefined]>([JSON.stringify(value) ?? "", "application/json"]) },
    fc.nat({ max: 40 }).map((cut): [Buffer, string] => [pack(value).subarray(0, cut), "application/msgpack"]),
    fc.uint8Array({ maxLength: 64 }).map((bytes): [Buffer, string] => [Buffer.from(bytes), "application/msgpack"]),
    fc.constantFrom<[Buffer | string, string | undefined]>(
      [Buffer.from([0xd6, 0xff, 0, 0, 0, 1]), "application/msgpack"],
      [Buffer.from([0xc7, 0x01, 0x05, 0x00]), "application/x-msgpack"],
      ["", "application/json"],
      [Buffer.alloc(0), "application/msgpack"],
      ["{}", "text/plain"],
      ["{}", "application/json; charset=latin1"],
      ["[".repeat(100_000), "application/json"],
      ['{"a":1e999}', "application/json"],
      ["NaN", "application/json"],
    ),
  );

async function sessionState(id: string) {
  const a = await send("GET", `/v1/sessions/${id}`, undefined);
  return { status: a.status, step: a.body?.step, hashes: a.body?.hashes };
}

describe("HTTP bodies from a hostile client", () => {
  it("session create: any body is answered 201 or a typed 4xx; a bystander session is untouched", async () => {
    const bystander = (await send("POST", "/v1/sessions", JSON.stringify({ game: "sevens", seed: 1 }), "application/json")).body.session;
    await send("POST", `/v1/sessions/${bystander}/reset`, "{}", "application/json");
    const before = await sessionState(bystander);
    const tally: Record<string, number> = {};
    await fc.assert(
      fc.asyncProperty(createBody.chain(encoded), async ([payload, type]) => {
        const a = await send("POST", "/v1/sessions", payload, type);
        tally[`${a.status} ${a.body?.error?.code ?? ""}`] = (tally[`${a.status} ${a.body?.error?.code ?? ""}`] ?? 0) + 1;
        expectClean(a, `create ${String(payload).slice(0, 300)}`);
        if (a.status === 201) {
          // Its first reset must be clean too (config checks that happen only there count).
          const r = await send("POST", `/v1/sessions/${a.body.session}/reset`, "{}", "application/json");
          expectClean(r, `reset after create ${String(payload).slice(0, 300)}`);
          await send("DELETE", `/v1/sessions/${a.body.session}`, undefined);
        }
      }),
      { seed: SEED, numRuns: 300 * RUNS },
    );
    // The bodies reach past the schema into the games' own checks, and some are accepted.
    expect(tally["201 "]).toBeGreaterThan(0);
    expect(tally["400 invalid_config"]).toBeGreaterThan(0);
    expect(await sessionState(bystander)).toEqual(before);
  });
});

const stepBody = fc.oneof(
  { weight: 6, arbitrary: fc.record({ actions: fc.array(fc.integer({ min: -3, max: 300 }), { minLength: 0, maxLength: 4 }) }) },
  { weight: 2, arbitrary: mutated({ actions: [0, 1] }) },
  { weight: 1, arbitrary: nasty },
);
const resetBody = fc.oneof(
  {
    weight: 4,
    arbitrary: fc.record(
      {
        seed: mostly(fc.integer()),
        seeds: mostly(fc.array(fc.oneof(fc.integer(), fc.constant(null)), { maxLength: 3 })),
        envs: mostly(fc.array(fc.integer({ min: -1, max: 3 }), { maxLength: 3 })),
      },
      { requiredKeys: [] },
    ),
  },
  { weight: 2, arbitrary: mutated({ seed: 1, seeds: [1, null], envs: [0, 1] }) },
  { weight: 1, arbitrary: nasty },
);

describe("a refusal that quotes what it refuses", () => {
  it("is cut to 2000 characters, however long the quoted value (sessions and tables)", async () => {
    const long = "x".repeat(900_000);
    for (const url of ["/v1/sessions", "/v1/tables"]) {
      const a = await send("POST", url, JSON.stringify({ game: "dcg", config: { books: [long, "y"] } }), "application/json");
      expectClean(a, url);
      expect(a.body.error.code).toBe("invalid_config");
      expect(a.body.error.message.length, url).toBeLessThan(2100);
      // Cut by the game's own quoting (the value's first characters and its length) or, for a
      // message that quotes more, by the server's cut.
      expect(a.body.error.message, url).toMatch(/\.\.\. \(\d+ (more )?characters\)/);
    }
  });
});

describe("session routes of every shipped game", () => {
  it.each(GAMES)("%s: a refused reset or step changes nothing; the session goes on serving", async (game) => {
    const made = await send("POST", "/v1/sessions", JSON.stringify({ game, numEnvs: 2, seed: 3 }), "application/json");
    expect(made.status).toBe(201);
    const id = made.body.session;
    expect((await send("POST", `/v1/sessions/${id}/reset`, "{}", "application/json")).status).toBe(200);
    await fc.assert(
      fc.asyncProperty(fc.boolean(), fc.oneof(stepBody, resetBody).chain(encoded), async (isStep, [payload, type]) => {
        const before = await sessionState(id);
        const a = await send("POST", `/v1/sessions/${id}/${isStep ? "step" : "reset"}`, payload, type);
        expectClean(a, `${isStep ? "step" : "reset"} ${String(payload).slice(0, 300)}`);
        if (a.status >= 400) expect(await sessionState(id)).toEqual(before);
        const m = await send("GET", `/v1/sessions/${id}/mask?labels=true`, undefined);
        expectClean(m, "mask");
      }),
      { seed: SEED, numRuns: 150 * RUNS },
    );
    for (const q of ["?env=99999", "?env=-1", "?env=1e3", "?env=", "?env=0&env=1", "?x=1", "?env=0"])
      expectClean(await send("GET", `/v1/sessions/${id}/render${q}`, undefined), `render${q}`);
    for (const q of ["?labels=maybe", "?labels=true&labels=false", "?labels[]=1"])
      expectClean(await send("GET", `/v1/sessions/${id}/mask${q}`, undefined), `mask${q}`);
  });
});

/** A whole game's record, played by a seeded chooser over legal(). */
function recordOf(game: string, seed: number): Record<string, unknown> {
  const g = registry.get(game);
  if (!g.ok) throw new Error(game);
  const config = g.value.parseConfig({});
  if (!config.ok) throw new Error(config.error.message);
  let state = g.value.setup(config.value, seed);
  const decisions: unknown[] = [];
  let x = seed || 1;
  for (let i = 0; i < 400 && g.value.actor(state) !== "terminal"; i++) {
    const legal = g.value.legal(state);
    x = (x * 1103515245 + 12345) >>> 0;
    const d = legal[x % legal.length];
    decisions.push(d);
    state = g.value.applyTrusted(state, d);
  }
  return { game, version: g.value.info.version, config: g.value.config(state), seed, decisions, finalHash: stateHash(state) };
}

describe("table routes", () => {
  const board = JSON.parse(readFileSync(new URL("../../docs/examples/dcg-board.json", import.meta.url), "utf8"));
  const records = Object.fromEntries(GAMES.map((g) => [g, recordOf(g, 5)]));

  const tableBody = fc.oneof(
    fc.record(
      {
        game: mostly(fc.constantFrom(...GAMES)),
        seats: mostly(fc.array(fc.constantFrom(...AGENTS), { minLength: 1, maxLength: 6 })),
        seed: mostly(fc.nat()),
        config: mostly(plausibleConfig),
        deadlines: mostly(
          fc.record(
            {
              turnMs: mostly(fc.integer({ min: 100, max: 1e6 })),
              graceMs: mostly(fc.nat()),
              takeover: mostly(fc.constantFrom(...AGENTS)),
              botDelayMs: mostly(fc.nat({ max: 10 })),
              entryMs: mostly(fc.constantFrom(null, 1, 1000)),
            },
            { requiredKeys: [] },
          ),
        ),
        facilitator: mostly(fc.constantFrom("online", "training", "tutorial", "sandbag", "audience", "replay", "debug", "learning")),
        spectators: mostly(fc.boolean()),
      },
      { requiredKeys: ["game"] },
    ),
    fc.constantFrom(...GAMES).chain((g) => mutated(records[g]).map((record) => ({ game: g, facilitator: "replay", record }))),
    mutated(board).map((b) => ({ game: "dcg", facilitator: "debug", board: b, seats: ["human", "random"] })),
    mutated(board).map((b) => ({ game: "dcg", facilitator: "training", config: { board: b }, seats: ["human", "random"] })),
  );

  it("table create: any body is answered 201 or a typed 4xx", async () => {
    const tally: Record<string, number> = {};
    await fc.assert(
      fc.asyncProperty(tableBody.chain(encoded), async ([payload, type]) => {
        const a = await send("POST", "/v1/tables", payload, type);
        tally[`${a.status} ${a.body?.error?.code ?? ""}`] = (tally[`${a.status} ${a.body?.error?.code ?? ""}`] ?? 0) + 1;
        expectClean(a, `table ${String(payload).slice(0, 400)}`);
      }),
      { seed: SEED, numRuns: 300 * RUNS },
    );
    for (const code of ["201 ", "400 invalid_record", "400 invalid_board", "400 invalid_config"]) expect(tally[code], code).toBeGreaterThan(0);
    expectClean(await send("GET", "/v1/tables", undefined), "list");
  });

  it("a replay record whose decision holds NaN or Infinity (msgpack can carry them) is invalid_record, not a 500", async () => {
    for (const game of GAMES) {
      const record = structuredClone(records[game]) as { decisions: unknown[] };
      for (const bad of [NaN, { kind: Infinity }, [{ x: -Infinity }]]) {
        record.decisions[0] = bad;
        const a = await send("POST", "/v1/tables", pack({ game, facilitator: "replay", record }), "application/msgpack");
        expectClean(a, `${game} ${JSON.stringify(bad)}`);
        expect(a.body.error.code).toBe("invalid_record");
        expect(a.body.error.message).toContain("decisions[0] is not plain data");
      }
    }
  });

  it("dcg session with a mutated board: 201 or a typed 4xx", async () => {
    const tally: Record<string, number> = {};
    await fc.assert(
      fc.asyncProperty(mutated(board), async (b) => {
        const a = await send("POST", "/v1/sessions", pack({ game: "dcg", config: { board: b } }), "application/msgpack");
        tally[`${a.status} ${a.body?.error?.code ?? ""}`] = (tally[`${a.status} ${a.body?.error?.code ?? ""}`] ?? 0) + 1;
        expectClean(a, `board ${JSON.stringify(b).slice(0, 400)}`);
        if (a.status === 201) {
          const r = await send("POST", `/v1/sessions/${a.body.session}/reset`, "{}", "application/json");
          expectClean(r, `reset board ${JSON.stringify(b).slice(0, 400)}`);
          const s = await send("POST", `/v1/sessions/${a.body.session}/step`, JSON.stringify({ actions: [r.body.mask.data.indexOf(1)] }), "application/json");
          expectClean(s, `step board ${JSON.stringify(b).slice(0, 400)}`);
          await send("DELETE", `/v1/sessions/${a.body.session}`, undefined);
        }
      }),
      { seed: SEED, numRuns: 200 * RUNS },
    );
    expect(tally["201 "]).toBeGreaterThan(0);
    expect(tally["400 invalid_config"]).toBeGreaterThan(0);
  });
});

describe("a live table's seat routes", () => {
  it("any seat, token, query or body is answered with the route's reply or a typed 4xx; the table plays on", async () => {
    const made = await send(
      "POST",
      "/v1/tables",
      JSON.stringify({ game: "sevens", seats: ["human", "human", "random"], seed: 4, deadlines: { botDelayMs: 0 } }),
      "application/json",
    );
    expect(made.status).toBe(201);
    const { table, tokens } = made.body;
    const replay = await send("POST", "/v1/tables", pack({ game: "sevens", facilitator: "replay", record: recordOf("sevens", 9) }), "application/msgpack");
    expect(replay.status).toBe(201);
    const seat = fc.constantFrom("0", "1", "2", "3", "7", "8", "99", "00", "-1", "1e0", "0x1", "NaN", "%20", "1.0", "");
    const token = fc.constantFrom(tokens["0"], tokens["1"], "", "x", tokens["0"].toUpperCase(), "a".repeat(200), undefined);
    const query = fc.array(
      fc.tuple(
        fc.constantFrom("since", "wait", "token", "viewer", "status", "x"),
        fc.constantFrom("0", "1", "-1", "1e3", "99999999999", "5", "abc", "", "spectator", "playing"),
      ),
      { maxLength: 3 },
    );
    const target = fc.oneof(
      fc.tuple(seat, fc.constantFrom("frame", "answer", "leave", "join", "resign-not", "ws")).map(([s, what]) => `/v1/tables/${table}/seats/${s}/${what}`),
      fc.constantFrom(
        `/v1/tables/${table}`,
        `/v1/tables/${table}/log`,
        `/v1/tables/${table}/spectate`,
        `/v1/tables/${table}/record`,
        `/v1/tables/${table}/cursor`,
      ),
      fc.constantFrom(
        `/v1/tables/${replay.body.table}/cursor`,
        `/v1/tables/${replay.body.table}/spectate`,
        "/v1/tables/t-nope/seats/0/frame",
        "/v1/tables/%00/log",
        "/v1/tables",
      ),
    );
    const body = fc.oneof(fc.record({ seq: mostly(fc.nat({ max: 40 })), decisionId: mostly(fc.nat({ max: 400 })) }, { requiredKeys: [] }), nasty);
    const tally: Record<string, number> = {};
    await fc.assert(
      fc.asyncProperty(fc.constantFrom("GET", "POST"), target, query, token, body.chain(encoded), async (method, path, q, tok, [payload, type]) => {
        // Long polls stay short: this is about the answers, not the wait.
        const params = q.map(([k, v]) => `${k}=${encodeURIComponent(k === "wait" ? String(Math.min(Number(v) || 0, 20)) : v)}`).join("&");
        const res = await app.inject({
          method: method as "POST",
          url: `${path}${params ? `?${params}` : ""}`,
          ...(method === "POST" ? { payload } : {}),
          headers: {
            accept: "application/json",
            ...(method === "POST" && type ? { "content-type": type } : {}),
            ...(tok === undefined ? {} : { "x-seat-token": tok }),
          },
        });
        const a = {
          status: res.statusCode,
          body: res.statusCode === 200 || res.headers["content-type"]?.toString().includes("json") ? safeJson(res.body) : undefined,
          text: res.body,
        };
        tally[`${a.status} ${a.body?.error?.code ?? ""}`] = (tally[`${a.status} ${a.body?.error?.code ?? ""}`] ?? 0) + 1;
        expectClean(a, `${method} ${path}?${params} ${String(payload).slice(0, 200)}`);
      }),
      { seed: SEED, numRuns: 400 * RUNS },
    );
    expect(tally["200 "]).toBeGreaterThan(0);
    // A seat's WebSocket route asked over plain HTTP says so in the error shape (it was an empty 404).
    const plain = await send("GET", `/v1/tables/${table}/seats/0/ws?token=${tokens["0"]}`, undefined);
    expect([plain.status, plain.body?.error?.code]).toEqual([426, "upgrade_required"]);
    // The table is still served (a seat's token may have been given up by a fuzzed leave and a join).
    expect((await send("GET", `/v1/tables/${table}/spectate`, undefined)).status).toBe(200);
    expect((await send("GET", `/v1/tables/${table}/seats/0/frame?token=${tokens["0"]}`, undefined)).status).toBeLessThan(500);
  });
});

function safeJson(text: string): any {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}
