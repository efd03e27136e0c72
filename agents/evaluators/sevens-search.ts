import { must, Rng } from "../../engine/core/index.ts";
import { CARD_COUNT, sevens, type SevensDecision, type SevensState } from "../../engine/sevens/index.ts";
import { playoutEnd, playoutScore } from "./sevens-plan.ts";

/**
 * Open-loop UCT over one seat's own decisions in Killing Sevens, the other seats as chance.
 *
 * Against seats that choose uniformly among their legal moves, the value of a line of play is an
 * expectation over their choices, not a minimum: they are chance nodes. Each iteration takes a
 * world (`world()`: the real state, or a deal of the hidden cards sampled from the view), then
 * walks down from the root: at every other seat's turn it draws one legal move uniformly, at the
 * seat's own forced turns it plays the only move, and at its own choices it follows the tree.
 * The tree holds only the seat's own choices (open loop: a node is the sequence of its own moves
 * so far, whatever the others did in between), so statistics gather across chance outcomes and
 * deals; a move that is not legal in this iteration's position is skipped, and the exploration term
 * counts only the iterations in which the move was available (as in information-set MCTS). The
 * first untried move expands the tree by one node, and the careful playout of the sevens planner
 * scores the rest of the game (`playout`: the seat careful, the others uniform). The root's moves
 * are the request's, legal in every world.
 */

/** A move's code in a node: the card played, or PASS_CODE. */
const PASS_CODE = CARD_COUNT;
const CODES = CARD_COUNT + 1;

const codeOf = (d: SevensDecision): number => (d.kind === "play" ? d.card : PASS_CODE);

class SearchNode {
  readonly visits = new Float64Array(CODES);
  readonly total = new Float64Array(CODES);
  readonly avail = new Float64Array(CODES);
  readonly children: (SearchNode | undefined)[] = new Array<SearchNode | undefined>(CODES);
}

export interface SearchOptions {
  /** Iterations (worlds walked down the tree), at least 1. */
  readonly iterations: number;
  /** UCT exploration constant, on the scale of the rank reward (returns in [-1, 1]). */
  readonly exploration: number;
  /** How an end state is scored for the seat (default: the planner's playout score). */
  readonly score?: (end: SevensState) => number;
}

/** What the search found at the root: per legal move (request order), its visits and mean value. */
export interface RootStats {
  readonly visits: readonly number[];
  readonly means: readonly number[];
}

/**
 * Runs the search for `seat` from the worlds `world()` gives (each must have `seat` to move with
 * `legal` as its legal list) and returns the root statistics.
 */
export function searchRoot(world: () => SevensState, seat: number, legal: readonly SevensDecision[], options: SearchOptions, rng: Rng): RootStats {
  const root = new SearchNode();
  const path: SearchNode[] = [];
  const moves: number[] = [];
  for (let it = 0; it < options.iterations; it++) {
    path.length = 0;
    moves.length = 0;
    let s = world();
    let node: SearchNode | undefined = root;
    while (s.current >= 0 && node !== undefined) {
      const options_ = sevens.legal(s);
      if (s.current !== seat) {
        s = sevens.applyTrusted(s, must(options_[rng.int(options_.length)], "sevens search: a chance move"));
        continue;
      }
      if (options_.length === 1) {
        s = sevens.applyTrusted(s, must(options_[0], "sevens search: the forced move"));
        continue;
      }
      const pick = select(node, options_, options.exploration, rng);
      const code = codeOf(pick);
      path.push(node);
      moves.push(code);
      const fresh = node.visits[code] === 0;
      s = sevens.applyTrusted(s, pick);
      if (fresh) node = undefined;
      else node = node.children[code] ??= new SearchNode();
    }
    const end = playoutEnd(s, seat, rng, 0);
    const value = options.score ? options.score(end) : playoutScore(end, seat);
    for (let i = 0; i < path.length; i++) {
      const n = must(path[i], "sevens search: a node on the path");
      const code = must(moves[i], "sevens search: a move on the path");
      add(n.visits, code, 1);
      add(n.total, code, value);
    }
  }
  const codes = legal.map(codeOf);
  return {
    visits: codes.map((c) => must(root.visits[c], "sevens search: root visits")),
    means: codes.map((c) => {
      const v = must(root.visits[c], "sevens search: root visits");
      return v === 0 ? -Infinity : must(root.total[c], "sevens search: root total") / v;
    }),
  };
}

/** Adds `by` to a statistic of a node (indices are move codes, always in range). */
function add(stat: Float64Array, code: number, by: number): void {
  stat[code] = (stat[code] ?? 0) + by;
}

/** An untried available move at random, else the best UCB score (availability-counted). */
function select(node: SearchNode, legal: readonly SevensDecision[], c: number, rng: Rng): SevensDecision {
  let untried = 0;
  for (const d of legal) {
    const code = codeOf(d);
    add(node.avail, code, 1);
    if (node.visits[code] === 0) untried++;
  }
  if (untried > 0) {
    let k = rng.int(untried);
    for (const d of legal) if (node.visits[codeOf(d)] === 0 && k-- === 0) return d;
  }
  let best = must(legal[0], "sevens search: a legal move");
  let bestScore = -Infinity;
  for (const d of legal) {
    const code = codeOf(d);
    const v = must(node.visits[code], "visits");
    const score = must(node.total[code], "total") / v + c * Math.sqrt(Math.log(must(node.avail[code], "avail")) / v);
    if (score > bestScore) {
      bestScore = score;
      best = d;
    }
  }
  return best;
}

/** The root move to play: the most visited, ties by the higher mean, then the first. */
export function mostVisited(stats: RootStats): number {
  let best = 0;
  for (let i = 1; i < stats.visits.length; i++) {
    const v = must(stats.visits[i], "visits");
    const b = must(stats.visits[best], "visits");
    if (v > b || (v === b && must(stats.means[i], "mean") > must(stats.means[best], "mean"))) best = i;
  }
  return best;
}
