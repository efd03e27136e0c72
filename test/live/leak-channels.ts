/**
 * The all-channel leak check: whole games on real tables (the server's own routes and table code,
 * in-process channels or real WebSockets), every byte each channel sent recorded with the viewer
 * it was sent to, then checked four ways:
 *
 * A. Exactness: each message holds nothing but what its viewer may get: the game's view for that
 *    viewer, each decision's events projected for that viewer (label = the projected decision
 *    text), the legal decisions and the deadline's default only on the deciding seat's own frame,
 *    and public table data; no other field.
 * B. Re-deal through the table code (in-process tables): at the moment a frame is sent, the state
 *    is re-dealt behind the viewer's back (test/conformance/leak.ts, written from the rules: swaps
 *    of cards the viewer cannot see; for a spectator, any seat's hand too) and the same frame is
 *    built again by the table: it must be byte-identical (events aside, which C covers).
 * C. Re-deal of the events (test/conformance/events.ts): two worlds the viewer cannot tell apart
 *    before, by and after a decision must give it the same projected events.
 * D. Names (dcg): no message names a card that was hidden from its viewer in every state the
 *    message speaks of and not visible anywhere in them (nor in the viewer's own book). Card names
 *    are strings in labels and data, so a label or data value naming a hidden card is caught in
 *    the raw bytes, whatever field carries it.
 */
