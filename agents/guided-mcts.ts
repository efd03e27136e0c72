import { must, Rng, type AnyGame, type Seat } from "../engine/core/index.ts";
import { sampleState } from "./determinized.ts";
import { fastDecisionKey } from "./decision-key.ts";
import { gameEvaluator, randomPlayout, type Evaluator } from "./evaluators/index.ts";
import type { DecisionRequest, Facilitatee, TimedDecision } from "./facilitatee.ts";
import type { PolicyModel } from "./onnx/policy-model.ts";
import type { PolicyAdapter } from "./policy-adapter.ts";

export interface GuidedMctsOptions {
  /** Iterations (network-valued leaves) per decision. */
  readonly iters: number;
  /** PUCT exploration constant. */
  readonly cpuct: number;
  /**
   * Share of uniform noise mixed into the root's priors (0 at the table; self-play uses some so
   * that the search keeps trying decisions the network already dismisses).
   */
  readonly rootNoise: number;
  /**
   * Leaf values: the network's value output ("net"; the game's evaluator without one), always the
   * evaluator ("eval"), or the evaluator a few plies ahead ("ply": the seat to act at the leaf
   * plays its best child by the evaluator, up to `plies` of its own consecutive decisions, and the
   * last state reached is valued).
   */
  readonly value: "net" | "eval" | "ply";
  /** With value=ply: how many of the leaf actor's own consecutive decisions the look-ahead plays. */
  readonly plies: number;
  /** Softmax temperature of the priors (above 1 flattens a confident network's prior). */
  readonly ptemp: number;
  /**
   * Progressive bias from the game's evaluator: when a node is expanded, each legal decision's
   * child is valued by the evaluator (for the seat to act) and its prior multiplied by
   * exp(eprior * value), then renormalised. 0 leaves the network's prior alone (no evaluator calls).
   */
  readonly eprior: number;
  /** An unvisited edge's Q is the evaluator's value of its child (from the expanding sample) instead of 0. */
  readonly efpu: boolean;
  /**
   * The evaluator values a state after settling it for the seat that just decided (its
   * settledValue, where it has one: dcg passes the opponent's pending reactions), at the leaves
   * (value=eval) and for eprior and efpu's children.
   */
  readonly esettle: boolean;
  /**
   * A short rollout at each new leaf (value=eval only): `depth` decisions are played from it before
   * the evaluator values the state reached (a terminal state by its returns); 0 = none.
   */
  readonly depth: number;
  /**
   * Who plays the rollout's decisions: uniformly at random ("random"), or the network's policy
   * ("net": sampled from the softmax of its logits at temperature 1, one network run per decision;
   * the first decision reuses the leaf's own run).
   */
  readonly rollout: "random" | "net";
}

export const GUIDED_DEFAULTS: GuidedMctsOptions = {
  iters: 400,
  cpuct: 1.5,
  rootNoise: 0,
  value: "eval",
  ptemp: 4,
  eprior: 0,
  efpu: false,
  esettle: false,
  plies: 1,
  depth: 0,
  rollout: "random",
};

/** Where the leaf values of the last decision came from (tests and the training script read it). */
export interface GuidedStats {
  iterations: number;
  /** Leaves valued by the network's value output. */
  netValues: number;
  /** Leaves valued by the game's evaluator (a model without a value output). */
  evalValues: number;
  /** Leaves that were terminal (valued by the game's returns). */
  terminal: number;
  /** Children valued by the evaluator (eprior's priors, efpu's first-play values, value=ply's look-ahead). */
  childValues: number;
  /** Leaves valued after a rollout (depth > 0). */
  rollouts: number;
  /** Network runs made inside rollouts (rollout=net). */
  rolloutRuns: number;
}

interface Edge {
  visits: number;
  total: number;
  /** Iterations in which this decision was legal (ISMCTS availability count). */
  avail: number;
  /** The network's prior among the decisions legal when the edge was first seen; NaN until then. */
  prior: number;
  /** The evaluator's value of the child for the seat choosing the edge, from the sample that expanded it (NaN when not computed). */
  firstValue: number;
  child: TreeNode | null;
}

interface TreeNode {
  readonly byKey: Map<string, Edge>;
  expanded: boolean;
}

const newNode = (): TreeNode => ({ byKey: new Map(), expanded: false });

/**
 * The time one decision's own code runs (see GuidedMctsAgent.decideTimed). Other games' code runs
 * only while the search is suspended at an await, so the search pauses this before each await
 * and at the exit of each of its async steps (their caller resumes after a microtask hop, during
 * which other games may run), and resumes after each await.
 */
