/**
 * A live table's seats: who holds each (the SHA-256 of its token), whether the holder is present
 * (a live channel, HTTP polling, or the grace period after a disconnect), left or resigned, and
 * the status every frame shows for it (docs/live.md, "Seats: leaving, grace, takeover, resigning").
 */
import { createHash, randomBytes, timingSafeEqual } from "node:crypto";
import type { Seat } from "../../engine/core/index.ts";
import type { LiveClock } from "./clock.ts";
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
}

export class Seats {
  readonly list: SeatState[];

  /** `onChange` runs when a grace period ends (the seat's status changes with no other event). */
  constructor(
    specs: readonly string[],
    private readonly clock: LiveClock,
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

  info(): SeatInfo[] {
    return this.list.map((s) => {
      const status = this.statusOf(s);
      return {
        seat: s.index,
        kind: s.kind,
        agent: s.kind === "human" ? (status === "bot" || status === "resigned" ? this.deadlines.takeover : null) : s.agentSpec,
        status,
        held: s.tokenHash !== null,
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

  /** A recovered table: the tokens of its header, then the seats joined and resigned since. */
  restore(j: { tokens: Record<string, string>; joins: readonly { seat: number; tokenHash: string }[]; resigned: readonly number[] }): void {
    for (const s of this.list) s.tokenHash = j.tokens[String(s.index)] ?? null;
    for (const { seat, tokenHash } of j.joins) {
      const s = this.list[seat];
      if (s) this.markJoined(s, tokenHash);
    }
    for (const seat of j.resigned) {
      const s = this.list[seat];
      if (s) s.resigned = true;
    }
  }

  /** The seat, when a person may join it now; else the reason why not. */
  joinable(table: string, seat: number): SeatState {
    const s = this.require(table, seat);
    if (s.kind === "agent") throw new TableError(409, "not_open", `seat ${seat} is an agent seat; only open seats can be joined`);
    if (s.tokenHash !== null) throw new TableError(409, "seat_taken", `seat ${seat} is already held`);
    return s;
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

  /** A channel of the seat opened. */
  connect(seat: Seat): void {
    const s = this.list[seat]!;
    s.sockets++;
    s.left = false;
  }

  /** A channel of the seat closed: the grace period starts when it was the last one. */
  disconnect(seat: Seat): void {
    const s = this.list[seat]!;
    s.sockets = Math.max(0, s.sockets - 1);
    if (s.sockets === 0) {
      s.polling = false;
      this.presence(s, this.deadlines.graceMs);
    }
  }

  /** An HTTP request by the holder: present (polling) for the grace period; true when the status changed. */
  touch(seat: Seat): boolean {
    const s = this.list[seat]!;
    const before = this.statusOf(s);
    s.left = false;
    if (s.sockets === 0) {
      s.polling = true;
      this.presence(s, this.deadlines.graceMs);
    }
    return this.statusOf(s) !== before;
  }

  /** The holder gave the seat up for now. */
  markLeft(seat: Seat): void {
    const s = this.list[seat]!;
    s.left = true;
    s.presentUntil = 0;
  }

  /** A person took the seat with a new token. */
  markJoined(s: SeatState, tokenHash: string): void {
    s.tokenHash = tokenHash;
    s.kind = "human";
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
