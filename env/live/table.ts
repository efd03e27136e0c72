import { decisionKey, type AnyGame, type Seat } from "../../engine/core/index.ts";
import type { GameAdapter } from "../codec.ts";
import type { JournalLines, SeatLine } from "./journal-lines.ts";
import type { LiveEvent, LogHeader } from "./protocol.ts";
import { readJournalContent, replayEntries, type JournalContent } from "./recover.ts";
import { DEFAULT_JOIN_RULES, newToken, sha256, type SeatState } from "./seats.ts";
import { RESIGNED_CLOSE, resignedError, TableError, type Channel, type TableDeps, type TableSetup } from "./table-common.ts";
import { TableView } from "./table-view.ts";

export * from "./table-common.ts";

/**
 * One live game (docs/live.md). Every change goes through applyAt, which checks the sequence
 * number, journals the signed entry (fsync) and only then updates the state and pushes frames: a
 * decision is applied once, and nothing is shown or acknowledged before it is on disk.
 *
 * Its parts: the seats (seats.ts: tokens, presence, status), the turns (turns.ts: deadlines and
 * agents), the signed log and its journal (signed-log.ts), the channels and frames (frames.ts) and
 * the reading of a journal on recovery (recover.ts).
 */
export class Table extends TableView {
  private constructor(setup: TableSetup, deps: TableDeps, createdAt: number) {
    super(setup, deps, createdAt);
  }

  /** A new table: journals its header (with the hashes of the human seats' tokens) and returns the tokens. */
  static create(setup: TableSetup, deps: TableDeps): { table: Table; tokens: Record<string, string> } {
    const table = new Table(setup, deps, deps.clock.now());
    const { tokens, hashes } = table.seats.issueTokens();
    table.log.open(setup, hashes);
    table.openEntryWindow();
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
  static recover(lines: JournalLines, resolve: (header: LogHeader) => { game: AnyGame; adapter: GameAdapter }, deps: TableDeps, starting = true): Table {
    const content = readJournalContent(lines, resolve, deps.key);
    const table = new Table(content.setup, deps, content.createdAt);
    table.restore(content, lines, starting);
    return table;
  }

  private restore(content: JournalContent, lines: JournalLines, starting: boolean): void {
    this.log.integrity.push(...content.integrity);
    this.seats.restore(content);
    const replayed = replayEntries(this.game, this.state, content.entries);
    this.log.items.push(...replayed.items);
    this.state = replayed.state;
    const now = this.deps.clock.now();
    this.turns.pendingSince = now;
    for (const s of this.seats.list) s.presentUntil = now + this.deadlines.graceMs;
    const over = this.game.actor(this.state) === "terminal";
    if (!over && content.endLine) throw new Error("the journal has an end marker but its game is not over");
    if (over) {
      this.finished = true;
      this.log.checkEnd(content.endLine, this.game, this.state);
    }
    this.log.resume(lines, { over, hasEnd: content.endLine !== null, starting, game: this.game, state: this.state });
    if (over) return;
    this.openEntryWindow();
    this.startPresenceTimers();
  }

  /**
   * A table with an entry window waits for people until `createdAt + entryMs` while no decision
   * was applied and an open seat is empty (after a restart too: the window keeps its end); once
   * that is past, the open seats nobody took are the agents'.
   */
  private openEntryWindow(): void {
    const ms = this.deadlines.entryMs;
    if (ms === null) return;
    if (this.seq === 0 && this.seats.emptyOpenSeats().length > 0) this.entry.open(this.createdAt + ms);
    if (!this.entry.isOpen) for (const s of this.seats.emptyOpenSeats()) s.filled = true;
  }

  private startPresenceTimers(): void {
    this.seats.startPresenceTimers();
    this.drive();
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
      this.seats.connect(c.seat);
      this.changed();
      const seat = c.seat;
      this.comeBack(seat).catch((e: unknown) => this.deps.log(`table ${this.id}: seat ${seat}'s return not journaled: ${String(e)}`));
    } else {
      c.send(this.frameFor(c, null));
    }
  }

  detach(c: Channel): void {
    if (!this.channels.delete(c)) return;
    if (c.seat !== null) {
      this.seats.disconnect(c.seat);
      this.changed();
    }
  }