class OwnTime {
  ms = 0;
  private since: number | null;

  constructor(private readonly now: () => number) {
    this.since = now();
  }

  pause(): void {
    if (this.since === null) return;
    this.ms += this.now() - this.since;
    this.since = null;
  }

  resume(): void {
    this.since ??= this.now();
  }
}

const NO_STATS: Readonly<GuidedStats> = { iterations: 0, netValues: 0, evalValues: 0, terminal: 0, childValues: 0, rollouts: 0, rolloutRuns: 0 };

/** A value the model produced, made safe: NaN and infinities count as 0, the rest is clamped to [-1, 1]. */
export function saneValue(v: number): number {
  return Number.isFinite(v) ? Math.max(-1, Math.min(1, v)) : 0;
}

/**
 * Determinized MCTS guided by a policy-value network (PUCT, as in AlphaZero, over the
 * information-set tree of single-observer ISMCTS). Each iteration samples a full state from the
 * agent's own view with its own stream, walks the tree choosing
 * Q + cpuct * P * sqrt(avail) / (1 + visits) among the decisions legal in that sample, and at the
 * first unexpanded node asks the network once: the softmax of its logits over the legal ids
 * becomes the node's priors, its value output (for the seat to act there) the leaf's value. A
 * model without a value output leaves the value to the game's evaluator. Values are backed up
 * as a two-seat zero-sum game (the other seat gets the negation). The root plays its most
 * visited decision; `lastVisits` keeps the root's visit counts per legal index (the training
 * target of expert iteration).
 */
export class GuidedMctsAgent implements Facilitatee {
  readonly name: string;
  private readonly rng: Rng;
  private readonly options: GuidedMctsOptions;
  private obs: Float32Array;
  private evaluator: Evaluator | null | undefined;
  /** While decideTimed runs: the decision's own time and its share of the network runs. */
  private own: { time: OwnTime; modelSeconds: number } | null = null;
  lastVisits: number[] = [];
  /** The root's prior per legal index after the last decision (NaN for a decision never seen). */
  lastPriors: number[] = [];
  /** The root's mean backed-up value per legal index after the last decision (NaN for an unvisited decision). */
  lastValues: number[] = [];
  readonly lastStats: GuidedStats = { ...NO_STATS };

  constructor(
    private readonly model: PolicyModel,
    private readonly adapter: PolicyAdapter,
    seed: number,
    options: Partial<GuidedMctsOptions> = {},
    name = "mcts",
    /** Milliseconds, for decideTimed (tests inject a clock). */
    private readonly now: () => number = () => performance.now(),
  ) {
    this.rng = Rng.seeded(seed);
    this.options = { ...GUIDED_DEFAULTS, ...options };
    this.name = name;
    this.obs = new Float32Array(adapter.observation.size);
  }

  async ready(): Promise<void> {
    await this.model.ready();
  }

  /**
   * The decision, with the work it cost: the search's own time (its code between awaits; other
   * games' searches interleave at those awaits when the arena plays games concurrently) plus its
   * share of each batched network run, never the time it waits for other games.
   */
  async decideTimed(request: DecisionRequest): Promise<TimedDecision> {
    const own = { time: new OwnTime(this.now), modelSeconds: 0 };
    this.own = own;
    try {
      const index = await this.decide(request); // decide pauses the time at its exit
      return { index, seconds: own.time.ms / 1000 + own.modelSeconds };
    } finally {
      this.own = null;
    }
  }

  async decide(request: DecisionRequest): Promise<number> {
    try {
      const { game, seat, view, legal } = request;
      Object.assign(this.lastStats, NO_STATS);
      this.lastVisits = legal.map(() => 0);
      this.lastPriors = legal.map(() => NaN);
      this.lastValues = legal.map(() => NaN);
      if (legal.length === 1) {
        this.lastVisits[0] = 1;
        this.lastPriors[0] = 1;
        return 0;
      }
      const seats = (game.config(sampleState(game, view, seat, this.rng)) as { seats?: unknown }).seats;
      if (seats !== 2) throw new Error(`mcts with a policy values leaves as a two-seat zero-sum game; this ${game.info.id} game has ${String(seats)} seats`);
      const root = newNode();
      for (let n = 0; n < this.options.iters; n++) {
        const step = this.iterate(game, view, seat, root);
        this.own?.time.pause();
        await step;
        this.own?.time.resume();
      }
      this.lastStats.iterations = this.options.iters;
      // An edge never tried has no entry: 0 visits. The first of the most visited is played.
      const rootEdges = legal.map((d) => root.byKey.get(fastDecisionKey(d)));
      this.lastVisits = rootEdges.map((e) => e?.visits ?? 0);
      this.lastPriors = rootEdges.map((e) => e?.prior ?? NaN);
      this.lastValues = rootEdges.map((e) => (e && e.visits > 0 ? e.total / e.visits : NaN));
      let best = 0;
      let most = -Infinity;
      this.lastVisits.forEach((visits, i) => {
        if (visits > most) {
          most = visits;
          best = i;
        }
      });
      return best;
    } finally {
      // decideTimed resumes after a microtask hop, in which other games' searches may run.
      this.own?.time.pause();
    }
  }

