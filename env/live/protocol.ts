/**
 * The live-table protocol (docs/live.md): every message and HTTP body as a TypeBox schema. One
 * definition gives the TypeScript type (Static), the JSON Schema (the schema objects ARE JSON
 * Schema, served at GET /v1/tables/protocol) and validation (fastify's ajv on routes, typebox/value
 * on WebSocket messages).
 *
 * Messages are JSON text. A seat's channel carries only that seat's view; a spectator's channel
 * only the spectator view.
 */
import { Type, type Static, type TSchema } from "typebox";
import type { EventKind } from "../../engine/core/index.ts";
import { DecisionCause, Deadlines, EpochMs, Id, LIVE_LIMITS, PROTOCOL_VERSION, SeatIndex, SeatSpec, Seq, TableDeadlines } from "./protocol-common.ts";
import { JournalIntegrity, LogHeader, SignedEnd, SignedEntry, SignedRecord } from "./protocol-records.ts";

export * from "./protocol-common.ts";
export * from "./protocol-records.ts";

export const ErrorBody = Type.Object(
  {
    error: Type.Object({
      code: Type.String(),
      message: Type.String(),
    }),
  },
  { $id: "ErrorBody" },
);
export type ErrorBody = Static<typeof ErrorBody>;

// ---------------------------------------------------------------- table creation

export const FACILITATORS = ["online", "training", "tutorial", "sandbag", "audience", "replay", "debug", "learning"] as const;
export type FacilitatorName = (typeof FACILITATORS)[number];
export const Facilitator = Type.Union([
  Type.Literal("online"),
  Type.Literal("training"),
  Type.Literal("tutorial"),
  Type.Literal("sandbag"),
  Type.Literal("audience"),
  Type.Literal("replay"),
  Type.Literal("debug"),
  Type.Literal("learning"),
]);

export const CreateTableBody = Type.Object(
  {
    game: Type.String({ minLength: 1, maxLength: 64 }),
    config: Type.Optional(Type.Record(Type.String(), Type.Unknown())),
    /** One entry per seat; its length is the seat count (config.seats, if given, must agree). */
    seats: Type.Optional(Type.Array(SeatSpec, { minItems: 1, maxItems: LIVE_LIMITS.maxSeats })),
    seed: Type.Optional(Type.Integer({ minimum: 0, maximum: Number.MAX_SAFE_INTEGER })),
    deadlines: Type.Optional(Deadlines),
    facilitator: Type.Optional(Facilitator),
    /** Whether spectators may watch (default true). */
    spectators: Type.Optional(Type.Boolean()),
    /** replay facilitator: the GameRecord to step through. */
    record: Type.Optional(Type.Unknown()),
    /** debug facilitator: the dcg board file to start from (docs/board-file.md), checked as config.board. */
    board: Type.Optional(Type.Unknown()),
  },
  { additionalProperties: false, $id: "CreateTableBody" },
);
export type CreateTableBody = Static<typeof CreateTableBody>;

export const SeatKind = Type.Union([Type.Literal("human"), Type.Literal("open"), Type.Literal("agent")]);
/**
 * connected: a person holds the seat and has a live channel; away: the person is disconnected,
 * within the grace period; bot: an agent plays it (an agent seat, an open seat nobody joined, or a
 * person gone past the grace period, until they return); resigned: the person resigned, the
 * takeover agent plays it to the end and its token no longer works.
 */
export const SeatStatus = Type.Union([Type.Literal("connected"), Type.Literal("away"), Type.Literal("bot"), Type.Literal("resigned")]);

export const SeatInfo = Type.Object({
  seat: SeatIndex,
  kind: SeatKind,
  /** The agent seated (agent seats), or the agent playing it while nobody holds it. */
  agent: Type.Union([Type.String(), Type.Null()]),
  status: SeatStatus,
  /** Whether a person holds a token for this seat. */
  held: Type.Boolean(),
  /**
   * Whether a person may take this seat now (POST .../join): an open seat nobody holds, a seat its
   * holder left, or an agent's seat where the table's facilitator allows it; false once the game is over.
   */
  joinable: Type.Boolean(),
  /** How many times a person joined this seat after the table was made (each join is a new holder). */
  joins: Type.Integer({ minimum: 0 }),
  /** While `away`: when the takeover agent starts playing the seat (server clock, epoch ms); else null. */
  takeoverAt: Type.Union([EpochMs, Type.Null()]),
});
export type SeatInfo = Static<typeof SeatInfo>;

