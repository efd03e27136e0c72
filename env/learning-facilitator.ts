import type { DecisionRequest, Facilitatee } from "../agents/facilitatee.ts";
import { createAgent as defaultCreateAgent, type AgentContext } from "../agents/spec.ts";
import { deriveSeed, stateHash, type AnyGame, type BaseConfig, type Result, type Seat } from "../engine/core/index.ts";
import type { GameAdapter } from "./codec.ts";
import { actionLabels, decisionPoint, findAction, writeMask, type DecisionPoint } from "./decision-point.ts";
import { EnvFault, EnvRequestError, describeThrown } from "./errors.ts";
import { isControlled, parseSeats, sessionMode, type SeatRole, type SessionMode } from "./seats.ts";
import { specOf, type EnvSpec } from "./spec.ts";

/** Builds an agent from its spec string; the server passes agents/spec.ts createAgent. */
export type AgentFactory = (spec: string, ctx: AgentContext) => Result<Facilitatee>;

export interface FacilitatorOptions {
  readonly adapter: GameAdapter;
  /** Raw game config (validated by the game's parseConfig). `seats` is filled from `seats` when absent. */
  readonly config?: unknown;
  /** One role per seat: "learner", "external" or an agent spec. Default: learner at seat 0, random elsewhere. */
  readonly seats?: readonly string[];
  readonly numEnvs: number;
  /** Session seed: every env's episode seeds and agent streams derive from it. */
  readonly seed: number;
  /**
   * Truncation cap: an episode that reaches this many decisions (all seats counted) without ending
   * is truncated. null/absent: no cap beyond the game's own declared bound.
   */
  readonly maxDecisions?: number | null;
  readonly createAgent?: AgentFactory;
  /** Directory that `onnx:path=...` agent specs are resolved in and confined to. */
  readonly modelRoot?: string;
}

/**
 * One reply's worth of arrays, rows in env order. Shapes (N envs, S seats, O observation floats,
 * A action ids):
 * - obs: single mode [N, O] (the learner's view); multi mode [N, S, O] (each client seat's view,
 *   zero rows for agent seats);
 * - mask: [N, A], the acting client seat's legal actions (all zero on a terminated/truncated row);
 * - reward: single mode [N] (the learner's); multi mode [N, S];
 * - terminated, truncated: [N] (0/1); seat: [N] the client seat that must act (-1 on a done row);
 * - episode: [N] episodes started by each env; episodeStep: [N] decisions (all seats) so far;
 * - returns: [N, S] the game's cumulative returns in the current episode.
 */
export interface EnvBatch {
  readonly mode: SessionMode;
  readonly numEnvs: number;
  readonly numSeats: number;
  /** Successful step calls since the last reset. */
  readonly step: number;
  readonly obs: Float32Array;
  readonly obsShape: readonly number[];
  readonly mask: Uint8Array;
  readonly reward: Float32Array;
  readonly rewardShape: readonly number[];
  readonly terminated: Uint8Array;
  readonly truncated: Uint8Array;
  readonly seat: Int32Array;
  readonly episode: Int32Array;
  readonly episodeStep: Int32Array;
  readonly returns: Float32Array;
}

const enum Done {
  Running = 0,
  Terminated = 1,
  Truncated = 2,
}

interface EnvSlot {
  readonly index: number;
  /** Seed of this env's streams (episodes and agents), derived from the session seed. */
  envSeed: number;
  state: unknown;
  agents: (Facilitatee | null)[];
  /** Episodes started so far (the current one included). */
  episode: number;
  /** Decisions made in the current episode, all seats. */
  decisions: number;
  /** The pending client decision, or null when the episode is over. */
  point: DecisionPoint | null;
  done: Done;
  /** Returns at the previous reply: rewards are the change since then. */
  lastReturns: number[];
}

/** How many consecutive episodes may end before any client seat decides before we call it a fault. */
const MAX_EMPTY_EPISODES = 1000;

/**
 * A LearningFacilitator (seed 000's machine-learning play mode) session: N environments of one game
 * and config, stepped together. Agent seats are played inside until a client seat must decide.
 *
 * Autoreset follows Gymnasium >= 1.0's vector default, "next-step": the step in which an episode
 * ends returns its last observation with terminated/truncated set; the action sent for that env in
 * the following step is ignored and the env starts a new episode instead (reward 0, flags 0).
 */