  private async iterate(game: AnyGame, view: unknown, seat: Seat, root: TreeNode): Promise<void> {
    try {
      let state = sampleState(game, view, seat, this.rng);
      const path: { edge: Edge; actor: Seat }[] = [];
      let node = root;
      for (;;) {
        const actor = game.actor(state);
        if (actor === "terminal") {
          this.lastStats.terminal++;
          const r = game.returns(state);
          for (const { edge, actor: a } of path) {
            edge.visits++;
            edge.total += must(r[a], "mcts: the return of a seat on the path");
          }
          return;
        }
        const legal = game.legal(state);
        const edges = legal.map((d) => {
          const key = fastDecisionKey(d);
          let e = node.byKey.get(key);
          if (!e) {
            e = { visits: 0, total: 0, avail: 0, prior: NaN, firstValue: NaN, child: null };
            node.byKey.set(key, e);
          }
          return e;
        });
        const needsPrior = edges.some((e) => Number.isNaN(e.prior));
        if (!node.expanded || needsPrior) {
          const expanding = this.expand(game, state, actor, legal, edges, node === root);
          this.own?.time.pause();
          const { net, logits, children } = await expanding;
          this.own?.time.resume();
          if (!node.expanded) {
            node.expanded = true;
            if (path.length > 0) {
              const mover = must(path.at(-1), "mcts: the edge into the leaf").actor;
              let value: number;
              if (this.options.depth > 0) {
                const rolling = this.rolloutValue(game, state, legal, logits, actor);
                this.own?.time.pause();
                value = await rolling;
                this.own?.time.resume();
              } else value = this.leafValue(game, state, legal, actor, mover, net, children);
              this.backup(path, actor, value);
              return;
            }
          }
        }
        let chosen = 0;
        let bestScore = -Infinity;
        const efpu = this.options.efpu;
        edges.forEach((e, i) => {
          e.avail++;
          const q = e.visits > 0 ? e.total / e.visits : efpu && !Number.isNaN(e.firstValue) ? e.firstValue : 0;
          const score = q + (this.options.cpuct * e.prior * Math.sqrt(e.avail)) / (1 + e.visits);
          if (score > bestScore) {
            bestScore = score;
            chosen = i;
          }
        });
        const edge = must(edges[chosen], "mcts: the chosen edge");
        path.push({ edge, actor });
        state = game.applyTrusted(state, legal[chosen]);
        edge.child ??= newNode();
        node = edge.child;
      }
    } finally {
      // The caller resumes after a microtask hop, in which other games' searches may run.
      this.own?.time.pause();
    }
  }

  /**
   * Gives the edges that have no prior yet theirs (the network's, biased by eprior) and returns
   * the network's value and logits over `legal` and, where eprior, efpu or value=ply need them,
   * the children's values.
   */
  private async expand(
    game: AnyGame,
    state: unknown,
    actor: Seat,
    legal: readonly unknown[],
    edges: readonly Edge[],
    atRoot: boolean,
  ): Promise<{ net: number | null; logits: number[]; children: number[] | null }> {
    try {
      const asking = this.ask(game, state, actor, legal);
      this.own?.time.pause();
      const asked = await asking;
      this.own?.time.resume();
      const { eprior, efpu, value, rootNoise } = this.options;
      const children = eprior > 0 || efpu || value === "ply" ? this.childValues(game, state, actor, legal, edges) : null;
      const priors = children !== null && eprior > 0 ? biasedPriors(asked.priors, children, eprior) : asked.priors;
      const noise = atRoot ? rootNoise : 0;
      edges.forEach((e, i) => {
        if (Number.isNaN(e.prior)) e.prior = (1 - noise) * must(priors[i], "mcts: the prior of a legal decision") + noise / edges.length;
      });
      return { net: asked.value, logits: asked.logits, children };
    } finally {
      // The caller resumes after a microtask hop, in which other games' searches may run.
      this.own?.time.pause();
    }
  }

