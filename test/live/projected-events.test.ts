/**
 * Every channel carries a decision's events projected for its own viewer (docs/live.md, "Events"):
 * a seat's frames the seat's projection, spectators (and the token-less log route) the spectator's,
 * a replay's spectator the projection for the viewer it chose. Played on a sevens whose events
 * hold private faces, so a channel that sent anything but its own projection shows it.
 */
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { createRegistry, privateEvent, projectEvents, publicEvent, type AnyGame, type GameEvent, type Viewer } from "../../engine/core/index.ts";
import { sevens } from "../../engine/sevens/index.ts";
import { sevensAdapter } from "../../env/games/sevens.ts";
import type { GameAdapter } from "../../env/codec.ts";
import { Compile } from "typebox/compile";
import { ServerMessage } from "../../env/live/protocol.ts";
import { eventLines } from "../../scripts/live-client.ts";
import { Client, http, startLive, tempDir, type Live } from "./helpers.ts";

/** A marker only seat `seat` may ever receive. */
const secretOf = (seat: number) => `SECRET-OF-SEAT-${seat}`;

/** Sevens whose decision events are private to the actor (others read a redacted face), plus a private note and a public one. */
const privateSevens: AnyGame = {
  ...sevens,
  events: (before: unknown, decision: unknown): readonly GameEvent[] => {
    const seat = sevens.actor(before as never) as number;
    const label = sevens.describe(before as never, decision as never);
    return [
      privateEvent("decision", seat, [seat], { text: `${label} (${secretOf(seat)})`, data: { secret: secretOf(seat) } }, { text: `seat ${seat} decided` }),
      privateEvent("info", seat, [seat], { text: `only seat ${seat} reads this: ${secretOf(seat)}` }, null),
      publicEvent("info", null, "everyone reads this", { n: 1 }),
    ];
  },
};
const registry = createRegistry([privateSevens]);
const adapters = new Map<string, GameAdapter>([["sevens", { ...sevensAdapter, game: privateSevens } as GameAdapter]]);

let live: Live | null = null;
const clients: Client[] = [];
afterEach(async () => {
  for (const c of clients.splice(0)) c.close();
  await live?.close();
  live = null;
});

async function open(url: string): Promise<Client> {
  const c = await Client.open(url);
  clients.push(c);
  return c;
}

/** The states of a record, for recomputing what each decision did. */
function statesOf(record: { config: unknown; seed: number; decisions: unknown[] }): unknown[] {
  const config = privateSevens.parseConfig(record.config);
  if (!config.ok) throw new Error(config.error.message);
  const states = [privateSevens.setup(config.value, record.seed)];
  for (const d of record.decisions) {
    const out = privateSevens.apply(states[states.length - 1], d);
    if (!out.ok) throw new Error(out.error.message);
    states.push(out.state);
  }
  return states;
}

/** What decision `seq` of the record looks like to `viewer`: the LiveEvent fields a channel must carry. */
function expected(record: { decisions: unknown[] }, states: unknown[], seq: number, viewer: Viewer) {
  const events = JSON.parse(JSON.stringify(projectEvents(privateSevens.events(states[seq], record.decisions[seq], states[seq + 1]), viewer)));
  return { seq, label: events[0].text, events };
}

const pick = (f: { seq: number; decisions: { id: number }[] }) => f.decisions[(f.seq * 7919) % f.decisions.length]!.id;

/** Plays a whole game of 3 people, with a spectator watching from the start; returns the channels and the record. */
async function playWatched(l: Live) {
  const made = await http(l.base, "POST", "/v1/tables", { game: "sevens", seats: ["human", "human", "human"], seed: 5, config: { turnTimeoutSec: 60 } });
  expect(made.status).toBe(201);
  const { table, tokens } = made.body;
  const seats = await Promise.all([0, 1, 2].map((s) => open(`${l.ws}/v1/tables/${table}/seats/${s}/ws?token=${encodeURIComponent(tokens[String(s)])}`)));
  const spectator = await open(`${l.ws}/v1/tables/${table}/spectate?since=0`);
  for (let seq = 0; ; seq++) {
    const frames = await Promise.all(seats.map((c) => c.frame((f) => f.seq >= seq)));
    if (frames[0].status === "finished") break;
    const mine = frames.find((f) => f.decisions.length > 0)!;
    seats[mine.seat]!.send({ type: "answer", seq, decisionId: pick(mine) });
  }
  const last = await spectator.frame((f) => f.status === "finished");
  const record = (await http(l.base, "GET", `/v1/tables/${table}/record`)).body;
  expect(record.decisions.length).toBe(last.seq);
  return { table, tokens, seats, spectator, record, states: statesOf(record) };
}

const serverMessage = Compile(ServerMessage);

/** Every event on a channel's frames, checked against the projection for `viewer`; returns how many. */
function checkFrames(messages: any[], record: { decisions: unknown[] }, states: unknown[], viewer: Viewer): number {
  let n = 0;
  for (const m of messages) {
    // The protocol's own schema (served at GET /v1/tables/protocol) describes every message.
    expect(serverMessage.Check(m)).toBe(true);
    if (m.type !== "frame" && m.type !== "spectate") continue;
    for (const e of m.events) {
      expect(e).toMatchObject(expected(record, states, e.seq, viewer));
      n++;
    }
    // Only the deciding seat's own frame names the decision its deadline applies.
    if (m.expectation && m.expectation.seat !== viewer) expect(m.expectation.defaultLabel).toBeNull();
  }
  return n;
}

