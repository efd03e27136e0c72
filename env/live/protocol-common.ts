/**
 * What the live-table schemas share (docs/live.md): the protocol version, the limits on what a
 * client may send, and the small field types every message and journal line is built from.
 */
import { Type, type Static } from "typebox";

export const PROTOCOL_VERSION = 1;

/** Limits on what a client may send or ask for. */
export const LIVE_LIMITS = {
  maxSeats: 8,
  maxSpecLength: 512,
  /** A client message over this is answered with `bad_message` (the channel stays open). */
  maxMessageBytes: 4096,
  /** The WebSocket reads messages up to this size; a bigger one closes the channel (1009). */
  maxReadBytes: 65_536,
  /** A channel with more than this waiting to be sent (its client does not read) is cut off. */
  maxUnsentBytes: 4 * 1024 * 1024,
  /**
   * Syncs a channel may send at once, and how many a second after that: a sync rebuilds a whole
   * frame (its events since `since`), so a flood of them would take the event loop from every
   * table. Frames come by themselves; a client syncs after a gap, not in a loop.
   */
  syncBurst: 20,
  syncsPerSecond: 10,
  maxLongPollMs: 30_000,
  maxTurnMs: 86_400_000,
  maxGraceMs: 86_400_000,
  maxBotDelayMs: 60_000,
  maxEntryMs: 86_400_000,
  maxLogPage: 10_000,
} as const;

export const Id = Type.String({ minLength: 1, maxLength: 64, pattern: "^[A-Za-z0-9_-]+$" });
export const SeatIndex = Type.Integer({ minimum: 0, maximum: LIVE_LIMITS.maxSeats - 1 });
export const Seq = Type.Integer({ minimum: 0, maximum: 1_000_000_000 });
/** Milliseconds since the Unix epoch, by the server's clock. */
export const EpochMs = Type.Number({ minimum: 0 });

/**
 * Who sits at a seat: "human" (a person or remote program holding the seat's token), "open" or
 * "open:<agent spec>" (played by an agent, "random" unless named, until someone joins it), or any
 * agent spec ("random", "computer", "mcts:iters=200", "onnx:builtin/dcg-ppo-v1", ...).
 */
export const SeatSpec = Type.String({ minLength: 1, maxLength: LIVE_LIMITS.maxSpecLength });

/**
 * Why a decision was applied. answer: the seat's holder answered; agent: an agent seat (or a bot
 * standing in); timeout: the deadline's default; resign: the seat's holder resigned and this is
 * the game's conceding decision.
 */
export const DecisionCause = Type.Union([Type.Literal("answer"), Type.Literal("agent"), Type.Literal("timeout"), Type.Literal("resign")]);

export const Deadlines = Type.Object(
  {
    /**
     * Turn time for a seat held by a person, when the game's own expectation carries none (dcg's
     * timeoutMs and sevens' turnTimeoutSec config fields give one). null: no turn limit.
     */
    turnMs: Type.Optional(Type.Union([Type.Integer({ minimum: 100, maximum: LIVE_LIMITS.maxTurnMs }), Type.Null()])),
    /** How long a disconnected person keeps the seat before an agent plays it. */
    graceMs: Type.Optional(Type.Integer({ minimum: 0, maximum: LIVE_LIMITS.maxGraceMs })),
    /** The agent that plays a seat whose person is gone (after the grace period). */
    takeover: Type.Optional(Type.String({ minLength: 1, maxLength: LIVE_LIMITS.maxSpecLength })),
    /** Minimum time an agent seat waits before its decision is applied (pace for people watching). */
    botDelayMs: Type.Optional(Type.Integer({ minimum: 0, maximum: LIVE_LIMITS.maxBotDelayMs })),
    /**
     * The entry window: before the first decision, wait up to this long for people to take the
     * open seats; then the agents play the seats still empty. null or absent: no window.
     */
    entryMs: Type.Optional(Type.Union([Type.Integer({ minimum: 1, maximum: LIVE_LIMITS.maxEntryMs }), Type.Null()])),
  },
  { additionalProperties: false },
);
export type Deadlines = Static<typeof Deadlines>;

/** The play modes a create body may name (env/live/facilitators.ts; `learning` is refused there: it is the session API). */

/** A table's deadlines with the defaults filled in (as hello shows them and the journal's header keeps them). */
export const TableDeadlines = Type.Object({
  turnMs: Type.Union([Type.Integer({ minimum: 0 }), Type.Null()]),
  graceMs: Type.Integer({ minimum: 0 }),
  takeover: Type.String(),
  botDelayMs: Type.Integer({ minimum: 0 }),
  /** The entry window (absent in journals written before it existed: none). */
  entryMs: Type.Optional(Type.Union([Type.Integer({ minimum: 0 }), Type.Null()])),
});
export type TableDeadlines = Static<typeof TableDeadlines>;