  /**
   * A new leaf's value for `actor` after a rollout of up to `depth` decisions from it (fewer if the
   * game ends): the evaluator's value of the state reached, or its returns if terminal. With
   * rollout=net each decision is sampled from the network's policy at temperature 1; the leaf's
   * own run (`leafLogits`, over `leafLegal`) serves the first.
   */
  private async rolloutValue(game: AnyGame, leaf: unknown, leafLegal: readonly unknown[], leafLogits: readonly number[], actor: Seat): Promise<number> {
    try {
      const { depth, rollout } = this.options;
      this.lastStats.rollouts++;
      let end = leaf;
      if (rollout === "random") end = randomPlayout(game, leaf, this.rng, depth, depth);
      else {
        let legal = leafLegal;
        let logits = leafLogits;
        for (let step = 0; step < depth; step++) {
          if (step > 0) {
            const seat = game.actor(end);
            if (seat === "terminal") break;
            legal = game.legal(end);
            if (legal.length > 1) {
              this.lastStats.rolloutRuns++;
              const asking = this.ask(game, end, seat, legal);
              this.own?.time.pause();
              logits = (await asking).logits;
              this.own?.time.resume();
            }
          }
          end = game.applyTrusted(end, legal[legal.length === 1 ? 0 : sampleSoftmax(logits, this.rng)]);
        }
      }
      if (game.actor(end) === "terminal") {
        this.lastStats.terminal++;
        return must(game.returns(end)[actor], "mcts: the return of the leaf's actor");
      }
      this.lastStats.evalValues++;
      return this.staticValue(game, end, actor, actor);
    } finally {
      // The caller resumes after a microtask hop, in which other games' searches may run.
      this.own?.time.pause();
    }
  }

  /** A new leaf's value for `actor` (reached by `mover`'s decision), from the source `value` names. */
  private leafValue(
    game: AnyGame,
    state: unknown,
    legal: readonly unknown[],
    actor: Seat,
    mover: Seat,
    net: number | null,
    children: readonly number[] | null,
  ): number {
    if (this.options.value === "ply" && children !== null) {
      this.lastStats.evalValues++;
      return this.greedyValue(game, state, legal, actor, children);
    }
    return net === null || this.options.value !== "net" ? this.evalValue(game, state, actor, mover) : this.netValue(net);
  }

  /**
   * The look-ahead of value=ply from a leaf whose legal decisions `leafLegal` have children valued `children` (for `actor`):
   * `actor` plays its best child, and again while it is still to act, `plies` decisions at most;
   * the value of the last child taken.
   */
  private greedyValue(game: AnyGame, leaf: unknown, leafLegal: readonly unknown[], actor: Seat, children: readonly number[]): number {
    let state = leaf;
    let legal = leafLegal;
    let values = children;
    for (let ply = 1; ; ply++) {
      let best = 0;
      values.forEach((v, i) => {
        if (v > must(values[best], "mcts: the best child's value")) best = i;
      });
      const value = must(values[best], "mcts: the best child's value");
      if (ply >= this.options.plies) return value;
      state = game.applyTrusted(state, legal[best]);
      if (game.actor(state) !== actor) return value;
      legal = game.legal(state);
      values = legal.map((d) => {
        this.lastStats.childValues++;
        return this.staticValue(game, game.applyTrusted(state, d), actor, actor);
      });
    }
  }

  /** Adds the leaf's value, for the seat `leafActor`, to every edge of the path (zero-sum). */
  private backup(path: readonly { edge: Edge; actor: Seat }[], leafActor: Seat, value: number): void {
    for (const { edge, actor } of path) {
      edge.visits++;
      edge.total += actor === leafActor ? value : -value;
    }
  }

