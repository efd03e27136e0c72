/**
 * A live table's signed log and its journal (docs/live.md, "The signed log" and "Durability"): the
 * header, one signed entry per applied decision, the end marker, what restarts found wrong and,
 * when that may have lost acknowledged decisions, a signed recovery link where play went on;
 * every line is journaled (written and fsync'ed, then the head) before the table acts on it.
 */
import { canonicalJson, stateHash, type AnyGame, type Seat, type Viewer } from "../../engine/core/index.ts";
import { SIGNED_SEATS_FORMAT } from "./protocol-records.ts";
import { checkHead, readHead, type ChainHead, type HeadRead } from "./head.ts";
import type { EndLine, HeaderLine, JournalLine, JournalLines, SeatLine } from "./journal-lines.ts";
import { Journal } from "./journal.ts";
import type { JournalIntegrity, LiveEvent, LogHeader, SignedEnd, SignedEntry, SignedRecord, SignedRecovery, SignedSeatChange } from "./protocol.ts";
import { endHash, headerHash, joinTokenHash, macOf, optionsHash, signEnd, signEntry, signRecovery, signSeatChange, verifyEnd } from "./signing.ts";
import { liveEvent, TableError, type LogItem, type TableDeps, type TableSetup } from "./table-common.ts";

/** What an end marker signs: how many decisions the game took, its returns and final state hash. */
export function endContent(game: AnyGame, state: unknown, decisions: number): { decisions: number; returns: readonly number[]; finalHash: string } {
  return { decisions, returns: game.returns(state), finalHash: stateHash(state) };
}

/** A decision signed and ready to journal: its entry, the end marker when it ends the game, and the lines. */
export interface SignedDecision {
  readonly entry: SignedEntry;
  readonly end: SignedEnd | null;
  readonly lines: readonly JournalLine[];
}

export class SignedLog {
  readonly header: LogHeader;
  readonly headerHash: string;
  readonly headerMac: string;
  readonly items: LogItem[] = [];
  /** The signed end marker, once the game is over (null on a journal written before end markers). */
  end: SignedEnd | null = null;
  /** What restarts found wrong with the journal (persisted in it as integrity lines). */
  readonly integrity: JournalIntegrity[] = [];
  /** Signed links where a restart found acknowledged decisions may be gone (mayHaveLost), in order. */
  readonly recoveries: SignedRecovery[] = [];
  /** The seats' changes signed into the chain and on disk, in order (none in a log before format 2). */
  readonly seatChanges: SignedSeatChange[] = [];
  /**
   * Where the signed chain ends, counting what is signed and queued but not yet on disk: the next
   * link chains to it (a seat change signed while a decision is being written follows that decision).
   */
  private tip: ChainHead;
  /** The end marker is signed (it may still be on its way to disk): nothing may follow it. */
  private ended = false;
  private journal: Journal | null = null;
  /** Writes waiting for the one under way (writeNext); `refused`: a line that may not be written, told in order. */
  private readonly queue: { lines: readonly JournalLine[]; chain: ChainHead | null; refused?: Error; done: (err: Error | null) => void }[] = [];
  private writing = false;
  private closed = false;

  constructor(
    setup: TableSetup,
    private readonly deps: TableDeps,
    createdAt: number,
  ) {
    this.header = {
      table: setup.id,
      game: setup.game.info.id,
      version: setup.game.info.version,
      config: setup.config,
      seed: setup.seed,
      seats: [...setup.seats],
      createdAt,
      ...(setup.format !== undefined ? { format: setup.format } : {}),
    };
    this.headerHash = headerHash(this.header);
    this.headerMac = macOf(deps.key, this.headerHash);
    this.tip = { seq: 0, hash: this.headerHash };
  }

  /** Whether seat changes are links of this log's chain (format 2; a table recovered from an older journal keeps its format). */
  get signsSeats(): boolean {
    return this.header.format === SIGNED_SEATS_FORMAT;
  }

  get seq(): number {
    return this.items.length;
  }

  /** The hash the next link of the signed log chains to: the last link's (entry, recovery or seat change), or the header's. */
  chainHash(): string {
    return this.tip.hash;
  }

  /** A recovered table: the links its journal holds besides the entries, and where its chain ends (recover.ts). */
  restoreChain(c: { recoveries: readonly SignedRecovery[]; seatChanges: readonly SignedSeatChange[]; chainTip: string; entries: readonly unknown[] }): void {
    this.recoveries.push(...c.recoveries);
    this.seatChanges.push(...c.seatChanges);
    this.tip = { seq: c.entries.length, hash: c.chainTip };
  }

  /** A new table's journal: its first line is the header with the hashes of the seats' tokens. */
  open(setup: TableSetup, tokenHashes: Record<string, string>): void {
    const journal = new Journal(this.deps.journalDir, setup.id, {
      key: this.deps.key,
      lines: 0,
      chain: { seq: 0, hash: this.headerHash },
      log: this.deps.log,
    });
    this.journal = journal;
    const line: HeaderLine = {
      t: "header",
      header: this.header,
      headerHash: this.headerHash,
      headerMac: this.headerMac,
      facilitator: setup.facilitator,
      deadlines: setup.deadlines,
      spectators: setup.spectators,
      tokens: tokenHashes,
    };
    // The tokens' hashes decide who holds a seat after a restart: signed, bound to the header.
    if (this.signsSeats) line.optionsMac = macOf(this.deps.key, optionsHash(this.headerHash, line));
    journal.append(line);
  }

