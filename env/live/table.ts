import { createHash, randomBytes, timingSafeEqual } from "node:crypto";
import {
  canonicalJson,
  decisionKey,
  deriveSeed,
  projectEvents,
  stateHash,
  type AnyGame,
  type GameEvent,
  type Seat,
  type Viewer,
} from "../../engine/core/index.ts";
import type { Facilitatee } from "../../agents/facilitatee.ts";
import { isPassive } from "../../agents/passive.ts";
import type { GameAdapter } from "../codec.ts";
import { decisionPoint } from "../decision-point.ts";
import type { DecideJob } from "../server/jobs.ts";
import type { AgentRunner } from "./agent-runner.ts";
import type { LiveClock } from "./clock.ts";
import { checkHead, readHead, type ChainHead, type HeadRead } from "./head.ts";
import { Journal } from "./journal.ts";
import type {
  DecisionOption,
  FacilitatorName,
  JournalIntegrity,
  LiveEvent,
  LiveExpectation,
  LogHeader,
  SeatFrame,
  SeatInfo,
  SignedEnd,
  SignedEntry,
  SignedRecord,
  SpectatorFrame,
  TableSummary,
} from "./protocol.ts";
import { headerHash, macOf, signEnd, signEntry, verifyChain, verifyEnd } from "./signing.ts";

/** A refused table operation: HTTP status, code and message (the same code goes on a WebSocket). */
export class TableError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    /** Extra fields of the error body (e.g. `path`: the JSON path of the offending field). */
    readonly details?: Record<string, unknown>,
  ) {
    super(message);
    this.name = "TableError";
  }
}

export interface ResolvedDeadlines {
  readonly turnMs: number | null;
  readonly graceMs: number;
  readonly takeover: string;
  readonly botDelayMs: number;
}

export const DEFAULT_DEADLINES: ResolvedDeadlines = { turnMs: null, graceMs: 30_000, takeover: "random", botDelayMs: 0 };

export type SeatKindName = "human" | "open" | "agent";

/** The WebSocket close code of a resigned seat's channels. */
export const RESIGNED_CLOSE = 4002;

const resignedError = (seat: number) =>
  new TableError(403, "seat_resigned", `seat ${seat} was resigned; its token no longer plays it (watch the table instead)`);

/** What a table needs from its host (the store). */
export interface TableDeps {
  readonly clock: LiveClock;
  readonly key: Buffer;
  readonly journalDir: string;
  readonly runner: AgentRunner;
  /** Builds a ready agent for a seat from a spec (seeded per decision). */
  readonly makeAgent: (spec: string, seat: Seat, seed: number) => Promise<Facilitatee>;
  /**
   * Where agent decisions compute when the server has a worker pool: one decision job, run under
   * the server's budget off the event loop (a runaway agent costs its table one default decision,
   * never the server). Absent: agents compute here, through the runner (tests, embedders).
   */
  readonly decide?: (job: DecideJob, affinity: string) => Promise<number>;
  readonly log: (line: string) => void;
  /** Told once when the game ends (the store keeps a bounded number of finished tables in memory). */
  readonly onFinish?: (table: Table) => void;
  /** Told after every committed decision (metrics). */
  readonly onApplied?: () => void;
}

/** A live channel (WebSocket or a long-poll waiter): frames are pushed as JSON text. */
export interface Channel {
  /** The seat it speaks for, or null for a spectator. */
  readonly seat: Seat | null;
  /** Events up to this seq were delivered on it. */
  sentSeq: number;
  /** Replay tables only: whose view this spectator chose. */
  readonly viewer?: "spectator" | Seat;
  send(text: string): void;
  close(code: number, reason: string): void;
}

interface SeatState {
  readonly index: Seat;
  kind: SeatKindName;
  /** Agent seats: their spec; open seats: the stand-in's spec; human seats: null. */
  readonly agentSpec: string | null;
  tokenHash: string | null;
  sockets: number;
  /** Until when the seat counts as present without a socket (grace after a disconnect, HTTP polling). */
  presentUntil: number;
  /** Whether presence (when no socket) means "away" (a lost socket) or "connected" (HTTP polling). */
  polling: boolean;
  left: boolean;
  /** The holder resigned: the takeover agent (or the game's conceding decision) plays it; its token is refused. */
  resigned: boolean;
  cancelPresence: (() => void) | null;
}

interface LogItem {
  readonly entry: SignedEntry;
  readonly decision: unknown;
  /** Everything the decision did, every face (the owner's); channels get their viewer's projection. */
  readonly events: readonly GameEvent[];
}

/** Who applied a decision, when and why: the part of an event every viewer reads alike. */
export interface EventMeta {
  readonly seq: number;
  readonly seat: Seat;
  readonly cause: LiveEvent["cause"];
  readonly at: number;
}

