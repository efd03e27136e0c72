/**
 * Live tables over real WebSocket connections (docs/live.md): full games of every game with
 * people on every seat and a frame-by-frame leak check, a person against the shipped ONNX policy,
 * spectators, deadlines on an injected clock, disconnect/takeover/return, open seats, stale and
 * duplicate answers, reconnect from history, the HTTP fallback and signed-record verification.
 */
import { spawnSync } from "node:child_process";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { registry } from "../../engine/games.ts";
import { projectEvents, type AnyGame } from "../../engine/core/index.ts";
import { ManualClock } from "../../agents/clock.ts";
import { readKey } from "../../env/live/signing.ts";
import { verifySignedRecord } from "../../env/live/verify.ts";
import { Client, http, startLive, type Live } from "./helpers.ts";
import { waitUntil } from "../fixtures/hang-guard.ts";

let live: Live | null = null;
const extra: Client[] = [];
afterEach(async () => {
  for (const c of extra.splice(0)) c.close();
  await live?.close();
  live = null;
});

const seatUrl = (l: Live, table: string, seat: number, token: string, since?: number) =>
  `${l.ws}/v1/tables/${table}/seats/${seat}/ws?token=${encodeURIComponent(token)}${since === undefined ? "" : `&since=${since}`}`;

async function open(url: string): Promise<Client> {
  const c = await Client.open(url);
  extra.push(c);
  return c;
}

/** Deterministic choice among a frame's decisions. */
const pick = (f: { seq: number; seat: number; decisions: { id: number }[] }) => f.decisions[(f.seq * 7919 + f.seat * 31) % f.decisions.length]!.id;

/** Plays until the game ends, every seat answering from its own channel; returns the last frame per seat. */
async function playOut(clients: Client[], from = 0, stopAt = Infinity): Promise<any[]> {
  let seq = from;
  for (;;) {
    const frames = await Promise.all(clients.map((c) => c.frame((f) => f.seq >= seq)));
    const top = frames[0]!;
    if (top.status === "finished" || top.seq >= stopAt) return frames;
    seq = top.seq;
    const mine = frames.find((f) => f.seq === seq && f.decisions.length > 0);
    if (mine) clients[mine.seat]!.send({ type: "answer", seq, decisionId: pick(mine) });
    seq++;
  }
}

/** What seat `other` holds that `seat` must never see, per game (hand cards). */
function hiddenOf(game: AnyGame, state: unknown, other: number): (frameView: any) => string | null {
  const vb = game.view(state, other) as any;
  switch (game.info.id) {
    case "sevens":
      return (va) => ((vb.hand as number[]).find((c) => va.hand.includes(c)) !== undefined ? `seat ${other}'s card in the hand` : null);
    case "dcg":
      return (va) => ((vb.hand as number[]).some((id) => va.cards[id] !== null) ? `seat ${other}'s hand card visible` : null);
    case "blackpoker":
      return (va) => (va.players[other].hand !== null ? `seat ${other}'s hand visible` : null);
    default:
      return () => null;
  }
}

/**
 * Re-runs the record and checks every frame a seat received: its view is exactly view(state, seat)
 * at that seq, its events exactly the decisions' events projected for that seat, it lists
 * decisions only on its own turn, and no other seat's hand shows.
 */
function checkNoLeak(game: AnyGame, record: any, seat: number, frames: any[]): number {
  const config = game.parseConfig(record.config);
  if (!config.ok) throw new Error(config.error.message);
  const states = [game.setup(config.value, record.seed)];
  for (const d of record.decisions) {
    const out = game.apply(states[states.length - 1], d);
    if (!out.ok) throw new Error(out.error.message);
    states.push(out.state);
  }
  let checked = 0;
  for (const f of frames) {
    if (f.type !== "frame") continue;
    expect(f.seat).toBe(seat);
    const state = states[f.seq];
    expect(f.view).toEqual(JSON.parse(JSON.stringify(game.view(state, seat))));
    if (f.decisions.length > 0) expect(game.actor(state)).toBe(seat);
    for (const e of f.events) {
      expect(Object.keys(e).sort()).toEqual(["at", "cause", "events", "label", "seat", "seq"]);
      // Exactly the decision's events as this seat may read them, its decision event first.
      const seen = projectEvents(game.events(states[e.seq], record.decisions[e.seq], states[e.seq + 1]), seat);
      expect(e.events).toEqual(JSON.parse(JSON.stringify(seen)));
      expect(e.events[0].kind).toBe("decision");
      expect(e.label).toBe(e.events[0].text);
    }
    for (let other = 0; other < record.config.seats; other++) {
      if (other === seat) continue;
      expect(hiddenOf(game, state, other)(f.view)).toBeNull();
    }
    if (f.expectation && f.expectation.seat !== seat) expect(f.expectation.defaultId).toBeNull();
    checked++;
  }
  return checked;
}