export const CreateTableReply = Type.Object({
  table: Id,
  game: Type.String(),
  gameVersion: Type.String(),
  facilitator: Facilitator,
  config: Type.Unknown(),
  seats: Type.Array(SeatInfo),
  /** One secret token per human seat, keyed by seat index (as a string). Shown once. */
  tokens: Type.Record(Type.String(), Type.String()),
});
export type CreateTableReply = Static<typeof CreateTableReply>;

export const TableSummary = Type.Object({
  table: Id,
  game: Type.String(),
  facilitator: Facilitator,
  status: Type.Union([Type.Literal("playing"), Type.Literal("finished")]),
  seq: Seq,
  seats: Type.Array(SeatInfo),
  spectators: Type.Boolean(),
  watching: Type.Integer({ minimum: 0 }),
  createdAt: EpochMs,
  /** Only while the entry window is open: when it closes at the latest (see the frames' startsAt). */
  startsAt: Type.Optional(EpochMs),
  /** Present only when a restart found the journal damaged or uncheckable: every such finding, oldest first. */
  integrity: Type.Optional(Type.Array(JournalIntegrity)),
});
export type TableSummary = Static<typeof TableSummary>;

/** GET /v1/tables?status=playing|finished */
export const ListQuery = Type.Object(
  { status: Type.Optional(Type.Union([Type.Literal("playing"), Type.Literal("finished")])) },
  { additionalProperties: false },
);

export const ListTablesReply = Type.Object({ tables: Type.Array(TableSummary) });

export const JoinReply = Type.Object({ table: Id, seat: SeatIndex, token: Type.String() });

// ---------------------------------------------------------------- frames

/** Every event kind (engine/core/events.ts). */
const EventKindSchema = Type.Union([
  Type.Literal("decision"),
  Type.Literal("play"),
  Type.Literal("move"),
  Type.Literal("attack"),
  Type.Literal("damage"),
  Type.Literal("heal"),
  Type.Literal("death"),
  Type.Literal("stat"),
  Type.Literal("trigger"),
  Type.Literal("draw"),
  Type.Literal("reveal"),
  Type.Literal("phase"),
  Type.Literal("result"),
  Type.Literal("info"),
]);
// The schema names every EventKind and no other: a kind added to the engine and not here fails to compile.
const sameKinds: [EventKind] extends [Static<typeof EventKindSchema>] ? ([Static<typeof EventKindSchema>] extends [EventKind] ? true : never) : never = true;
void sameKinds;

/**
 * One thing a decision did, as this channel's viewer may read it (the engine's event projected
 * for that viewer): the full face for those allowed, the redacted face for the others; events the
 * viewer learns nothing of are left out. `data` obeys the same rule as `text`.
 */
export const SeenEvent = Type.Object(
  {
    kind: EventKindSchema,
    /** The seat that acted or is concerned, or null (the game itself). */
    seat: Type.Union([SeatIndex, Type.Null()]),
    text: Type.String(),
    data: Type.Optional(Type.Record(Type.String(), Type.Union([Type.Number(), Type.String(), Type.Boolean(), Type.Null()]))),
  },
  { $id: "SeenEvent" },
);
export type SeenEvent = Static<typeof SeenEvent>;

/**
 * One applied decision, as this channel's viewer may know it: who and why, and the decision's
 * events projected for the viewer (the decision event first). `label` is that decision event's
 * text as the viewer reads it, so only the acting seat's channel ever carries the decision's full
 * wording; the others read its redacted face ("Guest sets a feint face down").
 */
export const LiveEvent = Type.Object({
  /** The table's sequence number before this decision: the first decision is seq 0. */
  seq: Seq,
  seat: SeatIndex,
  /** Why it was applied (DecisionCause). */
  cause: DecisionCause,
  at: EpochMs,
  /** The text of the decision event (events[0]) as this viewer reads it. */
  label: Type.String(),
  /** What the decision did, as this viewer may read it: the decision event, then its consequences in order. */
  events: Type.Array(SeenEvent),
});
export type LiveEvent = Static<typeof LiveEvent>;

