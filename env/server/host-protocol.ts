/**
 * The messages between the HTTP thread and a session worker (env/server/runtime.ts starts the
 * workers, env/server/session-host.ts answers in them), defined once. A request's body has the
 * type of the TypeBox schema its route validated it with (schemas.ts), so the host uses it
 * without a cast; bodies the server builds itself (mask, render, attach, jobs) are typed here.
 */
import type { Job } from "./jobs.ts";
import type { FastEvent } from "./fast-path.ts";
import type { CreateBody, ResetBody } from "./schemas.ts";
import type { WireFormat } from "./wire.ts";

/** A step's actions: the HTTP route's validated list, or the fast path's int32 frame. */
export interface StepActions {
  readonly actions: ArrayLike<number>;
}

/** One logged operation of a session: what a rebuild replays. */
export type LoggedOp = { readonly op: "reset"; readonly body: ResetBody } | { readonly op: "step"; readonly body: { readonly actions: readonly number[] } };

/** A session's creation body (its card set inlined) and the operations since: replayed, they rebuild it exactly. */
export interface RebuildBody {
  readonly create: CreateBody;
  readonly log: readonly LoggedOp[];
}

/** attach: the key a fast-path connection presents for the session, and its watchdog handle (env/server/fast-path.ts). */
export interface AttachBody {
  readonly key: string;
  readonly handle: number;
}

interface Addressed<Op extends string> {
  readonly op: Op;
  /** The session id ("" for jobs). */
  readonly session: string;
  /** How the reply's payload is encoded (the client's choice). */
  readonly format: WireFormat;
}

/** reset/step: false skips the reply digest (only rebuilds check it; fast-path sessions are never rebuilt). */
interface Digested {
  readonly digest?: boolean;
  /** The fast path's client asked for the batch in env/reply-layout.ts's layout instead of `format` (given when the session's batches fit it). */
  readonly layout?: boolean;
}

/** A request to a session host, one variant per operation, each with the body it carries. */
export type HostRequest =
  | (Addressed<"create"> & { readonly body: CreateBody })
  | (Addressed<"rebuild"> & { readonly body: RebuildBody })
  | (Addressed<"reset"> & { readonly body: ResetBody } & Digested)
  | (Addressed<"step"> & { readonly body: StepActions } & Digested)
  | (Addressed<"mask"> & { readonly body: { readonly labels: boolean } })
  | (Addressed<"render"> & { readonly body: { readonly env: number } })
  | Addressed<"status">
  | Addressed<"hashes">
  | Addressed<"delete">
  | (Addressed<"attach"> & { readonly body: AttachBody })
  | (Addressed<"job"> & { readonly body: Job });

export type HostOp = HostRequest["op"];

export interface HostError {
  readonly status: number;
  readonly code: string;
  readonly message: string;
  readonly details?: Record<string, unknown>;
  /** A fault while applying a valid request: the session may be half-way through, so it is quarantined. */
  readonly fault: boolean;
}

export interface HostReply {
  readonly status: number;
  /** The encoded HTTP payload. */
  readonly payload?: Uint8Array | string;
  readonly error?: HostError;
  /** create: what the main thread keeps about the session. */
  readonly meta?: SessionMeta;
  /** reset/step: the session's step counter after it, and a digest of the batch (rebuilds are checked against it). */
  readonly step?: number;
  readonly digest?: number;
  /** reset/step: the payload is in env/reply-layout.ts's layout (asked for with `layout`), not `format`. */
  readonly layout?: boolean;
  /** status: the session's counters, kept on the worker for a fast-path session (its steps never pass the HTTP thread). */
  readonly counts?: SessionCounts;
  /** Jobs: the job's result (structured-cloned); hashes: the per-env state hashes. */
  readonly value?: unknown;
}

export interface SessionCounts {
  readonly step: number;
  readonly envSteps: number;
  readonly reset: boolean;
}

export interface SessionMeta {
  readonly game: string;
  readonly mode: string;
  readonly seats: readonly string[];
  readonly numEnvs: number;
}

/** What the HTTP thread posts to a worker: a request and the sequence number its reply carries back. */
export interface ToWorker {
  readonly seq: number;
  readonly req: HostRequest;
}

/** What a worker posts to the HTTP thread. */
export type FromWorker =
  /** Loaded and taking requests; whether it serves its fast-path socket. */
  | { readonly kind: "ready"; readonly fastPath: boolean }
  /** The reply to request `seq`. */
  | { readonly kind: "reply"; readonly seq: number; readonly reply: HostReply }
  /** A fast-path connection opened or closed a session, or met a fault. */
  | { readonly kind: "fast"; readonly event: FastEvent }
  /** The fast-path socket could not be served (the worker takes requests anyway). */
  | { readonly kind: "fastUnavailable"; readonly message: string };
