import { DEFAULT_MODEL_DIR } from "../../agents/paths.ts";
import { availableParallelism } from "node:os";
import { DEFAULT_MAX_AGENT_COST } from "../../agents/cost.ts";
import { createAgent } from "../../agents/spec.ts";
import type { GameRegistry } from "../../engine/core/index.ts";
import { registry as shippedRegistry } from "../../engine/games.ts";
import type { GameAdapter } from "../codec.ts";
import { adapters as shippedAdapters } from "../games/index.ts";
import type { AgentFactory } from "../learning-facilitator.ts";
import type { Clock } from "../../agents/clock.ts";
import { DEFAULT_CARD_SET_DIR } from "./card-sets.ts";
import { DEFAULT_WEB_DIR } from "./plugins/web.ts";

export interface ServerOptions {
  /** Games served (default: the shipped registry); only games with an adapter are listed. */
  readonly registry?: GameRegistry;
  readonly adapters?: ReadonlyMap<string, GameAdapter>;
  /** Builds agent seats from spec strings (default: agents/spec.ts createAgent). */
  readonly createAgent?: AgentFactory;
  /** Directory that agent seats' `onnx:path=...` models are loaded from (and confined to). */
  readonly modelDir?: string;
  /** Directory that a session config's `cardSetFile` is read from (and confined to); default <repo>/cards. */
  readonly cardSetDir?: string;
  /** When set, every route but /healthz requires `Authorization: Bearer <token>`. */
  readonly token?: string | null;
  readonly maxSessions?: number;
  readonly maxEnvsPerSession?: number;
  /** Envs across all sessions. */
  readonly maxTotalEnvs?: number;
  /** Largest accepted request body, in bytes (413 above). */
  readonly bodyLimit?: number;
  /** A session untouched for this long is deleted. */
  readonly idleTimeoutMs?: number;
  /** How often idle sessions are swept (default: a quarter of idleTimeoutMs, at most a minute). */
  readonly sweepIntervalMs?: number;
  /** Time allowed to receive a whole request (Node's requestTimeout). */
  readonly requestTimeoutMs?: number;
  /** Time allowed for one reset/step to compute (async agents); beyond it: 503 and the session is quarantined. */
  readonly stepTimeoutMs?: number;
  /** Adds per-env state hashes to GET /v1/sessions/:id. Off by default: a hash fingerprints hidden state. */
  readonly exposeStateHashes?: boolean;
  /** Clock for idle expiry and metrics (tests inject one). */
  readonly now?: () => number;
  /** Where quarantines and 5xx errors are reported (default: nowhere). */
  readonly log?: (line: string) => void;
  /** Fastify logger (default off: per-request logs cost more than a step). */
  readonly logger?: boolean;
  /**
   * Live tables (docs/live.md): their journals and the signing key live here. Unset: no table
   * routes (scripts/serve.ts always sets one, default ./cardgym-data).
   */
  readonly dataDir?: string | null;
  /** Clock for table deadlines and grace periods (tests inject a ManualClock). */
  readonly liveClock?: Clock;
  /** Live (unfinished) tables at once. */
  readonly maxTables?: number;
  /** Finished tables kept in memory (older ones are read back from their journal on demand). */
  readonly maxFinishedTables?: number;
  /** The browser client's folder, served at `/` with the table routes (default <repo>/web); null: none. */
  readonly webDir?: string | null;
  /**
   * Worker threads that run sessions (env/server/runtime.ts). Default: the machine's available
   * cores, or 0 (the main thread) when a custom registry/adapters/createAgent is given without a
   * sessionModule, since functions cannot cross threads.
   */
  readonly workers?: number;
  /** A module (file URL) each worker imports for its registry/adapters/createAgent/jobs (env/server/session-module.ts). */
  readonly sessionModule?: string | URL | null;
  /** Largest agent cost per step a session may have (agents/cost.ts); above it 400 agent_too_costly. */
  readonly maxAgentCost?: number;
  /** Open connections at once; further ones are closed at once. */
  readonly maxConnections?: number;
  /** Heap cap of one worker in MB: a runaway session kills its worker (and is quarantined), not the server. */
  readonly workerHeapMb?: number;
  /**
   * The fast path (env/server/fast-path.ts): when set, session worker i serves framed steps on the
   * Unix socket `${fastPath}.w${i}` for clients on this machine. Default null (off); scripts/serve.ts
   * sets it beside its --socket.
   */
  readonly fastPath?: string | null;
}

export type ResolvedOptions = Required<
  Omit<ServerOptions, "token" | "sweepIntervalMs" | "modelDir" | "cardSetDir" | "dataDir" | "liveClock" | "webDir" | "sessionModule" | "fastPath">