  /** Signs the decision at `seq` (and the end marker when `after` is terminal); nothing is written yet. */
  sign(game: AnyGame, seq: number, seat: Seat, decision: unknown, cause: LiveEvent["cause"], at: number, after: unknown): SignedDecision {
    const hash = stateHash(after);
    const entry = signEntry(this.deps.key, this.chainHash(), { seq, seat, decision, cause, at, stateHash: hash });
    // No text is journaled: a decision's events are recomputed from it on recovery.
    const lines: JournalLine[] = [{ t: "entry", entry, decision }];
    // The signed end marker commits the log to its length and result; it also lets a restart skip
    // finished tables (they are loaded again on demand).
    const end = game.actor(after) === "terminal" ? signEnd(this.deps.key, entry.hash, endContent(game, after, seq + 1)) : null;
    if (end) lines.push({ t: "end", at, end });
    this.tip = { seq: seq + 1, hash: end?.hash ?? entry.hash };
    if (end) this.ended = true;
    return { entry, end, lines };
  }

  /** Journals a signed decision off the event loop; `done` runs once it is on disk (at once without a journal). */
  write(signed: SignedDecision, done: (err: Error | null) => void): void {
    this.enqueue(signed.lines, { seq: signed.entry.seq + 1, hash: signed.end?.hash ?? signed.entry.hash }, done);
  }

  /**
   * Journals a seat's change (join, leave, return, resign) the same way, after any write under way;
   * in a log of format 2 it is signed now, as the chain's next link (after any decision queued
   * before it). Once the end marker is signed it is refused (told after the writes before it).
   */
  writeSeatLine(line: SeatLine, done: (err: Error | null) => void): void {
    if (this.ended) {
      this.queue.push({ lines: [], chain: null, refused: new Error("the game is over: nothing follows the end marker"), done });
      if (!this.writing) this.writeNext();
      return;
    }
    if (!this.signsSeats) return this.enqueue([line], null, done);
    // The link signs no token hash (records carry the links); a join's is signed apart (tokenMac).
    const change = signSeatChange(this.deps.key, this.tip.hash, { change: line.t, seq: this.tip.seq, seat: line.seat, at: line.at });
    this.tip = { seq: change.seq, hash: change.hash };
    const link = { seq: change.seq, hash: change.hash, mac: change.mac };
    const signed: SeatLine =
      line.t === "join" ? { ...line, ...link, tokenMac: macOf(this.deps.key, joinTokenHash(change.hash, line.tokenHash)) } : { ...line, ...link };
    this.enqueue([signed], this.tip, (err) => {
      if (!err) this.seatChanges.push(change);
      done(err);
    });
  }

  /**
   * One write at a time, in order (the journal takes no append while another is under way):
   * each starts once the one before is on disk.
   */
  private enqueue(lines: readonly JournalLine[], chain: ChainHead | null, done: (err: Error | null) => void): void {
    this.queue.push({ lines, chain, done });
    if (!this.writing) this.writeNext();
  }

  private writeNext(): void {
    const next = this.queue.shift();
    if (!next) {
      this.writing = false;
      return;
    }
    this.writing = true;
    const after = (err: Error | null) => {
      next.done(err);
      this.writeNext();
    };
    if (next.refused) after(next.refused);
    else if (this.journal) this.journal.appendAsync(next.lines, next.chain, after);
    else after(this.closed ? new Error("journal is closed") : null);
  }

  /** The game is over: keeps the end marker and closes the journal (nothing follows the end line; a seat's line waiting is refused). */
  finish(end: SignedEnd): void {
    this.end = end;
    this.ended = true;
    this.close();
  }

  /**
   * A finished game's end marker from its journal: a signed one must chain to the last entry and
   * agree with the replayed game; an unsigned one (written before end markers) is kept as such; a
   * missing one (the crash cut the end line, or it was deleted) is signed at a server start
   * (reopen), as the game replays to its end.
   */
  checkEnd(line: EndLine | null, game: AnyGame, state: unknown): void {
    if (!line?.end) return;
    const want = endContent(game, state, this.items.length);
    const bad = verifyEnd(this.deps.key, this.chainHash(), line.end);
    if (bad) throw new Error(bad);
    if (line.end.decisions !== want.decisions || line.end.finalHash !== want.finalHash || canonicalJson(line.end.returns) !== canonicalJson(want.returns))
      throw new Error("the end marker disagrees with the replayed game");
    this.end = line.end;
    this.ended = true;
  }

