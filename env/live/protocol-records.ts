/**
 * The signed log of a live table (docs/live.md, "The signed log") and what a restart records about
 * its journal: TypeBox schemas, like the rest of the protocol (protocol.ts re-exports them).
 */
import { Type, type Static } from "typebox";
import { EpochMs, Id, SeatIndex, SeatSpec, Seq, DecisionCause } from "./protocol-common.ts";

/** The signed log's format whose seat changes are links of its chain (LogHeader.format). */
export const SIGNED_SEATS_FORMAT = 2;

/**
 * What a restart found wrong with a table's journal (docs/live.md, "Durability"): `lost_tail`, its
 * last lines are gone (the head file says seq `expectedSeq`, `expectedLines` lines were written;
 * the journal holds `foundSeq`, `foundLines`); `no_head` / `bad_head`, its head file is missing or
 * holds no valid signed head, so a lost tail cannot be told; `mismatch`, the chain is not the one
 * the head signed. `at`: when it was found (server clock).
 */
export const JournalIntegrity = Type.Object({
  problem: Type.Union([Type.Literal("lost_tail"), Type.Literal("no_head"), Type.Literal("bad_head"), Type.Literal("mismatch")]),
  message: Type.String(),
  foundSeq: Seq,
  foundLines: Type.Integer({ minimum: 0 }),
  expectedSeq: Type.Optional(Seq),
  expectedLines: Type.Optional(Type.Integer({ minimum: 0 })),
  at: EpochMs,
});
export type JournalIntegrity = Static<typeof JournalIntegrity>;

/** The first line of a table's signed log: what the table was set up with. */
export const LogHeader = Type.Object({
  table: Id,
  game: Type.String(),
  version: Type.String(),
  config: Type.Unknown(),
  seed: Type.Integer({ minimum: 0 }),
  seats: Type.Array(SeatSpec),
  createdAt: EpochMs,
  /**
   * 2: the log's seat changes are links of its chain (SignedSeatChange) and the journal signs the
   * table's options; absent in logs written before seat changes were signed.
   */
  format: Type.Optional(Type.Literal(SIGNED_SEATS_FORMAT)),
});
export type LogHeader = Static<typeof LogHeader>;

/**
 * One applied decision in the signed log. hash = sha256 hex of `${prev}\n${canonical JSON of
 * {seq, seat, decision, cause, at, stateHash}}` where prev is the previous entry's hash (the
 * header's hash for seq 0); mac = HMAC-SHA256 hex of hash under the server's key.
 */
export const SignedEntry = Type.Object({
  seq: Seq,
  seat: SeatIndex,
  cause: DecisionCause,
  at: EpochMs,
  /** The game state hash after this decision (engine/core/hash.ts). */
  stateHash: Type.String(),
  hash: Type.String(),
  mac: Type.String(),
});
export type SignedEntry = Static<typeof SignedEntry>;

/**
 * The last link of a finished game's signed log: how many decisions it took, the final returns
 * per seat and the final state hash. hash = sha256 hex of `${prev}\n${canonical JSON of {end:
 * true, decisions, returns, finalHash}}` where prev is the last entry's hash (the header's hash
 * for a game of no decision); mac = HMAC-SHA256 hex of hash under the server's key.
 */
export const SignedEnd = Type.Object(
  {
    decisions: Seq,
    returns: Type.Array(Type.Number()),
    finalHash: Type.String(),
    hash: Type.String(),
    mac: Type.String(),
  },
  // Nothing unsigned rides along: every field of the marker is covered by its hash and MAC.
  { additionalProperties: false },
);
export type SignedEnd = Static<typeof SignedEnd>;

/**
 * A restart found that acknowledged decisions may be gone (docs/live.md, "Durability"): a link of
 * the signed log, between the entries that survived and the first decision played after the
 * restart. `seq`: how many entries precede it (the decisions that survived); `problem`: the head
 * check's finding; `expectedSeq`: the decision count the journal's head promised (absent when
 * there was no valid head to tell it). hash = sha256 hex of `${prev}\n${canonical JSON of
 * {recovered: true, seq, problem, expectedSeq (null when absent), at}}` where prev is the hash of
 * the link before it; mac = HMAC-SHA256 hex of hash under the server's key.
 */
export const SignedRecovery = Type.Object(
  {
    seq: Seq,
    problem: Type.Union([Type.Literal("lost_tail"), Type.Literal("no_head"), Type.Literal("bad_head"), Type.Literal("mismatch")]),
    expectedSeq: Type.Optional(Seq),
    at: EpochMs,
    hash: Type.String(),
    mac: Type.String(),
  },
  { additionalProperties: false },
);
export type SignedRecovery = Static<typeof SignedRecovery>;

/** The seat changes a table journals (docs/live.md, "Joining a seat"). */
export const SeatChangeKind = Type.Union([Type.Literal("join"), Type.Literal("leave"), Type.Literal("return"), Type.Literal("resign")]);
export type SeatChangeKind = Static<typeof SeatChangeKind>;

/**
 * A seat changing hands, as a link of the signed log (logs of format 2): `change` what happened to
 * `seat` at `at`, `seq` how many entries precede it, `tokenHash` the SHA-256 of the newcomer's
 * token, only in joins signed by earlier servers (a join's token hash is now signed apart in the
 * journal and kept out of records: docs/live.md, "No token hashes in records"). hash = sha256 hex of `${prev}\n${canonical JSON of {seatChange: change, seq,
 * seat, at, tokenHash (null when absent)}}` where prev is the hash of the link before it; mac =
 * HMAC-SHA256 hex of hash under the server's key.
 */
export const SignedSeatChange = Type.Object(
  {
    change: SeatChangeKind,
    seq: Seq,
    seat: SeatIndex,
    at: EpochMs,
    tokenHash: Type.Optional(Type.String({ pattern: "^[0-9a-f]{64}$" })),
    hash: Type.String(),
    mac: Type.String(),
  },
  { additionalProperties: false },
);
export type SignedSeatChange = Static<typeof SignedSeatChange>;

/** GET /v1/tables/:id/record: a GameRecord (replayable by any copy of the engine) plus its signed log. */
export const SignedRecord = Type.Object(
  {
    game: Type.String(),
    version: Type.String(),
    config: Type.Unknown(),
    seed: Type.Integer({ minimum: 0 }),
    decisions: Type.Array(Type.Unknown()),
    finalHash: Type.String(),
    signed: Type.Object({
      header: LogHeader,
      /** sha256 hex of the header's canonical JSON, and its HMAC. */
      headerHash: Type.String(),
      headerMac: Type.String(),
      entries: Type.Array(SignedEntry),
      /** What restarts found that may have lost acknowledged decisions, in order; absent when none did. */
      recoveries: Type.Optional(Type.Array(SignedRecovery)),
      /** The seats' changes (joins, leaves, returns, resignations), in order; absent when none, or in logs before format 2. */
      seats: Type.Optional(Type.Array(SignedSeatChange)),
      /** The end marker; absent only in records exported before end markers were signed. */
      end: Type.Optional(SignedEnd),
    }),
  },
  { $id: "SignedRecord" },
);
export type SignedRecord = Static<typeof SignedRecord>;
