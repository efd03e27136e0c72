import { decisionKey, type AnyGame, type Seat } from "../../engine/core/index.ts";
import { DecisionLoop, type AppliedDecision, type SeatDriver } from "../../agents/decision-loop.ts";
import type { GameAdapter } from "../codec.ts";
import type { JournalLines, SeatLine } from "./journal-lines.ts";
import type { LogHeader } from "./protocol.ts";
import { readJournalContent, replayEntries, type JournalContent } from "./recover.ts";
import { newToken, sha256, type SeatState } from "./seats.ts";
import { RESIGNED_CLOSE, resignedError, TableError, type Channel, type TableDeps, type TableSetup } from "./table-common.ts";
import { TableView } from "./table-view.ts";
import { isAgentBusy } from "./table-agents.ts";

export * from "./table-common.ts";

/** A person decides at the seat: the loop waits for their answer. */
const REMOTE: SeatDriver = { kind: "remote" };
/** How long an agent waits to be asked again when the agent runner is full (ms). */
const AGENT_BUSY_RETRY_MS = 100;

/**
 * One live game (docs/live.md): a configuration of the decision loop (agents/decision-loop.ts).
 * People's seats are its remote seats (their answers come from sockets and HTTP, checked against
 * the seq), agent seats and seats nobody is present at are its agent seats, a resigned seat
 * concedes through it, and its commit hook journals the signed entry (fsync) before a decision
 * counts: a decision is applied once, its deadline and default are the loop's, and nothing is
 * shown or acknowledged before it is on disk.
 *
 * Its other parts: the seats (seats.ts: tokens, presence, status), the agents (table-agents.ts),
 * the signed log and its journal (signed-log.ts), the channels and frames (frames.ts) and the
 * reading of a journal on recovery (recover.ts).
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
    this.log.restoreChain(content);
    this.seats.restore(content);
    const replayed = replayEntries(this.game, this.state, content.entries);
    this.log.items.push(...replayed.items);
    this.state = replayed.state;
    const now = this.deps.clock.now();
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
    if (ms !== null && this.seq === 0 && this.seats.emptyOpenSeats().length > 0) this.entry.open(this.createdAt + ms);
    if (this.entry.isOpen) return;
    if (ms !== null) for (const s of this.seats.emptyOpenSeats()) s.filled = true;
    this.startLoop();
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
   * A person takes a seat (docs/live.md, "Joining a seat"): an open or left seat, an agent's where
   * the facilitator allows it, or (`holder`, token checked) its holder's own under a new token.
   * Journaled (after any write under way) before the seat changes hands; resolves with the token.
   */
  async join(seat: number, holder = false): Promise<string> {
    if (this.finished) throw new TableError(409, "game_over", "the game is over");
    const s = holder ? this.seats.rekeyable(this.id, seat) : this.seats.joinable(this.id, seat, this.joinRules);
    const token = newToken();
    const tokenHash = sha256(token);
    await this.writeSeatLine(s, { t: "join", seat, tokenHash, at: this.deps.clock.now() });
    this.seats.markJoined(s, tokenHash);
    // A channel opened with the earlier token speaks for whoever held it, not the newcomer.
    for (const c of this.channelsOf(seat)) c.close(4001, holder ? "the seat's token was replaced" : "another person took the seat");
    this.seats.presence(s, this.deadlines.graceMs);
    // Every open seat is held: the entry window has nothing left to wait for.
    if (this.entry.isOpen && this.seats.emptyOpenSeats().length === 0) this.entry.close();
    else this.changed();
    return token;
  }

  /**
   * The holder gives the seat up for good (docs/live.md, Resigning). Journaled first (a restart
   * keeps it), then: where the game has a conceding decision (dcg's forceFinish) the decision loop
   * applies it with cause "resign", at once or at the seat's next decision; otherwise the takeover
   * agent plays the seat to the end. Either way the token is refused from now on and the
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
   * or another person joins it. Journaled first, so a restart keeps it. A leave of a seat already
   * left (and not returned to since), or sent again while the first is being written, journals
   * nothing: it resolves with the first (docs/live.md).
   */
  async leave(seat: number): Promise<void> {
    const s = this.seats.require(this.id, seat);
    if (s.leaving !== null) return s.leaving;
    // Left, and no return being written (that would make the seat the holder's again).
    const leftAlready = s.left && s.pending === 0;
    if (!this.finished && !s.resigned && s.tokenHash !== null && !leftAlready) {
      s.leaving = this.writeSeatLine(s, { t: "leave", seat, at: this.deps.clock.now() });
      try {
        await s.leaving;
      } finally {
        s.leaving = null;
      }
    }
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
        else if (err) {
          // A signed seat change is the chain's link once signed (the next decision chains to it):
          // a table that cannot write it stops, like one that cannot write a decision.
          if (this.log.signsSeats && !this.closed) {
            this.deps.log(`table ${this.id}: journal write failed (${err.message}); the table stops`);
            this.close();
          }
          reject(new TableError(500, "journal_failed", `the seat's ${line.t} could not be written to disk; nothing changed`));
        } else resolve();
      }),
    );
  }

  /** The entry window closed: the open seats nobody took are the agents' for this game, and the first turn starts now. */
  protected entryClosed(): void {
    for (const s of this.seats.emptyOpenSeats()) s.filled = true;
    this.startLoop();
    this.changed();
  }

  // ------------------------------------------------------------ decisions

  /**
   * The game starts: the decision loop plays it from the current state (a recovered table's
   * journaled decisions count as made), the pending decision's time counting from now.
   */
  private startLoop(): void {
    const log = this.deps.log;
    this.loop = new DecisionLoop({
      game: this.game,
      state: this.state,
      decisions: this.log.items.map((i) => i.decision),
      driver: (seat) => this.driverOf(seat),
      clock: this.deps.clock,
      turnMs: this.deadlines.turnMs,
      // An agent's seat has no deadline; a person's has one even while an agent stands in for them.
      timed: (seat) => this.seats.get(seat)?.kind !== "agent",
      agentDelayMs: this.deadlines.botDelayMs,
      retryAgent: (e) => (isAgentBusy(e) ? AGENT_BUSY_RETRY_MS : null),
      onAgentFault: (f) => log(`table ${this.id}: ${f.message}; default applied`),
      commit: (applied, done) => this.commit(applied, done),
      onDecision: () => this.changed(),
      onFault: (e) => {
        if (this.closed) return;
        log(`table ${this.id}: ${e instanceof Error ? e.message : String(e)}; the table stops`);
        this.close();
      },
    });
  }

  /**
   * Who decides at a seat now: a resigned seat concedes where the game allows it; an agent plays
   * an agent's seat, a seat nobody holds or is present at, and a resigned seat; else the person.
   */
  private driverOf(seat: Seat): SeatDriver {
    const s = this.seats.get(seat);
    if (s === undefined) return REMOTE;
    if (s.resigned) {
      const c = this.concession(seat);
      if (c !== null) return { kind: "concede", decision: c };
    }
    const status = this.seats.statusOf(s);
    return status === "bot" || status === "resigned" ? { kind: "agent", agent: this.agents.agentOf(s) } : REMOTE;
  }

  /**
   * A person's answer: checked against the seq, the actor and the legal ids, then given to the
   * decision loop; resolves once the decision is on disk (the ack may be sent then).
   */
  answer(seat: Seat, seq: number, decisionId: number): Promise<{ seq: number }> {
    if (this.finished) throw new TableError(409, "game_over", "the game is over; no decision can be applied");
    const loop = this.loop;
    if (this.entry.isOpen || loop === null)
      throw new TableError(409, "not_started", `the game starts when its entry window closes (at ${this.entry.closesAt} at the latest)`);
    if (this.seats.isResigned(seat)) throw resignedError(seat);
    if (seq !== this.seq || loop.committing) {
      throw new TableError(
        409,
        "stale_answer",
        `this answers seq ${seq}, the table is at seq ${loop.committing ? this.seq + 1 : this.seq}; answer the latest frame`,
      );
    }
    const actor = this.actorSeat();
    if (actor !== seat) throw new TableError(409, "not_your_turn", `seat ${actor === "terminal" ? "none" : actor} decides now, not seat ${seat}`);
    const found = this.options.of(this.state, this.seq, seat).options.find((o) => o.id === decisionId);
    if (!found) throw new TableError(400, "unknown_decision", `no legal decision has id ${decisionId} now`);
    return new Promise((resolve, reject) => {
      this.ack = (err) => {
        if (err) reject(new TableError(500, "journal_failed", "the decision could not be written to disk; it was not applied"));
        else resolve({ seq: seq + 1 });
      };
      let accepted = false;
      try {
        accepted = loop.answer(seq, seat, found.decision);
      } catch {
        // The loop stopped on a fault (onFault closed the table); the answer was not applied.
      }
      if (!accepted) {
        this.ack = null;
        reject(new TableError(409, "stale_answer", `the table moved past seq ${seq}`));
      }
    });
  }

  /** Told when the decision being committed is on disk (or not): the person's answer that made it waits for this. */
  private ack: ((err: Error | null) => void) | null = null;

  /**
   * The decision loop's commit hook: the signed entry is journaled (written and fsync'ed off the
   * event loop) and only then does the decision count: the state changes, the decision is shown
   * and acknowledged. A journal that cannot be written stops the table.
   */
  private commit(applied: AppliedDecision, done: (err: Error | null) => void): void {
    const { step, seat, decision, cause, after } = applied;
    const signed = this.log.sign(this.game, step, seat, decision, cause, this.deps.clock.now(), after);
    this.log.write(signed, (err) => {
      const ack = this.ack;
      this.ack = null;
      if (err) {
        this.deps.log(`table ${this.id}: journal write failed (${err.message}); the table stops`);
        ack?.(err);
        this.close();
        done(err);
        return;
      }
      this.state = after;
      this.log.items.push({ entry: signed.entry, decision, events: applied.events });
      if (signed.end) {
        this.finished = true;
        this.log.finish(signed.end);
        this.deps.onFinish?.(this);
      }
      this.deps.onApplied?.();
      ack?.(null);
      done(null);
    });
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

  /** The decision loop asks the seat that must act again (its driver may have changed); its faults go to onFault. */
  protected drive(): void {
    if (this.closed || this.loop === null) return;
    try {
      this.loop.drive()?.catch(() => undefined);
    } catch {
      // Told through onFault.
    }
  }

  /**
   * Stops timers and closes channels (server shutdown, or a finished table leaving memory); the
   * journal keeps everything acknowledged.
   */
  close(reason = "server shutting down"): void {
    this.closed = true;
    this.loop?.close();
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
