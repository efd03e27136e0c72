/**
 * What the parts of a live table share (docs/live.md): its errors, setup, dependencies, channels
 * and the projection of an applied decision for one viewer. table.ts re-exports all of it.
 */
import { projectEvents, type AnyGame, type GameEvent, type Seat, type Viewer } from "../../engine/core/index.ts";
import type { Facilitatee } from "../../agents/facilitatee.ts";
import type { GameAdapter } from "../codec.ts";
import type { AgentRunner } from "./agent-runner.ts";
import type { Clock } from "../../agents/clock.ts";
import type { RunDecision } from "./ports.ts";
import type { FacilitatorName, LiveEvent, SIGNED_SEATS_FORMAT, SignedEntry } from "./protocol.ts";
import type { JoinRules } from "./seats.ts";
import type { Table } from "./table.ts";

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
  /** The entry window before the first decision (entry-window.ts); null: none. */
  readonly entryMs: number | null;
}

export const DEFAULT_DEADLINES: ResolvedDeadlines = { turnMs: null, graceMs: 30_000, takeover: "random", botDelayMs: 0, entryMs: null };

export type SeatKindName = "human" | "open" | "agent";

/** The WebSocket close code of a resigned seat's channels. */
export const RESIGNED_CLOSE = 4002;

export const resignedError = (seat: number) =>
  new TableError(403, "seat_resigned", `seat ${seat} was resigned; its token no longer plays it (watch the table instead)`);

/** What a table needs from its host (the store). */
export interface TableDeps {
  readonly clock: Clock;
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
  readonly decide?: RunDecision;
  readonly log: (line: string) => void;
  /** Told once when the game ends (the store keeps a bounded number of finished tables in memory). */
  readonly onFinish?: (table: Table) => void;
  /** What the table's facilitator lets a person join (absent: open seats and left seats only). */
  readonly joinRules?: (facilitator: FacilitatorName) => JoinRules;
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

/** Who applied a decision, when and why: the part of an event every viewer reads alike. */
export interface EventMeta {
  readonly seq: number;
  readonly seat: Seat;
  readonly cause: LiveEvent["cause"];
  readonly at: number;
}

/** One applied decision as the table keeps it. */
export interface LogItem {
  readonly entry: SignedEntry;
  readonly decision: unknown;
  /** Everything the decision did, every face (the owner's); channels get their viewer's projection. */
  readonly events: readonly GameEvent[];
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
  /**
   * The signed log's format (LogHeader.format): SIGNED_SEATS_FORMAT for a table made now; a table
   * recovered from its journal keeps the journal's (absent: written before seat changes were signed).
   */
  readonly format?: typeof SIGNED_SEATS_FORMAT;
}

/** How a seat spec string reads: "human", "open[:spec]" or an agent spec. */
export function seatKindOf(spec: string): { kind: SeatKindName; agent: string | null } {
  if (spec === "human") return { kind: "human", agent: null };
  if (spec === "open") return { kind: "open", agent: "random" };
  if (spec.startsWith("open:")) return { kind: "open", agent: spec.slice(5) };
  return { kind: "agent", agent: spec };
}
