/**
 * The lines of a table's journal (docs/live.md, "Durability"), each a TypeBox schema, and the one
 * check every line read back from disk passes before a table is rebuilt from it: a line of no
 * known type, or one whose fields are not its type's, is refused with a JournalLineError that
 * names the line and what is wrong (the table is then not loaded, and the server log says why).
 */
import { Type, type Static } from "typebox";
import { Compile } from "typebox/compile";
import { EpochMs, SeatIndex, Seq, TableDeadlines } from "./protocol-common.ts";
import { JournalIntegrity, LogHeader, SignedEnd, SignedEntry, SignedRecovery } from "./protocol-records.ts";
import { Facilitator } from "./protocol.ts";

const Sha256Hex = Type.String({ pattern: "^[0-9a-f]{64}$" });

/** The first line: the signed header, the hashes of the seats' tokens and the table's options (not signed). */
export const HeaderLine = Type.Object({
  t: Type.Literal("header"),
  header: LogHeader,
  headerHash: Sha256Hex,
  headerMac: Sha256Hex,
  facilitator: Facilitator,
  deadlines: TableDeadlines,
  spectators: Type.Boolean(),
  /** SHA-256 of each human seat's token, keyed by seat index (as a string). */
  tokens: Type.Record(Type.String({ pattern: "^[0-9]{1,2}$" }), Sha256Hex),
  /**
   * HMAC of the options above, tokens included (signing.ts, optionsHash): present, and required,
   * in journals of format 2 (header.format), absent in older ones.
   */
  optionsMac: Type.Optional(Sha256Hex),
});
export type HeaderLine = Static<typeof HeaderLine>;

/** One applied decision: its signed entry and the decision itself (no text: events are recomputed). */
export const EntryLine = Type.Object({
  t: Type.Literal("entry"),
  // Journals written before events were recomputed on recovery also carry entry.label (ignored).
  entry: SignedEntry,
  decision: Type.Unknown(),
});
export type EntryLine = Static<typeof EntryLine>;

/** The game is over: its signed end marker (absent in journals written before end markers). */
export const EndLine = Type.Object({ t: Type.Literal("end"), at: EpochMs, end: Type.Optional(SignedEnd) });
export type EndLine = Static<typeof EndLine>;

/**
 * Where a seat's change stands in the signed chain (journals of format 2, where every seat line
 * carries it): `seq` the entries before it, `hash` and `mac` as SignedSeatChange's.
 */
const SeatLink = { seq: Type.Optional(Seq), hash: Type.Optional(Sha256Hex), mac: Type.Optional(Sha256Hex) };

/**
 * A person took the seat; their token's SHA-256 replaces any earlier holder's. `tokenMac` (signing.ts,
 * joinTokenHash) signs the token hash apart from the link, which then signs none: joins written
 * since records stopped carrying token hashes. A signed join without it is an older one, whose
 * link signs the token hash itself.
 */
export const JoinLine = Type.Object({
  t: Type.Literal("join"),
  seat: SeatIndex,
  tokenHash: Sha256Hex,
  at: EpochMs,
  ...SeatLink,
  tokenMac: Type.Optional(Sha256Hex),
});
export type JoinLine = Static<typeof JoinLine>;

/** The seat's holder gave it up for now: an agent plays it until they come back or another person joins it. */
export const LeaveLine = Type.Object({ t: Type.Literal("leave"), seat: SeatIndex, at: EpochMs, ...SeatLink });
export type LeaveLine = Static<typeof LeaveLine>;

/** The holder of a seat they left is back with their token: the seat is theirs again, and nobody else may join it. */
export const ReturnLine = Type.Object({ t: Type.Literal("return"), seat: SeatIndex, at: EpochMs, ...SeatLink });
export type ReturnLine = Static<typeof ReturnLine>;

/** The seat's holder resigned: the token is refused from then on. */
export const ResignLine = Type.Object({ t: Type.Literal("resign"), seat: SeatIndex, at: EpochMs, ...SeatLink });
export type ResignLine = Static<typeof ResignLine>;

