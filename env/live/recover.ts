/**
 * Reading a table back from its journal (docs/live.md, "Durability"): the checked lines
 * (journal-lines.ts) give the header, the signed entries (their chain and signatures verified),
 * the seats joined and resigned, the end marker and what earlier restarts found wrong.
 */
import { stateHash, type AnyGame } from "../../engine/core/index.ts";
import type { GameAdapter } from "../codec.ts";
import type { EndLine, HeaderLine, JournalLines, SeatLine } from "./journal-lines.ts";
import { SIGNED_SEATS_FORMAT, type JournalIntegrity, type LogHeader, type SignedEntry, type SignedRecovery, type SignedSeatChange } from "./protocol.ts";
import { joinTokenHash, macMatches, optionsHash, walkChain } from "./signing.ts";
import type { LogItem, TableSetup } from "./table-common.ts";

/** A journal read and its chain verified: everything a table is rebuilt from. */
export interface JournalContent {
  readonly setup: TableSetup;
  readonly createdAt: number;
  readonly tokens: Readonly<Record<string, string>>;
  /** Seats joined, left and resigned, in order. */
  readonly seatLines: readonly SeatLine[];
  readonly entries: readonly { entry: SignedEntry; decision: unknown }[];
  readonly endLine: EndLine | null;
  readonly integrity: readonly JournalIntegrity[];
  /** The signed recovery links (restarts that found acknowledged decisions may be gone), in order. */
  readonly recoveries: readonly SignedRecovery[];
  /** The seat changes signed into the chain (every one in a journal of format 2; none before), in order. */
  readonly seatChanges: readonly SignedSeatChange[];
  /** The hash the signed chain ends with (its last link; the end marker is checked apart). */
  readonly chainTip: string;
}

/**
 * Sorts a checked journal's lines by kind; throws a message when its chain is not this server's.
 * In a journal of format 2 (header.format) the header line's options (the seats' token hashes
 * among them) are signed and every seat line is a link of the chain, standing where it was
 * signed: an edited, dropped, added, moved or duplicated seat line stops the table from loading.
 * An older journal's seat lines are not signed; they are read as before.
 */
export function readJournalContent(
  journal: JournalLines,
  resolve: (header: LogHeader) => { game: AnyGame; adapter: GameAdapter },
  key: Buffer,
): JournalContent {
  const first = journal.header;
  const { game, adapter } = resolve(first.header);
  const entries: { entry: SignedEntry; decision: unknown }[] = [];
  const seatLines: SeatLine[] = [];
  let endLine: EndLine | null = null;
  const integrity: JournalIntegrity[] = [];
  const recoveries: SignedRecovery[] = [];
  const seatChanges: SignedSeatChange[] = [];
  const signsSeats = first.header.format === SIGNED_SEATS_FORMAT;
  if (signsSeats) checkOptions(first, key);
  for (const [i, l] of journal.body.entries()) {
    // Line numbers as checkJournalLines counts them: the header is line 1.
    if (l.t === "end") {
      if (endLine !== null) throw new Error(`journal line ${i + 2}: a second end marker (the journal was edited)`);
      endLine = l;
    } else if (l.t === "integrity") integrity.push(l.found);
    else if (l.t === "recovered") {
      if (endLine !== null) throw new Error(`journal line ${i + 2}: a recovery after the end marker (the journal was edited)`);
      recoveries.push(l.recovered);
    } else if (l.t === "entry") {
      if (endLine !== null) throw new Error(`journal line ${i + 2}: a decision after the end marker (the journal was edited)`);
      entries.push({ entry: signedEntryOf(l.entry), decision: l.decision });
    } else {
      const where = `journal line ${i + 2}`;
      if (endLine !== null) throw new Error(`${where}: a seat's ${l.t} after the end marker (the journal was edited)`);
      const change = seatChangeOf(l, where, key);
      if (change === null && signsSeats)
        throw new Error(`${where}: an unsigned ${l.t} line in a journal whose seat changes are signed (the journal was edited)`);
      if (change !== null) {
        if (change.seq !== entries.length)
          throw new Error(`${where}: a seat's ${l.t} signed after ${change.seq} decisions stands after ${entries.length} (the journal was edited)`);
        seatChanges.push(change);
      }
      seatLines.push(l);
    }
  }
  const chain = walkChain(key, first.header, first.headerHash, first.headerMac, entries, recoveries, seatChanges);
  if (chain.bad !== null) throw new Error(chain.bad);
  const setup: TableSetup = {
    id: first.header.table,
    game,
    adapter,
    config: configOf(first.header.config),
    seed: first.header.seed,
    seats: first.header.seats,
    facilitator: first.facilitator,
    deadlines: { ...first.deadlines, entryMs: first.deadlines.entryMs ?? null },
    spectators: first.spectators,
    ...(first.header.format !== undefined ? { format: first.header.format } : {}),
  };
  return {
    setup,
    createdAt: first.header.createdAt,
    tokens: first.tokens,
    seatLines,
    entries,
    endLine,
    integrity,
    recoveries,
    seatChanges,
    chainTip: chain.tip,
  };
}