/**
 * One applied decision as `viewer` may know it: its events projected for that viewer, and as label
 * the text of the decision event the viewer reads (its full wording only for those allowed).
 */
export function liveEvent(meta: EventMeta, events: readonly GameEvent[], viewer: Viewer): LiveEvent {
  const seen = projectEvents(events, viewer);
  const decision = seen[0]?.kind === "decision" ? seen[0] : undefined;
  return { seq: meta.seq, seat: meta.seat, cause: meta.cause, at: meta.at, label: decision?.text ?? "", events: seen };
}

export interface TableSetup {
  readonly id: string;
  readonly game: AnyGame;
  readonly adapter: GameAdapter;
  /** The parsed config (seats filled in). */
  readonly config: { seats: number } & Record<string, unknown>;
  readonly seed: number;
  readonly seats: readonly string[];
  readonly facilitator: FacilitatorName;
  readonly deadlines: ResolvedDeadlines;
  readonly spectators: boolean;
}

/** How a seat spec string reads: "human", "open[:spec]" or an agent spec. */
export function seatKindOf(spec: string): { kind: SeatKindName; agent: string | null } {
  if (spec === "human") return { kind: "human", agent: null };
  if (spec === "open") return { kind: "open", agent: "random" };
  if (spec.startsWith("open:")) return { kind: "open", agent: spec.slice(5) };
  return { kind: "agent", agent: spec };
}

const sha256 = (text: string) => createHash("sha256").update(text).digest("hex");
export const newToken = () => randomBytes(24).toString("base64url");

/**
 * One live game (docs/live.md). Every change goes through applyAt, which checks the sequence
 * number, journals the signed entry (fsync) and only then updates the state and pushes frames: a
 * decision is applied once, and nothing is shown or acknowledged before it is on disk.
 */
export class Table {
  readonly id: string;
  readonly game: AnyGame;
  readonly adapter: GameAdapter;
  readonly config: { seats: number } & Record<string, unknown>;
  readonly seed: number;
  readonly facilitator: FacilitatorName;
  readonly deadlines: ResolvedDeadlines;
  readonly spectatorsAllowed: boolean;
  readonly header: LogHeader;
  readonly headerHash: string;
  readonly headerMac: string;
  readonly createdAt: number;

  private state: unknown;
  private readonly items: LogItem[] = [];
  /** The signed end marker, once the game is over (null on a journal written before end markers). */
  private end: SignedEnd | null = null;
  /** What restarts found wrong with the journal (persisted in it as integrity lines). */
  private readonly integrity: JournalIntegrity[] = [];
  private readonly seatStates: SeatState[];
  private readonly channels = new Set<Channel>();
  private readonly waiters = new Set<() => void>();
  private journal: Journal | null;
  private finished = false;
  /** A decision is being written to the journal; nothing else may be applied until it is. */
  private committing = false;
  private closed = false;
  /** When the current decision became pending (its deadline counts from here). */
  private pendingSince: number;
  private cancelDeadline: (() => void) | null = null;
  private deadlineSeq = -1;
  private agentSeq = -1;
  private optionsCache: { seq: number; seat: Seat; options: DecisionOption[]; legal: readonly unknown[] } | null = null;
  private readonly onnxAgents = new Map<string, Promise<Facilitatee>>();
  private readonly deps: TableDeps;

  private constructor(setup: TableSetup, deps: TableDeps, createdAt: number, journal: Journal | null) {
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
    this.header = {
      table: setup.id,
      game: setup.game.info.id,
      version: setup.game.info.version,
      config: setup.config,
      seed: setup.seed,
      seats: [...setup.seats],
      createdAt,
    };
    this.headerHash = headerHash(this.header);
    this.headerMac = macOf(deps.key, this.headerHash);
    this.state = setup.game.setup(setup.config, setup.seed);
    this.seatStates = setup.seats.map((spec, index) => {
      const k = seatKindOf(spec);
      return {
        index,
        kind: k.kind,
        agentSpec: k.agent,
        tokenHash: null,
        sockets: 0,
        presentUntil: createdAt + setup.deadlines.graceMs,
        polling: false,
        left: false,
        resigned: false,
        cancelPresence: null,
      };
    });
    this.pendingSince = createdAt;
    this.journal = journal;
  }

  /** A new table: journals its header (with the hashes of the human seats' tokens) and returns the tokens. */
  static create(setup: TableSetup, deps: TableDeps): { table: Table; tokens: Record<string, string> } {
    const now = deps.clock.now();
    const table = new Table(setup, deps, now, null);
    const journal = new Journal(deps.journalDir, setup.id, { key: deps.key, lines: 0, chain: { seq: 0, hash: table.headerHash }, log: deps.log });
    table.journal = journal;
    const tokens: Record<string, string> = {};
    const tokenHashes: Record<string, string> = {};
    for (const s of table.seatStates) {
      if (s.kind !== "human") continue;
      const token = newToken();
      tokens[String(s.index)] = token;
      s.tokenHash = sha256(token);
      tokenHashes[String(s.index)] = s.tokenHash;
    }
    journal.append({
      t: "header",
      header: table.header,
      headerHash: table.headerHash,
      headerMac: table.headerMac,
      facilitator: setup.facilitator,
      deadlines: setup.deadlines,
      spectators: setup.spectators,
      tokens: tokenHashes,
    });
    table.startPresenceTimers();
    return { table, tokens };
  }

