import { must, Rng } from "../../engine/core/index.ts";
import { CARD_COUNT, sevens, type SevensDecision, type SevensState, type SevensView } from "../../engine/sevens/index.ts";
import { sampleState } from "../determinized.ts";
import type { DecisionRequest } from "../facilitatee.ts";
import type { LevelTable } from "../levels.ts";
import type { Planner, PlannerOptions } from "./planner.ts";
import { mostVisited, searchRoot } from "./sevens-search.ts";

/**
 * Killing Sevens' planner: determinized rollouts with a careful own policy.
 *
 * A card dies in its holder's hand when the empty region around its cell gets enclosed, so what a
 * play costs shows only several turns later, after other seats have filled the cells around. One
 * ply scored by uniform random playouts (the generic computer) plays its own later turns at random
 * too, and so blames a good play for the blunders its own future self makes in the playout. Here
 * every candidate is scored on `samples` deals of the hidden cards consistent with the view (the
 * same deals and playout seeds for every candidate), `rollouts` playouts each, in which the other
 * seats play uniformly at random and the seat itself plays `carefulPlay`: never a card that
 * encloses one of its own cards when another play does not, else the play that kills the most of
 * the others' cards, ties at random. A playout scores the seat's final rank reward (the game's
 * return: every seat beaten counts the same), plus a small bonus per card fewer killed so that
 * among equally ranked lines the cheaper one wins. The best mean is played.
 *
 * With `iterations` > 0 it runs the deeper search of `sevens-search.ts` instead: open-loop UCT over
 * its own moves, every iteration on a fresh deal of the hidden cards, the other seats as uniform
 * chance, the same careful playouts below the tree.
 */
export class SevensPlanner implements Planner {
  private readonly options: PlannerOptions;

  constructor(options: PlannerOptions) {
    this.options = options;
  }

  decide(request: DecisionRequest, rng: Rng): number {
    const legal = request.legal as readonly SevensDecision[];
    if (legal.length === 1) return 0;
    const seat = request.seat;
    const view = request.view as SevensView;
    if (this.options.iterations > 0) {
      const world = () => sampleState(sevens, view, seat, rng) as SevensState;
      return mostVisited(searchRoot(world, seat, legal, { iterations: this.options.iterations, exploration: SEARCH_EXPLORATION }, rng));
    }
    const samples: SevensState[] = [];
    for (let i = 0; i < this.options.samples; i++) samples.push(sampleState(sevens, view, seat, rng) as SevensState);
    // Every deal's playout seeds, drawn after all the deals.
    const deals = samples.map((sample) => ({ sample, seeds: Array.from({ length: this.options.rollouts }, () => rng.nextU32()) }));
    return bestIndex(
      legal,
      (decision) => {
        let sum = 0;
        for (const { sample, seeds } of deals) {
          const after = sevens.applyTrusted(sample, decision);
          for (const seed of seeds) sum += playout(after, seat, Rng.seeded(seed), this.options.horizon);
        }
        return sum;
      },
      rng,
    );
  }
}

/** UCT's exploration constant for the deeper search (0.3 and 1.5 measured no better, docs/agents.md). */
export const SEARCH_EXPLORATION = 0.7;

/** Small bonus per own card that survives, below the gap between two ranks (0.5 at 5 seats). */
const SURVIVOR_BONUS = 0.01;

/** Plays to the end (or `horizon` decisions) and scores the result for `seat`. */
export function playout(state: SevensState, seat: number, rng: Rng, horizon: number): number {
  return playoutScore(playoutEnd(state, seat, rng, horizon), seat);
}

/** The state a careful playout for `seat` ends in (the end of the game, or after `horizon` decisions). */
export function playoutEnd(state: SevensState, seat: number, rng: Rng, horizon: number): SevensState {
  let s = state;
  const limit = horizon > 0 ? horizon : sevens.maxDecisions(s.config);
  for (let step = 0; step < limit && s.current >= 0; step++) {
    const legal = sevens.legal(s);
    const pick = legal.length === 1 ? 0 : s.current === seat ? carefulPlay(s, legal, rng) : rng.int(legal.length);
    s = sevens.applyTrusted(s, must(legal[pick], "sevens playout: the picked decision"));
  }
  return s;
}

/** A playout's score for `seat`: its rank reward at the end (0 before), minus the survivor bonus per own card killed. */
export function playoutScore(s: SevensState, seat: number): number {
  const rank = s.current < 0 ? must(sevens.returns(s)[seat], "sevens playout: the seat's return") : 0;
  return rank - SURVIVOR_BONUS * must(s.killed[seat], "sevens playout: the seat's killed cards");
}

/**
 * The seat's own move in a playout: the plays that lose the fewest own cards at once, among them
 * those killing the most of the other seats' cards, ties at random.
 */
export function carefulPlay(s: SevensState, legal: readonly SevensDecision[], rng: Rng): number {
  const seat = s.current;
  const killed = must(s.killed[seat], "careful play: the seat's killed cards");
  const kills = must(s.kills[seat], "careful play: the seat's kills");
  return bestIndex(
    legal,
    (decision) => {
      const after = sevens.applyTrusted(s, decision);
      return (
        -CARD_COUNT * (must(after.killed[seat], "careful play: the seat's killed cards") - killed) +
        (must(after.kills[seat], "careful play: the seat's kills") - kills)
      );
    },
    rng,
  );
}

/** The index in `items` of the highest score, ties broken by `rng`. */
function bestIndex<T>(items: readonly T[], score: (item: T) => number, rng: Rng): number {
  let best: number[] = [];
  let bestScore = -Infinity;
  items.forEach((item, i) => {
    const v = score(item);
    if (v > bestScore) {
      bestScore = v;
      best = [i];
    } else if (v === bestScore) best.push(i);
  });
  return must(best.length === 1 ? best[0] : best[rng.int(best.length)], "bestIndex: a best item (scores are never NaN)");
}

export const sevensPlanner = (options: PlannerOptions): Planner => new SevensPlanner(options);

/**
 * Sevens' levels (docs/agents.md, measured): levels 1 and 2 are small searches that blunder, the
 * others more samples and playouts of the planner (beam is unused here).
 */
export const SEVENS_LEVELS: LevelTable = {
  1: { dets: 2, rollouts: 1, beam: 1, blunder: 0.5 },
  2: { dets: 4, rollouts: 1, beam: 1, blunder: 0.15 },
  3: { dets: 32, rollouts: 2, beam: 1, blunder: 0 },
  4: { dets: 64, rollouts: 2, beam: 1, blunder: 0 },
  5: { dets: 128, rollouts: 4, beam: 1, blunder: 0 },
};