  /**
   * An HTTP request by a seat's holder: it counts as present (polling) for the grace period.
   * Resolves once a return to a seat they left is journaled.
   */
  async touch(seat: Seat): Promise<void> {
    if (this.seats.touch(seat)) this.changed();
    await this.comeBack(seat);
  }

  /**
   * The holder of a seat they left is back (a channel or a request with their token): the return
   * is journaled like a leave before the seat is theirs again, so a restart does not give it to
   * somebody else. A holder who did not leave, or a return already being written, needs nothing.
   */
  private async comeBack(seat: Seat): Promise<void> {
    if (this.finished || !this.seats.mayReturn(seat)) return;
    const s = this.seats.require(this.id, seat);
    await this.writeSeatLine(s, { t: "return", seat, at: this.deps.clock.now() });
    this.seats.markReturned(s);
    this.changed();
  }

  /**
   * A person takes a seat (docs/live.md, "Joining a seat"): an open seat nobody holds or a seat
   * its holder left, and an agent's seat where the facilitator allows it. The join is journaled
   * (after any write under way) before the seat changes hands; resolves with the new token.
   */
  async join(seat: number): Promise<string> {
    if (this.finished) throw new TableError(409, "game_over", "the game is over");
    const s = this.seats.joinable(this.id, seat, this.deps.joinRules?.(this.facilitator) ?? DEFAULT_JOIN_RULES);
    const token = newToken();
    const tokenHash = sha256(token);
    await this.writeSeatLine(s, { t: "join", seat, tokenHash, at: this.deps.clock.now() });
    this.seats.markJoined(s, tokenHash);
    // A channel the earlier holder opened while the join was being written speaks for them, not the newcomer.
    for (const c of this.channelsOf(seat)) c.close(4001, "another person took the seat");
    this.seats.presence(s, this.deadlines.graceMs);
    // Every open seat is held: the entry window has nothing left to wait for.
    if (this.entry.isOpen && this.seats.emptyOpenSeats().length === 0) this.entry.close();
    else this.changed();
    return token;
  }

  /**
   * The holder gives the seat up for good (docs/live.md, Resigning). Journaled first (a restart
   * keeps it), then: where the game has a conceding decision (dcg's forceFinish) it is applied
   * through applyAt with cause "resign", at once or at the seat's next decision; otherwise the
   * takeover agent plays the seat to the end. Either way the token is refused from now on and the
   * seat's channels are closed (code 4002) once they have the frame that shows it.
   */
  async resign(seat: number): Promise<{ outcome: "conceded" | "takeover" }> {
    const s = this.seats.require(this.id, seat);
    if (this.finished) throw new TableError(409, "game_over", "the game is over; there is nothing to resign");
    this.seats.checkResignable(s);
    await this.writeSeatLine(s, { t: "resign", seat, at: this.deps.clock.now() });
    this.seats.markResigned(s);
    this.changed();
    return { outcome: this.game.concede ? "conceded" : "takeover" };
  }

  /**
   * The holder gives the seat up for now: an agent plays it until they come back with the token,
   * or another person joins it. Journaled first, so a restart keeps it.
   */
  async leave(seat: number): Promise<void> {
    const s = this.seats.require(this.id, seat);
    if (!this.finished && !s.resigned && s.tokenHash !== null) await this.writeSeatLine(s, { t: "leave", seat, at: this.deps.clock.now() });
    this.seats.markLeft(seat);
    for (const c of this.channelsOf(seat)) c.close(1000, "left");
    this.changed();
  }

  /** Journals a seat's change after any write under way; the seat is `pending` (no join) meanwhile. */
  private writeSeatLine(s: SeatState, line: SeatLine): Promise<void> {
    s.pending++;
    return new Promise((resolve, reject) =>
      this.log.writeSeatLine(line, (err) => {
        s.pending--;
        if (err && this.finished) reject(new TableError(409, "game_over", `the game ended before the seat's ${line.t} was written; nothing changed`));
        else if (err) reject(new TableError(500, "journal_failed", `the seat's ${line.t} could not be written to disk; nothing changed`));
        else resolve();
      }),
    );
  }

