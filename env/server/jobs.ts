import type { AgentContext } from "../../agents/spec.ts";
import { EnvRequestError } from "../errors.ts";
import type { AgentFactory } from "../learning-facilitator.ts";
import { specOf } from "../spec.ts";
import type { HostSetup } from "./session-host.ts";
import type { DecideJob } from "../live/ports.ts";

export type { DecideJob };

/**
 * Jobs: work other than a session operation that must run on the worker pool under a budget
 * (live tables' agent decisions first). A job is plain data (it is structured-cloned to a
 * worker), run by a function registered under its `kind` in the worker. Run one with
 * `SessionRuntime.runJob(job, {budgetMs, affinity})` (env/server/runtime.ts): past its budget
 * the job rejects with a JobTimeout and the worker that ran it is replaced, sessions included.
 *
 * Built in: `decide`, one agent decision (its shape is declared by the live tables that send it,
 * env/live/ports.ts). The agent is built for that one decision from its spec
 * and seed (agents are cheap to build; ONNX models are cached per worker), so a decision's result
 * depends only on the job and never on which worker ran it or what ran there before: a worker
 * that is replaced loses nothing a job needs. To add a kind, export it in a session module's
 * `jobs` (ServerOptions.sessionModule) so every worker registers it.
 */
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

/** Whether a job is the built-in decision (a custom job's kind is never "decide": registerJob refuses it). */
function isDecide(job: Job): job is DecideJob {
  return job.kind === "decide";
}

export async function runJob(job: Job, setup: HostSetup): Promise<unknown> {
  if (isDecide(job)) return decide(job, setup);
  const run = runners.get(job.kind);
  if (!run) throw new EnvRequestError("invalid_config", `no job kind ${JSON.stringify(job.kind)} in this worker`);
  return await run(job, setup);
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
