import { fail, ok, type Result } from "../engine/core/index.ts";
import { computerLevels, DEFAULT_LEVEL, type ComputerLevel } from "./levels.ts";
import { MCTS_DEFAULTS } from "./mcts.ts";
import { parseAgentSpec } from "./spec.ts";

/**
 * What an agent spec may cost per decision, in "playout units" (about one random playout or one
 * search iteration each), read from its parameters alone, before anything is built. Hosts use it
 * for admission: the server refuses a session whose seats cost more than `--max-agent-cost` per
 * step (the sum over agent seats, times numEnvs), and the CLIs apply the same cap when asked.
 *
 * - random, sandbag, tutorial (and agents this table does not know): 1;
 * - computer: dets x rollouts x 16 (it scores every legal candidate, 16 taken as a typical count),
 *   dets and rollouts from its level (the game's level table when the game is named) unless given;
 *   with `search` (a planner's tree search, one playout per iteration), the larger of that and its iterations;
 * - mcts: iters, or with `ms` the iterations that time allows at MS_UNITS per ms, whichever is less;
 *   with `policy=`, 2 per iteration (a network run each), plus 16 per iteration for each ply of
 *   children the evaluator values at an expansion (one with eprior, efpu or value=ply; `plies`
 *   with value=ply), plus a leaf rollout's: 1 for `depth` random decisions (a short playout), 2
 *   per decision with rollout=net (a network run each);
 * - onnx: 4 per MB of its maxMB size cap (inference cost grows with the model's size).
 * A budget is an estimate, not a measurement: the step timeout is what holds every request to
 * its time; admission refuses at once what could never fit.
 */
export const CANDIDATES = 16;
export const MS_UNITS = 20;
export const ONNX_UNITS_PER_MB = 4;
/** The server's default `--max-agent-cost`: e.g. the default mcts (400 iterations) at 1024 envs fits, 2000 iterations at 512 envs does not. */
export const DEFAULT_MAX_AGENT_COST = 1_000_000;

const num = (v: string | undefined, def: number): number => {
  const n = v === undefined ? def : Number(v);
  return Number.isFinite(n) && n > 0 ? n : def;
};

/** How many plies of children a guided search's expansion values with the evaluator (eprior, efpu, value=ply). */
function childPlies(params: Readonly<Record<string, string>>): number {
  if (params.value === "ply") return num(params.plies, 1);
  const eprior = params.eprior === undefined ? 0 : Number(params.eprior);
  return (Number.isFinite(eprior) && eprior > 0) || params.efpu === "true" || params.efpu === "1" ? 1 : 0;
}

/** What a guided search's leaf rollout adds per iteration: one short playout, or a network run per decision with rollout=net. */
function rolloutUnits(params: Readonly<Record<string, string>>): number {
  const depth = num(params.depth, 0);
  if (depth === 0) return 0;
  return params.rollout === "net" ? 2 * depth : 1;
}

export function agentCost(spec: string, game?: string): Result<number> {
  const parsed = parseAgentSpec(spec);
  if (!parsed.ok) return parsed;
  const { name, params } = parsed.value;
  switch (name) {
    case "computer": {
      const levels = computerLevels(game);
      const preset = levels[num(params.level, DEFAULT_LEVEL) as ComputerLevel] ?? levels[DEFAULT_LEVEL];
      const onePly = num(params.dets, preset.dets) * num(params.rollouts, preset.rollouts) * CANDIDATES;
      return ok(Math.max(onePly, num(params.search, 0)));
    }
    case "mcts": {
      const ms = params.ms === undefined ? undefined : num(params.ms, 1);
      const iters = num(params.iters, ms === undefined ? MCTS_DEFAULTS.iters : 100_000_000);
      // With a policy network every iteration also runs the network once, and may value the
      // children of the node it expands (every legal decision, 16 taken as a typical count).
      if (params.policy !== undefined) return ok(iters * (2 + CANDIDATES * childPlies(params) + rolloutUnits(params)));
      return ok(ms === undefined ? iters : Math.min(iters, ms * MS_UNITS));
    }
    case "onnx":
      return ok(Math.ceil(num(params.maxMB, 64) * ONNX_UNITS_PER_MB));
    default:
      return ok(1);
  }
}

/** The cost of one step of a session: the sum over agent seats of their cost, times numEnvs. */
export function seatsCost(
  seats: readonly string[],
  numEnvs: number,
  game?: string,
): Result<{ cost: number; worst: { seat: number; spec: string; cost: number } | null }> {
  let cost = 0;
  let worst: { seat: number; spec: string; cost: number } | null = null;
  for (const [seat, spec] of seats.entries()) {
    if (spec === "learner" || spec === "external") continue;
    const c = agentCost(spec, game);
    if (!c.ok) return c;
    cost += c.value;
    if (!worst || c.value > worst.cost) worst = { seat, spec, cost: c.value };
  }
  return ok({ cost: cost * numEnvs, worst });
}

/**
 * Refuses (an error value) one agent whose decision costs more than `limit`: the cap where each
 * agent decides alone (the arena's `--max-agent-cost`, a live table's agents). The message names
 * the spec and the limit, not a seat: such a spec may sit at any seat.
 */
export function checkDecisionCost(spec: string, limit: number, flag = "--max-agent-cost", game?: string): Result<number> {
  const c = agentCost(spec, game);
  if (!c.ok || c.value <= limit) return c;
  return fail(
    "invalid_config",
    `${JSON.stringify(spec)} costs ${c.value} playout units per decision; the limit is ${flag} ${limit} (docs/agents.md, Agent cost)`,
  );
}

/** Refuses (an error value) a session over `limit`; the message names the limit and the costliest seat. */
export function checkAgentCost(seats: readonly string[], numEnvs: number, limit: number, flag = "--max-agent-cost", game?: string): Result<number> {
  const r = seatsCost(seats, numEnvs, game);
  if (!r.ok) return r;
  const { cost, worst } = r.value;
  if (cost <= limit) return ok(cost);
  const which = worst ? ` (seat ${worst.seat} "${worst.spec}" costs ${worst.cost} per decision, times ${numEnvs} env${numEnvs === 1 ? "" : "s"})` : "";
  return fail("invalid_config", `the agent seats cost ${cost} playout units per step${which}; the limit is ${flag} ${limit} (docs/agents.md, Agent cost)`);
}