/** What a restart found wrong with the journal (head.ts). */
export const IntegrityLine = Type.Object({ t: Type.Literal("integrity"), found: JournalIntegrity });
export type IntegrityLine = Static<typeof IntegrityLine>;

/** A restart found that acknowledged decisions may be gone: its signed recovery link (after the integrity line). */
export const RecoveredLine = Type.Object({ t: Type.Literal("recovered"), recovered: SignedRecovery });
export type RecoveredLine = Static<typeof RecoveredLine>;

/** A seat's change, in the order it happened. */
export type SeatLine = JoinLine | LeaveLine | ReturnLine | ResignLine;

/** Every line that may follow the header. */
export const BodyLine = Type.Union([EntryLine, EndLine, JoinLine, LeaveLine, ReturnLine, ResignLine, IntegrityLine, RecoveredLine]);
export type BodyLine = Static<typeof BodyLine>;
export type JournalLine = HeaderLine | BodyLine;

/** The journal's lines, the header first, each checked against its type's schema. */
export interface JournalLines {
  readonly header: HeaderLine;
  readonly body: readonly BodyLine[];
  /** How many lines the journal holds (the header included). */
  readonly count: number;
}

export type JournalLineProblem = "no_header" | "unknown_line" | "invalid_line";

/** A journal line that is not one the server writes: `line` is its index in the journal (0: the header). */
export class JournalLineError extends Error {
  constructor(
    readonly problem: JournalLineProblem,
    readonly line: number,
    message: string,
  ) {
    super(`journal line ${line + 1}: ${message}`);
    this.name = "JournalLineError";
  }
}

const checkers = {
  header: Compile(HeaderLine),
  entry: Compile(EntryLine),
  end: Compile(EndLine),
  join: Compile(JoinLine),
  leave: Compile(LeaveLine),
  return: Compile(ReturnLine),
  resign: Compile(ResignLine),
  integrity: Compile(IntegrityLine),
  recovered: Compile(RecoveredLine),
} as const;
type LineType = keyof typeof checkers;
const BODY_TYPES: readonly LineType[] = ["entry", "end", "join", "leave", "return", "resign", "integrity", "recovered"];

const isLineType = (t: unknown): t is LineType => typeof t === "string" && Object.hasOwn(checkers, t);

/** The line's type (its `t`), or a JournalLineError for a line of no known type. */
function lineType(line: unknown, index: number): LineType {
  const t = typeof line === "object" && line !== null && "t" in line ? line.t : undefined;
  if (isLineType(t)) return t;
  const shown = typeof t === "string" ? JSON.stringify(t.slice(0, 40)) : "none";
  throw new JournalLineError("unknown_line", index, `unknown line type ${shown} (known: ${Object.keys(checkers).join(", ")})`);
}

/** What is wrong with a line of type `t`: the first schema error, with its JSON path. */
function describeErrors(t: LineType, line: unknown): string {
  const first = checkers[t].Errors(line)[0];
  if (!first) return `not a valid ${t} line`;
  return `not a valid ${t} line: ${first.instancePath || "/"} ${first.message}`;
}

/** Checks every line; the first must be a header and no other may be. Throws JournalLineError. */
export function checkJournalLines(lines: readonly unknown[]): JournalLines {
  if (lines.length === 0) throw new JournalLineError("no_header", 0, "the journal is empty (no header line)");
  const first = lines[0];
  if (lineType(first, 0) !== "header") throw new JournalLineError("no_header", 0, "the journal does not start with a header line");
  if (!checkers.header.Check(first)) throw new JournalLineError("invalid_line", 0, describeErrors("header", first));
  const body: BodyLine[] = [];
  for (let i = 1; i < lines.length; i++) {
    const line = lines[i];
    const t = lineType(line, i);
    if (!BODY_TYPES.includes(t)) throw new JournalLineError("invalid_line", i, `a ${t} line after the first line`);
    if (!checkBody(line)) throw new JournalLineError("invalid_line", i, describeErrors(t, line));
    body.push(line);
  }
  return { header: first, body, count: lines.length };
}

const bodyChecker = Compile(BodyLine);
const checkBody = (line: unknown): line is BodyLine => bodyChecker.Check(line);
