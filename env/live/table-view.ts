import { stateHash, type AnyGame, type Seat, type Viewer } from "../../engine/core/index.ts";
import type { GameAdapter } from "../codec.ts";
import { Channels, DecisionOptions, seatFrameOf, spectatorFrameOf, type FrameSource } from "./frames.ts";
import type { FacilitatorName, LiveEvent, SeatFrame, SeatInfo, SignedRecord, SpectatorFrame, TableSummary } from "./protocol.ts";
import { DEFAULT_JOIN_RULES, Seats, type JoinRules } from "./seats.ts";
import { notFinished, SignedLog } from "./signed-log.ts";
import type { Channel, ResolvedDeadlines, TableDeps, TableSetup } from "./table-common.ts";
import { EntryWindow } from "./entry-window.ts";
import { TableAgents } from "./table-agents.ts";
import type { DecisionLoop } from "../../agents/decision-loop.ts";

/**
 * A live table's parts and what can be read from them (table.ts adds what changes them): the
 * seats (seats.ts: tokens, presence, status), the decision loop that plays the game once it has
 * started (its deadlines and defaults) and the agents it asks (table-agents.ts), the signed log
 * and its journal (signed-log.ts), the channels and the frames they get (frames.ts).
 */
export abstract class TableView {
  readonly id: string;
  readonly game: AnyGame;
  readonly adapter: GameAdapter;
  readonly config: { seats: number } & Record<string, unknown>;
  readonly seed: number;
  readonly facilitator: FacilitatorName;
  readonly deadlines: ResolvedDeadlines;
  readonly spectatorsAllowed: boolean;
  readonly createdAt: number;

  protected state: unknown;
  protected readonly log: SignedLog;
  protected readonly seats: Seats;
  protected readonly agents: TableAgents;
  /** The game's decision loop: null until the game starts (while the entry window is open). */
  protected loop: DecisionLoop | null = null;
  protected readonly channels = new Channels();
  protected readonly entry: EntryWindow;
  protected readonly options: DecisionOptions;
  protected finished = false;
  protected closed = false;
  protected readonly deps: TableDeps;

  protected constructor(setup: TableSetup, deps: TableDeps, createdAt: number) {
    this.id = setup.id;
    this.game = setup.game;
    this.adapter = setup.adapter;
    this.config = setup.config;
    this.seed = setup.seed;
    this.facilitator = setup.facilitator;
    this.deadlines = setup.deadlines;
    this.spectatorsAllowed = setup.spectators;
    this.deps = deps;
    this.createdAt = createdAt;
    this.log = new SignedLog(setup, deps, createdAt);
    this.state = setup.game.setup(setup.config, setup.seed);
    this.seats = new Seats(setup.seats, deps.clock, setup.deadlines, createdAt, () => this.changed());
    this.options = new DecisionOptions(setup.game, setup.adapter);
    this.entry = new EntryWindow(deps.clock, () => this.entryClosed());
    this.agents = new TableAgents({
      id: this.id,
      game: this.game,
      seed: this.seed,
      deadlines: this.deadlines,
      deps,
      isPending: (step) => !this.closed && this.loop?.step === step,
    });
  }

  /** Something changed (a decision, a seat's status): push frames, then see who must act. */
  protected abstract changed(): void;
  /** See who must act now. */
  protected abstract drive(): void;
  /** The entry window closed (the game starts). */
  protected abstract entryClosed(): void;

  // ------------------------------------------------------------ queries

  get seq(): number {
    return this.log.seq;
  }

  get isFinished(): boolean {
    return this.finished;
  }

  get watching(): number {
    return this.channels.watching;
  }

  get numSeats(): number {
    return this.seats.count;
  }

  seatInfo(): SeatInfo[] {
    return this.seats.info(this.finished ? null : this.joinRules);
  }

  /** What this table's facilitator lets a person join (docs/live.md, "Joining a seat"). */
  protected get joinRules(): JoinRules {
    return this.deps.joinRules?.(this.facilitator) ?? DEFAULT_JOIN_RULES;
  }