  /** The network's priors over `legal` (softmax of the legal ids' logits at ptemp), those logits, and its value, if any. */
  private async ask(
    game: AnyGame,
    state: unknown,
    actor: Seat,
    legal: readonly unknown[],
  ): Promise<{ priors: number[]; logits: number[]; value: number | null }> {
    try {
      const view = game.view(state, actor);
      const { actions, observation } = this.adapter;
      const ids = legal.map((d) => {
        const id = actions.encode(view, d);
        if (!Number.isInteger(id) || id < 0 || id >= actions.size)
          throw new Error(`mcts: the action codec mapped a legal decision to ${id}, outside [0, ${actions.size})`);
        return id;
      });
      const obs = this.obs;
      obs.fill(0);
      observation.encode(view, obs);
      const running = this.model.inferWithValue(obs);
      this.own?.time.pause();
      const { logits, value, seconds } = await running;
      this.own?.time.resume();
      if (this.own) this.own.modelSeconds += seconds;
      // The ids are checked against the action space, which the model's output matches (checked at load).
      const xs = ids.map((id) => must(logits[id], "mcts: the logit of a legal action"));
      return { priors: softmax(xs, this.options.ptemp), logits: xs, value };
    } finally {
      // The caller resumes after a microtask hop, in which other games' searches may run.
      this.own?.time.pause();
    }
  }

  /**
   * The evaluator's value, for `actor`, of the state each legal decision leads to in this sample
   * (0 without an evaluator). Edges that have none yet keep theirs as their first-play value.
   */
  private childValues(game: AnyGame, state: unknown, actor: Seat, legal: readonly unknown[], edges: readonly Edge[]): number[] {
    return legal.map((d, i) => {
      this.lastStats.childValues++;
      const v = this.staticValue(game, game.applyTrusted(state, d), actor, actor);
      const e = must(edges[i], "mcts: the edge of a legal decision");
      if (Number.isNaN(e.firstValue)) e.firstValue = v;
      return v;
    });
  }

  private evaluatorOf(game: AnyGame): Evaluator | null {
    if (this.evaluator === undefined) this.evaluator = gameEvaluator(game.info.id)?.({ rollouts: 1, depth: 0 }) ?? null;
    return this.evaluator;
  }

  private netValue(raw: number): number {
    this.lastStats.netValues++;
    return saneValue(raw);
  }

  /** A leaf's value without a value output: the game's evaluator, else 0 (no information). */
  private evalValue(game: AnyGame, state: unknown, actor: Seat, mover: Seat): number {
    this.lastStats.evalValues++;
    return this.staticValue(game, state, actor, mover);
  }

  /**
   * The evaluator's value of `state` for `seat` (0 without one). With esettle, the state is first
   * settled for `mover`, the seat whose decision led to it; for the other seat of the two the value
   * is then the negation of the mover's (the zero-sum backup's convention).
   */
  private staticValue(game: AnyGame, state: unknown, seat: Seat, mover: Seat): number {
    const evaluator = this.evaluatorOf(game);
    if (this.options.esettle && evaluator?.settledValue) {
      const v = saneValue(evaluator.settledValue(game, state, mover));
      return mover === seat ? v : -v;
    }
    return evaluator?.value ? saneValue(evaluator.value(game, state, seat)) : 0;
  }
}

/**
 * Progressive bias: each prior times exp(beta * its child's value), renormalised (the values are
 * shifted by their maximum first, so that the weights cannot overflow).
 */
export function biasedPriors(priors: readonly number[], childValues: readonly number[], beta: number): number[] {
  const top = Math.max(...childValues);
  const weights = priors.map((p, i) => p * Math.exp(beta * (must(childValues[i], "mcts: the value of a legal decision's child") - top)));
  const sum = weights.reduce((a, b) => a + b, 0);
  return sum > 0 && Number.isFinite(sum) ? weights.map((w) => w / sum) : [...priors];
}

/** The softmax of `logits` at temperature `temp`; uniform where the logits give no usable weights (NaN, infinities). */
export function softmax(logits: readonly number[], temp: number): number[] {
  let max = -Infinity;
  for (const x of logits) if (x > max) max = x;
  const weights = logits.map((x) => (Number.isFinite(max) && !Number.isNaN(x) ? Math.exp((x - max) / temp) : 1));
  const sum = weights.reduce((a, b) => a + b, 0);
  return sum > 0 && Number.isFinite(sum) ? weights.map((w) => w / sum) : logits.map(() => 1 / logits.length);
}

/** An index drawn from the softmax of `logits` at temperature 1 with `rng` (one draw). */
export function sampleSoftmax(logits: readonly number[], rng: Rng): number {
  const p = softmax(logits, 1);
  let u = rng.nextFloat();
  for (let i = 0; i < p.length; i++) {
    u -= must(p[i], "mcts: a probability of the softmax");
    if (u < 0) return i;
  }
  return p.length - 1;
}
