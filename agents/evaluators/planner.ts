import type { Rng } from "../../engine/core/index.ts";
import type { DecisionRequest } from "../facilitatee.ts";

/**
 * A game-specific planner: for games where scoring one decision at a time cannot find the way
 * (Shephy's solitaire needs a plan over many plays), the computer agent hands the whole decision
 * to it instead of scoring each legal decision with an evaluator. Like an evaluator it sees only
 * the request (the view and the legal list) and draws its samples from the agent's own stream.
 * One planner serves one agent, so it may remember its plan between the decisions of one move.
 */
export interface Planner {
  /** The index into request.legal of the decision to take. */
  decide(request: DecisionRequest, rng: Rng): number;
}

export interface PlannerOptions {
  /** Determinizations searched per decision. */
  readonly samples: number;
  /** Playouts per candidate and sample, for planners that play out (sevens). */
  readonly rollouts: number;
  /** States kept per search level (beam width). */
  readonly width: number;
  /** Search horizon in plays; 0 = to the end of the game. */
  readonly horizon: number;
  /** Iterations of a deeper tree search over the seat's own moves, 0 = none (sevens; others ignore it). */
  readonly iterations: number;
}

export type PlannerFactory = (options: PlannerOptions) => Planner;