> & {
  readonly fastPath: string | null;
  readonly webDir: string | null;
  readonly sessionModule: string | null;
  readonly dataDir: string | null;
  readonly liveClock: Clock | undefined;
  readonly modelDir: string;
  readonly cardSetDir: string;
  readonly token: string | null;
  readonly sweepIntervalMs: number;
};

export { DEFAULT_MODEL_DIR };

export const DEFAULT_LIMITS = {
  maxSessions: 256,
  maxEnvsPerSession: 1024,
  maxTotalEnvs: 65_536,
  bodyLimit: 1_048_576,
  idleTimeoutMs: 15 * 60_000,
  requestTimeoutMs: 30_000,
  stepTimeoutMs: 30_000,
  maxAgentCost: DEFAULT_MAX_AGENT_COST,
  maxConnections: 1024,
  workerHeapMb: 4096,
} as const;

export function resolveOptions(o: ServerOptions): ResolvedOptions {
  const positive = (name: string, v: number | undefined, def: number): number => {
    const x = v ?? def;
    if (!Number.isInteger(x) || x < 1) throw new RangeError(`${name} must be a positive integer, got ${x}`);
    return x;
  };
  const idleTimeoutMs = positive("idleTimeoutMs", o.idleTimeoutMs, DEFAULT_LIMITS.idleTimeoutMs);
  if (o.token !== undefined && o.token !== null && o.token.length === 0) throw new RangeError("token must not be empty");
  return {
    registry: o.registry ?? shippedRegistry,
    adapters: o.adapters ?? shippedAdapters,
    createAgent: o.createAgent ?? createAgent,
    token: o.token ?? null,
    modelDir: o.modelDir ?? DEFAULT_MODEL_DIR,
    cardSetDir: o.cardSetDir ?? DEFAULT_CARD_SET_DIR,
    maxSessions: positive("maxSessions", o.maxSessions, DEFAULT_LIMITS.maxSessions),
    maxEnvsPerSession: positive("maxEnvsPerSession", o.maxEnvsPerSession, DEFAULT_LIMITS.maxEnvsPerSession),
    maxTotalEnvs: positive("maxTotalEnvs", o.maxTotalEnvs, DEFAULT_LIMITS.maxTotalEnvs),
    bodyLimit: positive("bodyLimit", o.bodyLimit, DEFAULT_LIMITS.bodyLimit),
    idleTimeoutMs,
    sweepIntervalMs: positive("sweepIntervalMs", o.sweepIntervalMs, Math.max(1, Math.min(60_000, Math.floor(idleTimeoutMs / 4)))),
    requestTimeoutMs: positive("requestTimeoutMs", o.requestTimeoutMs, DEFAULT_LIMITS.requestTimeoutMs),
    stepTimeoutMs: positive("stepTimeoutMs", o.stepTimeoutMs, DEFAULT_LIMITS.stepTimeoutMs),
    exposeStateHashes: o.exposeStateHashes ?? false,
    now: o.now ?? Date.now,
    log: o.log ?? (() => undefined),
    logger: o.logger ?? false,
    dataDir: o.dataDir ?? null,
    liveClock: o.liveClock,
    maxTables: positive("maxTables", o.maxTables, 2000),
    maxFinishedTables: positive("maxFinishedTables", o.maxFinishedTables, 1000),
    webDir: o.webDir === undefined ? DEFAULT_WEB_DIR : o.webDir,
    sessionModule: o.sessionModule === undefined || o.sessionModule === null ? null : String(o.sessionModule),
    workers: workerCount(o),
    maxAgentCost: positive("maxAgentCost", o.maxAgentCost, DEFAULT_LIMITS.maxAgentCost),
    maxConnections: positive("maxConnections", o.maxConnections, DEFAULT_LIMITS.maxConnections),
    workerHeapMb: positive("workerHeapMb", o.workerHeapMb, DEFAULT_LIMITS.workerHeapMb),
    fastPath: o.fastPath ?? null,
  };
}

function workerCount(o: ServerOptions): number {
  const custom = (o.registry !== undefined || o.adapters !== undefined || o.createAgent !== undefined) && (o.sessionModule ?? null) === null;
  const n = o.workers ?? (custom ? 0 : availableParallelism());
  if (!Number.isInteger(n) || n < 0 || n > 1024) throw new RangeError(`workers must be an integer between 0 and 1024, got ${n}`);
  if (n > 0 && custom) throw new RangeError("a custom registry, adapters or createAgent needs a sessionModule the workers can import (or workers: 0)");
  return n;
}
