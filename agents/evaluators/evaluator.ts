import type { AnyGame, Rng, Seat } from "../../engine/core/index.ts";
import { must } from "../../engine/core/index.ts";

/**
 * A BattleEvaluator (docs/agents.md): scores the state reached by one candidate decision, from
 * `seat`'s point of view, higher is better. It only ever sees states the agent sampled itself
 * (game.determinize of its own view), never the real game state.
 */
export interface EvalInput {
  readonly game: AnyGame;
  /** The sampled state before the candidate decision. */
  readonly before: unknown;
  /** The same sampled state after it. */
  readonly after: unknown;
  readonly seat: Seat;
  /** The agent's own stream, for rollouts or tie noise. */
  readonly rng: Rng;
}

export interface Evaluator {
  readonly name: string;
  /** Score of one candidate: the state it reaches, compared with the state before. */
  evaluate(input: EvalInput): number;
  /**
   * Optional static value of a state for `seat` in [-1, 1], on the scale of the game's returns
   * (a terminal state's value is its return). MCTS uses it at the leaves instead of playing to
   * the end, which matters for games whose random playouts are long.
   */
  value?(game: AnyGame, state: unknown, seat: Seat): number;
  /**
   * Optional: `value` of the state a decision leads to once what must follow at once has been
   * played out the way `evaluate` sees it (dcg: the opponent's pending reactions passed), so that
   * a decision whose effect lands one step later (an attack) is credited with it.
   */
  settledValue?(game: AnyGame, state: unknown, seat: Seat): number;
}

export interface EvaluatorOptions {
  /** Random playouts per evaluation (generic evaluator). */
  readonly rollouts: number;
  /** Decisions per playout before it stops and reads the returns (0 = play to the end). */
  readonly depth: number;
}

export type EvaluatorFactory = (options: EvaluatorOptions) => Evaluator;

/**
 * Terminal and won by `seat`: its return strictly above every other seat's, or, in a solitaire,
 * at least 1 (a full win rather than a positive score; challenge-style scores stay below 1).
 */
export function isWin(game: AnyGame, state: unknown, seat: Seat): boolean {
  if (game.actor(state) !== "terminal") return false;
  const r = game.returns(state);
  const [only] = r;
  if (r.length === 1 && only !== undefined) return only >= 1;
  const mine = must(r[seat], "the returns of the evaluated seat");
  return r.every((x, i) => i === seat || !(x >= mine));
}

/**
 * Playouts at least this long run on an owned copy with applyInPlace where the game has it. For
 * dcg the copy costs about 0.8 us and an apply in place saves about 0.1 us (a sixteenth), so the
 * copy pays for itself after about eight decisions; guided-mcts's short leaf rollouts (depth=16)
 * are just long enough.
 */
const IN_PLACE_MIN_DECISIONS = 16;

/**
 * Uniform random playout from `state` for at most `depth` decisions (0 = to the end; the game's
 * own maxDecisions bounds it anyway). Returns the final state. `state` itself is never changed: a
 * long playout runs on an owned copy (Game.ownedCopy) with applyInPlace, the same states and
 * picks as with applyTrusted, so the result does not depend on which path ran. Each decision is
 * picked through Game.sampleLegal where the game has it (the same decision as from legal(),
 * without the list), else from legal(); either way the rng is drawn only when there is a choice.
 */
export function randomPlayout(game: AnyGame, state: unknown, rng: Rng, depth: number, bound: number): unknown {
  const limit = depth > 0 ? Math.min(depth, bound) : bound;
  const inPlace = limit >= IN_PLACE_MIN_DECISIONS && game.applyInPlace !== undefined && game.ownedCopy !== undefined && game.actor(state) !== "terminal";
  const choose = (n: number): number => (n === 1 ? 0 : rng.int(n));
  let s = inPlace ? game.ownedCopy?.(state) : state;
  for (let i = 0; i < limit; i++) {
    if (game.actor(s) === "terminal") break;
    let pick: unknown;
    if (game.sampleLegal !== undefined) pick = game.sampleLegal(s, choose);
    else {
      const legal = game.legal(s);
      pick = legal[choose(legal.length)];
    }
    s = inPlace ? game.applyInPlace?.(s, pick) : game.applyTrusted(s, pick);
  }
  return s;
}