export class LearningFacilitator {
  readonly adapter: GameAdapter;
  readonly game: AnyGame;
  readonly spec: EnvSpec;
  readonly config: BaseConfig;
  readonly roles: readonly SeatRole[];
  readonly seatNames: readonly string[];
  readonly mode: SessionMode;
  readonly numEnvs: number;
  readonly numSeats: number;
  /** The learner seat in single mode; -1 in multi mode. */
  readonly learnerSeat: Seat;
  /** Truncation cap (all seats' decisions per episode), or null. */
  readonly maxDecisions: number | null;
  private readonly bound: number;
  private readonly createAgent: AgentFactory;
  private readonly modelRoot: string | undefined;
  private readonly envs: EnvSlot[];
  private seed: number;
  private started = false;
  private busy = false;
  private stepIndex = 0;
  private totalEnvSteps = 0;
  /** Per env during a step: 1 when its reward counts, 0 when it autoresets (reused, steps never overlap). */
  private readonly rewardFrom: Uint8Array;

  private constructor(options: FacilitatorOptions, config: BaseConfig, seatNames: string[]) {
    this.adapter = options.adapter;
    this.game = options.adapter.game;
    this.spec = specOf(options.adapter);
    this.config = config;
    this.seatNames = seatNames;
    this.roles = parseSeats(seatNames);
    this.mode = sessionMode(this.roles);
    this.numEnvs = options.numEnvs;
    this.numSeats = seatNames.length;
    this.learnerSeat = this.mode === "single" ? this.roles.findIndex(isControlled) : -1;
    this.maxDecisions = options.maxDecisions ?? null;
    this.bound = this.game.maxDecisions(config);
    this.createAgent = options.createAgent ?? defaultCreateAgent;
    this.modelRoot = options.modelRoot;
    this.seed = options.seed;
    this.rewardFrom = new Uint8Array(this.numEnvs);
    this.envs = [];
    for (let i = 0; i < this.numEnvs; i++) {
      this.envs.push({
        index: i,
        envSeed: 0,
        state: null,
        agents: [],
        episode: 0,
        decisions: 0,
        point: null,
        done: Done.Running,
        lastReturns: new Array<number>(this.numSeats).fill(0),
      });
    }
  }

  /** Validates the options (config through the game, seats, agent specs); throws EnvRequestError. */
  static create(options: FacilitatorOptions): LearningFacilitator {
    const game = options.adapter.game;
    if (!Number.isInteger(options.numEnvs) || options.numEnvs < 1) {
      throw new EnvRequestError("invalid_config", `numEnvs must be a positive integer, got ${options.numEnvs}`);
    }
    if (!Number.isSafeInteger(options.seed)) throw new EnvRequestError("invalid_config", `seed must be a safe integer, got ${options.seed}`);
    const cap = options.maxDecisions;
    if (cap !== undefined && cap !== null && (!Number.isInteger(cap) || cap < 1)) {
      throw new EnvRequestError("invalid_config", `maxDecisions must be a positive integer or null, got ${cap}`);
    }
    let raw = options.config ?? {};
    if (raw === null || typeof raw !== "object" || Array.isArray(raw)) throw new EnvRequestError("invalid_config", "config must be an object");
    const seats = options.seats;
    if (seats !== undefined && (raw as Record<string, unknown>).seats === undefined) raw = { ...raw, seats: seats.length };
    let parsed: Result<BaseConfig>;
    try {
      parsed = game.parseConfig(raw);
    } catch (e) {
      throw new EnvFault("game_fault", `${game.info.id}.parseConfig threw: ${describeThrown(e)}`, undefined, e);
    }
    if (!parsed.ok) {
      const where = parsed.error.path ? ` (config.${parsed.error.path})` : "";
      throw new EnvRequestError("invalid_config", `${parsed.error.message}${where}`);
    }
    const config = parsed.value;
    let seatNames: string[];
    if (seats !== undefined) {
      if (seats.length !== config.seats) {
        throw new EnvRequestError("invalid_seats", `seats lists ${seats.length} roles but config.seats is ${config.seats}`);
      }
      seatNames = [...seats];
    } else {
      seatNames = Array.from({ length: config.seats }, (_, i) => (i === 0 ? "learner" : "random"));
    }
    const facilitator = new LearningFacilitator(options, config, seatNames);
    // Build one set of agents now so a bad agent spec is refused at creation, not at the first reset.
    facilitator.makeAgents(0);
    return facilitator;
  }