  /**
   * Rebuilds a table from its journal lines: verifies the chain and signatures, replays every
   * journaled decision and restores the seats' token hashes. Throws a message when the journal is
   * not this server's or does not replay.
   *
   * The journal is checked against its head file (head.ts): what that finds wrong (lost last
   * lines, a missing head...) is logged and shown in the summary. At a server start (`starting`)
   * it is also journaled, a missing end marker is signed and the head is brought up to date; a
   * finished table loaded later on demand is only read.
   */
  static recover(lines: readonly unknown[], resolve: (header: LogHeader) => { game: AnyGame; adapter: GameAdapter }, deps: TableDeps, starting = true): Table {
    const first = lines[0] as
      | {
          t: string;
          header: LogHeader;
          headerHash: string;
          headerMac: string;
          facilitator: FacilitatorName;
          deadlines: ResolvedDeadlines;
          spectators: boolean;
          tokens: Record<string, string>;
        }
      | undefined;
    if (!first || first.t !== "header") throw new Error("the journal does not start with a header");
    const { game, adapter } = resolve(first.header);
    const entries: { entry: SignedEntry; decision: unknown }[] = [];
    const joins: { seat: number; tokenHash: string }[] = [];
    const resigned: number[] = [];
    let endLine: { end?: SignedEnd } | null = null;
    const integrity: JournalIntegrity[] = [];
    for (const line of lines.slice(1)) {
      const l = line as { t: string; entry?: SignedEntry; decision?: unknown; seat?: number; tokenHash?: string; end?: SignedEnd; found?: JournalIntegrity };
      if (l.t === "end") endLine = l;
      else if (l.t === "integrity" && l.found) integrity.push(l.found);
      else if (l.t === "entry" && l.entry) {
        // Journals written before events were recomputed on recovery also carry a label: dropped.
        const { label: _label, ...entry } = l.entry as SignedEntry & { label?: unknown };
        entries.push({ entry, decision: l.decision });
      } else if (l.t === "join" && typeof l.seat === "number" && typeof l.tokenHash === "string") joins.push({ seat: l.seat, tokenHash: l.tokenHash });
      else if (l.t === "resign" && typeof l.seat === "number") resigned.push(l.seat);
    }
    const bad = verifyChain(deps.key, first.header, first.headerHash, first.headerMac, entries);
    if (bad) throw new Error(bad);
    const setup: TableSetup = {
      id: first.header.table,
      game,
      adapter,
      config: first.header.config as TableSetup["config"],
      seed: first.header.seed,
      seats: first.header.seats,
      facilitator: first.facilitator,
      deadlines: first.deadlines,
      spectators: first.spectators,
    };
    const table = new Table(setup, deps, first.header.createdAt, null);
    table.integrity.push(...integrity);
    for (const s of table.seatStates) s.tokenHash = first.tokens[String(s.index)] ?? null;
    for (const j of joins) {
      const s = table.seatStates[j.seat];
      if (s) {
        s.tokenHash = j.tokenHash;
        s.kind = "human";
      }
    }
    for (const seat of resigned) {
      const s = table.seatStates[seat];
      if (s) s.resigned = true;
    }
    for (const { entry, decision } of entries) {
      const out = game.apply(table.state, decision);
      if (!out.ok) throw new Error(`entry ${entry.seq} does not apply: ${out.error.message}`);
      if (stateHash(out.state) !== entry.stateHash) throw new Error(`entry ${entry.seq}: state hash differs from the journal's`);
      table.items.push({ entry, decision, events: game.events(table.state, decision, out.state) });
      table.state = out.state;
    }
    const now = deps.clock.now();
    table.pendingSince = now;
    for (const s of table.seatStates) s.presentUntil = now + table.deadlines.graceMs;
    const over = game.actor(table.state) === "terminal";
    if (!over && endLine) throw new Error("the journal has an end marker but its game is not over");
    if (over) {
      table.finished = true;
      table.checkEnd(endLine);
    }
    const read = readHead(deps.journalDir, table.id, deps.key);
    const found = checkHead(read, lines, now);
    if (found) {
      table.integrity.push(found);
      deps.log(`live tables: table ${table.id}: journal ${found.problem}: ${found.message}`);
    }
    if (!over || (starting && (found || endLine === null)))
      table.reopenJournal(lines.length, read, starting ? found : null, starting && over && endLine === null);
    if (!over) table.startPresenceTimers();
    return table;
  }

