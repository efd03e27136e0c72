import { fastDecisionKey } from "../decision-key.ts";
import { sampleState } from "../determinized.ts";
import type { DecisionRequest } from "../facilitatee.ts";
import { shephy, type ShephyDecision, type ShephyState, type ShephyView } from "../../engine/shephy/index.ts";
import { must, type Rng } from "../../engine/core/index.ts";
import type { LevelTable } from "../levels.ts";
import type { Planner, PlannerOptions } from "./planner.ts";
import { shephyValue } from "./shephy.ts";
import { completions, plays, successors, type Move } from "./shephy-moves.ts";

/**
 * Shephy's planner: perfect-information sampling (PIMC) over whole plays.
 *
 * One ply of greedy play never wins the solitaire, while a search that knows the deck order wins
 * nearly every deal (a beam of 50 whole plays won 10 of 10 peeked deals). So at each card to play
 * the planner draws `samples` deck orders consistent with its view (game.determinize, its own
 * stream), and on each of them runs one beam search to the end of the game (or `horizon` plays)
 * from the states reached by every candidate move (a card with a full completion of its effect).
 * Each beam level keeps the `width` states of best heuristic value (the shephy evaluator's
 * `shephyValue`), each remembering the candidate it came from. A candidate scores 1 in a sample
 * where a win descends from it (a little more when sooner), else a small tie-break: surviving to
 * the deepest level with a good heuristic value. The candidate with the best mean is played, and
 * its remaining sub-decisions (the effect's choices) are followed without searching again as long
 * as the view is the one predicted.
 */
interface Tagged {
  readonly s: ShephyState;
  readonly root: number;
  /** What the root candidate reaches (reach[root], carried along). */
  readonly reach: Reach;
  readonly v: number;
}

/** Per candidate and sample: the earliest win level (Infinity: none), the deepest level, its best value. */
interface Reach {
  win: number;
  depth: number;
  value: number;
}

/** What identifies the player's situation in a view (the deck order is not in it). */
function viewKey(v: ShephyView | ShephyState): string {
  const p = v.pending;
  const deck = "deckSize" in v ? v.deckSize : v.deck.length;
  return `${v.field.join(".")}|${v.hand.join(".")}|${v.exile.join(".")}|${v.discard.length}.${deck}.${v.enemy}|${p === null ? "" : `${p.card}.${p.source}.${p.left}.${p.selected.join(".")}`}`;
}

export class ShephyPlanner implements Planner {
  private readonly options: PlannerOptions;
  /** The chosen move's decisions, each with the key of the view expected when it is due. */
  private plan: { key: string; decision: string }[] = [];

  constructor(options: PlannerOptions) {
    this.options = options;
  }

  decide(request: DecisionRequest, rng: Rng): number {
    const view = request.view as ShephyView;
    const legal = request.legal as readonly ShephyDecision[];
    const key = viewKey(view);
    // Follow the move chosen earlier: find the step expecting this view (forced steps are skipped
    // by the caller, so the plan may be ahead of the request).
    const at = this.plan.findIndex((p) => p.key === key);
    const step = at >= 0 ? this.plan[at] : undefined;
    if (step !== undefined) {
      const i = legal.findIndex((d) => fastDecisionKey(d) === step.decision);
      this.plan = this.plan.slice(at + 1);
      if (i >= 0) return i;
    }
    this.plan = [];
    const move = this.search(request, rng);
    // Record the expected view before each of its decisions (the same on every sample: effects
    // are decided on public information; draws happen only after the last one).
    let s = move.start;
    for (const d of move.decisions) {
      this.plan.push({ key: viewKey(s), decision: fastDecisionKey(d) });
      s = shephy.applyTrusted(s, d);
    }
    const first = must(this.plan.shift(), "shephy planner: the first decision of the chosen move");
    const i = legal.findIndex((d) => fastDecisionKey(d) === first.decision);
    if (i < 0) throw new Error(`shephy planner: planned "${first.decision}" is not legal`);
    return i;
  }

