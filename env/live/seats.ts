/**
 * A live table's seats: who holds each (the SHA-256 of its token), whether the holder is present
 * (a live channel, HTTP polling, or the grace period after a disconnect), left or resigned, and
 * the status every frame shows for it (docs/live.md, "Seats: leaving, grace, takeover, resigning").
 */
import { createHash, randomBytes, timingSafeEqual } from "node:crypto";
import { InvariantError, type Seat } from "../../engine/core/index.ts";
import type { Clock } from "../../agents/clock.ts";
import type { SeatLine } from "./journal-lines.ts";
import type { SeatInfo } from "./protocol.ts";
import { resignedError, seatKindOf, TableError, type ResolvedDeadlines, type SeatKindName } from "./table-common.ts";

export const sha256 = (text: string) => createHash("sha256").update(text).digest("hex");
export const newToken = () => randomBytes(24).toString("base64url");

export interface SeatState {
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
  /** A join, leave, return or resign of this seat is being journaled: a join waits for it to finish. */
  pending: number;
  /** The holder's leave being journaled (a leave sent again meanwhile waits for it instead of writing another). */
  leaving: Promise<void> | null;
  /** An open seat nobody held when the entry window closed: the agents filled it for the game. */
  filled: boolean;
  /** How many times a person joined the seat (each join is a new holder). */
  joins: number;
}

/** What a table's facilitator lets a person join (FacilitatorPreset.joinable). */
export interface JoinRules {
  /** A person's seat: an open seat nobody holds, or a seat its holder left. */
  readonly personSeats: boolean;
  /** An agent's seat (created with an agent spec), or an open seat the agents filled when the entry window closed. */
  readonly agentSeats: boolean;
}

/** Without a facilitator's rules: open seats and left seats only. */
export const DEFAULT_JOIN_RULES: JoinRules = { personSeats: true, agentSeats: false };

export class Seats {
  readonly list: SeatState[];

  /** `onChange` runs when a grace period ends (the seat's status changes with no other event). */
  constructor(
    specs: readonly string[],
    private readonly clock: Clock,
    private readonly deadlines: ResolvedDeadlines,
    createdAt: number,
    private readonly onChange: () => void,
  ) {
    this.list = specs.map((spec, index) => {
      const k = seatKindOf(spec);
      return {
        index,
        kind: k.kind,
        agentSpec: k.agent,
        tokenHash: null,
        sockets: 0,
        presentUntil: createdAt + deadlines.graceMs,
        polling: false,
        left: false,
        resigned: false,
        cancelPresence: null,
        pending: 0,
        leaving: null,
        filled: false,
        joins: 0,
      };
    });
  }

  get count(): number {
    return this.list.length;
  }

  has(seat: number): boolean {
    return seat >= 0 && seat < this.list.length;
  }

  get(seat: number): SeatState | undefined {
    return this.list[seat];
  }

  /** The seat's state, or `unknown_seat`. */
  require(table: string, seat: number): SeatState {
    const s = this.list[seat];
    if (!s) throw new TableError(404, "unknown_seat", `table ${table} has no seat ${seat}`);
    return s;
  }

  statusOf(s: SeatState): SeatInfo["status"] {
    if (s.kind === "agent" || s.tokenHash === null) return "bot";
    if (s.resigned) return "resigned";
    if (s.sockets > 0) return "connected";
    if (s.left) return "bot";
    if (this.clock.now() < s.presentUntil) return s.polling ? "connected" : "away";
    return "bot";
  }

  /** Every seat as frames and summaries show it; `joinRules` null: nobody may join (the game is over). */
  info(joinRules: JoinRules | null): SeatInfo[] {
    return this.list.map((s) => {
      const status = this.statusOf(s);
      return {
        seat: s.index,
        kind: s.kind,
        agent: s.kind === "human" ? (status === "bot" || status === "resigned" ? this.deadlines.takeover : null) : s.agentSpec,
        status,
        held: s.tokenHash !== null,
        joinable: joinRules !== null && this.refusal(s, joinRules) === null,
        joins: s.joins,
        takeoverAt: status === "away" ? s.presentUntil : null,
      };
    });
  }

  /** Whether `token` is the secret of `seat` (constant-time on the hashes). */
  authorize(seat: number, token: string | undefined): boolean {
    const s = this.list[seat];
    if (!s || s.tokenHash === null || typeof token !== "string" || token.length === 0) return false;
    const a = Buffer.from(sha256(token), "hex");
    const b = Buffer.from(s.tokenHash, "hex");
    return a.length === b.length && timingSafeEqual(a, b);
  }

  isResigned(seat: number): boolean {
    return this.list[seat]?.resigned === true;
  }

  /** A new table: one token per human seat; returns the tokens (shown once) and their hashes (journaled). */
  issueTokens(): { tokens: Record<string, string>; hashes: Record<string, string> } {
    const tokens: Record<string, string> = {};
    const hashes: Record<string, string> = {};
    for (const s of this.list) {
      if (s.kind !== "human") continue;
      const token = newToken();
      tokens[String(s.index)] = token;
      s.tokenHash = sha256(token);
      hashes[String(s.index)] = s.tokenHash;
    }
    return { tokens, hashes };
  }

  /** A recovered table: the tokens of its header, then the seats joined, left, returned to and resigned since, in order. */
  restore(j: { tokens: Readonly<Record<string, string>>; seatLines: readonly SeatLine[] }): void {
    for (const s of this.list) s.tokenHash = j.tokens[String(s.index)] ?? null;
    for (const line of j.seatLines) {
      const s = this.list[line.seat];
      if (!s) continue;
      if (line.t === "join") this.markJoined(s, line.tokenHash);
      else if (line.t === "leave") this.markLeft(s.index);
      else if (line.t === "return") this.markReturned(s);
      else s.resigned = true;
    }
  }