  /**
   * At a server start: opens the journal where it ends, journals what the head check found,
   * signs a missing end marker, and brings the head up to date; a finished table's journal is
   * closed again.
   */
  private reopenJournal(lines: number, read: HeadRead, found: JournalIntegrity | null, signEndNow: boolean): void {
    const chain: ChainHead = { seq: this.items.length, hash: this.end?.hash ?? this.chainHash() };
    const journal = new Journal(this.deps.journalDir, this.id, {
      key: this.deps.key,
      lines,
      chain,
      log: this.deps.log,
      nextSlot: read.head ? read.nextSlot : 0,
    });
    if (found) journal.append({ t: "integrity", found });
    if (signEndNow) {
      this.end = signEnd(this.deps.key, this.chainHash(), this.endContent());
      journal.append({ t: "end", at: this.deps.clock.now(), end: this.end }, { seq: this.items.length, hash: this.end.hash });
      this.deps.log(`live tables: table ${this.id}: its journal ended without an end marker; one was signed and journaled`);
    } else if (!found && read.head?.lines !== lines) journal.writeHeadSync();
    if (this.finished) journal.close();
    else this.journal = journal;
  }

  /**
   * A finished game's end marker from its journal: a signed one must chain to the last entry and
   * agree with the replayed game; an unsigned one (written before end markers) is kept as such; a
   * missing one (the crash cut the end line, or it was deleted) is signed at a server start
   * (reopenJournal), as the game replays to its end.
   */
  private checkEnd(line: { end?: SignedEnd } | null): void {
    if (!line?.end) return;
    const want = this.endContent();
    const bad = verifyEnd(this.deps.key, this.chainHash(), line.end);
    if (bad) throw new Error(bad);
    if (line.end.decisions !== want.decisions || line.end.finalHash !== want.finalHash || canonicalJson(line.end.returns) !== canonicalJson(want.returns))
      throw new Error("the end marker disagrees with the replayed game");
    this.end = line.end;
  }

  private endContent(): { decisions: number; returns: readonly number[]; finalHash: string } {
    return { decisions: this.items.length, returns: this.game.returns(this.state), finalHash: stateHash(this.state) };
  }

  /** The hash the next link of the signed log chains to: the last entry's, or the header's. */
  private chainHash(): string {
    return this.items.length === 0 ? this.headerHash : this.items[this.items.length - 1]!.entry.hash;
  }

  // ------------------------------------------------------------ queries

  get seq(): number {
    return this.items.length;
  }

  get isFinished(): boolean {
    return this.finished;
  }

  get watching(): number {
    let n = 0;
    for (const c of this.channels) if (c.seat === null) n++;
    return n;
  }

  get numSeats(): number {
    return this.seatStates.length;
  }