/** A legal decision offered to the seat: `id` is stable (the game's action id), `decision` the engine's data. */
export const DecisionOption = Type.Object({
  id: Type.Integer({ minimum: 0 }),
  label: Type.String(),
  decision: Type.Unknown(),
});
export type DecisionOption = Static<typeof DecisionOption>;

/** Who must decide now and until when; applied at the deadline: the default decision. */
export const LiveExpectation = Type.Object({
  seat: SeatIndex,
  /** Absolute deadline (server clock, epoch ms); null: no deadline. */
  deadline: Type.Union([EpochMs, Type.Null()]),
  /** The id and label of the decision applied at the deadline (null when there is no deadline). */
  defaultId: Type.Union([Type.Integer({ minimum: 0 }), Type.Null()]),
  defaultLabel: Type.Union([Type.String(), Type.Null()]),
});
export type LiveExpectation = Static<typeof LiveExpectation>;

const frameFields = {
  table: Id,
  /** Decisions applied so far. An answer names the seq of the frame it answers. */
  seq: Seq,
  status: Type.Union([Type.Literal("playing"), Type.Literal("finished")]),
  /** The seat that decides now, or "terminal". */
  actor: Type.Union([SeatIndex, Type.Literal("terminal")]),
  /** The game's view for this channel's viewer (docs/rules/<game>.md describes it). */
  view: Type.Unknown(),
  expectation: Type.Union([LiveExpectation, Type.Null()]),
  /** Decisions applied since the previous frame on this channel (all of them on the first frame after a `since`). */
  events: Type.Array(LiveEvent),
  seats: Type.Array(SeatInfo),
  /** Final returns per seat, when finished. */
  returns: Type.Union([Type.Array(Type.Number()), Type.Null()]),
  now: EpochMs,
  /**
   * Only while the table's entry window is open (before the first decision): when it closes at
   * the latest (server clock). Nobody decides until then; it closes early once every open seat is held.
   */
  startsAt: Type.Optional(EpochMs),
};

export const SeatFrame = Type.Object(
  {
    type: Type.Literal("frame"),
    seat: SeatIndex,
    ...frameFields,
    /** This seat's legal decisions, non-empty only when it must decide now. */
    decisions: Type.Array(DecisionOption),
  },
  { $id: "SeatFrame" },
);
export type SeatFrame = Static<typeof SeatFrame>;

export const SpectatorFrame = Type.Object(
  {
    type: Type.Literal("spectate"),
    /** "spectator", or a seat index on a replay table (whose view was chosen). */
    viewer: Type.Union([Type.Literal("spectator"), SeatIndex]),
    ...frameFields,
  },
  { $id: "SpectatorFrame" },
);
export type SpectatorFrame = Static<typeof SpectatorFrame>;

/** First message on every channel. */
export const Hello = Type.Object({
  type: Type.Literal("hello"),
  protocol: Type.Literal(PROTOCOL_VERSION),
  table: Id,
  game: Type.String(),
  gameVersion: Type.String(),
  facilitator: Facilitator,
  config: Type.Unknown(),
  /** The table's deadlines with defaults filled in (grace period and takeover agent included). */
  deadlines: TableDeadlines,
  spectators: Type.Boolean(),
  role: Type.Union([Type.Literal("seat"), Type.Literal("spectator")]),
  seat: Type.Union([SeatIndex, Type.Null()]),
});
export type Hello = Static<typeof Hello>;

/** The decision with `decisionId` at `seq` was applied; `seq` is the new sequence number. */
export const Ack = Type.Object({ type: Type.Literal("ack"), seq: Seq, decisionId: Type.Integer({ minimum: 0 }) });
export type Ack = Static<typeof Ack>;

export const ErrorMessage = Type.Object({
  type: Type.Literal("error"),
  error: Type.Object({ code: Type.String(), message: Type.String() }),
  /** The table's seq when the error was raised. */
  seq: Type.Union([Seq, Type.Null()]),
});
export type ErrorMessage = Static<typeof ErrorMessage>;

export const ServerMessage = Type.Union([Hello, SeatFrame, SpectatorFrame, Ack, ErrorMessage]);
export type ServerMessage = Static<typeof ServerMessage>;

// ---------------------------------------------------------------- client -> server