  /**
   * After a recovery: checks the journal against its head (what it finds is logged and shown) and,
   * while the game goes on or at a server start that found something to write, reopens it.
   */
  resume(lines: JournalLines, o: { over: boolean; hasEnd: boolean; starting: boolean; game: AnyGame; state: unknown }): void {
    const id = this.header.table;
    const read = readHead(this.deps.journalDir, id, this.deps.key);
    const found = checkHead(read, lines, this.deps.clock.now());
    if (found) {
      this.integrity.push(found);
      this.deps.log(`live tables: table ${id}: journal ${found.problem}: ${found.message}`);
    }
    if (o.over && !(o.starting && (found || !o.hasEnd))) return;
    const signEndFor = o.starting && o.over && !o.hasEnd ? { game: o.game, state: o.state } : null;
    this.reopen(lines.count, read, o.starting ? found : null, o.over, signEndFor);
  }

  /**
   * At a server start: opens the journal where it ends, journals what the head check found,
   * signs a missing end marker (`signEndFor`: the finished game) and brings the head up to date;
   * a finished table's journal is closed again.
   */
  private reopen(lines: number, read: HeadRead, found: JournalIntegrity | null, finished: boolean, signEndFor: { game: AnyGame; state: unknown } | null): void {
    const id = this.header.table;
    const journal = new Journal(this.deps.journalDir, id, {
      key: this.deps.key,
      lines,
      chain: { seq: this.items.length, hash: this.end?.hash ?? this.chainHash() },
      log: this.deps.log,
      nextSlot: read.head ? read.nextSlot : 0,
    });
    if (found) journal.append({ t: "integrity", found });
    if (found && (mayHaveLost(found) || this.lostLinks(found, read, signEndFor))) {
      // Signed into the chain before any later decision: a record that drops it no longer verifies.
      const r = signRecovery(this.deps.key, this.chainHash(), {
        seq: this.items.length,
        problem: found.problem,
        ...(found.expectedSeq !== undefined ? { expectedSeq: found.expectedSeq } : {}),
        at: found.at,
      });
      this.recoveries.push(r);
      this.tip = { seq: this.items.length, hash: r.hash };
      journal.append({ t: "recovered", recovered: r }, { seq: this.items.length, hash: r.hash });
    }
    if (signEndFor) {
      this.end = signEnd(this.deps.key, this.chainHash(), endContent(signEndFor.game, signEndFor.state, this.items.length));
      this.tip = { seq: this.items.length, hash: this.end.hash };
      this.ended = true;
      journal.append({ t: "end", at: this.deps.clock.now(), end: this.end }, { seq: this.items.length, hash: this.end.hash });
      this.deps.log(`live tables: table ${id}: its journal ended without an end marker; one was signed and journaled`);
    } else if (!found && read.head?.lines !== lines) journal.writeHeadSync();
    if (finished) journal.close();
    else this.journal = journal;
  }

  /**
   * Whether a lost tail that took no decision took signed links (seat changes): the head signed a
   * chain end that is not where what survived ends. Not when only unchained lines went (an
   * integrity line), nor when only the end marker's line did (it is signed again, to the same hash).
   */
  private lostLinks(found: JournalIntegrity, read: HeadRead, signEndFor: { game: AnyGame; state: unknown } | null): boolean {
    const head = read.head;
    if (found.problem !== "lost_tail" || head === null) return false;
    if (head.hash === (this.end?.hash ?? this.chainHash())) return false;
    return !(signEndFor && endHash(this.chainHash(), endContent(signEndFor.game, signEndFor.state, this.items.length)) === head.hash);
  }

  /** The events after `since` (at most `limit`) as `viewer` may read them. */
  eventsFor(viewer: Viewer, since: number, limit = Infinity): LiveEvent[] {
    const from = Math.max(0, Math.min(since, this.items.length));
    return this.items.slice(from, Math.min(this.items.length, from + limit)).map((i) => liveEvent(i.entry, i.events, viewer));
  }

  /** The finished game's record with its signed log. */
  record(game: AnyGame, config: unknown, seed: number, state: unknown): SignedRecord {
    return {
      game: game.info.id,
      version: game.info.version,
      config,
      seed,
      decisions: this.items.map((i) => i.decision),
      finalHash: stateHash(state),
      signed: {
        header: this.header,
        headerHash: this.headerHash,
        headerMac: this.headerMac,
        entries: this.items.map((i) => i.entry),
        ...(this.recoveries.length > 0 ? { recoveries: [...this.recoveries] } : {}),
        ...(this.seatChanges.length > 0 ? { seats: [...this.seatChanges] } : {}),
        ...(this.end ? { end: this.end } : {}),
      },
    };
  }

  close(): void {
    this.closed = true;
    this.journal?.close();
    this.journal = null;
  }
}

/**
 * Whether a head check's finding means acknowledged decisions may be gone: a lost tail that took
 * decisions (not only an end line, which is signed again), a rewritten chain, or no valid head to
 * tell it.
 */
export function mayHaveLost(found: JournalIntegrity): boolean {
  return found.problem !== "lost_tail" || (found.expectedSeq ?? 0) > found.foundSeq;
}

export const notFinished = () => new TableError(409, "not_finished", "the game is not finished yet; its record holds hidden information until then");