  get steps(): number {
    return this.stepIndex;
  }

  /** Env-steps applied since creation (each env of each successful step counts one). */
  get envSteps(): number {
    return this.totalEnvSteps;
  }

  get isReset(): boolean {
    return this.started;
  }

  get isBusy(): boolean {
    return this.busy;
  }

  /**
   * Starts a new episode in every env. With a seed, the session is re-seeded and behaves exactly
   * like a new session created with that seed; without one, every env goes on to its next episode
   * (its seed stream continues), or uses the creation seed on the first reset.
   */
  async reset(seed?: number): Promise<EnvBatch> {
    if (seed !== undefined && !Number.isSafeInteger(seed)) throw new EnvRequestError("invalid_config", `seed must be a safe integer, got ${seed}`);
    return this.exclusive(async () => {
      const reseed = seed !== undefined || !this.started;
      if (seed !== undefined) this.seed = seed;
      if (reseed) {
        for (const env of this.envs) {
          env.envSeed = deriveSeed(this.seed, `env:${env.index}`);
          env.agents = this.makeAgents(env.envSeed);
          env.episode = 0;
        }
      }
      const pending: Promise<void>[] = [];
      try {
        for (const env of this.envs) {
          const p = this.beginEpisode(env);
          if (p) pending.push(p);
        }
      } catch (e) {
        abandon(pending);
        throw e;
      }
      await settleInOrder(pending);
      this.started = true;
      this.stepIndex = 0;
      return this.batch(null);
    });
  }

  /**
   * Applies one action id per env. Every action is validated before any env changes: a bad one
   * throws EnvRequestError and leaves the session exactly as it was.
   */
  async step(actions: ArrayLike<number>): Promise<EnvBatch> {
    return this.stepNow(actions);
  }

  /**
   * step() without a promise when every agent answered synchronously (random, rules-based bots):
   * the server's hot path, where a promise per request costs more than stepping a small batch.
   * Same effects and errors as step(), thrown synchronously; a promise only when some agent
   * returned one.
   */
  stepNow(actions: ArrayLike<number>): EnvBatch | Promise<EnvBatch> {
    if (!this.started) throw new EnvRequestError("reset_required", "reset the session before stepping it", 409);
    if (this.busy) throw busyError();
    const chosen = this.validate(actions);
    this.busy = true;
    let pending: Promise<void>[] | null = null;
    let sync = true;
    try {
      const rewardFrom = this.rewardFrom;
      rewardFrom.fill(1);
      for (const env of this.envs) {
        let p: void | Promise<void>;
        if (env.done !== Done.Running) {
          rewardFrom[env.index] = 0;
          p = this.beginEpisode(env);
        } else {
          p = this.applyClient(env, env.point!.legal[chosen[env.index]!]);
        }
        if (p) (pending ??= []).push(p);
      }
      if (pending === null) return this.finishStep();
      sync = false;
      return settleInOrder(pending)
        .then(() => this.finishStep())
        .finally(() => {
          this.busy = false;
        });
    } catch (e) {
      if (pending) abandon(pending);
      throw e;
    } finally {
      if (sync) this.busy = false;
    }
  }

  private finishStep(): EnvBatch {
    this.stepIndex++;
    this.totalEnvSteps += this.numEnvs;
    return this.batch(this.rewardFrom);
  }

  /** The current legal-action mask of every env ([N, A], 0/1) and the seat that must act ([N], -1 when done). */
  mask(): { mask: Uint8Array; seat: Int32Array } {
    const size = this.adapter.actions.size;
    const mask = new Uint8Array(this.numEnvs * size);
    const seat = new Int32Array(this.numEnvs).fill(-1);
    if (!this.started) return { mask, seat };
    for (const env of this.envs) {
      if (env.point) {
        writeMask(env.point, mask, env.index * size);
        seat[env.index] = env.point.seat;
      }
    }
    return { mask, seat };
  }

  /** Readable labels of every env's legal actions (debugging, UIs), in id order. */
  labels(): { id: number; label: string }[][] {
    return this.envs.map((env) => (this.started && env.point ? actionLabels(this.game, env.state, env.point) : []));
  }

  /** The canonical state hash of every env (tests and desync hunting; never sent by default: it fingerprints hidden state). */
  hashes(): (string | null)[] {
    return this.envs.map((env) => (this.started ? stateHash(env.state) : null));
  }