const GAMES: { game: string; seats: number; config?: Record<string, unknown> }[] = [
  { game: "dcg", seats: 2 },
  { game: "sevens", seats: 3 },
  { game: "shephy", seats: 1 },
  { game: "blackpoker", seats: 2 },
];

describe("live tables over WebSockets", () => {
  for (const g of GAMES) {
    it(`people on every seat play a full game of ${g.game}; no frame on a seat's channel shows another seat's hand`, async () => {
      live = await startLive();
      const made = await http(live.base, "POST", "/v1/tables", { game: g.game, seats: Array(g.seats).fill("human"), seed: 11, config: g.config ?? {} });
      expect(made.status).toBe(201);
      const { table, tokens } = made.body;
      expect(Object.keys(tokens)).toHaveLength(g.seats);
      const clients = await Promise.all(Array.from({ length: g.seats }, (_, s) => open(seatUrl(live!, table, s, tokens[String(s)]))));
      const last = await playOut(clients);
      expect(last[0].status).toBe("finished");
      expect(last[0].returns).toHaveLength(g.seats);
      const record = (await http(live.base, "GET", `/v1/tables/${table}/record`)).body;
      expect(record.decisions.length).toBe(last[0].seq);
      const game = registry.get(g.game);
      if (!game.ok) throw new Error("no game");
      for (let s = 0; s < g.seats; s++) expect(checkNoLeak(game.value, record, s, clients[s]!.messages)).toBeGreaterThan(0);
      // The raw text on each channel never carries the RNG state or anyone's token.
      for (const c of clients) for (const t of c.raw) for (const tok of Object.values(tokens)) expect(t.includes(tok as string)).toBe(false);
      expect(verifySignedRecord(registry, readKey(live.dataDir), record)).toBeNull();
    });
  }

  it("a person plays dcg against onnx:builtin/dcg-ppo-v1 to the end", async () => {
    live = await startLive();
    const made = await http(live.base, "POST", "/v1/tables", { game: "dcg", seats: ["human", "onnx:builtin/dcg-ppo-v1"], seed: 5, facilitator: "training" });
    expect(made.status).toBe(201);
    expect(made.body.seats[1]).toMatchObject({ kind: "agent", agent: "onnx:builtin/dcg-ppo-v1", status: "bot" });
    const me = await open(seatUrl(live, made.body.table, 0, made.body.tokens["0"]));
    let f = await me.frame();
    let agentMoves = 0;
    while (f.status !== "finished") {
      if (f.decisions.length > 0) me.send({ type: "answer", seq: f.seq, decisionId: pick(f) });
      const seq = f.seq;
      f = await me.frame((x) => x.seq > seq);
      agentMoves += f.events.filter((e: any) => e.seat === 1 && e.cause === "agent").length;
    }
    expect(agentMoves).toBeGreaterThan(0);
    expect(f.returns).toHaveLength(2);
  });

  it("a spectator joins mid-game, gets the spectator view live, and a table can forbid spectators", async () => {
    live = await startLive();
    const made = await http(live.base, "POST", "/v1/tables", { game: "blackpoker", seats: ["human", "human"], seed: 2 });
    const { table, tokens } = made.body;
    const clients = [await open(seatUrl(live, table, 0, tokens["0"])), await open(seatUrl(live, table, 1, tokens["1"]))];
    await playOut(clients, 0, 6);
    const watcher = await open(`${live.ws}/v1/tables/${table}/spectate?since=0`);
    const hello = await watcher.next((m) => m.type === "hello");
    expect(hello).toMatchObject({ role: "spectator", seat: null });
    const first = await watcher.frame();
    expect(first.type).toBe("spectate");
    expect(first.seq).toBeGreaterThanOrEqual(6);
    expect(first.events.length).toBe(first.seq);
    expect(first.view.players[0].hand).toBeNull();
    expect(first.view.players[1].hand).toBeNull();
    expect(first).not.toHaveProperty("decisions");
    const last = await playOut(clients, first.seq);
    const end = await watcher.frame((f) => f.status === "finished");
    expect(end.seq).toBe(last[0].seq);
    // Every decision reached the spectator, in order.
    const seen = watcher.messages.filter((m) => m.type === "spectate").flatMap((m) => m.events.map((e: any) => e.seq));
    expect(seen).toEqual(Array.from({ length: end.seq }, (_, i) => i));

    const closed = await http(live.base, "POST", "/v1/tables", { game: "sevens", seats: ["human", "human", "human"], spectators: false });
    const refused = await open(`${live.ws}/v1/tables/${closed.body.table}/spectate`);
    const err = await refused.next((m) => m.type === "error");
    expect(err.error.code).toBe("spectators_forbidden");
    expect((await http(live.base, "GET", `/v1/tables/${closed.body.table}/spectate`)).status).toBe(403);
  });

  it("a seat that runs out of time gets its default decision exactly once (sevens forced pass), on the injected clock", async () => {
    const clock = new ManualClock();
    live = await startLive({ liveClock: clock });
    const made = await http(live.base, "POST", "/v1/tables", { game: "sevens", seats: ["human", "human", "human"], seed: 4, config: { turnTimeoutSec: 10 } });
    const { table, tokens } = made.body;
    const clients = await Promise.all([0, 1, 2].map((s) => open(seatUrl(live!, table, s, tokens[String(s)]))));
    const frames = await Promise.all(clients.map((c) => c.frame()));
    const actorFrame = frames.find((f) => f.decisions.length > 0)!;
    expect(actorFrame.expectation.deadline).toBe(clock.now() + 10_000);
    expect(actorFrame.expectation.defaultLabel).toMatch(/pass/i);
    const other = frames.find((f) => f.seat !== actorFrame.seat)!;
    expect(other.expectation).toMatchObject({ seat: actorFrame.seat, deadline: clock.now() + 10_000, defaultId: null });
    clock.advance(9_999);
    await new Promise((r) => setTimeout(r, 50));
    expect((await http(live.base, "GET", `/v1/tables/${table}`)).body.seq).toBe(0);
    clock.advance(1);
    const after = await clients[actorFrame.seat]!.frame((f) => f.seq === 1);
    expect(after.events).toEqual([expect.objectContaining({ seq: 0, seat: actorFrame.seat, cause: "timeout", label: actorFrame.expectation.defaultLabel })]);
    // The late answer races the deadline and loses: refused as stale, never applied.
    clients[actorFrame.seat]!.send({ type: "answer", seq: 0, decisionId: actorFrame.decisions[0].id });
    const err = await clients[actorFrame.seat]!.next((m) => m.type === "error");
    expect(err.error.code).toBe("stale_answer");
    // An answer that wins the race cancels the deadline: advancing past it applies nothing more.
    const next = await Promise.all(clients.map((c) => c.frame((f) => f.seq === 1)));
    const mover = next.find((f) => f.decisions.length > 0)!;
    clients[mover.seat]!.send({ type: "answer", seq: 1, decisionId: mover.decisions[0].id });
    await clients[mover.seat]!.next((m) => m.type === "ack");
    clock.advance(9_000);
    await new Promise((r) => setTimeout(r, 50));
    const summary = (await http(live.base, "GET", `/v1/tables/${table}`)).body;
    expect(summary.seq).toBe(2);
    const log = (await http(live.base, "GET", `/v1/tables/${table}/log?since=0`)).body;
    expect(log.events.map((e: any) => e.cause)).toEqual(["timeout", "answer"]);
  });

  it("a stale or duplicate answer is refused and never applied twice (WebSocket and HTTP)", async () => {
    live = await startLive();
    const made = await http(live.base, "POST", "/v1/tables", { game: "dcg", seats: ["human", "human"], seed: 9 });
    const { table, tokens } = made.body;
    const clients = [await open(seatUrl(live, table, 0, tokens["0"])), await open(seatUrl(live, table, 1, tokens["1"]))];
    const frames = await Promise.all(clients.map((c) => c.frame()));
    const f = frames.find((x) => x.decisions.length > 0)!;
    const c = clients[f.seat]!;
    c.send({ type: "answer", seq: f.seq, decisionId: f.decisions[0].id });
    c.send({ type: "answer", seq: f.seq, decisionId: f.decisions[0].id });
    await c.next((m) => m.type === "ack");
    // Wait for a reply to each of the two answers (rather than for a while), then look at them.
    await waitUntil(() => c.messages.filter((m) => m.type === "ack" || m.type === "error").length >= 2, "replies to both answers");
    const replies = c.messages.filter((m) => m.type === "ack" || m.type === "error");
    expect(replies.filter((m) => m.type === "ack")).toEqual([{ type: "ack", seq: f.seq + 1, decisionId: f.decisions[0].id }]);
    expect(replies.filter((m) => m.type === "error").map((m) => m.error.code)).toEqual(["stale_answer"]);
    const headers = { "x-seat-token": tokens[String(f.seat)] };
    const dup = await http(live.base, "POST", `/v1/tables/${table}/seats/${f.seat}/answer`, { seq: f.seq, decisionId: f.decisions[0].id }, headers);
    expect(dup.status).toBe(409);
    expect(dup.body.error.code).toBe("stale_answer");
    expect((await http(live.base, "GET", `/v1/tables/${table}`)).body.seq).toBe(f.seq + 1);
    // Wrong token, unknown id, bad message.
    expect((await http(live.base, "POST", `/v1/tables/${table}/seats/${f.seat}/answer`, { seq: 1, decisionId: 0 }, { "x-seat-token": "nope" })).status).toBe(
      401,
    );
    const now = await http(live.base, "GET", `/v1/tables/${table}/seats/0/frame`, undefined, { "x-seat-token": tokens["0"] });
    const actor = now.body.actor as number;
    const bad = await http(
      live.base,
      "POST",
      `/v1/tables/${table}/seats/${actor}/answer`,
      { seq: now.body.seq, decisionId: 999_999 },
      { "x-seat-token": tokens[String(actor)] },
    );
    expect(bad.body.error.code).toBe("unknown_decision");
    clients[0]!.socket.send("not json");
    expect((await clients[0]!.next((m) => m.type === "error")).error.code).toBe("bad_message");
    const intruder = await open(seatUrl(live, table, 0, tokens["1"]));
    expect((await intruder.next((m) => m.type === "error")).error.code).toBe("unauthorized");
  });

  it("a person who disconnects keeps the seat for the grace period, then a bot plays it, and the person returns with the log since", async () => {
    const clock = new ManualClock();
    live = await startLive({ liveClock: clock });
    const made = await http(live.base, "POST", "/v1/tables", {
      game: "dcg",
      seats: ["human", "human"],
      seed: 21,
      deadlines: { graceMs: 5_000, takeover: "random" },
    });
    const { table, tokens } = made.body;
    const a = await open(seatUrl(live, table, 0, tokens["0"]));
    let b = await open(seatUrl(live, table, 1, tokens["1"]));
    await playOut([a, b], 0, 4);
    const lastSeen = (await b.frame()).seq;
    b.close();
    const away = await a.frame((f) => f.seats[1].status === "away");
    expect(away.seats[1]).toMatchObject({ kind: "human", status: "away", held: true });
    clock.advance(5_000);
    await a.frame((f) => f.seats[1].status === "bot");
    // Seat 0 keeps playing; seat 1's turns are now taken by the takeover agent.
    let f = await a.frame();
    let botMoves = 0;
    for (let i = 0; i < 400 && botMoves === 0 && f.status !== "finished"; i++) {
      if (f.decisions.length > 0) a.send({ type: "answer", seq: f.seq, decisionId: pick(f) });
      const seq = f.seq;
      f = await a.frame((x) => x.seq > seq);
      botMoves += f.events.filter((e: any) => e.seat === 1 && e.cause === "agent").length;
    }
    expect(botMoves).toBeGreaterThan(0);
    b = await open(seatUrl(live, table, 1, tokens["1"], lastSeen));
    const back = await b.next((m) => m.type === "frame");
    expect(back.seats[1].status).toBe("connected");
    expect(back.events.map((e: any) => e.seq)).toEqual(Array.from({ length: back.seq - lastSeen }, (_, i) => lastSeen + i));
    expect((await a.frame((x) => x.seats[1].status === "connected")).seats[1].status).toBe("connected");
    if (back.status !== "finished") {
      const last = await playOut([a, b], back.seq);
      const events = (await http(live.base, "GET", `/v1/tables/${table}/log?since=${back.seq + 1}`)).body.events;
      // Once back, seat 1's decisions are the person's again.
      expect(events.filter((e: any) => e.seat === 1).every((e: any) => e.cause === "answer")).toBe(true);
      expect(last[0].status).toBe("finished");
    }
  });

  it("an open seat is played by its agent until somebody joins it mid-game", async () => {
    live = await startLive();
    const made = await http(live.base, "POST", "/v1/tables", { game: "sevens", seats: ["human", "human", "open:random"], seed: 8 });
    const { table, tokens } = made.body;
    expect(Object.keys(tokens).sort()).toEqual(["0", "1"]);
    expect(made.body.seats[2]).toMatchObject({ kind: "open", status: "bot", held: false });
    const clients = [await open(seatUrl(live, table, 0, tokens["0"])), await open(seatUrl(live, table, 1, tokens["1"]))];
    await playOut(clients, 0, 5);
    const joined = await http(live.base, "POST", `/v1/tables/${table}/seats/2/join`);
    expect(joined.status).toBe(200);
    const again = await http(live.base, "POST", `/v1/tables/${table}/seats/2/join`);
    expect(again.body.error.code).toBe("seat_taken");
    const c = await open(seatUrl(live, table, 2, joined.body.token));
    const f = await c.frame();
    expect(f.seats[2]).toMatchObject({ kind: "human", status: "connected", held: true });
    const last = await playOut([...clients, c], f.seq);
    expect(last[2].status).toBe("finished");
    const log = (await http(live.base, "GET", `/v1/tables/${table}/log?since=0`)).body.events;
    const seat2 = log.filter((e: any) => e.seat === 2);
    expect(seat2.some((e: any) => e.cause === "agent")).toBe(true);
    expect(seat2.some((e: any) => e.cause === "answer")).toBe(true);
  });

  it("plays a whole game over the HTTP fallback (long poll), lists tables without tokens", async () => {
    live = await startLive();
    const made = await http(live.base, "POST", "/v1/tables", { game: "dcg", seats: ["human", "random"], seed: 1 });
    const { table, tokens } = made.body;
    const list = await http(live.base, "GET", "/v1/tables");
    expect(JSON.stringify(list.body)).not.toContain(tokens["0"]);
    expect(list.body.tables.map((t: any) => t.table)).toContain(table);
    const h = { "x-seat-token": tokens["0"] };
    let since = "";
    for (let i = 0; i < 2000; i++) {
      const f = (await http(live.base, "GET", `/v1/tables/${table}/seats/0/frame${since}`, undefined, h)).body;
      if (f.status === "finished") break;
      since = `?since=${f.seq}&wait=5000`;
      if (f.decisions.length > 0) {
        const r = await http(live.base, "POST", `/v1/tables/${table}/seats/0/answer`, { seq: f.seq, decisionId: pick(f) }, h);
        expect(r.status).toBe(200);
      }
    }
    const summary = (await http(live.base, "GET", `/v1/tables/${table}`)).body;
    expect(summary.status).toBe("finished");
  });

  it("an exported record verifies; an edited decision, a reordered entry or another server's key fails --verify", async () => {
    live = await startLive();
    const made = await http(live.base, "POST", "/v1/tables", {
      game: "sevens",
      seats: ["random", "random", "random"],
      seed: 3,
      facilitator: "audience",
      deadlines: { botDelayMs: 0 },
    });
    const { table } = made.body;
    const watcher = await open(`${live.ws}/v1/tables/${table}/spectate`);
    await watcher.frame((f) => f.status === "finished");
    const rec = (await http(live.base, "GET", `/v1/tables/${table}/record`)).body;
    const key = readKey(live.dataDir);
    expect(verifySignedRecord(registry, key, rec)).toBeNull();
    const edited = structuredClone(rec);
    const i = edited.decisions.findIndex((d: any) => d.kind !== "pass");
    edited.decisions[i] = { kind: "pass" };
    expect(verifySignedRecord(registry, key, edited)).toMatch(/entry \d+/);
    const swapped = structuredClone(rec);
    [swapped.decisions[1], swapped.decisions[2]] = [swapped.decisions[2], swapped.decisions[1]];
    [swapped.signed.entries[1], swapped.signed.entries[2]] = [swapped.signed.entries[2], swapped.signed.entries[1]];
    expect(verifySignedRecord(registry, key, swapped)).toMatch(/reordered/);
    expect(verifySignedRecord(registry, Buffer.alloc(32, 7), rec)).toMatch(/signature/);
    // The CLI: exit 0 on the intact record, non-zero on the edited one.
    const good = join(live.dataDir, "good.json");
    const bad = join(live.dataDir, "bad.json");
    writeFileSync(good, JSON.stringify(rec));
    writeFileSync(bad, JSON.stringify(edited));
    const run = (file: string) =>
      spawnSync(process.execPath, ["--import", "tsx", "scripts/replay.ts", file, "--verify", "--data-dir", live!.dataDir], { encoding: "utf8" });
    const ok = run(good);
    expect(ok.stdout).toContain("signed log verified");
    expect(ok.status).toBe(0);
    const ko = run(bad);
    expect(ko.status).not.toBe(0);
    expect(ko.stderr).toContain("verify_failed");
  });
});
