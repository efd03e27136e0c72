import type { Rng } from "../../engine/core/index.ts";
import type { AnyGame } from "../../engine/core/index.ts";
import { RANKS } from "../../engine/shephy/index.ts";
import type { ShephyState } from "../../engine/shephy/index.ts";
import type { Evaluator, EvaluatorOptions } from "./evaluator.ts";

/**
 * Shephy's evaluator. Random playouts of the solitaire almost never win, so they give the
 * computer no signal (every candidate scores -1). Instead: finish the pending effect's small
 * sub-decisions at random (a few times, averaged), then score the flock: the printed values of the
 * sheep on the field (a [1000] is the win), log-scaled so that growing a small flock still counts,
 * plus a little for the number of sheep. A won game scores WIN, a lost one -WIN.
 */
const WIN = 1000;
const SETTLE_STEPS = 16;

export function shephyValue(s: ShephyState): number {
  if (s.result === "win") return WIN;
  if (s.result === "loss") return -WIN;
  let v = 0;
  for (const r of s.field) v += Math.log10(RANKS[r]!) + 0.5;
  return v;
}

function settle(game: AnyGame, state: ShephyState, rng: Rng): ShephyState {
  let s = state;
  for (let i = 0; i < SETTLE_STEPS && s.pending !== null && s.result === null; i++) {
    const legal = game.legal(s);
    s = game.applyTrusted(s, legal[rng.int(legal.length)]) as ShephyState;
  }
  return s;
}

export function shephyEvaluator(options: EvaluatorOptions): Evaluator {
  const tries = Math.max(2, options.rollouts);
  return {
    name: "shephy",
    evaluate({ game, after, rng }) {
      const s = after as ShephyState;
      if (s.pending === null || s.result !== null) return shephyValue(s);
      let sum = 0;
      for (let i = 0; i < tries; i++) sum += shephyValue(settle(game, s, rng));
      return sum / tries;
    },
  };
}
