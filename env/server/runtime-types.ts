/**
 * The session runtime's errors, options and bookkeeping types (runtime.ts is the pool itself).
 */
import type { Worker } from "node:worker_threads";
import type { FastEvent } from "./fast-path.ts";
import type { HostReply, HostRequest, LoggedOp } from "./host-protocol.ts";
import type { CreateBody } from "./schemas.ts";
import { describeThrown } from "../errors.ts";
import type { HostSetup } from "./session-host.ts";

/** A request that ran past its budget (its worker was replaced). */
export class StepTimeout extends Error {
  constructor(readonly budgetMs: number) {
    super(`did not finish within ${budgetMs} ms`);
    this.name = "StepTimeout";
  }
}

/** A job that ran past its budget (its worker was replaced). */
export class JobTimeout extends StepTimeout {
  constructor(budgetMs: number) {
    super(budgetMs);
    this.name = "JobTimeout";
  }
}

/** The worker holding the request died (out of memory, a native crash): the request failed with it. */
export class WorkerLost extends Error {
  constructor(why: string) {
    super(`the session worker stopped: ${why}`);
    this.name = "WorkerLost";
  }
}

/** Structured clone refused the request (a value it cannot copy, or nested too deep for it): that request fails alone. */
export class UnsendableRequest extends Error {
  constructor(cause: unknown) {
    super(`the request could not be handed to its session worker: ${describeThrown(cause)}`, { cause });
    this.name = "UnsendableRequest";
  }
}

/** What the runtime needs to rebuild a session on a fresh worker (SessionStore entries provide it). */
export interface Rebuildable {
  readonly id: string;
  readonly create: CreateBody;
  readonly log: readonly LoggedOp[];
  /** Digest of the last reset/step reply sent, or null before the first reset. */
  readonly digest: number | null;
}

export interface RuntimeOptions {
  /** Worker threads; 0 = in the main thread. */
  readonly workers: number;
  /** Budget of one request, in ms. */
  readonly stepTimeoutMs: number;
  /** In-thread setup (workers: 0). */
  readonly setup: HostSetup;
  /** Module the workers import for their registry/adapters/agents/jobs (file URL), or null for the shipped ones. */
  readonly sessionModule: string | null;
  readonly modelDir: string;
  /** Worker heap cap (MB): a session that allocates without bound kills its worker, not the server. */
  readonly workerHeapMb: number;
  readonly log: (line: string) => void;
  /** The live sessions pinned to a worker slot (consulted when that worker is replaced). */
  readonly sessionsOn: (slot: number) => Rebuildable[];
  /** A session that could not be rebuilt: the store quarantines it with this reason. */
  readonly lost: (id: string, code: string, message: string) => void;
  /**
   * The fast path (env/server/fast-path.ts): worker i serves frames on `${prefix}.w${i}`; null: off.
   * `event` hears a connection open or close a session and the faults it met; `expired` hears
   * that the fast-path request of a session's watchdog handle ran past the budget (its worker is
   * then replaced).
   */
  readonly fastPath?: FastPathHooks | null;
}

/** The fast path's socket prefix and limits, and what the runtime tells its owner about fast-path requests. */
export interface FastPathHooks {
  readonly prefix: string;
  readonly maxFrame: number;
  readonly maxEnvsPerSession: number;
  readonly event: (e: FastEvent) => void;
  readonly expired: (handle: number) => void;
  /** Fast-path steps (and their env-steps) since the last call, for /metrics. */
  readonly stepped: (steps: number, envSteps: number) => void;
}

export interface Task {
  readonly req: HostRequest;
  readonly budgetMs: number;
  readonly resolve: (r: HostReply) => void;
  readonly reject: (e: Error) => void;
  readonly timeout: () => Error;
}

export interface Slot {
  readonly index: number;
  worker: Worker | null;
  ready: boolean;
  /** Bumped at each replacement: messages from an older worker are ignored. */
  generation: number;
  readonly queue: Task[];
  current: { task: Task; seq: number; timer: ReturnType<typeof setTimeout> } | null;
  envs: number;
  /** Consecutive failed starts (a worker that cannot even load is not restarted forever). */
  failedStarts: number;
  /** Whether the current worker serves its fast-path socket. */
  fastPath: boolean;
  /**
   * Shared with the worker: int32 watchdog handle of the fast-path request running (0: none) at
   * byte 0, float64 its start (ms) at 8, float64 fast-path steps and env-steps so far at 16 and 24.
   */
  readonly fastState: SharedArrayBuffer;
  /** The step counts of fastState already passed on. */
  readonly fastCounted: [number, number];
}
