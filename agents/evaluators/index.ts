import { dcgEvaluator } from "./dcg.ts";
import type { EvaluatorFactory } from "./evaluator.ts";
import { rolloutEvaluator } from "./rollout.ts";
import { shephyEvaluator } from "./shephy.ts";

export type { EvalInput, Evaluator, EvaluatorFactory, EvaluatorOptions } from "./evaluator.ts";
export { isWin, randomPlayout } from "./evaluator.ts";
export { rolloutEvaluator } from "./rollout.ts";

/**
 * Game-specific evaluators by game id: the hook a game uses to give the computer agent a
 * heuristic (seed 000's rewards minus costs) instead of random playouts. `computer:eval=auto`
 * picks the game's entry when there is one and the generic rollout evaluator otherwise.
 */
const byGame: Readonly<Record<string, EvaluatorFactory>> = Object.assign(Object.create(null), {
  dcg: dcgEvaluator,
  shephy: shephyEvaluator,
});

export function gameEvaluator(gameId: string): EvaluatorFactory | undefined {
  return byGame[gameId];
}

export const genericEvaluator: EvaluatorFactory = rolloutEvaluator;