  private async exclusive<T>(run: () => Promise<T>): Promise<T> {
    if (this.busy) throw busyError();
    this.busy = true;
    try {
      return await run();
    } finally {
      this.busy = false;
    }
  }

  private validate(actions: ArrayLike<number>): Int32Array {
    if (actions.length !== this.numEnvs) {
      throw new EnvRequestError("wrong_action_count", `expected ${this.numEnvs} actions (one per env), got ${actions.length}`, 400, {
        expected: this.numEnvs,
        got: actions.length,
      });
    }
    const size = this.adapter.actions.size;
    const chosen = new Int32Array(this.numEnvs);
    for (const env of this.envs) {
      const a = actions[env.index]!;
      if (typeof a !== "number" || !Number.isInteger(a)) {
        throw new EnvRequestError("action_out_of_range", `env ${env.index}: action ${String(a)} is not an integer`, 400, { env: env.index, action: a });
      }
      if (env.done !== Done.Running) continue; // ignored: this env autoresets
      if (a < 0 || a >= size) {
        throw new EnvRequestError("action_out_of_range", `env ${env.index}: action ${a} is out of range [0, ${size})`, 400, { env: env.index, action: a });
      }
      const point = env.point!;
      const k = findAction(point, a);
      if (k < 0) {
        const legal = Array.from(point.ids).sort((x, y) => x - y);
        const shown = legal.length > 32 ? `${legal.slice(0, 32).join(", ")}, ...` : legal.join(", ");
        throw new EnvRequestError(
          "illegal_action",
          `env ${env.index}: action ${a} is not legal for seat ${point.seat} now; legal action ids: ${shown}`,
          400,
          { env: env.index, action: a, seat: point.seat },
        );
      }
      chosen[env.index] = k;
    }
    return chosen;
  }

  private makeAgents(envSeed: number): (Facilitatee | null)[] {
    return this.roles.map((role, seat) => {
      if (role.kind !== "agent") return null;
      let made: Result<Facilitatee>;
      try {
        made = this.createAgent(role.spec, {
          seed: envSeed,
          seat,
          game: this.game.info.id,
          adapter: this.adapter,
          actionSpecHash: this.spec.actionSpecHash,
          // Every env's agents ask together while a step runs: ONNX agents batch across envs.
          concurrency: this.numEnvs,
          ...(this.modelRoot === undefined ? {} : { modelRoot: this.modelRoot }),
        });
      } catch (e) {
        throw new EnvFault("agent_fault", `creating agent "${role.spec}" for seat ${seat} threw: ${describeThrown(e)}`, undefined, e);
      }
      if (!made.ok) throw new EnvRequestError("invalid_seats", `seats[${seat}]: ${made.error.message}`);
      return made.value;
    });
  }

  /** Sets up the env's next episode and plays agent seats until a client seat decides. */
  private beginEpisode(env: EnvSlot, attempt = 0): void | Promise<void> {
    if (attempt >= MAX_EMPTY_EPISODES) {
      throw new EnvFault("game_fault", `${MAX_EMPTY_EPISODES} episodes in a row ended before any client seat had to decide`, env.index);
    }
    const seed = deriveSeed(env.envSeed, `episode:${env.episode}`);
    env.episode++;
    env.decisions = 0;
    env.point = null;
    env.done = Done.Running;
    try {
      env.state = this.game.setup(this.config, seed);
    } catch (e) {
      throw new EnvFault("game_fault", `${this.game.info.id}.setup threw: ${describeThrown(e)}`, env.index, e);
    }
    const finish = (): void | Promise<void> => {
      // An episode that ended before any client decision teaches nothing: start the next one.
      if (env.done !== Done.Running) return this.beginEpisode(env, attempt + 1);
      env.lastReturns = this.returnsOf(env);
    };
    const p = this.advance(env);
    return p ? p.then(finish) : finish();
  }

  private applyClient(env: EnvSlot, decision: unknown): void | Promise<void> {
    this.applyDecision(env, decision);
    return this.advance(env);
  }

  private applyDecision(env: EnvSlot, decision: unknown): void {
    try {
      env.state = this.game.applyTrusted(env.state, decision);
    } catch (e) {
      throw new EnvFault("game_fault", `${this.game.info.id} rules threw applying decision ${env.decisions} of episode ${env.episode}: ${describeThrown(e)}`, env.index, e);
    }
    env.decisions++;
  }

