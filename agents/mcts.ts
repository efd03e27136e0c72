import { Rng, type AnyGame, type Seat } from "../engine/core/index.ts";
import { gameEvaluator, randomPlayout, type Evaluator } from "./evaluators/index.ts";
import { sampleState } from "./determinized.ts";
import { fastDecisionKey } from "./decision-key.ts";
import type { DecisionRequest, Facilitatee } from "./facilitatee.ts";

export interface MctsOptions {
  /** Iterations per decision. With `ms` too, the iteration cap under the time budget. */
  readonly iters: number;
  /** Time budget per decision in milliseconds (makes play depend on machine speed). */
  readonly ms?: number;
  /** UCT exploration constant (returns are roughly in [-1, 1]). */
  readonly c: number;
  /** Playout depth cap in decisions; 0 = to the end (rollout leaves) or none at all (eval leaves). */
  readonly depth: number;
  /**
   * How a leaf is valued: "rollout" plays at random to the end (or the depth cap) and reads the
   * returns; "eval" plays `depth` random decisions and asks the game's evaluator for a value in
   * [-1, 1]; "auto" is "eval" for games whose evaluator has a value function (dcg), else "rollout".
   */
  readonly leaf: "auto" | "rollout" | "eval";
}

export const MCTS_DEFAULTS: MctsOptions = { iters: 400, c: 0.7, depth: 0, leaf: "auto" };

/** One decision out of a node; statistics are from the point of view of the seat that takes it. */
interface Edge {
  visits: number;
  total: number;
  /** Iterations in which this decision was legal (ISMCTS availability count). */
  avail: number;
  child: TreeNode | null;
}
/**
 * A node: its edges by decision key, plus the last legal list seen there and its edges in that
 * order. Successive samples usually offer the very same decisions at a node (always at the root,
 * whose decisions depend only on the view), so a cheap field-by-field comparison with the last list
 * replaces building and looking up every decision's canonical key (which dominated the profile).
 */
interface TreeNode {
  readonly byKey: Map<string, Edge>;
  lastLegal: readonly unknown[] | null;
  lastEdges: Edge[] | null;
}
const newNode = (): TreeNode => ({ byKey: new Map(), lastLegal: null, lastEdges: null });

/** Same plain decision: same own keys with identical primitive values (nested values: by key). */
function sameDecision(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (a === null || b === null || typeof a !== "object" || typeof b !== "object") return false;
  const x = a as Record<string, unknown>;
  const y = b as Record<string, unknown>;
  let n = 0;
  for (const k in x) {
    const v = x[k];
    const w = y[k];
    if (v !== w && (typeof v !== "object" || v === null || fastDecisionKey(v) !== fastDecisionKey(w))) return false;
    n++;
  }
  for (const _ in y) n--;
  return n === 0;
}

function sameLegal(a: readonly unknown[], b: readonly unknown[]): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (!sameDecision(a[i], b[i])) return false;
  return true;
}

/** The node's edges for this legal list, in its order (created on first sight). */
function edgesFor(node: TreeNode, legal: readonly unknown[]): Edge[] {
  if (node.lastLegal !== null && sameLegal(node.lastLegal, legal)) return node.lastEdges!;
  const edges: Edge[] = new Array(legal.length);
  for (let i = 0; i < legal.length; i++) {
    const key = fastDecisionKey(legal[i]);
    let e = node.byKey.get(key);
    if (!e) {
      e = { visits: 0, total: 0, avail: 0, child: null };
      node.byKey.set(key, e);
    }
    edges[i] = e;
  }
  node.lastLegal = legal;
  node.lastEdges = edges;
  return edges;
}

/**
 * Single-observer information-set MCTS (Cowling, Powley & Whitehouse 2012). Every iteration
 * samples a fresh full state from the agent's own view (game.determinize, own seeded stream),
 * walks the tree keyed by decision identity, choosing by UCB1 with availability counts among the
 * decisions legal in that sample, expands one edge, plays uniformly at random to the end and backs
 * up each seat's return to the edges that seat chose. Chance stays inside apply: each sample
 * carries its own RNG, so chance outcomes are re-drawn per iteration. The root plays the most
 * visited decision. An iteration budget is deterministic; a time budget is not.
 */
export class MctsAgent implements Facilitatee {
  readonly name: string;
  private readonly rng: Rng;
  private readonly options: MctsOptions;
  /** Iterations run by the last decide (bench reads it). */
  lastIterations = 0;