  private search(request: DecisionRequest, rng: Rng): { start: ShephyState; decisions: readonly ShephyDecision[] } {
    const { samples: count, width, horizon } = this.options;
    const samples: ShephyState[] = [];
    for (let j = 0; j < count; j++) samples.push(sampleState(request.game, request.view, request.seat, rng) as ShephyState);
    const s0 = must(samples[0], "shephy planner: a sampled state");
    const moves: Move[] = s0.pending === null ? plays(s0) : completions(s0);
    const pick = (i: number) => ({ start: s0, decisions: must(moves[i], "shephy planner: a candidate move").decisions });
    if (moves.length === 1) return pick(0);
    let score = new Array<number>(moves.length).fill(0);
    const limit = horizon > 0 ? horizon : Infinity;
    for (const sample of samples) {
      const reach = this.beam(sample, moves, width, limit);
      let deepest = 0;
      for (const r of reach) if (r.win === Infinity && r.depth > deepest) deepest = r.depth;
      score = score.map((x, i) => x + credit(must(reach[i], "shephy planner: a candidate's reach"), deepest));
    }
    // The first candidate of the best mean.
    let best = 0;
    score.forEach((x, i) => {
      if (x > must(score[best], "shephy planner: the best score")) best = i;
    });
    return pick(best);
  }

  /** One determinized beam search from every candidate's state: what each candidate reaches. */
  private beam(sample: ShephyState, moves: readonly Move[], width: number, limit: number): Reach[] {
    const seen = new Set<string>();
    let level: Tagged[] = [];
    const reach: Reach[] = moves.map((move, root) => {
      let s = sample;
      for (const d of move.decisions) s = shephy.applyTrusted(s, d);
      const r = { win: s.result === "win" ? 0 : Infinity, depth: -1, value: -Infinity };
      if (s.result === null) level.push({ s, root, reach: r, v: shephyValue(s) });
      return r;
    });
    for (let depth = 0; level.length > 0 && depth < limit; depth++) {
      // Stable order (value, then candidate) keeps the search deterministic.
      level.sort((a, b) => b.v - a.v || a.root - b.root);
      if (level.length > width) level.length = width;
      for (const { reach: r, v } of level) {
        if (depth > r.depth || (depth === r.depth && v > r.value)) {
          r.depth = depth;
          r.value = v;
        }
      }
      const next: Tagged[] = [];
      for (const t of level) {
        const r = t.reach;
        if (r.win < Infinity) continue;
        successors(t.s, seen, String.fromCharCode(t.root), (s) => {
          if (s.result === "win") {
            if (depth + 1 < r.win) r.win = depth + 1;
          } else if (s.result === null) next.push({ s, root: t.root, reach: r, v: shephyValue(s) });
        });
      }
      level = next;
    }
    return reach;
  }
}

/** A candidate's score on one sample: 1 for a win (more when sooner), else a small tie-break for surviving deepest with a good value. */
function credit(r: Reach, deepest: number): number {
  if (r.win < Infinity) return 1 + 0.01 / (1 + r.win);
  if (r.depth === deepest && r.depth >= 0) return 0.002 + 0.001 * Math.tanh(r.value / 1000);
  if (r.depth >= 0) return 0.0001 * (r.depth / (deepest + 1));
  return 0;
}

export function shephyPlanner(options: PlannerOptions): Planner {
  return new ShephyPlanner(options);
}

/**
 * Shephy's levels (docs/agents.md, measured): the planner wins more deals with more sampled deck
 * orders and a wider beam; playouts are unused. Level 1 also blunders.
 */
export const SHEPHY_LEVELS: LevelTable = {
  1: { dets: 2, rollouts: 1, beam: 4, blunder: 0.15 },
  2: { dets: 4, rollouts: 1, beam: 8, blunder: 0 },
  3: { dets: 8, rollouts: 1, beam: 12, blunder: 0 },
  4: { dets: 8, rollouts: 1, beam: 16, blunder: 0 },
  5: { dets: 16, rollouts: 1, beam: 16, blunder: 0 },
};
