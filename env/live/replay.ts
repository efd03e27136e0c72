import { parseRecord, replay, stateHash, type AnyGame, type GameEvent, type GameRegistry, type Seat } from "../../engine/core/index.ts";
import type { LiveClock } from "./clock.ts";
import type { SpectatorFrame, TableSummary } from "./protocol.ts";
import { liveEvent, TableError, type Channel, type EventMeta } from "./table.ts";

/** Decisions a replay table may hold (its states are kept in memory). */
export const MAX_REPLAY_DECISIONS = 20_000;

/**
 * The replay facilitator: a finished game's record, stepped forward and back with a cursor (the
 * number of decisions applied), watched by spectator channels that may each choose whose view to
 * see: that viewer's view and the events as that viewer read them (the spectator's view never
 * carries a seat's private events). No seat plays.
 */
export class ReplayTable {
  readonly id: string;
  readonly game: AnyGame;
  readonly facilitator = "replay" as const;
  readonly spectatorsAllowed = true;
  readonly config: unknown;
  readonly createdAt: number;
  private readonly states: unknown[];
  /** Per decision: who and when, and everything it did (projected per channel's viewer). */
  private readonly events: { readonly meta: EventMeta; readonly events: readonly GameEvent[] }[];
  private cursor = 0;
  private readonly channels = new Set<Channel>();
  private readonly waiters = new Set<() => void>();
  private readonly clock: LiveClock;

  constructor(id: string, registry: GameRegistry, raw: unknown, clock: LiveClock) {
    const parsed = parseRecord(raw);
    if (!parsed.ok) throw new TableError(400, "invalid_record", parsed.error.message);
    const record = parsed.value;
    if (record.decisions.length > MAX_REPLAY_DECISIONS) throw new TableError(400, "invalid_record", `a replay holds at most ${MAX_REPLAY_DECISIONS} decisions`);
    const checked = replay(registry, record);
    if (!checked.ok) throw new TableError(400, "invalid_record", checked.error.message);
    const found = registry.get(record.game);
    if (!found.ok) throw new TableError(404, "unknown_game", found.error.message);
    this.id = id;
    this.game = found.value;
    this.clock = clock;
    this.createdAt = clock.now();
    const config = this.game.parseConfig(record.config);
    if (!config.ok) throw new TableError(400, "invalid_record", config.error.message);
    this.config = config.value;
    let state = this.game.setup(config.value, record.seed);
    this.states = [state];
    this.events = [];
    for (let i = 0; i < record.decisions.length; i++) {
      const d = record.decisions[i];
      const seat = this.game.actor(state) as Seat;
      const out = this.game.apply(state, d);
      if (!out.ok) throw new TableError(400, "invalid_record", out.error.message);
      this.events.push({ meta: { seq: i, seat, cause: "answer", at: this.createdAt }, events: this.game.events(state, d, out.state) });
      state = out.state;
      this.states.push(state);
    }
    if (stateHash(state) !== checked.value.finalHash) throw new TableError(400, "invalid_record", "the record does not replay to its own final hash");
  }

  get seq(): number {
    return this.cursor;
  }

  get length(): number {
    return this.events.length;
  }

  get isFinished(): boolean {
    return this.cursor === this.events.length;
  }

  get numSeats(): number {
    return (this.config as { seats: number }).seats;
  }

  get watching(): number {
    return this.channels.size;
  }

  summary(): TableSummary {
    return {
      table: this.id,
      game: this.game.info.id,
      facilitator: "replay",
      status: this.isFinished ? "finished" : "playing",
      seq: this.cursor,
      seats: Array.from({ length: this.numSeats }, (_, seat) => ({
        seat,
        kind: "agent" as const,
        agent: null,
        status: "bot" as const,
        held: false,
        takeoverAt: null,
      })),
      spectators: true,
      watching: this.watching,
      createdAt: this.createdAt,
    };
  }

  /** Moves the cursor (0..length) and pushes a frame to every watcher. */
  moveTo(seq: number): void {
    if (!Number.isInteger(seq) || seq < 0 || seq > this.events.length) {
      throw new TableError(400, "bad_cursor", `the cursor goes from 0 to ${this.events.length}, got ${seq}`);
    }
    this.cursor = seq;
    for (const c of this.channels) {
      c.send(this.frameFor(c, null));
    }
    const waiting = [...this.waiters];
    this.waiters.clear();
    for (const w of waiting) w();
  }

  spectatorFrame(since: number, viewer: "spectator" | Seat = "spectator"): SpectatorFrame {
    const state = this.states[this.cursor];
    const actor = this.game.actor(state);
    return {
      type: "spectate",
      table: this.id,
      viewer,
      seq: this.cursor,
      status: this.isFinished ? "finished" : "playing",
      actor,
      view: this.game.view(state, viewer),
      expectation: null,
      // Stepping back shows no events; stepping forward the ones passed over.
      events: since < this.cursor ? this.events.slice(since, this.cursor).map((e) => liveEvent(e.meta, e.events, viewer)) : [],
      seats: this.summary().seats,
      returns: this.isFinished ? [...this.game.returns(state)] : null,
      now: this.clock.now(),
    };
  }

  attach(c: Channel, since: number | null): void {
    this.channels.add(c);
    c.send(this.frameFor(c, since));
  }

  detach(c: Channel): void {
    this.channels.delete(c);
  }

  frameFor(c: Channel, since: number | null): string {
    const from = since ?? c.sentSeq;
    c.sentSeq = this.cursor;
    return JSON.stringify(this.spectatorFrame(Math.min(from, this.cursor), c.viewer ?? "spectator"));
  }

  waitForChange(ms: number): Promise<void> {
    return new Promise((resolve) => {
      const done = () => {
        this.waiters.delete(done);
        clearTimeout(t);
        resolve();
      };
      const t = setTimeout(done, ms);
      this.waiters.add(done);
    });
  }

  close(): void {
    for (const c of this.channels) c.close(1001, "closed");
    this.channels.clear();
    for (const w of this.waiters) w();
  }
}
