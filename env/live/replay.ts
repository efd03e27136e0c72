import {
  canonicalProblem,
  decisionKey,
  parseRecord,
  stateHash,
  type AnyGame,
  type GameEvent,
  type GameRecord,
  type GameRegistry,
  type Seat,
} from "../../engine/core/index.ts";
import type { Clock } from "../../agents/clock.ts";
import { channelView } from "./channel-config.ts";
import type { SpectatorFrame, TableSummary } from "./protocol.ts";
import { liveEvent, TableError, type Channel, type EventMeta } from "./table.ts";

/** Decisions a replay table may hold (its states are kept in memory). */
export const MAX_REPLAY_DECISIONS = 20_000;

/** One decision of a played-back record: who made it, what it did, and whether it was the pending decision's default. */
export interface PlayedStep {
  readonly seat: Seat;
  readonly decision: unknown;
  /**
   * Not one of the legal decisions but the default the game's pending decision falls back to (a
   * deadline passed, or the seat resigned where the game concedes that way: the record does not say which).
   */
  readonly byDefault: boolean;
  readonly events: readonly GameEvent[];
}

export interface PlayedBack {
  readonly game: AnyGame;
  readonly record: GameRecord;
  /** The parsed config the record was set up with. */
  readonly config: unknown;
  /** The state before each decision and after the last: steps.length + 1 states. */
  readonly states: readonly unknown[];
  readonly steps: readonly PlayedStep[];
  readonly finalHash: string;
}

const badRecord = (message: string) => new TableError(400, "invalid_record", message);

/**
 * The replay facilitator's drive: a record (untrusted) played again from its seed. At each step
 * the game names the seat to act, and the record answers for it: its decision must be one of the
 * legal ones, or the default the game's pending decision falls back to (byDefault). The record's hashes, where it carries them, and its final
 * hash must match the states reached.
 */
export function playBack(registry: GameRegistry, raw: unknown): PlayedBack {
  const parsed = parseRecord(raw);
  if (!parsed.ok) throw badRecord(parsed.error.message);
  const record = parsed.value;
  if (record.decisions.length > MAX_REPLAY_DECISIONS) throw badRecord(`a replay holds at most ${MAX_REPLAY_DECISIONS} decisions`);
  const found = registry.get(record.game);
  if (!found.ok) throw new TableError(404, "unknown_game", found.error.message);
  const game = found.value;
  if (record.version !== game.info.version)
    throw badRecord(`the record is for ${record.game} version ${record.version}; this server has version ${game.info.version}`);
  const config = game.parseConfig(record.config);
  if (!config.ok) throw badRecord(`record.config: ${config.error.message}`);
  let state = game.setup(config.value, record.seed);
  const states: unknown[] = [state];
  const steps: PlayedStep[] = [];
  checkHash(record, 0, state);
  for (let i = 0; i < record.decisions.length; i++) {
    const seat = game.actor(state);
    if (seat === "terminal") throw badRecord(`the game is over after ${i} decisions; the record has ${record.decisions.length}`);
    const { decision, byDefault } = recordedAnswer(game, state, record.decisions[i], i);
    const after = game.applyTrusted(state, decision);
    steps.push({ seat, decision, byDefault, events: game.events(state, decision, after) });
    state = after;
    states.push(state);
    checkHash(record, i + 1, state);
  }
  const finalHash = stateHash(state);
  if (record.finalHash !== undefined && record.finalHash !== finalHash)
    throw badRecord(`the record does not replay to its own final hash (${finalHash}, the record says ${record.finalHash})`);
  return { game, record, config: config.value, states, steps, finalHash };
}

/** The recorded decision at step i, as the engine's own legal decision or the pending decision's default. */
function recordedAnswer(game: AnyGame, state: unknown, recorded: unknown, i: number): { decision: unknown; byDefault: boolean } {
  // A record from msgpack may carry what JSON cannot (NaN, Infinity): refused, not a thrown 500.
  const problem = canonicalProblem(recorded);
  if (problem !== null) throw badRecord(`decisions[${i}] is not plain data (${problem.replace(/^canonicalJson: /, "")})`);
  const key = decisionKey(recorded);
  const legal = game.legal(state);
  const index = legal.findIndex((d) => decisionKey(d) === key);
  if (index >= 0) return { decision: legal[index], byDefault: false };
  const fallback = game.expectation(state)?.defaultDecision;
  if (fallback !== undefined && decisionKey(fallback) === key) return { decision: fallback, byDefault: true };
  throw badRecord(`decisions[${i}] is neither legal nor the pending decision's default`);
}

function checkHash(record: GameRecord, i: number, state: unknown): void {
  const want = record.hashes?.[i];
  if (want !== undefined && want !== stateHash(state)) throw badRecord(`the state hash after step ${i} does not match the record's hashes[${i}]`);
}

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
  private readonly states: readonly unknown[];
  /** Per decision: who and when, and everything it did (projected per channel's viewer). */
  private readonly events: { readonly meta: EventMeta; readonly events: readonly GameEvent[] }[];
  private cursor = 0;
  private readonly channels = new Set<Channel>();
  private readonly waiters = new Set<() => void>();
  private readonly clock: Clock;

  constructor(id: string, played: PlayedBack, clock: Clock) {
    this.id = id;
    this.game = played.game;
    this.clock = clock;
    this.createdAt = clock.now();
    this.config = played.config;
    this.states = played.states;
    this.events = played.steps.map((step, seq) => ({ meta: { seq, seat: step.seat, cause: "answer", at: this.createdAt }, events: step.events }));
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
        joinable: false,
        joins: 0,
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
      view: channelView(this.game.view(state, viewer)),
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
