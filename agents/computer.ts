import { decisionKey, Rng, type AnyGame, must } from "../engine/core/index.ts";
import { applyOnSample, sampleWorld } from "./determinized.ts";
import { gameEvaluator, gamePlanner, genericEvaluator, isWin, type Evaluator, type Planner } from "./evaluators/index.ts";
import type { DecisionRequest, Facilitatee } from "./facilitatee.ts";

export type EvaluatorChoice = "auto" | "rollout" | "game";

export interface ComputerOptions {
  /** Determinizations sampled per decision; each candidate is scored on all of them (averaged). */
  readonly dets: number;
  /** Random playouts per candidate and determinization (generic evaluator). */
  readonly rollouts: number;
  /** Playout depth cap in decisions; 0 = to the end of the game. */
  readonly depth: number;
  /** auto: the game's own evaluator when registered, else rollouts. */
  readonly evaluator: EvaluatorChoice;
  /** States kept per search level by a game's planner (shephy); unused by evaluators. */
  readonly beam: number;
  /** Chance of playing a uniformly random legal decision instead of searching (weak levels). */
  readonly blunder: number;
  /** Iterations of a game planner's tree search over the seat's own moves (sevens), 0 = its one-ply search. */
  readonly search: number;
}

/** The most tree-search iterations a computer may be asked for per decision (`search`). */
export const MAX_SEARCH_ITERATIONS = 100_000;

export const COMPUTER_DEFAULTS: ComputerOptions = { dets: 4, rollouts: 1, depth: 0, evaluator: "auto", beam: 8, blunder: 0, search: 0 };

export { COMPUTER_LEVELS, type ComputerLevel } from "./levels.ts";

/**
 * ComputerOpponent (docs/agents.md): one ply of simulation per legal decision. It samples a few
 * full states consistent with its own view (game.determinize with its own seeded stream; it is
 * given only the view and the legal list), applies each candidate on every sample, scores the
 * result with a BattleEvaluator and plays the best mean score. A candidate that wins outright in
 * every sample is played at once (the seed's early stop on Score > 10000). The same samples and
 * playout seeds are used for every candidate (common random numbers), so differences in score come
 * from the decisions, not from the dice. Ties are broken by the agent's own stream.
 *
 * A game may register a planner instead (agents/evaluators/index.ts): then, unless rollouts are
 * asked for, the planner takes each non-forced decision whole (shephy's sampled beam searches,
 * with `dets` samples, `beam` states per level and `depth` plays of horizon).
 */
export class ComputerAgent implements Facilitatee {
  readonly name: string;
  private readonly rng: Rng;
  private readonly options: ComputerOptions;
  private readonly evaluators = new Map<string, Evaluator>();
  private readonly planners = new Map<string, Planner | null>();

  constructor(seed: number, options: Partial<ComputerOptions> = {}, name = "computer") {
    this.rng = Rng.seeded(seed);
    this.options = { ...COMPUTER_DEFAULTS, ...options };
    this.name = name;
  }

  decide(request: DecisionRequest): number {
    const { game, seat, view, legal } = request;
    if (legal.length === 1) return 0;
    if (this.options.blunder > 0 && this.rng.nextFloat() < this.options.blunder) return this.rng.int(legal.length);
    const planner = this.plannerFor(game);
    if (planner) return planner.decide(request, this.rng);
    const evaluator = this.evaluatorFor(game);
    const samples = Array.from({ length: this.options.dets }, () => sampleWorld(game, view, seat, this.rng));
    const playoutSeeds = samples.map(() => this.rng.nextU32());
    let best: number[] = [];
    let bestScore = -Infinity;
    for (let i = 0; i < legal.length; i++) {
      const key = decisionKey(legal[i]);
      let sum = 0;
      let wins = 0;
      for (const [j, sample] of samples.entries()) {
        const after = applyOnSample(game, sample, key, () => game.describe(sample.state, legal[i]));
        if (isWin(game, after, seat)) wins++;
        sum += evaluator.evaluate({
          game,
          before: sample.state,
          after,
          seat,
          rng: Rng.seeded(must(playoutSeeds[j], "computer agent: the playout seed of a sample")),
        });
      }
      if (wins === samples.length) return i;
      const score = sum / samples.length;
      if (score > bestScore) {
        bestScore = score;
        best = [i];
      } else if (score === bestScore) best.push(i);
    }
    return must(best.length === 1 ? best[0] : best[this.rng.int(best.length)], "computer agent: a best move among the legal ones");
  }

  private plannerFor(game: AnyGame): Planner | null {
    const id = game.info.id;
    let p = this.planners.get(id);
    if (p === undefined) {
      const factory = this.options.evaluator === "rollout" ? undefined : gamePlanner(id);
      p = factory
        ? factory({
            samples: this.options.dets,
            rollouts: this.options.rollouts,
            width: this.options.beam,
            horizon: this.options.depth,
            iterations: this.options.search,
          })
        : null;
      this.planners.set(id, p);
    }
    return p;
  }

  private evaluatorFor(game: AnyGame): Evaluator {
    const id = game.info.id;
    let e = this.evaluators.get(id);
    if (!e) {
      const own = gameEvaluator(id);
      if (this.options.evaluator === "game" && !own) throw new Error(`computer: no game-specific evaluator for ${id} (use eval=auto or eval=rollout)`);
      const factory = this.options.evaluator === "rollout" || !own ? genericEvaluator : own;
      e = factory({ rollouts: this.options.rollouts, depth: this.options.depth });
      this.evaluators.set(id, e);
    }
    return e;
  }
}
