import { decisionKey, Rng, type AnyGame } from "../engine/core/index.ts";
import { applyOnSample, sampleWorld } from "./determinized.ts";
import type { DecisionRequest, Facilitatee } from "./facilitatee.ts";
import { changeCount, isPassive } from "./passive.ts";

/**
 * SandbagOpponent (the dcg design: an opponent that barely acts, a practice dummy). The same rule
 * for every game, so it needs no game's help:
 * 1. the first passive decision (pass, end turn, stop, confirm...: see passive.ts);
 * 2. otherwise the decision that changes the least: each candidate is applied to one state sampled
 *    from its own view, and the one whose resulting view (for its seat) differs in the fewest
 *    values wins; ties go to the earliest in the engine's order.
 * Deterministic for a given seed (the sample is drawn from its own stream).
 */
export class SandbagAgent implements Facilitatee {
  readonly name = "sandbag";
  private readonly rng: Rng;

  constructor(seed: number) {
    this.rng = Rng.seeded(seed);
  }

  decide(request: DecisionRequest): number {
    const { game, legal } = request;
    if (legal.length === 1) return 0;
    const passive = legal.findIndex(isPassive);
    if (passive >= 0) return passive;
    return leastChange(game, request, this.rng);
  }
}

function leastChange(game: AnyGame, request: DecisionRequest, rng: Rng): number {
  const { seat, view, legal } = request;
  const sample = sampleWorld(game, view, seat, rng);
  let best = 0;
  let bestChange = Infinity;
  for (let i = 0; i < legal.length; i++) {
    const after = applyOnSample(game, sample, decisionKey(legal[i]), () => game.describe(sample.state, legal[i]));
    const change = changeCount(view, game.view(after, seat));
    if (change < bestChange) {
      bestChange = change;
      best = i;
    }
  }
  return best;
}
