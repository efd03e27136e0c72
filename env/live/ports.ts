/**
 * What live tables need from the server that hosts them, declared here and implemented by the
 * server (env/server): env/live imports nothing from env/server, so the server can change
 * behind this file (the `cardgym/ports` lint rule, scripts/lint/ports.js, holds it).
 *
 * - DecideJob and RunDecision: an agent's decision computed off the event loop (the server runs
 *   the job on its worker pool under its step budget: a runaway agent costs its table one default
 *   decision, never the server).
 * - RouteError: a refused HTTP request of a table route, which the server answers with `status`
 *   and its error body `{error: {code, message, ...details}}`.
 */
import type { Seat } from "../../engine/core/index.ts";

/** One agent decision as a job: plain data, so it can be structured-cloned to a worker thread. */
export interface DecideJob {
  readonly kind: "decide";
  /** Registered game id. */
  readonly game: string;
  /** Agent spec string (`computer`, `mcts:iters=200`, `onnx:builtin/dcg-ppo-v1`...). */
  readonly agent: string;
  /** Seed of the agent's stream for this decision (derive one per decision for reproducible play). */
  readonly seed: number;
  readonly seat: Seat;
  /** The seat's view and legal decisions, as the game gives them (plain data). */
  readonly view: unknown;
  readonly legal: readonly unknown[];
  /** Decisions made so far in the game. */
  readonly step: number;
}

/**
 * Runs a decision job on the host and resolves with the index of the chosen legal decision.
 * `affinity` keeps one table's jobs on one worker. Rejects when the job failed or ran past the
 * host's budget.
 */
export type RunDecision = (job: DecideJob, affinity: string) => Promise<number>;

/** A refused table request: the host answers it with `status` and `{error: {code, message, ...details}}`. */
export class RouteError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    readonly details?: Readonly<Record<string, unknown>>,
  ) {
    super(message);
    this.name = "RouteError";
  }
}
