import { randomBytes } from "node:crypto";
import type { LearningFacilitator } from "../learning-facilitator.ts";
import { ApiError } from "./api-error.ts";

export interface Quarantine {
  readonly code: string;
  readonly message: string;
}

export interface SessionEntry {
  readonly id: string;
  readonly facilitator: LearningFacilitator;
  lastUsed: number;
  /** Requests being computed for this session (a busy session is never expired). */
  inFlight: number;
  quarantine: Quarantine | null;
}

/** How many deleted/expired ids are remembered, so late requests get 410 instead of 404. */
const REMEMBERED_GONE = 4096;

/** The live sessions, their limits, idle expiry and quarantine. */
export class SessionStore {
  private readonly sessions = new Map<string, SessionEntry>();
  private readonly gone = new Map<string, string>();
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
    if (this.sessions.size >= this.limits.maxSessions) {
      throw new ApiError(429, "too_many_sessions", `the server holds its maximum of ${this.limits.maxSessions} sessions; delete one first`);
    }
    if (this.envs + numEnvs > this.limits.maxTotalEnvs) {
      throw new ApiError(
        429,
        "too_many_envs",
        `${numEnvs} more envs would exceed the server's limit of ${this.limits.maxTotalEnvs} (in use: ${this.envs})`,
      );
    }
  }

  add(facilitator: LearningFacilitator): SessionEntry {
    this.checkCapacity(facilitator.numEnvs);
    let id: string;
    do id = randomBytes(12).toString("base64url");
    while (this.sessions.has(id));
    const entry: SessionEntry = { id, facilitator, lastUsed: this.now(), inFlight: 0, quarantine: null };
    this.sessions.set(id, entry);
    this.envs += facilitator.numEnvs;
    return entry;
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

  /** The session, refusing a quarantined one with 409. */
  usable(id: string): SessionEntry {
    const entry = this.get(id);
    if (entry.quarantine) {
      throw new ApiError(409, "session_quarantined", `session ${id} is quarantined after ${entry.quarantine.code}: ${entry.quarantine.message}; delete it and create a new one`);
    }
    return entry;
  }

  delete(id: string, why: string): boolean {
    const entry = this.sessions.get(id);
    if (!entry) return false;
    this.sessions.delete(id);
    this.envs -= entry.facilitator.numEnvs;
    this.gone.set(id, why);
    if (this.gone.size > REMEMBERED_GONE) this.gone.delete(this.gone.keys().next().value!);
    return true;
  }

  /** Deletes sessions idle for longer than the timeout; returns how many. */
  sweep(): number {
    const cutoff = this.now() - this.limits.idleTimeoutMs;
    let n = 0;
    for (const entry of [...this.sessions.values()]) {
      if (entry.inFlight === 0 && entry.lastUsed <= cutoff) {
        this.delete(entry.id, `expired after ${this.limits.idleTimeoutMs} ms idle`);
        n++;
      }
    }
    return n;
  }

  clear(): void {
    for (const id of [...this.sessions.keys()]) this.delete(id, "the server shut down");
  }
}