  /**
   * The seat, when a person may join it now under `rules`; else why not: `seat_taken` (a person
   * holds it, or is joining it), `not_joinable` (this table's mode keeps such seats, or it was
   * resigned), `window_closed` (the agents filled it when the entry window closed).
   */
  joinable(table: string, seat: number, rules: JoinRules): SeatState {
    const s = this.require(table, seat);
    const refused = this.refusal(s, rules);
    if (refused) throw refused;
    return s;
  }

  /** The seat, when its holder may take it again under a new token now: not while a seat change is being written. */
  rekeyable(table: string, seat: number): SeatState {
    const s = this.require(table, seat);
    if (s.pending > 0) throw new TableError(409, "seat_taken", `seat ${s.index}: somebody is joining or leaving it right now`);
    if (s.resigned) throw resignedError(s.index);
    return s;
  }

  /** Why a person may not join `s` now under `rules` (see joinable), or null when they may. */
  /** The state of `seat`; the table's own calls name only its seats, so any other is a bug. */
  private at(seat: Seat): SeatState {
    const s = this.list[seat];
    if (s === undefined) throw new InvariantError(`table: no seat ${seat}`);
    return s;
  }

  private refusal(s: SeatState, rules: JoinRules): TableError | null {
    const no = (code: string, why: string) => new TableError(409, code, `seat ${s.index}: ${why}`);
    if (s.pending > 0) return no("seat_taken", "somebody is joining or leaving it right now");
    if (s.resigned) return no("not_joinable", "its holder resigned; the takeover agent plays it to the end");
    if (s.kind === "agent") {
      return rules.agentSeats ? null : no("not_joinable", "an agent plays it and this table's mode does not let a person take an agent's seat");
    }
    if (s.tokenHash !== null) {
      if (!s.left || s.sockets > 0) return no("seat_taken", "a person holds it");
      return rules.personSeats ? null : no("not_joinable", "this table's mode does not let a person take a seat another left");
    }
    if (s.filled && !rules.agentSeats) return no("window_closed", "the entry window closed before anybody took it; the agents play it for this game");
    return rules.personSeats ? null : no("not_joinable", "this table's mode does not let a person take an open seat");
  }

  /** The open seats nobody holds (the entry window waits for people to take them). */
  emptyOpenSeats(): SeatState[] {
    return this.list.filter((s) => s.kind === "open" && s.tokenHash === null && s.pending === 0);
  }

  /** Refuses a resignation of a seat resigned already or held by nobody. */
  checkResignable(s: SeatState): void {
    if (s.resigned) throw resignedError(s.index);
    if (s.kind === "agent" || s.tokenHash === null) throw new TableError(409, "not_held", `nobody holds seat ${s.index}; only a person's seat can resign`);
  }

  /** Counts as present for `ms` from now; the status is pushed again when that ends. */
  presence(s: SeatState, ms: number): void {
    s.presentUntil = this.clock.now() + ms;
    s.cancelPresence?.();
    s.cancelPresence = this.clock.setTimer(ms, () => {
      s.cancelPresence = null;
      this.onChange();
    });
  }

  /** Every held seat gets the grace period from now (a new or recovered table). */
  startPresenceTimers(): void {
    for (const s of this.list) {
      if (s.kind !== "agent" && s.tokenHash !== null) this.presence(s, this.deadlines.graceMs);
    }
  }

  /** A channel of the seat opened (a holder who left is back once their return is journaled: Table.comeBack). */
  connect(seat: Seat): void {
    const s = this.at(seat);
    s.sockets++;
  }

  /** A channel of the seat closed: the grace period starts when it was the last one. */
  disconnect(seat: Seat): void {
    const s = this.at(seat);
    s.sockets = Math.max(0, s.sockets - 1);
    if (s.sockets === 0) {
      s.polling = false;
      this.presence(s, this.deadlines.graceMs);
    }
  }

  /** An HTTP request by the holder: present (polling) for the grace period; true when the status changed. */
  touch(seat: Seat): boolean {
    const s = this.at(seat);
    const before = this.statusOf(s);
    if (s.sockets === 0) {
      s.polling = true;
      this.presence(s, this.deadlines.graceMs);
    }
    return this.statusOf(s) !== before;
  }

  /** The holder gave the seat up for now. */
  markLeft(seat: Seat): void {
    const s = this.at(seat);
    s.left = true;
    s.presentUntil = 0;
  }

  /** Whether the holder of `seat` left it and is not already coming back (nor anybody joining it). */
  mayReturn(seat: Seat): boolean {
    const s = this.list[seat];
    return s !== undefined && s.left && !s.resigned && s.tokenHash !== null && s.pending === 0;
  }

  /** The holder who left is back with their token: the seat is theirs again. */
  markReturned(s: SeatState): void {
    s.left = false;
  }

  /** A person took the seat with a new token (any earlier holder's token stops working). */
  markJoined(s: SeatState, tokenHash: string): void {
    s.tokenHash = tokenHash;
    s.kind = "human";
    s.left = false;
    s.filled = false;
    s.joins++;
  }

  markResigned(s: SeatState): void {
    s.resigned = true;
    s.cancelPresence?.();
    s.cancelPresence = null;
  }

  cancelTimers(): void {
    for (const s of this.list) s.cancelPresence?.();
  }
}