/** A format-2 header line's options must carry this server's signature (the tokens' hashes decide who holds a seat). */
function checkOptions(first: HeaderLine, key: Buffer): void {
  const mac = first.optionsMac;
  if (mac === undefined) throw new Error("journal line 1: the table's options are not signed (the journal was edited)");
  if (!macMatches(key, optionsHash(first.headerHash, first), mac))
    throw new Error("journal line 1: the table's options (seat tokens, deadlines) do not match their signature (the journal was edited)");
}

/**
 * A seat line's link of the chain, or null for an unsigned line (a journal before format 2). A
 * join with a tokenMac has its token hash signed apart (checked here) and its link signs none, so
 * the link (what records carry) leaves it out; an older signed join's link signs its token hash.
 */
function seatChangeOf(l: SeatLine, where: string, key: Buffer): SignedSeatChange | null {
  const tokenMac = l.t === "join" ? l.tokenMac : undefined;
  if (l.seq === undefined || l.hash === undefined || l.mac === undefined) {
    if (l.seq !== undefined || l.hash !== undefined || l.mac !== undefined || tokenMac !== undefined)
      throw new Error(`${where}: a seat's ${l.t} line with part of a signature (the journal was edited)`);
    return null;
  }
  const link = { change: l.t, seq: l.seq, seat: l.seat, at: l.at, hash: l.hash, mac: l.mac };
  if (l.t !== "join") return link;
  if (tokenMac === undefined) return { ...link, tokenHash: l.tokenHash };
  if (!macMatches(key, joinTokenHash(l.hash, l.tokenHash), tokenMac))
    throw new Error(`${where}: the join's token hash does not match its signature (the journal was edited)`);
  return link;
}

/** The entry's signed fields only (journals written before events were recomputed also carry a label). */
function signedEntryOf(e: SignedEntry): SignedEntry {
  return { seq: e.seq, seat: e.seat, cause: e.cause, at: e.at, stateHash: e.stateHash, hash: e.hash, mac: e.mac };
}

const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === "object" && v !== null && !Array.isArray(v);

/** The header's parsed config, as written (its signature covers it): an object with its seat count. */
function configOf(config: unknown): TableSetup["config"] {
  if (!isRecord(config)) throw new Error("the journal header's config is not an object");
  const seats = config.seats;
  if (typeof seats !== "number") throw new Error("the journal header's config has no seat count");
  return { ...config, seats };
}

/** Replays the journaled decisions from `state`, checking each state hash; returns the items and the final state. */
export function replayEntries(game: AnyGame, state: unknown, entries: JournalContent["entries"]): { items: LogItem[]; state: unknown } {
  const items: LogItem[] = [];
  for (const { entry, decision } of entries) {
    const out = game.apply(state, decision);
    if (!out.ok) throw new Error(`entry ${entry.seq} does not apply: ${out.error.message}`);
    if (stateHash(out.state) !== entry.stateHash) throw new Error(`entry ${entry.seq}: state hash differs from the journal's`);
    items.push({ entry, decision, events: game.events(state, decision, out.state) });
    state = out.state;
  }
  return { items, state };
}