  summary(): TableSummary {
    return {
      table: this.id,
      game: this.game.info.id,
      facilitator: this.facilitator,
      status: this.finished ? "finished" : "playing",
      seq: this.seq,
      seats: this.seatInfo(),
      spectators: this.spectatorsAllowed,
      watching: this.watching,
      createdAt: this.createdAt,
      ...(this.entry.closesAt !== null ? { startsAt: this.entry.closesAt } : {}),
      ...(this.log.integrity.length > 0 ? { integrity: [...this.log.integrity] } : {}),
    };
  }

  /** Whether `token` is the secret of `seat` (constant-time on the hashes). */
  authorize(seat: number, token: string | undefined): boolean {
    return this.seats.authorize(seat, token);
  }

  /** Whether the seat's holder resigned (its token no longer plays it). */
  isResigned(seat: number): boolean {
    return this.seats.isResigned(seat);
  }

  hasSeat(seat: number): boolean {
    return this.seats.has(seat);
  }

  /** The events after `since` (at most `limit`) as `viewer` may read them. */
  eventsFor(viewer: Viewer, since: number, limit = Infinity): LiveEvent[] {
    return this.log.eventsFor(viewer, since, limit);
  }

  /** The finished game's record with its signed log. */
  record(): SignedRecord {
    if (!this.finished) throw notFinished();
    return this.log.record(this.game, this.config, this.seed, this.state);
  }

  returns(): number[] | null {
    return this.finished ? [...this.game.returns(this.state)] : null;
  }

  /** The current state's hash (tests; never sent to clients). */
  stateHash(): string {
    return stateHash(this.state);
  }

  // ------------------------------------------------------------ frames

  protected actorSeat(): Seat | "terminal" {
    return this.game.actor(this.state);
  }

  /** What every frame is built from, now. */
  private frameSource(): FrameSource {
    const actor = this.actorSeat();
    return {
      id: this.id,
      game: this.game,
      adapter: this.adapter,
      state: this.state,
      seq: this.seq,
      finished: this.finished,
      actor,
      deadline: this.loop?.pending?.deadline ?? null,
      defaultDecision: () => this.loop?.defaultDecision(),
      startsAt: this.entry.closesAt,
      seats: this.seatInfo(),
      returns: this.returns(),
      now: this.deps.clock.now(),
      events: (viewer, since) => this.eventsFor(viewer, since),
      options: (seat) => this.options.of(this.state, this.seq, seat).options,
    };
  }

  seatFrame(seat: Seat, since: number): SeatFrame {
    return seatFrameOf(this.frameSource(), seat, since);
  }

  spectatorFrame(since: number, viewer: "spectator" = "spectator"): SpectatorFrame {
    return spectatorFrameOf(this.frameSource(), since, viewer);
  }

  /** A fresh frame for a channel: events after `since` (or after what it already had). */
  frameFor(c: Channel, since: number | null): string {
    const from = Math.min(since ?? c.sentSeq, this.seq);
    c.sentSeq = this.seq;
    return JSON.stringify(c.seat === null ? this.spectatorFrame(from) : this.seatFrame(c.seat, from));
  }

  /** Other channels of the same seat (a reconnect replaces them). */
  channelsOf(seat: Seat): Channel[] {
    return this.channels.of(seat);
  }

  /** Whether `seat` must decide now. */
  mustDecide(seat: Seat): boolean {
    return !this.finished && !this.entry.isOpen && this.actorSeat() === seat;
  }

  /** Resolves on the next change (long poll), or after ms. */
  waitForChange(ms: number): Promise<void> {
    return this.channels.waitForChange(ms);
  }

  /** The resigned seat decides now and the game has a conceding decision for it (it is about to be applied). */
  protected concessionPending(seat: Seat): boolean {
    return !this.finished && this.actorSeat() === seat && this.concession(seat) !== null;
  }

  protected concession(seat: Seat): unknown {
    return this.game.concede?.(this.state, seat) ?? null;
  }
}
