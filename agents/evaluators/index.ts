import type { DecisionRequest } from "../facilitatee.ts";
import { dcgEvaluator } from "./dcg.ts";
import { DCG_TUTORIAL_CONFIG, dcgTutorial } from "./dcg-tutorial.ts";
import type { EvaluatorFactory } from "./evaluator.ts";
import { rolloutEvaluator } from "./rollout.ts";
import { shephyEvaluator } from "./shephy.ts";
import type { PlannerFactory } from "./planner.ts";
import { SHEPHY_LEVELS, shephyPlanner } from "./shephy-plan.ts";
import { SEVENS_LEVELS, sevensPlanner } from "./sevens-plan.ts";
import type { LevelTable } from "../levels.ts";

export type { EvalInput, Evaluator, EvaluatorFactory, EvaluatorOptions } from "./evaluator.ts";
export { isWin, randomPlayout } from "./evaluator.ts";
export { rolloutEvaluator } from "./rollout.ts";
export type { Planner, PlannerFactory, PlannerOptions } from "./planner.ts";

/**
 * Game-specific evaluators by game id: the hook a game uses to give the computer agent a
 * heuristic (the dcg design's rewards minus costs) instead of random playouts. `computer:eval=auto`
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

/**
 * Game-specific planners by game id: the computer agent with `eval=auto` or `eval=game` lets the
 * game's planner take the whole decision (shephy: sampled beam searches over whole plays).
 */
const plannerByGame: Readonly<Record<string, PlannerFactory>> = Object.assign(Object.create(null), {
  shephy: shephyPlanner,
  sevens: sevensPlanner,
});

export function gamePlanner(gameId: string): PlannerFactory | undefined {
  return plannerByGame[gameId];
}

/**
 * Game-specific difficulty levels by game id: what `computer:level=1..5` means for a game whose
 * planner needs other sizes than the generic table (agents/levels.ts), each level measured in
 * docs/agents.md.
 */
const levelsByGame: Readonly<Record<string, LevelTable>> = Object.assign(Object.create(null), {
  shephy: SHEPHY_LEVELS,
  sevens: SEVENS_LEVELS,
});

export function gameLevels(gameId: string): LevelTable | undefined {
  return levelsByGame[gameId];
}

/**
 * Game-specific tutorial play by game id (the tutorial agent's hook): a scripted, predictable line
 * of play for the game, returning an index into request.legal. Games without one get the tutorial
 * agent's generic rule.
 */
export type TutorialHook = (request: DecisionRequest) => number;

const tutorialByGame: Readonly<Record<string, TutorialHook>> = Object.assign(Object.create(null), {
  dcg: dcgTutorial,
});

export function gameTutorial(gameId: string): TutorialHook | undefined {
  return tutorialByGame[gameId];
}

/**
 * The config fields a game's tutorial is played with (a tutorial table fills them in where its
 * body leaves them out): dcg's fixed beginner books. Games without an entry use their defaults.
 */
const tutorialConfigByGame: Readonly<Record<string, Readonly<Record<string, unknown>>>> = Object.assign(Object.create(null), {
  dcg: DCG_TUTORIAL_CONFIG,
});

export function gameTutorialConfig(gameId: string): Readonly<Record<string, unknown>> | undefined {
  return tutorialConfigByGame[gameId];
}
