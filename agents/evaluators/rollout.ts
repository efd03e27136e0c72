import type { Evaluator, EvaluatorOptions } from "./evaluator.ts";
import { randomPlayout } from "./evaluator.ts";
import { must } from "../../engine/core/index.ts";

/**
 * The generic evaluator, for any game on the kernel contract: the mean return of `seat` after a
 * few random playouts from the candidate's state (at a terminal state: its return, exactly).
 * Returns are cumulative, so a depth-limited playout still reads the rewards gained on the way.
 */
export function rolloutEvaluator(options: EvaluatorOptions): Evaluator {
  const rollouts = Math.max(1, options.rollouts);
  return {
    name: "rollout",
    evaluate({ game, after, seat, rng }) {
      if (game.actor(after) === "terminal") return must(game.returns(after)[seat], "rollout: the returns of the evaluated seat");
      const bound = game.maxDecisions(game.config(after));
      let sum = 0;
      for (let i = 0; i < rollouts; i++)
        sum += must(game.returns(randomPlayout(game, after, rng, options.depth, bound))[seat], "rollout: the returns of the evaluated seat");
      return sum / rollouts;
    },
  };
}