/** Answer the frame with sequence number `seq` with the option whose id is `decisionId`. */
export const Answer = Type.Object(
  { type: Type.Literal("answer"), seq: Seq, decisionId: Type.Integer({ minimum: 0, maximum: 1_000_000_000 }) },
  { additionalProperties: false },
);
export type Answer = Static<typeof Answer>;

/** Ask for a fresh frame (with every event after `since`, if given). */
export const Sync = Type.Object({ type: Type.Literal("sync"), since: Type.Optional(Seq) }, { additionalProperties: false });
/** Give the seat up for now: an agent plays it until the holder comes back with the token. */
export const Leave = Type.Object({ type: Type.Literal("leave") }, { additionalProperties: false });

/**
 * Give the seat up for good (docs/live.md, Resigning): the game's conceding decision where it has
 * one (dcg), else the takeover agent plays the seat to the end. The token stops working.
 */
export const Resign = Type.Object({ type: Type.Literal("resign") }, { additionalProperties: false });

export const ClientMessage = Type.Union([Answer, Sync, Leave, Resign]);
export type ClientMessage = Static<typeof ClientMessage>;

/** HTTP fallback: POST /v1/tables/:id/seats/:seat/answer */
export const AnswerBody = Type.Object(
  { seq: Seq, decisionId: Type.Integer({ minimum: 0, maximum: 1_000_000_000 }) },
  { additionalProperties: false, $id: "AnswerBody" },
);
export type AnswerBody = Static<typeof AnswerBody>;

/**
 * POST /v1/tables/:id/seats/:seat/resign. outcome: "conceded" (the game's conceding decision ends
 * it for this seat, at once or at its next decision), "takeover" (the takeover agent plays on).
 */
export const ResignReply = Type.Object(
  { resigned: Type.Literal(true), seat: SeatIndex, outcome: Type.Union([Type.Literal("conceded"), Type.Literal("takeover")]) },
  { $id: "ResignReply" },
);
export type ResignReply = Static<typeof ResignReply>;

export const TableParams = Type.Object({ id: Id }, { additionalProperties: false });
export const SeatParams = Type.Object({ id: Id, seat: Type.String({ pattern: "^[0-9]{1,2}$" }) }, { additionalProperties: false });
/** ?since=N (events after seq N), ?wait=ms (long poll: reply once seq > since or after wait ms), ?token= (WebSocket only). */
export const FrameQuery = Type.Object(
  {
    since: Type.Optional(Type.String({ pattern: "^[0-9]{1,10}$" })),
    wait: Type.Optional(Type.String({ pattern: "^[0-9]{1,6}$" })),
    token: Type.Optional(Type.String({ maxLength: 128 })),
    viewer: Type.Optional(Type.String({ pattern: "^([0-9]{1,2}|spectator)$" })),
  },
  { additionalProperties: false },
);
export type FrameQuery = Static<typeof FrameQuery>;

/** GET /v1/tables/:id/log: the cursor only. */
export const LogQuery = Type.Pick(FrameQuery, ["since"], { additionalProperties: false });
export type LogQuery = Static<typeof LogQuery>;

/** A seat's WebSocket: its token and the cursor to resume from (validated before the upgrade). */
export const SeatSocketQuery = Type.Pick(FrameQuery, ["since", "token"], { additionalProperties: false });
export type SeatSocketQuery = Static<typeof SeatSocketQuery>;

/** replay facilitator: move the cursor (decisions applied) of a replay table. */
export const CursorBody = Type.Object({ seq: Seq }, { additionalProperties: false });

/** Every schema a client author may want, by name (served at GET /v1/tables/protocol). */
export const PROTOCOL_SCHEMAS: Readonly<Record<string, TSchema>> = {
  CreateTableBody,
  CreateTableReply,
  ListTablesReply,
  JoinReply,
  TableSummary,
  JournalIntegrity,
  SeatInfo,
  SeenEvent,
  LiveEvent,
  DecisionOption,
  LiveExpectation,
  Hello,
  SeatFrame,
  SpectatorFrame,
  Ack,
  ErrorMessage,
  Answer,
  Sync,
  Leave,
  Resign,
  ResignReply,
  AnswerBody,
  ErrorBody,
  LogHeader,
  SignedEntry,
  SignedEnd,
  SignedRecord,
};