import { rmSync } from "node:fs";
import { mkdtempSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { FastifyInstance } from "fastify";
import {
  canonicalJson,
  createRegistry,
  deriveSeed,
  projectEvents,
  Rng,
  type AnyGame,
  type GameEvent,
  type GameRegistry,
  type Viewer,
} from "../../engine/core/index.ts";
import { registry as shipped } from "../../engine/games.ts";
import type { DcgConfig } from "../../engine/dcg/config.ts";
import type { GameAdapter } from "../../env/codec.ts";
import { adapters as shippedAdapters } from "../../env/games/index.ts";
import { ManualClock } from "../../agents/clock.ts";
import { SeatFrame, SpectatorFrame } from "../../env/live/protocol.ts";
import type { ReplayTable } from "../../env/live/replay.ts";
import type { TableStore } from "../../env/live/store.ts";
import type { Channel, Table } from "../../env/live/table.ts";
import { buildApp } from "../../env/server/index.ts";
import { eventLeakProblems, viewersOf, type LeakTally } from "../conformance/events.ts";
import { expect, it } from "vitest";
import { Client, http, type Live } from "./helpers.ts";
import { redeals } from "../conformance/leak.ts";

/** One message as sent: to whom (the viewer it was built for), on which kind of channel, its bytes. */
export interface Sent {
  readonly channel: "seat" | "spectator" | "log" | "spectate-http" | "replay";
  readonly viewer: Viewer;
  readonly text: string;
}

/** A finished game, re-run from its record: what every message is checked against. */
export interface Played {
  readonly game: AnyGame;
  readonly record: { config: unknown; seed: number; decisions: unknown[]; signed: { entries: { seat: number; cause: string; at: number }[] } };
  readonly states: unknown[];
  readonly sent: Sent[];
  /** Problems found while the game ran (B), and how many frames B rebuilt. */
  readonly live: string[];
  readonly rebuilt: number;
}

export interface Tally {
  messages: number;
  events: number;
  redealt: number;
  namesChecked: number;
  leak: LeakTally;
  /**
   * What the checks saw, by kind: `channel:` each kind of channel, `cause:` each cause of a
   * decision in the signed log, `event:` each event kind with its audience, `hidden:` (dcg) each
   * zone a card was hidden in from a viewer a frame was sent to. A test asserts the set it needs, so
   * fewer games can never silently stop covering a case.
   */
  covered: Set<string>;
}

export const newTally = (): Tally => ({
  messages: 0,
  events: 0,
  redealt: 0,
  namesChecked: 0,
  leak: { compared: 0, hiddenCompared: 0 },
  covered: new Set(),
});

// ------------------------------------------------------------------ a server with a game set

export interface Server {
  readonly app: FastifyInstance;
  readonly registry: GameRegistry;
  readonly store: TableStore;
  readonly clock: ManualClock;
  close(): Promise<void>;
}

/** The real server (routes, store, tables) on the given games, journaling to a RAM disk when there is one; no port. */
export async function server(games: readonly AnyGame[] = shipped.all()): Promise<Server> {
  const dataDir = mkdtempSync(join(existsShm() ? "/dev/shm" : tmpdir(), "cardgym-leak-"));
  const clock = new ManualClock();
  const registry: GameRegistry = createRegistry(games);
  const adapters = new Map<string, GameAdapter>(games.map((g) => [g.info.id, { ...shippedAdapters.get(g.info.id)!, game: g } as GameAdapter]));
  const app = buildApp({ dataDir, registry, adapters, workers: 0, liveClock: clock });
  await app.ready();
  const store = (app as unknown as { cardgym: { tables: TableStore } }).cardgym.tables;
  return {
    app,
    registry,
    store,
    clock,
    async close() {
      await app.close();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

function existsShm(): boolean {
  try {
    rmSync(mkdtempSync("/dev/shm/cardgym-probe-"), { recursive: true });
    return true;
  } catch {
    return false;
  }
}

async function inject(app: FastifyInstance, method: "GET" | "POST", url: string, body?: unknown): Promise<{ status: number; text: string }> {
  const r = await app.inject({ method, url, headers: { accept: "application/json" }, ...(body === undefined ? {} : { payload: body as object }) });
  return { status: r.statusCode, text: r.body };
}

// ------------------------------------------------------------------ playing a game

/** dcg book pairs (mostly disjoint, so a hidden card's name is rarely also a visible card's). */
const DCG_BOOKS: readonly [string, string][] = [
  ["vanguard", "bastion"],
  ["bastion", "vanguard"],
  ["venom", "tempo"],
  ["tempo", "bastion"],
  ["vanguard", "venom"],
];

/**
 * dcg game lengths: mostly shorter battles (a whole game still: strategy time, turns, feints, the
 * end), so that hundreds of them fit in a test; one in eight at the default length.
 */
const DCG_LENGTHS: readonly Record<string, number>[] = [
  { turnLimit: 8 },
  { turnLimit: 12, hp: 8 },
  { turnLimit: 10 },
  { hp: 6 },
  { turnLimit: 6 },
  { turnLimit: 14 },
  { hp: 10 },
  {},
];

export interface PlayOptions {
  readonly seed: number;
  /** Seat specs (default: people on every seat, answered by the test at random). */
  readonly seats?: readonly string[];
  /** Run check B at every frame sent (in-process channels only). */
  readonly redeal?: boolean;
}

const TURN_MS = 60_000;

/** The table's private state, for check B (the test swaps it for a moment and rebuilds the frame). */
type Inside = { state: unknown; optionsCache: unknown };

/**
 * One whole game of `gameId` on a table of `s`: a channel per seat and a spectator from the start,
 * a second spectator joining halfway with the history, the log route and the HTTP spectate route
 * polled along the way, some deadlines run out; then a replay table of its record watched by every
 * viewer while its cursor moves forward and back. Returns every message sent, with its viewer.
 */
export async function playOne(s: Server, gameId: string, o: PlayOptions): Promise<Played> {
  const served = s.registry.get(gameId);
  if (!served.ok) throw new Error(served.error.message);
  const g = served.value;
  const rng = Rng.seeded(deriveSeed(o.seed, "leak-channels"));
  const seats = o.seats ?? Array.from({ length: g.info.defaultSeats }, () => "human");
  const config: Record<string, unknown> = gameId === "dcg" ? { books: DCG_BOOKS[o.seed % DCG_BOOKS.length], ...DCG_LENGTHS[o.seed % DCG_LENGTHS.length] } : {};
  const made = await inject(s.app, "POST", "/v1/tables", { game: gameId, seats, seed: o.seed, config, deadlines: { turnMs: TURN_MS, graceMs: 10 * TURN_MS } });
  if (made.status !== 201) throw new Error(`table not made: ${made.text}`);
  const id = (JSON.parse(made.text) as { table: string }).table;
  const table = s.store.get(id);
  const sent: Sent[] = [];
  const live: string[] = [];
  const count = { rebuilt: 0 };
  const latest = new Map<number, string>();
  const channel = (seat: number | null): Channel => {
    const viewer: Viewer = seat ?? "spectator";
    const c: Channel = {
      seat,
      sentSeq: 0,
      send: (text) => {
        sent.push({ channel: seat === null ? "spectator" : "seat", viewer, text });
        if (seat !== null) latest.set(seat, text);
        if (o.redeal) live.push(...redealFrame(table, g, c, text, rng, count));
      },
      close: () => undefined,
    };
    return c;
  };
  const humans = seats.flatMap((spec, seat) => (spec === "human" ? [seat] : []));
  for (const seat of humans) table.attach(channel(seat), null);
  table.attach(channel(null), 0);
  let late = false;
  // dcg's default at a deadline is forceFinish (it loses the game): only some dcg games end that way.
  const dcgTimeout = o.seed % 8 === 0 ? 30 + rng.int(90) : -1;
  while (!table.isFinished) {
    const seq = table.seq;
    if (!late && seq > 10) {
      late = true;
      table.attach(channel(null), rng.int(seq));
    }
    if (seq % 7 === 3)
      sent.push({ channel: "log", viewer: "spectator", text: (await inject(s.app, "GET", `/v1/tables/${id}/log?since=${rng.int(seq + 1)}`)).text });
    if (seq % 11 === 5)
      sent.push({
        channel: "spectate-http",
        viewer: "spectator",
        text: (await inject(s.app, "GET", `/v1/tables/${id}/spectate?since=${rng.int(seq + 1)}`)).text,
      });
    const actor = humans.find((seat) => table.mustDecide(seat));
    const timeout = gameId === "dcg" ? seq === dcgTimeout : rng.int(23) === 0;
    if (actor !== undefined && !timeout) {
      const frame = JSON.parse(latest.get(actor)!) as SeatFrame;
      if (frame.seq !== seq || frame.decisions.length === 0) throw new Error(`seat ${actor} must decide at ${seq} but its last frame is at ${frame.seq}`);
      await table.answer(actor, seq, frame.decisions[rng.int(frame.decisions.length)]!.id);
    } else {
      // An agent's turn, or a person's deadline running out (its default decision, cause timeout).
      // Wait on the table itself (a guard, not a speed limit: up to 10 minutes for one decision).
      for (let tries = 0; table.seq === seq && !table.isFinished; tries++) {
        if (tries > 600) throw new Error(`table stuck at seq ${seq}`);
        if (actor !== undefined) s.clock.advance(TURN_MS);
        await table.waitForChange(1000);
      }
    }
  }
  sent.push({ channel: "log", viewer: "spectator", text: (await inject(s.app, "GET", `/v1/tables/${id}/log?since=0`)).text });
  const record = JSON.parse((await inject(s.app, "GET", `/v1/tables/${id}/record`)).text) as Played["record"];
  const states = statesOf(g, record);
  sent.push(...(await watchReplay(s, g, record, states, rng, o.redeal === true, live, count)));
  return { game: g, record, states, sent, live, rebuilt: count.rebuilt };
}

/** The states of a record (states[k]: after k decisions). */
export function statesOf(game: AnyGame, record: { config: unknown; seed: number; decisions: unknown[] }): unknown[] {
  const config = game.parseConfig(record.config);
  if (!config.ok) throw new Error(config.error.message);
  const states = [game.setup(config.value, record.seed)];
  for (const d of record.decisions) states.push(game.applyTrusted(states[states.length - 1], d));
  return states;
}

/** A replay table of the record, watched by every viewer (in-process channels) while its cursor moves. */
async function watchReplay(
  s: Server,
  g: AnyGame,
  record: Played["record"],
  states: unknown[],
  rng: Rng,
  redeal: boolean,
  live: string[],
  count: { rebuilt: number },
): Promise<Sent[]> {
  const made = await inject(s.app, "POST", "/v1/tables", { game: g.info.id, facilitator: "replay", record });
  if (made.status !== 201) throw new Error(`replay not made: ${made.text}`);
  const id = (JSON.parse(made.text) as { table: string }).table;
  const replay = s.store.watchable(id) as ReplayTable;
  const sent: Sent[] = [];
  for (const viewer of viewersOf(g, states[0])) {
    const c: Channel = {
      seat: null,
      viewer: viewer as "spectator" | number,
      sentSeq: 0,
      send: (text) => {
        sent.push({ channel: "replay", viewer, text });
        if (redeal) live.push(...redealReplayFrame(replay, g, c, text, rng, count));
      },
      close: () => undefined,
    };
    replay.attach(c, 0);
  }
  const n = record.decisions.length;
  // Forward one by one for a while, then jumps both ways, then the end.
  const cursor = [...Array.from({ length: Math.min(n, 12) }, (_, i) => i + 1), ...Array.from({ length: 8 }, () => rng.int(n + 1)), n];
  for (const seq of cursor) {
    const moved = await inject(s.app, "POST", `/v1/tables/${id}/cursor`, { seq });
    if (moved.status !== 200) throw new Error(`cursor: ${moved.text}`);
  }
  sent.push({ channel: "replay", viewer: "spectator", text: (await inject(s.app, "GET", `/v1/tables/${id}/spectate?since=0`)).text });
  replay.close();
  return sent;
}

// ------------------------------------------------------------------ B: re-deal through the table code

/**
 * A state that differs from `state` only in what `viewer` cannot see (a rules-written swap, one
 * kind chosen at random: a frame is sent often enough that every kind is tried many times), or
 * null when the state offers none.
 */
function redealFor(g: AnyGame, state: unknown, viewer: Viewer, rng: Rng): unknown {
  const r = redeals[g.info.id];
  if (!r) throw new Error(`no re-deal rules for ${g.info.id}`);
  if (viewer !== "spectator") return r.hidden(state, viewer, rng);
  const seat = rng.int(g.config(state).seats as number);
  // A spectator sees no hand (shephy's spectator looks over the solitaire player's shoulder).
  return g.info.id !== "shephy" && rng.int(2) === 0 ? r.own(state, seat, rng) : r.hidden(state, seat, rng);
}

const withoutEvents = (text: string): string => {
  const { events: _events, ...rest } = JSON.parse(text) as Record<string, unknown>;
  return canonicalJson(rest);
};

/** Check B for one frame a table sent: rebuilt from a re-dealt state, it must read the same. */
function redealFrame(table: Table, g: AnyGame, c: Channel, text: string, rng: Rng, count: { rebuilt: number }): string[] {
  const inside = table as unknown as Inside;
  const real = inside.state;
  const viewer: Viewer = c.seat ?? "spectator";
  const problems: string[] = [];
  const seen = withoutEvents(text);
  const other = redealFor(g, real, viewer, rng);
  if (other !== null) {
    inside.state = other;
    inside.optionsCache = null;
    count.rebuilt++;
    try {
      const again = JSON.stringify(c.seat === null ? table.spectatorFrame(table.seq) : table.seatFrame(c.seat, table.seq));
      if (withoutEvents(again) !== seen)
        problems.push(`B: ${viewer}'s frame at seq ${table.seq} changed when only what it cannot see was re-dealt: ${firstDiff(seen, withoutEvents(again))}`);
    } finally {
      inside.state = real;
      inside.optionsCache = null;
    }
  }
  return problems;
}

function redealReplayFrame(replay: ReplayTable, g: AnyGame, c: Channel, text: string, rng: Rng, count: { rebuilt: number }): string[] {
  const states = (replay as unknown as { states: unknown[] }).states;
  const k = replay.seq;
  const real = states[k];
  const viewer = c.viewer ?? "spectator";
  const problems: string[] = [];
  const seen = withoutEvents(text);
  const other = redealFor(g, real, viewer, rng);
  if (other !== null) {
    states[k] = other;
    count.rebuilt++;
    try {
      const again = JSON.stringify(replay.spectatorFrame(k, viewer));
      if (withoutEvents(again) !== seen)
        problems.push(`B: replay viewer ${viewer}'s frame at ${k} changed when only what it cannot see was re-dealt: ${firstDiff(seen, withoutEvents(again))}`);
    } finally {
      states[k] = real;
    }
  }
  return problems;
}

function firstDiff(a: string, b: string): string {
  let i = 0;
  while (i < a.length && a[i] === b[i]) i++;
  return `...${a.slice(Math.max(0, i - 80), i + 40)}... vs ...${b.slice(Math.max(0, i - 80), i + 40)}...`;
}

// ------------------------------------------------------------------ A and D: every message

const SEAT_FRAME_KEYS = new Set(Object.keys(SeatFrame.properties));
const SPECTATOR_FRAME_KEYS = new Set(Object.keys(SpectatorFrame.properties));
const LIVE_EVENT_KEYS = ["at", "cause", "events", "label", "seat", "seq"];

/** Per played game: caches of what each viewer may get. */
class Expected {
  private readonly events = new Map<number, readonly GameEvent[]>();
  private readonly seen = new Map<string, string>();
  private readonly views = new Map<string, string>();

  constructor(readonly p: Played) {}

  eventsOf(seq: number): readonly GameEvent[] {
    let e = this.events.get(seq);
    if (e === undefined) {
      e = this.p.game.events(this.p.states[seq], this.p.record.decisions[seq], this.p.states[seq + 1]);
      this.events.set(seq, e);
    }
    return e;
  }

  /** The decision's events as `viewer` reads them, as JSON. */
  seenBy(seq: number, viewer: Viewer): string {
    const key = `${seq}:${viewer}`;
    let s = this.seen.get(key);
    if (s === undefined) {
      s = JSON.stringify(projectEvents(this.eventsOf(seq), viewer));
      this.seen.set(key, s);
    }
    return s;
  }

  private readonly legal = new Map<number, Set<string>>();

  /** The legal decisions at seq k, as canonical JSON. */
  legalAt(k: number): Set<string> {
    let l = this.legal.get(k);
    if (l === undefined) {
      l = new Set(this.p.game.legal(this.p.states[k]).map((d) => canonicalJson(d)));
      this.legal.set(k, l);
    }
    return l;
  }

  view(seq: number, viewer: Viewer): string {
    const key = `${seq}:${viewer}`;
    let v = this.views.get(key);
    if (v === undefined) {
      v = JSON.stringify(this.p.game.view(this.p.states[seq], viewer));
      this.views.set(key, v);
    }
    return v;
  }
}

/** Check A for one applied decision as a channel carried it. */
function eventProblems(x: Expected, e: Record<string, unknown>, viewer: Viewer, replay: boolean): string[] {
  const problems: string[] = [];
  if (canonicalJson(Object.keys(e).sort()) !== canonicalJson(LIVE_EVENT_KEYS)) problems.push(`A: an event with fields ${Object.keys(e).join(",")}`);
  const seq = e.seq as number;
  if (!Number.isInteger(seq) || seq < 0 || seq >= x.p.record.decisions.length) return [...problems, `A: an event with seq ${String(seq)}`];
  const entry = x.p.record.signed.entries[seq]!;
  if (e.seat !== entry.seat || (!replay && (e.cause !== entry.cause || e.at !== entry.at)))
    problems.push(
      `A: event ${seq}'s seat, cause or time differ from the signed log: ${canonicalJson([e.seat, e.cause, e.at])} vs ${canonicalJson([entry.seat, entry.cause, entry.at])}`,
    );
  const seen = x.seenBy(seq, viewer);
  // The server writes the projection as the engine built it, so the same JSON text (key order included).
  const sent = JSON.stringify(e.events);
  if (sent !== seen) problems.push(`A: event ${seq} to ${viewer} is not its projection: ${sent} vs ${seen}`);
  const first = (JSON.parse(seen) as { kind: string; text: string }[])[0];
  if (first?.kind !== "decision" || e.label !== first.text)
    problems.push(`A: event ${seq}'s label ${JSON.stringify(e.label)} is not the projected decision text`);
  return problems;
}

/** Check A for a frame (seat or spectator) sent to `viewer`. */
function frameProblems(x: Expected, f: Record<string, unknown>, viewer: Viewer, replay: boolean): string[] {
  const problems: string[] = [];
  const seat = f.type === "frame";
  const keys = seat ? SEAT_FRAME_KEYS : SPECTATOR_FRAME_KEYS;
  for (const k of Object.keys(f)) if (!keys.has(k)) problems.push(`A: a frame field ${k} the protocol does not have`);
  const k = f.seq as number;
  if (!Number.isInteger(k) || k < 0 || k > x.p.record.decisions.length) return [...problems, `A: a frame at seq ${String(k)}`];
  if (seat && f.seat !== viewer) problems.push(`A: seat ${String(viewer)}'s channel carried seat ${String(f.seat)}'s frame`);
  if (!seat && f.viewer !== viewer) problems.push(`A: a spectator frame for ${String(f.viewer)} on ${viewer}'s channel`);
  if (JSON.stringify(f.view) !== x.view(k, viewer)) problems.push(`A: the view at ${k} is not view(state, ${viewer})`);
  const state = x.p.states[k];
  const actor = x.p.game.actor(state);
  const mine = viewer !== "spectator" && actor === viewer;
  const exp = f.expectation as { seat: number; defaultId: number | null; defaultLabel: string | null } | null;
  if (exp !== null && !mine && (exp.defaultId !== null || exp.defaultLabel !== null))
    problems.push(`A: ${viewer} got the deadline's default of seat ${exp.seat}`);
  const decisions = (f.decisions ?? []) as { id: number; label: string; decision: unknown }[];
  if (decisions.length > 0) {
    if (!mine || f.status !== "playing") problems.push(`A: ${viewer} got decisions while seat ${String(actor)} decides`);
    const legal = x.legalAt(k);
    // Every option is a legal decision, labelled with the seat's own label (checked on about 8 of them per frame, others each seq).
    const stride = Math.ceil(decisions.length / 8);
    decisions.forEach((d, i) => {
      if (!legal.has(canonicalJson(d.decision))) problems.push(`A: option ${d.id} is not a legal decision`);
      else if ((i + k) % stride === 0 && d.label !== x.p.game.describe(state, d.decision))
        problems.push(`A: option ${d.id}'s label is not the seat's own label`);
    });
    // The deadline's default: one of the seat's options, or the game's own (dcg's forceFinish is never offered).
    const own = x.p.game.expectation(state)?.defaultDecision;
    const labels = new Set([...decisions.map((d) => d.label), ...(own === undefined ? [] : [x.p.game.describe(state, own)])]);
    if (exp?.defaultLabel != null && !labels.has(exp.defaultLabel)) problems.push("A: the deadline's default is not the seat's own to know");
  }
  const events = f.events as Record<string, unknown>[];
  for (const e of events) problems.push(...eventProblems(x, e, viewer, replay));
  return problems;
}

// ------------------------------------------------------------------ D: names (dcg)

const escape = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");

/** dcg card names a viewer may not read, per span of states (cached). */
class Names {
  private readonly shownCache = new Map<string, boolean[]>();
  private readonly patterns = new Map<string, RegExp | null>();
  private readonly pool: { cards: { name: string }[] };

  constructor(private readonly x: Expected) {
    const first = x.p.states[0] as { cfg: DcgConfig };
    this.pool = (x.p.game as unknown as { poolFor(cfg: DcgConfig): { cards: { name: string }[] } }).poolFor(first.cfg);
  }

  /** Which card instances `viewer`'s view shows at seq k. */
  private shown(k: number, viewer: Viewer): boolean[] {
    const key = `${k}:${viewer}`;
    let s = this.shownCache.get(key);
    if (s === undefined) {
      s = (JSON.parse(this.x.view(k, viewer)) as { cards: (unknown | null)[] }).cards.map((c) => c !== null);
      this.shownCache.set(key, s);
    }
    return s;
  }

  /** Records where (layer, whose card) the cards `viewer`'s view at seq k hides are, as `hidden:` entries. */
  hiddenZones(k: number, viewer: Viewer, covered: Set<string>): void {
    const shown = this.shown(k, viewer);
    const cards = (this.x.p.states[k] as { cards: { layer: string; owner: number }[] }).cards;
    const who = viewer === "spectator" ? "spectator" : "seat";
    cards.forEach((c, id) => {
      if (!shown[id]) covered.add(`hidden:${who}:${c.layer}:${c.owner === viewer ? "own" : "other"}`);
    });
  }

  /**
   * A pattern matching the names of cards hidden from `viewer` in every state from..to whose name
   * no card visible in those states (nor any card of its own book) bears; null when there is none.
   */
  pattern(viewer: Viewer, from: number, to: number): RegExp | null {
    const key = `${viewer}:${from}:${to}`;
    if (this.patterns.has(key)) return this.patterns.get(key)!;
    const allowed = new Set<string>();
    const hidden = new Set<string>();
    for (let k = from; k <= to; k++) {
      const shown = this.shown(k, viewer);
      const cards = (this.x.p.states[k] as { cards: { def: number; owner: number }[] }).cards;
      cards.forEach((c, id) => {
        const name = this.pool.cards[c.def]!.name;
        if (shown[id] || c.owner === viewer) allowed.add(name);
        else hidden.add(name);
      });
    }
    const names = [...hidden].filter((name) => !allowed.has(name));
    const re = names.length === 0 ? null : new RegExp(`(?<![A-Za-z0-9])(${names.map(escape).join("|")})(?![A-Za-z0-9])`);
    this.patterns.set(key, re);
    return re;
  }

  /** Check D for one part of a message: `text` speaks of the states from..to. */
  problems(text: string, viewer: Viewer, from: number, to: number, tally: Tally): string[] {
    const re = this.pattern(viewer, from, to);
    if (re === null) return [];
    tally.namesChecked++;
    const found = re.exec(text);
    return found
      ? [
          `D: a message to ${viewer} about seqs ${from}..${to} names ${found[1]}, which it cannot see: ...${text.slice(Math.max(0, found.index - 100), found.index + 60)}...`,
        ]
      : [];
  }
}

/**
 * Check D over a whole message, part by part: each event against the states before and after its
 * decision, the rest (view, expectation, decisions, table data) against the state it was sent at.
 */
function messageNameProblems(names: Names | null, body: Record<string, unknown>, text: string, viewer: Viewer, last: number, tally: Tally): string[] {
  if (names === null) return [];
  const events = Array.isArray(body.events) ? (body.events as { seq: number }[]) : [];
  const problems: string[] = [];
  for (const e of events) {
    if (Number.isInteger(e.seq) && e.seq >= 0 && e.seq < last) problems.push(...names.problems(JSON.stringify(e), viewer, e.seq, e.seq + 1, tally));
  }
  const k = body.type === "frame" || body.type === "spectate" ? (body.seq as number) : null;
  const rest = events.length === 0 ? text : JSON.stringify({ ...body, events: [] });
  // A message tied to no position (hello, ack, error, a log page's envelope) against the whole game.
  problems.push(...names.problems(rest, viewer, k ?? 0, k ?? last, tally));
  return problems;
}

// ------------------------------------------------------------------ all checks

/** An event's audience as a coverage class: for everyone, or private with or without a face for the others. */
const audienceOf = (e: GameEvent): string => (e.to === "all" ? "all" : e.others === null ? "private" : "private+others");

/** Checks A, C and D over one played game (B ran while it played); every problem found. */
export function leakProblems(p: Played, tally: Tally, opts: { eventStride: number } = { eventStride: 6 }): string[] {
  const x = new Expected(p);
  const names = p.game.info.id === "dcg" ? new Names(x) : null;
  const last = p.record.decisions.length;
  const problems = [...p.live];
  tally.redealt += p.rebuilt;
  for (const e of p.record.signed.entries) tally.covered.add(`cause:${e.cause}`);
  for (const m of p.sent) {
    tally.messages++;
    tally.covered.add(`channel:${m.channel}`);
    let body: Record<string, unknown>;
    try {
      body = JSON.parse(m.text) as Record<string, unknown>;
    } catch {
      problems.push(`A: a message that is not JSON on ${m.channel}`);
      continue;
    }
    if (body.type === "frame" || body.type === "spectate") {
      problems.push(...frameProblems(x, body, m.viewer, m.channel === "replay"));
      tally.events += (body.events as unknown[]).length;
      if (names !== null && Number.isInteger(body.seq) && (body.seq as number) >= 0 && (body.seq as number) <= last)
        names.hiddenZones(body.seq as number, m.viewer, tally.covered);
    } else if (m.channel === "log") {
      const events = body.events as Record<string, unknown>[];
      for (const e of events) problems.push(...eventProblems(x, e, "spectator", false));
      tally.events += events.length;
    } else if (body.type !== "hello" && body.type !== "ack" && body.type !== "error")
      problems.push(`A: an unexpected message on ${m.channel}: ${m.text.slice(0, 100)}`);
    problems.push(...messageNameProblems(names, body, m.text, m.viewer, last, tally));
  }
  // C: the events themselves, re-dealt behind each viewer's back.
  const rng = Rng.seeded(deriveSeed(p.record.seed, "leak-channels-events"));
  for (let i = 0; i < p.record.decisions.length; i++) {
    for (const e of x.eventsOf(i)) tally.covered.add(`event:${e.kind}:${audienceOf(e)}`);
    const hides = x.eventsOf(i).some((e) => e.to !== "all");
    if (!hides && i % opts.eventStride !== 0) continue;
    for (const viewer of viewersOf(p.game, p.states[i])) {
      const found = eventLeakProblems(p.game, p.states[i], p.record.decisions[i], p.states[i + 1], viewer, rng, tally.leak, { redeals: 1, cap: 6 });
      problems.push(...found.map((f) => `C: decision ${i}: ${f}`));
    }
  }
  return problems;
}

// ------------------------------------------------------------------ the same over real sockets

/**
 * One whole game over a real server's WebSockets and HTTP routes: people on every seat (the test
 * answers at random from each seat's own frames), a spectator from the start, the log route
 * polled without a token, then a replay table of the record watched over WebSockets by every
 * viewer while its cursor moves. Returns every message received, with its viewer (check B needs
 * the table in hand and is left out here).
 */
export async function playOverSockets(l: Live, gameId: string, seed: number): Promise<Played> {
  const found = shipped.get(gameId);
  if (!found.ok) throw new Error(found.error.message);
  const g = found.value;
  const rng = Rng.seeded(deriveSeed(seed, "leak-sockets"));
  const config: Record<string, unknown> = gameId === "dcg" ? { books: DCG_BOOKS[seed % DCG_BOOKS.length], ...DCG_LENGTHS[seed % DCG_LENGTHS.length] } : {};
  const made = await http(l.base, "POST", "/v1/tables", { game: gameId, seats: Array(g.info.defaultSeats).fill("human"), seed, config });
  if (made.status !== 201) throw new Error(`table not made: ${JSON.stringify(made.body)}`);
  const { table, tokens } = made.body as { table: string; tokens: Record<string, string> };
  const clients: Client[] = [];
  const viewers: Viewer[] = [];
  const sent: Sent[] = [];
  try {
    for (let seat = 0; seat < g.info.defaultSeats; seat++) {
      clients.push(await Client.open(`${l.ws}/v1/tables/${table}/seats/${seat}/ws?token=${encodeURIComponent(tokens[String(seat)]!)}`));
      viewers.push(seat);
    }
    clients.push(await Client.open(`${l.ws}/v1/tables/${table}/spectate?since=0`));
    viewers.push("spectator");
    for (let seq = 0; ; seq++) {
      const frames = await Promise.all(clients.slice(0, -1).map((c) => c.frame((f) => f.seq >= seq)));
      if (frames[0].status === "finished") break;
      const mine = frames.find((f) => f.decisions.length > 0);
      if (!mine) throw new Error(`nobody may decide at ${seq}`);
      clients[mine.seat]!.send({ type: "answer", seq, decisionId: mine.decisions[rng.int(mine.decisions.length)].id });
      if (seq % 13 === 4) {
        const log = await fetch(`${l.base}/v1/tables/${table}/log?since=${rng.int(seq + 1)}`);
        sent.push({ channel: "log", viewer: "spectator", text: await log.text() });
      }
    }
    await clients.at(-1)!.frame((f) => f.status === "finished");
    sent.push({ channel: "log", viewer: "spectator", text: await (await fetch(`${l.base}/v1/tables/${table}/log?since=0`)).text() });
    const record = (await http(l.base, "GET", `/v1/tables/${table}/record`)).body as Played["record"];
    clients.forEach((c, i) => c.raw.forEach((text) => sent.push({ channel: viewers[i] === "spectator" ? "spectator" : "seat", viewer: viewers[i]!, text })));
    // The replay, watched by every viewer over WebSockets.
    const replay = (await http(l.base, "POST", "/v1/tables", { game: gameId, facilitator: "replay", record })).body as { table: string };
    const states = statesOf(g, record);
    const watchers = await Promise.all(
      viewersOf(g, states[0]).map(async (viewer) => ({ viewer, c: await Client.open(`${l.ws}/v1/tables/${replay.table}/spectate?viewer=${viewer}`) })),
    );
    const n = record.decisions.length;
    for (const seq of [1, 2, 3, rng.int(n + 1), rng.int(n + 1), n].map((k) => Math.min(k, n))) {
      await http(l.base, "POST", `/v1/tables/${replay.table}/cursor`, { seq });
      await Promise.all(watchers.map((w) => w.c.frame((f) => f.seq === seq)));
    }
    for (const w of watchers) {
      w.c.close();
      w.c.raw.forEach((text) => sent.push({ channel: "replay", viewer: w.viewer, text }));
    }
    return { game: g, record, states, sent, live: [], rebuilt: 0 };
  } finally {
    for (const c of clients) c.close();
  }
}

// ------------------------------------------------------------------ the whole-games test

export const IDS = ["dcg", "sevens", "shephy", "blackpoker"] as const;

/**
 * Whole games per game in the leak test. dcg's 40 play every game length with every book pair
 * once (the seed picks both, DCG_LENGTHS and DCG_BOOKS), five of them with a deadline run out;
 * sevens' and BlackPoker's 40 have an agent on a seat in one game in four and a deadline run out
 * in about one decision in 23; Shephy's games are short. The coverage check (COVERAGE) proves they
 * still reach every case 200 games of each reached. CARDGYM_LEAK_GAMES=n plays n games of each
 * game instead, for a longer hunt.
 */
const GAMES: Readonly<Record<string, number>> = { dcg: 40, sevens: 40, shephy: 200, blackpoker: 40 };

export function gamesOf(id: string): number {
  const asked = process.env.CARDGYM_LEAK_GAMES;
  if (asked === undefined || asked === "") return GAMES[id] ?? 200;
  const n = Number(asked);
  if (!Number.isInteger(n) || n < 1) throw new Error(`CARDGYM_LEAK_GAMES wants a whole number of games >= 1, got ${JSON.stringify(asked)}`);
  return n;
}

/**
 * What the games of each game must have shown the checks (Tally.covered): every kind of channel,
 * every cause of a decision (a person's answer, an agent's, a deadline run out), every event kind
 * with each audience it comes with, and (dcg) every zone a card is hidden in from a seat or a
 * spectator. The list is what 200 games covered; fewer games must cover it all too.
 */
const ALL_CHANNELS = ["seat", "spectator", "log", "spectate-http", "replay"].map((c) => `channel:${c}`);
const ALL_CAUSES = ["answer", "agent", "timeout"].map((c) => `cause:${c}`);

export const COVERAGE: Readonly<Record<string, readonly string[]>> = {
  dcg: [
    ...ALL_CHANNELS,
    ...ALL_CAUSES,
    ...["decision:all", "decision:private+others", "draw:private", "draw:private+others"].map((e) => `event:${e}`),
    ...["attack", "damage", "death", "heal", "info", "move", "phase", "play", "result", "reveal", "stat", "trigger"].map((k) => `event:${k}:all`),
    ...["Book:own", "Book:other", "Hand:other", "Strategy:other", "Field:other"].map((z) => `hidden:seat:${z}`),
    ...["Book:other", "Hand:other", "Strategy:other", "Field:other"].map((z) => `hidden:spectator:${z}`),
  ],
  sevens: [...ALL_CHANNELS, ...ALL_CAUSES, ...["decision", "play", "death", "info", "result"].map((k) => `event:${k}:all`)],
  shephy: [
    ...ALL_CHANNELS,
    ...["answer", "timeout"].map((c) => `cause:${c}`),
    ...["decision", "play", "draw", "death", "info", "result"].map((k) => `event:${k}:all`),
  ],
  blackpoker: [
    ...ALL_CHANNELS,
    ...ALL_CAUSES,
    ...["decision", "play", "damage", "death", "stat", "trigger", "phase", "info", "result"].map((k) => `event:${k}:all`),
    ...["play", "draw"].map((k) => `event:${k}:private+others`),
  ],
};

/** Seats: people everywhere, or (one game in four) an agent on the last seat. */
function seatsFor(id: string, seed: number): string[] | undefined {
  const found = shipped.get(id);
  const n = found.ok ? found.value.info.defaultSeats : 1;
  return seed % 4 === 1 && n > 1 ? [...Array<string>(n - 1).fill("human"), "random"] : undefined;
}

/** What the checks must at least have looked at over `games` games (so a test that checks nothing, or too little, fails). */
function expectCovered(id: string, games: number, tally: Tally): void {
  expect(tally.messages).toBeGreaterThan(games * 10);
  expect(tally.events).toBeGreaterThan(games * 10);
  expect(tally.redealt).toBeGreaterThan(games * 5);
  expect(tally.leak.compared).toBeGreaterThan(games);
  if (id === "dcg") {
    expect(tally.namesChecked).toBeGreaterThan(games * 20);
    expect(tally.leak.hiddenCompared).toBeGreaterThan(games);
  }
  const missing = (COVERAGE[id] ?? []).filter((k) => !tally.covered.has(k));
  expect(missing, `${id}: ${games} games never showed the checks these cases`).toEqual([]);
}

/** The test: gamesOf(id) whole games of `id` on real tables, every message on every channel checked (A-D). */
export function wholeGamesTest(id: string): void {
  const games = gamesOf(id);
  it(`${id}: ${games} whole games on real tables, every message on every channel`, async () => {
    const s = await server();
    const tally = newTally();
    const problems: string[] = [];
    try {
      for (let seed = 1; seed <= games && problems.length < 10; seed++) {
        const seats = seatsFor(id, seed);
        const played = await playOne(s, id, { seed, redeal: true, ...(seats ? { seats } : {}) });
        problems.push(...leakProblems(played, tally).map((p) => `seed ${seed}: ${p}`));
      }
    } finally {
      await s.close();
    }
    expect(problems.slice(0, 5)).toEqual([]);
    expectCovered(id, games, tally);
  }, 900_000);
}