describe("projected events on every channel", () => {
  it("a seat's frames carry each decision's events as that seat may read them; a spectator's the spectator's", async () => {
    live = await startLive({ registry, adapters, workers: 0 });
    const { seats, spectator, record, states } = await playWatched(live);
    for (let s = 0; s < 3; s++) {
      // Every decision reaches every seat exactly once (each frame carries those since the previous one).
      expect(checkFrames(seats[s]!.messages, record, states, s)).toBe(record.decisions.length);
      const text = seats[s]!.raw.join("\n");
      for (let other = 0; other < 3; other++) expect(text.includes(secretOf(other))).toBe(other === s);
    }
    expect(checkFrames(spectator.messages, record, states, "spectator")).toBe(record.decisions.length);
    expect(spectator.raw.join("\n")).not.toMatch(/SECRET/);
    // A seat reads its own decisions in full and the others' redacted; the deadline's default only on its own turn.
    const own = seats[0]!.messages.flatMap((m) => (m.type === "frame" ? m.events : [])).filter((e: any) => e.seat === 0);
    expect(own.length).toBeGreaterThan(0);
    for (const e of own) expect(e.label).toContain(secretOf(0));
    const actorFrames = seats[0]!.messages.filter((m) => m.type === "frame" && m.decisions.length > 0 && m.status === "playing");
    expect(actorFrames.length).toBeGreaterThan(0);
    for (const f of actorFrames) expect(typeof f.expectation.defaultLabel).toBe("string");
    // The terminal client shows a frame's events and nothing else: the label, then each consequence.
    const seen = seats[1]!.messages.find((m) => m.type === "frame" && m.events.some((e: any) => e.seat === 0)).events.find((e: any) => e.seat === 0);
    expect(eventLines(seen)).toEqual([expect.stringMatching(/seat 0: seat 0 decided$/), "         everyone reads this"]);
  });

  it("GET /v1/tables/:id/log needs no token and shows only what a spectator may read; a restart recomputes it from the decisions", async () => {
    const dataDir = tempDir();
    live = await startLive({ registry, adapters, workers: 0 }, dataDir);
    const { table, tokens, record, states } = await playWatched(live);
    const log = await http(live.base, "GET", `/v1/tables/${table}/log?since=0`);
    expect(log.status).toBe(200);
    expect(log.body.events).toHaveLength(record.decisions.length);
    log.body.events.forEach((e: any, seq: number) => expect(e).toMatchObject(expected(record, states, seq, "spectator")));
    expect(JSON.stringify(log.body)).not.toMatch(/SECRET/);
    // The journal keeps decisions, not text: events are recomputed from them.
    const journal = readFileSync(join(dataDir, "tables", `${table}.jsonl`), "utf8");
    expect(journal).not.toMatch(/SECRET|"label"/);
    for (const c of clients.splice(0)) c.close();
    await live.close(true);
    live = await startLive({ registry, adapters, workers: 0 }, dataDir);
    expect((await http(live.base, "GET", `/v1/tables/${table}/log?since=0`)).body).toEqual(log.body);
    const frame = await http(live.base, "GET", `/v1/tables/${table}/seats/1/frame?since=0`, undefined, { "x-seat-token": tokens["1"] });
    expect(frame.status).toBe(200);
    frame.body.events.forEach((e: any, seq: number) => expect(e).toMatchObject(expected(record, states, seq, 1)));
  });

  it("a replay's spectator reads the events of the viewer it chose, and the spectator view none of a seat's private ones", async () => {
    live = await startLive({ registry, adapters, workers: 0 });
    const { record, states } = await playWatched(live);
    const made = await http(live.base, "POST", "/v1/tables", { game: "sevens", facilitator: "replay", record });
    expect(made.status).toBe(201);
    const id = made.body.table;
    const watchers = await Promise.all(
      (["spectator", 0, 1, 2] as const).map(async (viewer) => ({ viewer, c: await open(`${live!.ws}/v1/tables/${id}/spectate?viewer=${viewer}`) })),
    );
    expect((await http(live.base, "POST", `/v1/tables/${id}/cursor`, { seq: record.decisions.length })).status).toBe(200);
    for (const { viewer, c } of watchers) {
      const f = await c.frame((m) => m.seq === record.decisions.length);
      expect(f.events).toHaveLength(record.decisions.length);
      f.events.forEach((e: any, seq: number) => expect(e).toMatchObject(expected(record, states, seq, viewer)));
      const text = c.raw.join("\n");
      for (let s = 0; s < 3; s++) expect(text.includes(secretOf(s))).toBe(viewer === s);
    }
    const polled = await http(live.base, "GET", `/v1/tables/${id}/spectate?since=0`);
    expect(JSON.stringify(polled.body)).not.toMatch(/SECRET/);
  });
});