  constructor(seed: number, options: Partial<MctsOptions> = {}, name = "mcts") {
    this.rng = Rng.seeded(seed);
    this.options = { ...MCTS_DEFAULTS, ...options };
    this.name = name;
  }

  decide(request: DecisionRequest): number {
    const { game, seat, view, legal } = request;
    this.lastIterations = 0;
    if (legal.length === 1) return 0;
    this.leafValue = this.resolveLeaf(game);
    const root: TreeNode = newNode();
    const { iters, ms } = this.options;
    const start = ms === undefined ? 0 : performance.now();
    const cap = ms === undefined ? iters : Math.max(iters, 1);
    let n = 0;
    for (; n < cap; n++) {
      // Check the clock every 8 iterations: reading it costs as much as a short playout step.
      if (ms !== undefined && n > 0 && (n & 7) === 0 && performance.now() - start >= ms) break;
      this.iterate(game, view, seat, root);
    }
    this.lastIterations = n;
    let best = 0;
    let bestVisits = -1;
    let bestMean = -Infinity;
    for (let i = 0; i < legal.length; i++) {
      const e = root.byKey.get(fastDecisionKey(legal[i]));
      const visits = e?.visits ?? 0;
      const mean = e && e.visits > 0 ? e.total / e.visits : -Infinity;
      if (visits > bestVisits || (visits === bestVisits && mean > bestMean)) {
        best = i;
        bestVisits = visits;
        bestMean = mean;
      }
    }
    return best;
  }

  private leafValue: Evaluator["value"] | null = null;

  private resolveLeaf(game: AnyGame): Evaluator["value"] | null {
    if (this.options.leaf === "rollout") return null;
    const value = gameEvaluator(game.info.id)?.({ rollouts: 1, depth: 0 }).value;
    if (!value) {
      if (this.options.leaf === "eval") throw new Error(`mcts: ${game.info.id} has no evaluator value function (use leaf=rollout)`);
      return null;
    }
    return value;
  }

  private iterate(game: AnyGame, view: unknown, seat: Seat, root: TreeNode): void {
    const rng = this.rng;
    let state = sampleState(game, view, seat, rng);
    const path: { edge: Edge; actor: Seat }[] = [];
    let node: TreeNode | null = root;
    const c = this.options.c;
    while (node !== null) {
      const actor = game.actor(state);
      if (actor === "terminal") break;
      const legal = game.legal(state);
      let chosen = -1;
      let chosenEdge: Edge;
      let unvisited = 0;
      let bestUcb = -Infinity;
      const edges = edgesFor(node, legal);
      for (let i = 0; i < edges.length; i++) {
        const e = edges[i]!;
        e.avail++;
        if (e.visits === 0) unvisited++;
      }
      if (unvisited > 0) {
        // Expand: a uniformly chosen untried decision, then leave the tree.
        let k = unvisited === 1 ? 0 : rng.int(unvisited);
        for (let i = 0; i < legal.length; i++) {
          if (edges[i]!.visits === 0 && k-- === 0) {
            chosen = i;
            break;
          }
        }
        chosenEdge = edges[chosen]!;
        state = game.applyTrusted(state, legal[chosen]);
        path.push({ edge: chosenEdge, actor });
        chosenEdge.child ??= newNode();
        break;
      }
      for (let i = 0; i < legal.length; i++) {
        const e = edges[i]!;
        const ucb = e.total / e.visits + c * Math.sqrt(Math.log(e.avail) / e.visits);
        if (ucb > bestUcb) {
          bestUcb = ucb;
          chosen = i;
        }
      }
      chosenEdge = edges[chosen]!;
      state = game.applyTrusted(state, legal[chosen]);
      path.push({ edge: chosenEdge, actor });
      chosenEdge.child ??= newNode();
      node = chosenEdge.child;
    }
    const value = this.leafValue;
    if (value && game.actor(state) !== "terminal") {
      const end = this.options.depth > 0 ? randomPlayout(game, state, rng, this.options.depth, this.options.depth) : state;
      const cache: number[] = [];
      for (const { edge, actor } of path) {
        edge.visits++;
        edge.total += cache[actor] ??= value(game, end, actor);
      }
      return;
    }
    const end = randomPlayout(game, state, rng, this.options.depth, game.maxDecisions(game.config(state)));
    const r = game.returns(end);
    for (const { edge, actor } of path) {
      edge.visits++;
      edge.total += r[actor]!;
    }
  }
}
