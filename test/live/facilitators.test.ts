/** Facilitator presets of POST /v1/tables (docs/live.md, Facilitators): each checks and fills in its seats. */
import { describe, expect, it } from "vitest";
import { Client, http, liveForFile } from "./helpers.ts";

const server = liveForFile();

const create = server.create;

describe("facilitator presets", () => {
  it("the protocol's schemas are served as JSON Schema for client authors", async () => {
    const r = await http(server.live.base, "GET", "/v1/tables/protocol");
    expect(r.status).toBe(200);
    expect(r.body.protocol).toBe(1);
    expect(r.body.schemas.SeatFrame.properties.decisions.type).toBe("array");
    expect(r.body.schemas.Answer.required.sort()).toEqual(["decisionId", "seq", "type"]);
  });

  it("online: people only; an agent seat is refused", async () => {
    const ok = await create({ game: "blackpoker", facilitator: "online" });
    expect(ok.status).toBe(201);
    expect(ok.body.seats.map((s: any) => s.kind)).toEqual(["human", "human"]);
    const bad = await create({ game: "blackpoker", facilitator: "online", seats: ["human", "random"] });
    expect(bad.status).toBe(400);
    expect(bad.body.error.code).toBe("invalid_seats");
  });

  it("training: a person against an agent (the default when seats mix people and agents)", async () => {
    const made = await create({ game: "dcg", seats: ["human", "computer"] });
    expect(made.body.facilitator).toBe("training");
    expect((await create({ game: "dcg", seats: ["human", "human"], facilitator: "training" })).body.error.code).toBe("invalid_seats");
  });

  it("tutorial: one person against the tutorial agent, dcg with the fixed beginner books", async () => {
    const made = await create({ game: "dcg", facilitator: "tutorial" });
    expect(made.status).toBe(201);
    expect(made.body.seats.map((s: any) => s.agent)).toEqual([null, "tutorial"]);
    expect(made.body.config.books).toEqual(["vanguard", "vanguard"]);
    expect((await create({ game: "dcg", facilitator: "tutorial", seats: ["human", "random"] })).status).toBe(400);
  });

  it("sandbag: one person against sandbag agents; the agents play their turns", async () => {
    const made = await create({ game: "sevens", facilitator: "sandbag", seats: ["sandbag", "human", "sandbag"], seed: 6 });
    expect(made.status).toBe(201);
    const c = await Client.open(`${server.live.ws}/v1/tables/${made.body.table}/seats/1/ws?token=${made.body.tokens["1"]}`);
    let f = await c.frame();
    while (f.status !== "finished") {
      if (f.decisions.length > 0) c.send({ type: "answer", seq: f.seq, decisionId: f.decisions[0].id });
      const seq = f.seq;
      f = await c.frame((x) => x.seq > seq);
    }
    c.close();
    const log = (await http(server.live.base, "GET", `/v1/tables/${made.body.table}/log?since=0`)).body.events;
    expect(log.filter((e: any) => e.seat !== 1).every((e: any) => e.cause === "agent")).toBe(true);
  });

  it("audience: agents only, paced for spectators; people are refused", async () => {
    const made = await create({ game: "sevens", facilitator: "audience", seats: ["random", "random", "random"] });
    expect(made.status).toBe(201);
    expect(made.body.tokens).toEqual({});
    expect((await create({ game: "sevens", facilitator: "audience", seats: ["human", "random", "random"] })).status).toBe(400);
  });

  it("learning: not a table; the refusal names the session API", async () => {
    const r = await create({ game: "sevens", facilitator: "learning" });
    expect(r.status).toBe(400);
    expect(r.body.error.code).toBe("unsupported_facilitator");
    expect(r.body.error.message).toContain("/v1/sessions");
  });

  it("a bad agent spec or an unknown game is a 400/404 in the error shape", async () => {
    const bad = await create({ game: "dcg", seats: ["human", "nosuchagent"] });
    expect(bad.status).toBe(400);
    expect(bad.body.error.message).toContain("unknown agent");
    const unknown = await create({ game: "chess" });
    expect(unknown.status).toBe(404);
    expect(unknown.body.error.code).toBe("unknown_game");
    const extra = await create({ game: "dcg", bogus: 1 });
    expect(extra.status).toBe(400);
  });

  it("replay: a record stepped forward and back, watched from a chosen seat's view", async () => {
    const game = await create({ game: "blackpoker", facilitator: "audience", seats: ["random", "random"], seed: 3, deadlines: { botDelayMs: 0 } });
    const w = await Client.open(`${server.live.ws}/v1/tables/${game.body.table}/spectate`);
    await w.frame((f) => f.status === "finished");
    w.close();
    const record = (await http(server.live.base, "GET", `/v1/tables/${game.body.table}/record`)).body;
    const made = await create({ game: "blackpoker", facilitator: "replay", record });
    expect(made.status).toBe(201);
    const id = made.body.table;
    expect((await http(server.live.base, "GET", `/v1/tables/${id}`)).body).toMatchObject({ table: id, facilitator: "replay", seq: 0 });
    const seat0 = await Client.open(`${server.live.ws}/v1/tables/${id}/spectate?viewer=0`);
    expect((await seat0.frame()).seq).toBe(0);
    expect((await http(server.live.base, "POST", `/v1/tables/${id}/cursor`, { seq: 5 })).status).toBe(200);
    const at5 = await seat0.frame((f) => f.seq === 5);
    expect(at5.viewer).toBe(0);
    expect(at5.view.players[0].hand).not.toBeNull();
    expect(at5.view.players[1].hand).toBeNull();
    expect(at5.events.map((e: any) => e.seq)).toEqual([0, 1, 2, 3, 4]);
    await http(server.live.base, "POST", `/v1/tables/${id}/cursor`, { seq: 2 });
    expect((await seat0.frame((f) => f.seq === 2)).events).toEqual([]);
    await http(server.live.base, "POST", `/v1/tables/${id}/cursor`, { seq: record.decisions.length });
    expect((await seat0.frame((f) => f.status === "finished")).returns).toHaveLength(2);
    seat0.close();
    expect((await http(server.live.base, "POST", `/v1/tables/${id}/cursor`, { seq: record.decisions.length + 1 })).body.error.code).toBe("bad_cursor");
    // A live table never shows a seat's view to a spectator.
    expect((await http(server.live.base, "GET", `/v1/tables/${game.body.table}/spectate?viewer=0`)).status).toBe(403);
    const edited = structuredClone(record);
    edited.finalHash = "0";
    expect((await create({ game: "blackpoker", facilitator: "replay", record: edited })).body.error.code).toBe("invalid_record");
  });
});
