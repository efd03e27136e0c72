import { randomBytes } from "node:crypto";
import { ApiError } from "./api-error.ts";
import type { LoggedOp, SessionMeta } from "./host-protocol.ts";
import type { CreateBody } from "./schemas.ts";

export interface Quarantine {
  readonly code: string;
  readonly message: string;
}

/**
 * What the main thread keeps about a session: its facilitator lives on a worker (runtime.ts), so
 * the entry holds what routing, limits and a rebuild need.
 */
export interface SessionEntry {
  readonly id: string;
  /** The worker slot holding the session. */
  readonly slot: number;
  readonly meta: SessionMeta;
  /** The validated create body (card set inlined): with `log`, it rebuilds the session exactly. */
  readonly create: CreateBody;
  /** Resets and steps applied since creation, or since the last reset that re-seeded every env. */
  log: LoggedOp[];
  /** Actions held in `log` (bounded: see MAX_LOGGED_ACTIONS). */
  loggedActions: number;
  /** Digest of the last reset/step reply sent (null before the first reset). */
  digest: number | null;
  step: number;
  envSteps: number;
  isReset: boolean;
  lastUsed: number;
  /** Requests being computed for this session (a busy session is never expired, and refuses others with 409). */
  inFlight: number;
  quarantine: Quarantine | null;
  /** Set once a fast-path key was issued (the session is then stepped over the fast path only). */
  fast: FastBinding | null;
}

/** A session's fast-path key, its watchdog handle, and whether a connection holds it now. */
export interface FastBinding {
  readonly key: string;
  readonly handle: number;
  open: boolean;
}

export type NewSession = Pick<SessionEntry, "id" | "slot" | "meta" | "create">;

/** A new session's entry: nothing logged, not reset, not busy, not quarantined. */
export function freshEntry(s: NewSession, now: number): SessionEntry {
  return { ...s, log: [], loggedActions: 0, digest: null, step: 0, envSteps: 0, isReset: false, lastUsed: now, inFlight: 0, quarantine: null, fast: null };
}

/** How many deleted/expired ids are remembered, so late requests get 410 instead of 404. */
const REMEMBERED_GONE = 4096;

/** The live sessions, their limits, idle expiry and quarantine. */
export class SessionStore {
  private readonly sessions = new Map<string, SessionEntry>();
  private readonly gone = new Map<string, string>();
  private readonly reserved = new Map<string, number>();
  private envs = 0;

  constructor(
    private readonly limits: { maxSessions: number; maxTotalEnvs: number; idleTimeoutMs: number },
    private readonly now: () => number,
  ) {}

  get size(): number {
    return this.sessions.size;
  }

  get totalEnvs(): number {
    return this.envs;
  }

  get quarantined(): number {
    let n = 0;
    for (const s of this.sessions.values()) if (s.quarantine) n++;
    return n;
  }

  /** Refuses before any work is done when a new session of `numEnvs` would exceed a limit. */
  checkCapacity(numEnvs: number): void {
    if (this.sessions.size + this.reserved.size >= this.limits.maxSessions) {
      throw new ApiError(429, "too_many_sessions", `the server holds its maximum of ${this.limits.maxSessions} sessions; delete one first`);
    }
    if (this.envs + numEnvs > this.limits.maxTotalEnvs) {
      throw new ApiError(429, "too_many_envs", `${numEnvs} more envs would exceed the server's limit of ${this.limits.maxTotalEnvs} (in use: ${this.envs})`);
    }
  }

  /** A fresh session id, and `numEnvs` reserved against the limits until add() or release(). */
  reserve(numEnvs: number): string {
    this.checkCapacity(numEnvs);
    let id: string;
    do id = randomBytes(12).toString("base64url");
    while (this.sessions.has(id) || this.reserved.has(id));
    this.reserved.set(id, numEnvs);
    this.envs += numEnvs;
    return id;
  }

  release(id: string): void {
    const n = this.reserved.get(id);
    if (n === undefined) return;
    this.reserved.delete(id);
    this.envs -= n;
  }

  add(s: NewSession): SessionEntry {
    const n = this.reserved.get(s.id);
    if (n === undefined) throw new Error(`session ${s.id} was not reserved`);
    this.reserved.delete(s.id);
    this.envs += s.meta.numEnvs - n;
    const entry = freshEntry(s, this.now());
    this.sessions.set(s.id, entry);
    return entry;
  }

  /** Live sessions pinned to a worker slot. */
  onSlot(slot: number): SessionEntry[] {
    return [...this.sessions.values()].filter((e) => e.slot === slot && e.quarantine === null);
  }

  /** The session, or 404 unknown / 410 deleted or expired. Does not check quarantine. */
  get(id: string): SessionEntry {
    const entry = this.sessions.get(id);
    if (entry) {
      entry.lastUsed = this.now();
      return entry;
    }
    const why = this.gone.get(id);
    if (why) throw new ApiError(410, "session_gone", `session ${id} no longer exists: ${why}`);
    throw new ApiError(404, "unknown_session", `no session ${JSON.stringify(id)}`);
  }

  /** The live session with this id, or undefined (no side effects). */
  find(id: string): SessionEntry | undefined {
    return this.sessions.get(id);
  }

  /** The session, refusing a quarantined one with 409. */
  usable(id: string): SessionEntry {
    const entry = this.get(id);
    if (entry.quarantine) {
      throw new ApiError(
        409,
        "session_quarantined",
        `session ${id} is quarantined after ${entry.quarantine.code}: ${entry.quarantine.message}; delete it and create a new one`,
      );
    }
    return entry;
  }

  delete(id: string, why: string): SessionEntry | null {
    const entry = this.sessions.get(id);
    if (!entry) return null;
    this.sessions.delete(id);
    this.envs -= entry.meta.numEnvs;
    this.gone.set(id, why);
    const oldest = this.gone.keys().next();
    if (this.gone.size > REMEMBERED_GONE && !oldest.done) this.gone.delete(oldest.value);
    return entry;
  }

  /** Deletes sessions idle for longer than the timeout; returns how many. */
  sweep(onDelete: (entry: SessionEntry) => void = () => undefined): number {
    const cutoff = this.now() - this.limits.idleTimeoutMs;
    let n = 0;
    for (const entry of [...this.sessions.values()]) {
      // A session held by a fast-path connection is in use: its steps never reach this thread.
      if (entry.inFlight === 0 && !entry.fast?.open && entry.lastUsed <= cutoff) {
        this.delete(entry.id, `expired after ${this.limits.idleTimeoutMs} ms idle`);
        onDelete(entry);
        n++;
      }
    }
    return n;
  }

  clear(): void {
    for (const id of [...this.sessions.keys()]) this.delete(id, "the server shut down");
  }
}