  /** The entry window closed: the open seats nobody took are the agents' for this game, and the first turn starts now. */
  protected entryClosed(): void {
    for (const s of this.seats.emptyOpenSeats()) s.filled = true;
    this.turns.committed();
    this.changed();
  }

  // ------------------------------------------------------------ decisions

  /**
   * A person's answer: checked against the seq, the actor and the legal ids, then applied; resolves
   * once the decision is on disk (the ack may be sent then).
   */
  answer(seat: Seat, seq: number, decisionId: number): Promise<{ seq: number }> {
    if (this.finished) throw new TableError(409, "game_over", "the game is over; no decision can be applied");
    if (this.entry.isOpen) throw new TableError(409, "not_started", `the game starts when its entry window closes (at ${this.entry.closesAt} at the latest)`);
    if (this.seats.isResigned(seat)) throw resignedError(seat);
    if (seq !== this.seq || this.committing) {
      throw new TableError(
        409,
        "stale_answer",
        `this answers seq ${seq}, the table is at seq ${this.committing ? this.seq + 1 : this.seq}; answer the latest frame`,
      );
    }
    const actor = this.actorSeat();
    if (actor !== seat) throw new TableError(409, "not_your_turn", `seat ${actor === "terminal" ? "none" : actor} decides now, not seat ${seat}`);
    const found = this.options.of(this.state, this.seq, seat).options.find((o) => o.id === decisionId);
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
  protected applyAt(seq: number, seat: Seat, decision: unknown, cause: LiveEvent["cause"], done?: (err: Error | null) => void): boolean {
    if (this.closed || this.finished || this.committing || seq !== this.seq) return false;
    const before = this.state;
    const out = this.game.apply(before, decision);
    if (!out.ok) {
      this.deps.log(`table ${this.id}: seat ${seat} decision refused by the game: ${out.error.message}`);
      return false;
    }
    const events = this.game.events(before, decision, out.state);
    const signed = this.log.sign(this.game, seq, seat, decision, cause, this.deps.clock.now(), out.state);
    this.committing = true;
    this.log.write(signed, (err) => {
      this.committing = false;
      if (err) {
        this.deps.log(`table ${this.id}: journal write failed (${err.message}); the table stops`);
        done?.(err);
        this.close();
        return;
      }
      this.state = out.state;
      this.log.items.push({ entry: signed.entry, decision, events });
      this.turns.committed();
      if (signed.end) {
        this.finished = true;
        this.log.finish(signed.end);
        this.deps.onFinish?.(this);
      }
      this.deps.onApplied?.();
      done?.(null);
      this.changed();
    });
    return true;
  }

  /** Something changed (a decision, a seat's status): push frames, then see who must act. */
  protected changed(): void {
    if (this.closed) return;
    this.channels.broadcast(
      {
        seatFrame: (seat, since) => this.seatFrame(seat, since),
        spectatorFrame: (since) => this.spectatorFrame(since),
        seq: () => this.seq,
        closeAfterFrame: (seat) => this.seats.isResigned(seat) && !this.concessionPending(seat),
      },
      RESIGNED_CLOSE,
    );
    this.drive();
  }

  protected drive(): void {
    if (this.closed || this.finished || this.entry.isOpen) return;
    const actor = this.actorSeat();
    if (actor === "terminal") return;
    const s: SeatState = this.seats.get(actor)!;
    if (s.resigned) {
      // A resigned seat concedes where the game allows it (refused while another decision commits;
      // the commit drives again); otherwise the takeover agent plays it, below.
      const c = this.concession(actor);
      if (c !== null) {
        this.applyAt(this.seq, actor, c, "resign");
        return;
      }
    }
    const status = this.seats.statusOf(s);
    this.turns.schedule(actor, s, status === "bot" || status === "resigned");
  }

  /**
   * Stops timers and closes channels (server shutdown, or a finished table leaving memory); the
   * journal keeps everything acknowledged.
   */
  close(reason = "server shutting down"): void {
    this.closed = true;
    this.turns.cancel();
    this.entry.stop();
    this.seats.cancelTimers();
    this.channels.closeAll(reason);
    this.log.close();
  }

  /** Key of a decision (tests compare decisions by it). */
  static key(d: unknown): string {
    return decisionKey(d);
  }
}