  /**
   * Plays agent seats until a client seat must decide, the game ends or the cap truncates it.
   * Synchronous while agents answer synchronously; continues asynchronously from the first agent
   * that returns a promise.
   */
  private advance(env: EnvSlot): void | Promise<void> {
    const game = this.game;
    for (;;) {
      let actor: Seat | "terminal";
      try {
        actor = game.actor(env.state);
      } catch (e) {
        throw new EnvFault("game_fault", `${game.info.id}.actor threw: ${describeThrown(e)}`, env.index, e);
      }
      if (actor === "terminal") {
        env.done = Done.Terminated;
        env.point = null;
        return;
      }
      if (this.maxDecisions !== null && env.decisions >= this.maxDecisions) {
        env.done = Done.Truncated;
        env.point = null;
        return;
      }
      if (env.decisions >= this.bound) {
        throw new EnvFault("game_fault", `${game.info.id} did not end within its declared bound of ${this.bound} decisions`, env.index);
      }
      if (!Number.isInteger(actor) || actor < 0 || actor >= this.numSeats) {
        throw new EnvFault("game_fault", `${game.info.id}.actor returned ${String(actor)}, not a seat of ${this.numSeats}`, env.index);
      }
      const agent = env.agents[actor];
      if (!agent) {
        env.point = this.point(env, actor);
        return;
      }
      let legal: readonly unknown[];
      try {
        legal = game.legal(env.state);
      } catch (e) {
        throw new EnvFault("game_fault", `${game.info.id} rules threw listing decisions: ${describeThrown(e)}`, env.index, e);
      }
      let answer: number | Promise<number>;
      try {
        answer = agent.decide(new LazyRequest(game, env.state, actor, legal, env.decisions));
      } catch (e) {
        throw agentFault(agent, actor, env.index, e);
      }
      if (typeof answer === "number") {
        this.applyAgent(env, agent, actor, legal, answer);
        continue;
      }
      return Promise.resolve(answer).then(
        (index) => {
          this.applyAgent(env, agent, actor as Seat, legal, index);
          return this.advance(env);
        },
        (e: unknown) => {
          throw agentFault(agent, actor as Seat, env.index, e);
        },
      );
    }
  }

  private applyAgent(env: EnvSlot, agent: Facilitatee, seat: Seat, legal: readonly unknown[], index: unknown): void {
    if (typeof index !== "number" || !Number.isInteger(index) || index < 0 || index >= legal.length) {
      throw new EnvFault("agent_fault", `agent ${agent.name} at seat ${seat} chose index ${String(index)} of ${legal.length} legal decisions`, env.index);
    }
    this.applyDecision(env, legal[index]);
  }

  private point(env: EnvSlot, seat: Seat): DecisionPoint {
    try {
      return decisionPoint(this.adapter, env.state, seat, env.index);
    } catch (e) {
      if (e instanceof EnvFault) throw e;
      throw new EnvFault("game_fault", `${this.game.info.id} rules threw listing decisions: ${describeThrown(e)}`, env.index, e);
    }
  }

  private returnsOf(env: EnvSlot): number[] {
    let r: readonly number[];
    try {
      r = this.game.returns(env.state);
    } catch (e) {
      throw new EnvFault("game_fault", `${this.game.info.id}.returns threw: ${describeThrown(e)}`, env.index, e);
    }
    if (r.length !== this.numSeats) throw new EnvFault("game_fault", `${this.game.info.id}.returns gave ${r.length} values for ${this.numSeats} seats`, env.index);
    return r as number[];
  }

  private encode(env: EnvSlot, seat: Seat, out: Float32Array): void {
    const view = env.point && env.point.seat === seat ? env.point.view : this.game.view(env.state, seat);
    try {
      this.adapter.observation.encode(view, out);
    } catch (e) {
      throw new EnvFault("codec_fault", `${this.game.info.id} observation encoder threw: ${describeThrown(e)}`, env.index, e);
    }
  }