  seatInfo(): SeatInfo[] {
    return this.seatStates.map((s) => {
      const status = this.statusOf(s);
      return {
        seat: s.index,
        kind: s.kind,
        agent: s.kind === "human" ? (status === "bot" || status === "resigned" ? this.deadlines.takeover : null) : s.agentSpec,
        status,
        held: s.tokenHash !== null,
        takeoverAt: status === "away" ? s.presentUntil : null,
      };
    });
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
      ...(this.integrity.length > 0 ? { integrity: [...this.integrity] } : {}),
    };
  }

  /** Whether `token` is the secret of `seat` (constant-time on the hashes). */
  authorize(seat: number, token: string | undefined): boolean {
    const s = this.seatStates[seat];
    if (!s || s.tokenHash === null || typeof token !== "string" || token.length === 0) return false;
    const a = Buffer.from(sha256(token), "hex");
    const b = Buffer.from(s.tokenHash, "hex");
    return a.length === b.length && timingSafeEqual(a, b);
  }

  /** Whether the seat's holder resigned (its token no longer plays it). */
  isResigned(seat: number): boolean {
    return this.seatStates[seat]?.resigned === true;
  }

  hasSeat(seat: number): boolean {
    return seat >= 0 && seat < this.seatStates.length;
  }

  /** The events after `since` (at most `limit`) as `viewer` may read them. */
  eventsFor(viewer: Viewer, since: number, limit = Infinity): LiveEvent[] {
    const from = Math.max(0, Math.min(since, this.items.length));
    return this.items.slice(from, Math.min(this.items.length, from + limit)).map((i) => liveEvent(i.entry, i.events, viewer));
  }

  /** The finished game's record with its signed log. */
  record(): SignedRecord {
    if (!this.finished) throw new TableError(409, "not_finished", "the game is not finished yet; its record holds hidden information until then");
    return {
      game: this.game.info.id,
      version: this.game.info.version,
      config: this.config,
      seed: this.seed,
      decisions: this.items.map((i) => i.decision),
      finalHash: stateHash(this.state),
      signed: {
        header: this.header,
        headerHash: this.headerHash,
        headerMac: this.headerMac,
        entries: this.items.map((i) => i.entry),
        ...(this.end ? { end: this.end } : {}),
      },
    };
  }

  returns(): number[] | null {
    return this.finished ? [...this.game.returns(this.state)] : null;
  }

  /** The current state's hash (tests; never sent to clients). */
  stateHash(): string {
    return stateHash(this.state);
  }

  // ------------------------------------------------------------ frames

  private statusOf(s: SeatState): SeatInfo["status"] {
    if (s.kind === "agent" || s.tokenHash === null) return "bot";
    if (s.resigned) return "resigned";
    if (s.sockets > 0) return "connected";
    if (s.left) return "bot";
    if (this.deps.clock.now() < s.presentUntil) return s.polling ? "connected" : "away";
    return "bot";
  }

  private actorSeat(): Seat | "terminal" {
    return this.game.actor(this.state);
  }

  private options(seat: Seat): { options: DecisionOption[]; legal: readonly unknown[] } {
    const c = this.optionsCache;
    if (c && c.seq === this.seq && c.seat === seat) return c;
    const point = decisionPoint(this.adapter, this.state, seat);
    const options = point.legal.map((d, k) => ({ id: point.ids[k]!, label: this.game.describe(this.state, d), decision: d }));
    this.optionsCache = { seq: this.seq, seat, options, legal: point.legal };
    return this.optionsCache;
  }

  /** The decision applied at the deadline: the game's own default, else the first passive legal one, else the first. */
  private defaultDecision(): unknown {
    const e = this.game.expectation(this.state);
    if (e?.defaultDecision !== undefined) return e.defaultDecision;
    const legal = this.game.legal(this.state);
    const passive = legal.findIndex(isPassive);
    return legal[passive >= 0 ? passive : 0];
  }

  private deadlineMs(seat: SeatState): number | null {
    if (seat.kind === "agent") return null;
    const e = this.game.expectation(this.state);
    return e?.timeoutMs ?? this.deadlines.turnMs;
  }

  private expectationFor(viewer: Seat | null): LiveExpectation | null {
    const actor = this.actorSeat();
    if (actor === "terminal" || this.finished) return null;
    const s = this.seatStates[actor];
    const ms = s ? this.deadlineMs(s) : null;
    const deadline = ms === null ? null : this.pendingSince + ms;
    if (deadline === null || viewer !== actor) return { seat: actor, deadline, defaultId: null, defaultLabel: null };
    // Only the deciding seat learns which decision its deadline applies (it is one of its options).
    const d = this.defaultDecision();
    let id: number | null;
    try {
      id = this.adapter.actions.encode(this.game.view(this.state, actor), d);
    } catch {
      id = null;
    }
    return { seat: actor, deadline, defaultId: id, defaultLabel: this.game.describe(this.state, d) };
  }

  seatFrame(seat: Seat, since: number): SeatFrame {
    const actor = this.actorSeat();
    return {
      type: "frame",
      table: this.id,
      seat,
      seq: this.seq,
      status: this.finished ? "finished" : "playing",
      actor,
      view: this.game.view(this.state, seat),
      expectation: this.expectationFor(seat),
      events: this.eventsFor(seat, since),
      seats: this.seatInfo(),
      returns: this.returns(),
      now: this.deps.clock.now(),
      decisions: actor === seat && !this.finished ? this.options(seat).options : [],
    };
  }

  spectatorFrame(since: number, viewer: "spectator" = "spectator"): SpectatorFrame {
    return {
      type: "spectate",
      table: this.id,
      viewer,
      seq: this.seq,
      status: this.finished ? "finished" : "playing",
      actor: this.actorSeat(),
      view: this.game.view(this.state, "spectator"),
      expectation: this.expectationFor(null),
      events: this.eventsFor("spectator", since),
      seats: this.seatInfo(),
      returns: this.returns(),
      now: this.deps.clock.now(),
    };
  }

  /** Sends every channel a frame with the events it has not had yet. Spectator frames are built once per distinct position. */
  private broadcast(): void {
    const spectatorText = new Map<number, string>();
    for (const c of this.channels) {
      let text: string;
      if (c.seat === null) {
        const cached = spectatorText.get(c.sentSeq);
        text = cached ?? JSON.stringify(this.spectatorFrame(c.sentSeq));
        if (cached === undefined) spectatorText.set(c.sentSeq, text);
      } else {
        text = JSON.stringify(this.seatFrame(c.seat, c.sentSeq));
      }
      c.sentSeq = this.seq;
      try {
        c.send(text);
      } catch {
        // a dead socket is removed by its close handler
      }
      if (c.seat !== null && this.seatStates[c.seat]?.resigned && !this.concessionPending(c.seat)) c.close(RESIGNED_CLOSE, "seat_resigned");
    }
    const waiting = [...this.waiters];
    this.waiters.clear();
    for (const w of waiting) w();
  }

  // ------------------------------------------------------------ channels and seats

  /**
   * Attaches a channel and sends it its first frame (with the events after `since`, if given). A
   * seat's status change (a person is back) is pushed to every channel.
   */
  attach(c: Channel, since: number | null): void {
    c.sentSeq = since === null ? this.seq : Math.min(since, this.seq);
    this.channels.add(c);
    if (c.seat !== null) {
      const s = this.seatStates[c.seat]!;
      s.sockets++;
      s.left = false;
      this.changed();
    } else {
      c.send(this.frameFor(c, null));
    }
  }

  detach(c: Channel): void {
    if (!this.channels.delete(c)) return;
    if (c.seat !== null) {
      const s = this.seatStates[c.seat]!;
      s.sockets = Math.max(0, s.sockets - 1);
      if (s.sockets === 0) {
        s.polling = false;
        this.presence(s, this.deadlines.graceMs);
      }
      this.changed();
    }
  }

  /** Other channels of the same seat (a reconnect replaces them). */
  channelsOf(seat: Seat): Channel[] {
    return [...this.channels].filter((c) => c.seat === seat);
  }

  /** A fresh frame for a channel: events after `since` (or after what it already had). */
  frameFor(c: Channel, since: number | null): string {
    const from = Math.min(since ?? c.sentSeq, this.seq);
    c.sentSeq = this.seq;
    return JSON.stringify(c.seat === null ? this.spectatorFrame(from) : this.seatFrame(c.seat, from));
  }

  /** Whether `seat` must decide now. */
  mustDecide(seat: Seat): boolean {
    return !this.finished && this.actorSeat() === seat;
  }

  /** An HTTP request by a seat's holder: it counts as present (polling) for the grace period. */
  touch(seat: Seat): void {
    const s = this.seatStates[seat]!;
    const before = this.statusOf(s);
    s.left = false;
    if (s.sockets === 0) {
      s.polling = true;
      this.presence(s, this.deadlines.graceMs);
    }
    if (this.statusOf(s) !== before) this.changed();
  }

  /** Resolves on the next change (long poll), or after ms. */
  waitForChange(ms: number): Promise<void> {
    return new Promise((resolve) => {
      let cancel: () => void = () => undefined;
      const done = () => {
        this.waiters.delete(done);
        cancel();
        resolve();
      };
      this.waiters.add(done);
      // Real time, not the table clock: a long poll is about the HTTP connection.
      const t = setTimeout(done, ms);
      cancel = () => clearTimeout(t);
    });
  }

  private presence(s: SeatState, ms: number): void {
    s.presentUntil = this.deps.clock.now() + ms;
    s.cancelPresence?.();
    s.cancelPresence = this.deps.clock.setTimer(ms, () => {
      s.cancelPresence = null;
      this.changed();
    });
  }

  private startPresenceTimers(): void {
    for (const s of this.seatStates) {
      if (s.kind !== "agent" && s.tokenHash !== null) this.presence(s, this.deadlines.graceMs);
    }
    this.drive();
  }

  /** Takes an open seat nobody holds: it becomes a human seat; returns its token. */
  join(seat: number): string {
    const s = this.seatStates[seat];
    if (!s) throw new TableError(404, "unknown_seat", `table ${this.id} has no seat ${seat}`);
    if (this.finished) throw new TableError(409, "game_over", "the game is over");
    if (s.kind === "agent") throw new TableError(409, "not_open", `seat ${seat} is an agent seat; only open seats can be joined`);
    if (s.tokenHash !== null) throw new TableError(409, "seat_taken", `seat ${seat} is already held`);
    const token = newToken();
    const tokenHash = sha256(token);
    this.journal?.append({ t: "join", seat, tokenHash, at: this.deps.clock.now() });
    s.tokenHash = tokenHash;
    s.kind = "human";
    this.presence(s, this.deadlines.graceMs);
    this.changed();
    return token;
  }

  /**
   * The holder gives the seat up for good (docs/live.md, Resigning). Journaled first (a restart
   * keeps it), then: where the game has a conceding decision (dcg's forceFinish) it is applied
   * through applyAt with cause "resign", at once or at the seat's next decision; otherwise the
   * takeover agent plays the seat to the end. Either way the token is refused from now on and the
   * seat's channels are closed (code 4002) once they have the frame that shows it.
   */
  resign(seat: number): { outcome: "conceded" | "takeover" } {
    const s = this.seatStates[seat];
    if (!s) throw new TableError(404, "unknown_seat", `table ${this.id} has no seat ${seat}`);
    if (this.finished) throw new TableError(409, "game_over", "the game is over; there is nothing to resign");
    if (s.resigned) throw resignedError(seat);
    if (s.kind === "agent" || s.tokenHash === null) throw new TableError(409, "not_held", `nobody holds seat ${seat}; only a person's seat can resign`);
    this.journal?.append({ t: "resign", seat, at: this.deps.clock.now() });
    s.resigned = true;
    s.cancelPresence?.();
    s.cancelPresence = null;
    this.changed();
    return { outcome: this.game.concede ? "conceded" : "takeover" };
  }

  /** The resigned seat decides now and the game has a conceding decision for it (it is about to be applied). */
  private concessionPending(seat: Seat): boolean {
    return !this.finished && this.actorSeat() === seat && this.concession(seat) !== null;
  }

  private concession(seat: Seat): unknown {
    return this.game.concede?.(this.state, seat) ?? null;
  }

  /** The holder gives the seat up for now: an agent plays it until they come back. */
  leave(seat: number): void {
    const s = this.seatStates[seat]!;
    s.left = true;
    s.presentUntil = 0;
    for (const c of this.channelsOf(seat)) c.close(1000, "left");
    this.changed();
  }

  // ------------------------------------------------------------ decisions

  /**
   * A person's answer: checked against the seq, the actor and the legal ids, then applied; resolves
   * once the decision is on disk (the ack may be sent then).
   */
  answer(seat: Seat, seq: number, decisionId: number): Promise<{ seq: number }> {
    if (this.finished) throw new TableError(409, "game_over", "the game is over; no decision can be applied");
    if (this.seatStates[seat]?.resigned) throw resignedError(seat);
    if (seq !== this.seq || this.committing) {
      throw new TableError(
        409,
        "stale_answer",
        `this answers seq ${seq}, the table is at seq ${this.committing ? this.seq + 1 : this.seq}; answer the latest frame`,
      );
    }
    const actor = this.actorSeat();
    if (actor !== seat) throw new TableError(409, "not_your_turn", `seat ${actor === "terminal" ? "none" : actor} decides now, not seat ${seat}`);
    const found = this.options(seat).options.find((o) => o.id === decisionId);
    if (!found) throw new TableError(400, "unknown_decision", `no legal decision has id ${decisionId} now`);
    return new Promise((resolve, reject) => {
      const accepted = this.applyAt(seq, seat, found.decision, "answer", (err) => {
        if (err) reject(new TableError(500, "journal_failed", "the decision could not be written to disk; it was not applied"));
        else resolve({ seq: seq + 1 });
      });
      if (!accepted) reject(new TableError(409, "stale_answer", `the table moved past seq ${seq}`));
    });
  }

  /**
   * The only way a decision enters the game: refused unless `seq` is the table's seq and no other
   * decision is being committed (so an answer, a deadline and an agent racing for the same decision
   * apply it exactly once). The signed entry is journaled (written and fsync'ed off the event loop)
   * and only then is the state changed, the decision shown and `done` called.
   */
  private applyAt(seq: number, seat: Seat, decision: unknown, cause: LiveEvent["cause"], done?: (err: Error | null) => void): boolean {
    if (this.closed || this.finished || this.committing || seq !== this.seq) return false;
    const before = this.state;
    const out = this.game.apply(before, decision);
    if (!out.ok) {
      this.deps.log(`table ${this.id}: seat ${seat} decision refused by the game: ${out.error.message}`);
      return false;
    }
    const at = this.deps.clock.now();
    const hash = stateHash(out.state);
    const prev = this.chainHash();
    const events = this.game.events(before, decision, out.state);
    const entry = signEntry(this.deps.key, prev, { seq, seat, decision, cause, at, stateHash: hash });
    const ends = this.game.actor(out.state) === "terminal";
    // No text is journaled: a decision's events are recomputed from it on recovery.
    const lines: unknown[] = [{ t: "entry", entry, decision }];
    // The signed end marker commits the log to its length and result; it also lets a restart skip
    // finished tables (they are loaded again on demand).
    const end = ends ? signEnd(this.deps.key, entry.hash, { decisions: seq + 1, returns: this.game.returns(out.state), finalHash: hash }) : null;
    if (end) lines.push({ t: "end", at, end });
    const commit = (err: Error | null) => {
      this.committing = false;
      if (err) {
        this.deps.log(`table ${this.id}: journal write failed (${err.message}); the table stops`);
        done?.(err);
        this.close();
        return;
      }
      this.state = out.state;
      this.items.push({ entry, decision, events });
      this.pendingSince = this.deps.clock.now();
      this.cancelDeadline?.();
      this.cancelDeadline = null;
      if (end) {
        this.end = end;
        this.finished = true;
        this.journal?.close();
        this.journal = null;
        this.deps.onFinish?.(this);
      }
      this.deps.onApplied?.();
      done?.(null);
      this.changed();
    };
    this.committing = true;
    if (this.journal) this.journal.appendAsync(lines, { seq: seq + 1, hash: end?.hash ?? entry.hash }, commit);
    else commit(null);
    return true;
  }

  /** Something changed (a decision, a seat's status): push frames, then see who must act. */
  private changed(): void {
    if (this.closed) return;
    this.broadcast();
    this.drive();
  }

  private drive(): void {
    if (this.closed || this.finished) return;
    const actor = this.actorSeat();
    if (actor === "terminal") return;
    const s = this.seatStates[actor]!;
    if (s.resigned) {
      // A resigned seat concedes where the game allows it (refused while another decision commits;
      // the commit drives again); otherwise the takeover agent plays it, below.
      const c = this.concession(actor);
      if (c !== null) {
        this.applyAt(this.seq, actor, c, "resign");
        return;
      }
    }
    const ms = this.deadlineMs(s);
    if (ms !== null && this.deadlineSeq !== this.seq) {
      const seq = this.seq;
      this.deadlineSeq = seq;
      this.cancelDeadline?.();
      this.cancelDeadline = this.deps.clock.setTimer(Math.max(0, this.pendingSince + ms - this.deps.clock.now()), () => {
        if (this.seq === seq && !this.finished) this.applyAt(seq, actor, this.defaultDecision(), "timeout");
      });
    }
    const status = this.statusOf(s);
    if ((status === "bot" || status === "resigned") && this.agentSeq !== this.seq) this.runAgent(actor, s);
  }

  private agentFor(s: SeatState, spec: string): Promise<Facilitatee> {
    // Agents are rebuilt per decision from a seed derived from the table's seed and the seq, so a
    // table recovered after a crash plays on exactly as it would have; ONNX sessions are kept.
    if (spec.startsWith("onnx")) {
      const key = `${s.index}:${spec}`;
      let p = this.onnxAgents.get(key);
      if (!p) {
        p = this.deps.makeAgent(spec, s.index, deriveSeed(this.seed, `live-agent:${s.index}`));
        this.onnxAgents.set(key, p);
      }
      return p;
    }
    return this.deps.makeAgent(spec, s.index, deriveSeed(this.seed, `live-agent:${s.index}:${this.seq}`));
  }

  private runAgent(seat: Seat, s: SeatState): void {
    const seq = this.seq;
    this.agentSeq = seq;
    const spec = s.kind === "human" ? this.deadlines.takeover : (s.agentSpec ?? this.deadlines.takeover);
    const started = this.deps.clock.now();
    const state = this.state;
    const legal = this.game.legal(state);
    const fallback = () => this.applyAt(seq, seat, this.defaultDecision(), "agent");
    const pool = this.deps.decide;
    const chosen: Promise<number> =
      pool !== undefined
        ? this.deps.runner.run(() => {
            if (this.closed || this.seq !== seq) return -1;
            const seed = deriveSeed(this.seed, `live-agent:${s.index}:${seq}`);
            return pool({ kind: "decide", game: this.game.info.id, agent: spec, seed, seat, view: this.game.view(state, seat), legal, step: seq }, this.id);
          })
        : this.agentFor(s, spec).then((agent) =>
            this.deps.runner.run(() => {
              if (this.closed || this.seq !== seq) return -1;
              return agent.decide({ game: this.game, seat, view: this.game.view(state, seat), legal, step: seq });
            }),
          );
    chosen.then(
      (index) => {
        if (this.closed || this.seq !== seq) return;
        const decision = Number.isInteger(index) && index >= 0 && index < legal.length ? legal[index] : undefined;
        if (decision === undefined) {
          this.deps.log(`table ${this.id}: agent ${spec} at seat ${seat} chose index ${index} of ${legal.length}; default applied`);
          return void fallback();
        }
        const wait = this.deadlines.botDelayMs - (this.deps.clock.now() - started);
        if (wait > 0) this.deps.clock.setTimer(wait, () => void this.applyAt(seq, seat, decision, "agent"));
        else this.applyAt(seq, seat, decision, "agent");
      },
      (e: unknown) => {
        if (this.closed || this.seq !== seq) return;
        this.deps.log(`table ${this.id}: agent ${spec} at seat ${seat} failed (${(e as Error).message}); default applied`);
        // Retry later rather than spin when the runner is full.
        if ((e as Error).name === "AgentBusy") {
          this.agentSeq = -1;
          this.deps.clock.setTimer(100, () => this.drive());
          return;
        }
        fallback();
      },
    );
  }

  /**
   * Stops timers and closes channels (server shutdown, or a finished table leaving memory); the
   * journal keeps everything acknowledged.
   */
  close(reason = "server shutting down"): void {
    this.closed = true;
    this.cancelDeadline?.();
    for (const s of this.seatStates) s.cancelPresence?.();
    for (const c of this.channels) c.close(1001, reason);
    this.channels.clear();
    for (const w of this.waiters) w();
    this.journal?.close();
    this.journal = null;
  }

  /** Key of a decision (tests compare decisions by it). */
  static key(d: unknown): string {
    return decisionKey(d);
  }
}
