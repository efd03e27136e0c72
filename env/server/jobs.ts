import type { AgentContext } from "../../agents/spec.ts";
import type { Seat } from "../../engine/core/index.ts";
import { EnvRequestError } from "../errors.ts";
import type { AgentFactory } from "../learning-facilitator.ts";
import { specOf } from "../spec.ts";
import type { HostSetup } from "./session-host.ts";

/**
 * Jobs: work other than a session operation that must run on the worker pool under a budget
 * (live tables' agent decisions first). A job is plain data (it is structured-cloned to a
 * worker), run by a function registered under its `kind` in the worker. Run one with
 * `SessionRuntime.runJob(job, {budgetMs, affinity})` (env/server/runtime.ts): past its budget
 * the job rejects with a JobTimeout and the worker that ran it is replaced, sessions included.
 *
 * Built in: `decide`, one agent decision. The agent is built for that one decision from its spec
 * and seed (agents are cheap to build; ONNX models are cached per worker), so a decision's result
 * depends only on the job and never on which worker ran it or what ran there before: a worker
 * that is replaced loses nothing a job needs. To add a kind, export it in a session module's
 * `jobs` (ServerOptions.sessionModule) so every worker registers it.
 */
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

export interface CustomJob {
  readonly kind: string;
  readonly [key: string]: unknown;
}

export type Job = DecideJob | CustomJob;

export type JobRunner = (job: CustomJob, setup: HostSetup) => unknown;

const runners = new Map<string, JobRunner>();

/** Registers a job kind in this thread (workers call it for each `jobs` entry of the session module). */
export function registerJob(kind: string, run: JobRunner): void {
  if (kind === "decide") throw new RangeError('job kind "decide" is built in');
  runners.set(kind, run);
}

export async function runJob(job: Job, setup: HostSetup): Promise<unknown> {
  if (job.kind === "decide") return decide(job as DecideJob, setup);
  const run = runners.get(job.kind);
  if (!run) throw new EnvRequestError("invalid_config", `no job kind ${JSON.stringify(job.kind)} in this worker`);
  return await run(job as CustomJob, setup);
}

async function decide(job: DecideJob, setup: HostSetup): Promise<number> {
  const adapter = setup.adapters.get(job.game);
  const found = setup.registry.get(job.game);
  if (!found.ok) throw new EnvRequestError("invalid_config", `no game ${JSON.stringify(job.game)}`);
  const ctx: AgentContext = {
    seed: job.seed,
    seat: job.seat,
    game: job.game,
    modelRoot: setup.modelDir,
    ...(adapter ? { adapter, actionSpecHash: specOf(adapter).actionSpecHash } : {}),
  };
  const agent = build(setup.createAgent, job.agent, ctx);
  const ready = (agent as { ready?: () => Promise<void> }).ready;
  if (typeof ready === "function") await ready.call(agent);
  const index = await agent.decide({ game: found.value, seat: job.seat, view: job.view, legal: job.legal, step: job.step });
  if (!Number.isInteger(index) || index < 0 || index >= job.legal.length)
    throw new Error(`agent ${agent.name} chose ${index} of ${job.legal.length} decisions`);
  return index;
}

function build(factory: AgentFactory, spec: string, ctx: AgentContext) {
  const made = factory(spec, ctx);
  if (!made.ok) throw new EnvRequestError("invalid_seats", made.error.message);
  return made.value;
}