  /** The reply arrays. rewardFrom[i] 0 (or rewardFrom null) marks rows that just (re)started: reward 0. */
  private batch(rewardFrom: Uint8Array | null): EnvBatch {
    const n = this.numEnvs;
    const s = this.numSeats;
    const o = this.adapter.observation.size;
    const a = this.adapter.actions.size;
    const single = this.mode === "single";
    // One zeroed buffer carved into every array: one allocation per reply instead of nine (the
    // 4-byte arrays first, so each view is aligned). Views behave as separate arrays.
    const obsLen = single ? n * o : n * s * o;
    const rewardLen = single ? n : n * s;
    const words = obsLen + rewardLen + n * s + 3 * n;
    const buf = new ArrayBuffer(4 * words + n * a + 2 * n);
    const obs = new Float32Array(buf, 0, obsLen);
    const reward = new Float32Array(buf, 4 * obsLen, rewardLen);
    const returns = new Float32Array(buf, 4 * (obsLen + rewardLen), n * s);
    const seat = new Int32Array(buf, 4 * (obsLen + rewardLen + n * s), n);
    const episode = new Int32Array(buf, 4 * (obsLen + rewardLen + n * s + n), n);
    const episodeStep = new Int32Array(buf, 4 * (obsLen + rewardLen + n * s + 2 * n), n);
    const mask = new Uint8Array(buf, 4 * words, n * a);
    const terminated = new Uint8Array(buf, 4 * words + n * a, n);
    const truncated = new Uint8Array(buf, 4 * words + n * a + n, n);
    for (const env of this.envs) {
      const i = env.index;
      const now = this.returnsOf(env);
      if (rewardFrom && rewardFrom[i]) {
        if (single) reward[i] = now[this.learnerSeat]! - env.lastReturns[this.learnerSeat]!;
        else for (let k = 0; k < s; k++) reward[i * s + k] = now[k]! - env.lastReturns[k]!;
      }
      env.lastReturns = now;
      for (let k = 0; k < s; k++) returns[i * s + k] = now[k]!;
      terminated[i] = env.done === Done.Terminated ? 1 : 0;
      truncated[i] = env.done === Done.Truncated ? 1 : 0;
      seat[i] = env.point ? env.point.seat : -1;
      episode[i] = env.episode;
      episodeStep[i] = env.decisions;
      if (env.point) writeMask(env.point, mask, i * a);
      if (single) {
        this.encode(env, this.learnerSeat, obs.subarray(i * o, (i + 1) * o));
      } else {
        for (let k = 0; k < s; k++) {
          if (this.roles[k]!.kind !== "agent") this.encode(env, k, obs.subarray((i * s + k) * o, (i * s + k + 1) * o));
        }
      }
    }
    return {
      mode: this.mode,
      numEnvs: n,
      numSeats: s,
      step: this.stepIndex,
      obs,
      obsShape: single ? [n, o] : [n, s, o],
      mask,
      reward,
      rewardShape: single ? [n] : [n, s],
      terminated,
      truncated,
      seat,
      episode,
      episodeStep,
      returns,
    };
  }
}

/**
 * An agent's decision request whose view is built on first read: many agents (random, sandbag)
 * never look at it, and a view costs about as much as a rules step.
 */
const UNSET: unique symbol = Symbol("unset");

class LazyRequest implements DecisionRequest {
  private cached: unknown = UNSET;

  constructor(
    readonly game: AnyGame,
    private readonly state: unknown,
    readonly seat: Seat,
    readonly legal: readonly unknown[],
    readonly step: number,
  ) {}

  get view(): unknown {
    if (this.cached === UNSET) this.cached = this.game.view(this.state, this.seat);
    return this.cached;
  }
}

function busyError(): EnvRequestError {
  return new EnvRequestError("session_busy", "another request is stepping this session; send one request at a time per session", 409);
}

function agentFault(agent: Facilitatee, seat: Seat, env: number, e: unknown): EnvFault {
  if (e instanceof EnvFault) return e;
  return new EnvFault("agent_fault", `agent ${agent.name} at seat ${seat} threw: ${describeThrown(e)}`, env, e);
}

/** A synchronous fault ends the request; continuations still running must not surface as unhandled rejections. */
function abandon(pending: Promise<void>[]): void {
  for (const p of pending) p.catch(() => undefined);
}

/**
 * Waits for every env's continuation. Envs are independent (own state, own agents), so they may
 * interleave freely; when several fail, the lowest env's fault is reported, whatever finished first.
 */
async function settleInOrder(pending: Promise<void>[]): Promise<void> {
  if (pending.length === 0) return;
  const results = await Promise.allSettled(pending);
  for (const r of results) if (r.status === "rejected") throw r.reason;
}
