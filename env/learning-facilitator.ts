import { OBS_DTYPES, ObsWire, type ObsDtype } from "./obs-dtype.ts";
import type { DecisionRequest, Facilitatee } from "../agents/facilitatee.ts";
import { createAgent as defaultCreateAgent, type AgentContext } from "../agents/spec.ts";
import { deriveSeed, stateHash, type AnyGame, type BaseConfig, type Result, type Seat } from "../engine/core/index.ts";
import type { GameAdapter } from "./codec.ts";
import { actionLabels, decisionPoint, explainAction, findAction, writeMask, type DecisionPoint } from "./decision-point.ts";
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
  /** When a finished env starts its next episode: "next-step" (default) or "same-step" (see class doc). */
  readonly autoreset?: AutoresetMode;
  /** Which seat the learner takes in each episode (single mode only): "fixed" (default), "alternating" or "random". */
  readonly learnerSeat?: LearnerSeatMode;
  /** An illegal or out-of-range action: "reject" (default: 400, nothing changes) or "terminate" (that env's episode ends). */
  readonly illegalAction?: IllegalActionMode;
  /** The acting seat's reward for an episode ended by an illegal action (illegalAction "terminate"); default -1. */
  readonly illegalReward?: number;
  /** How observations travel in replies (obs-dtype.ts); default "float32". */
  readonly obsDtype?: ObsDtype;
  /** Multi mode: which seats' observations a reply carries (default "all"). */
  readonly observe?: ObserveMode;
}

export type AutoresetMode = "next-step" | "same-step";
export type LearnerSeatMode = "fixed" | "alternating" | "random";
export type IllegalActionMode = "reject" | "terminate";

/**
 * What a reset restarts. `seed`: env i is re-seeded with `seed + i` (Gymnasium's vector
 * convention). `seeds`: one seed (or null: not re-seeded) per env listed in `envs`, or per env of
 * the session. `envs`: the env indices to restart (default: all); other envs are left untouched.
 */
export interface ResetRequest {
  readonly seed?: number;
  readonly seeds?: readonly (number | null)[];
  readonly envs?: readonly number[];
}

/**
 * The episodes that ended in a same-step reply, one row per such env (K rows, in env order).
 * The last observation is the learner's (single mode, [K, O]) or every client seat's (multi
 * mode, [K, S, O], whatever `observe` says).
 */
export interface FinalRows {
  /** The env index of each row [K]. */
  readonly envs: Int32Array;
  /** The ended episode's last observation: [K, O] single mode, [K, S, O] multi mode. */
  readonly obs: Float32Array;
  /** Its final returns [K, S]. */
  readonly returns: Float32Array;
  /** Its length in decisions (all seats) [K]. */
  readonly episodeStep: Int32Array;
  /** The learner's seat in it (single mode; -1 in multi mode) [K]. */
  readonly learnerSeat: Int32Array;
}

/** Multi mode observations: every client seat's ("all", [N, S, O]) or only the acting seat's ("acting", [N, O]). */
export type ObserveMode = "all" | "acting";

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
  /** The seat the learner plays in each env's current episode ([N]; -1 in multi mode). */
  readonly learnerSeat: Int32Array;
  /** 1 where this step's action was illegal and ended the episode (illegalAction "terminate"), else 0. */
  readonly illegal: Uint8Array | null;
  /** Same-step autoreset, step replies only: the episodes that ended in this step. */
  readonly final: FinalRows | null;
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
  /** The agents of the current episode's seating, one per seat (null at client seats). */
  agents: (Facilitatee | null)[];
  /** Agents per learner seat, made on first use (one seating unless learnerSeat rotates). */
  seatings: ((Facilitatee | null)[] | undefined)[];
  /** The learner's seat in the current episode (single mode). */
  learner: Seat;
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
 * A LearningFacilitator (the dcg design's machine-learning play mode) session: N environments of one game
 * and config, stepped together. Agent seats are played inside until a client seat must decide.
 *
 * Autoreset, per session:
 * - "next-step" (default; Gymnasium >= 1.0's vector default): the step in which an episode ends
 *   returns its last observation with terminated/truncated set; the action sent for that env in
 *   the following step is ignored and the env starts a new episode instead (reward 0, flags 0).
 * - "same-step" (Stable-Baselines3's VecEnv convention): the step in which an episode ends also
 *   starts the next one; its row holds the new episode's first observation and mask with the
 *   ended episode's reward and flags, and `final` holds the ended episode's last observation.
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
  /** The learner's configured seat in single mode (its seat in every episode when learnerSeat is "fixed"); -1 in multi mode. */
  readonly learnerSeat: Seat;
  readonly autoreset: AutoresetMode;
  readonly learnerSeatMode: LearnerSeatMode;
  readonly illegalAction: IllegalActionMode;
  readonly illegalReward: number;
  /** The session's observation wire form (the reply layer encodes obs with it). */
  readonly obsWire: ObsWire;
  readonly observe: ObserveMode;
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
  /** Per env: the seat whose illegal action ended the episode in this step (read where illegalRows is 1). */
  private readonly illegalSeat: Int32Array;
  /** The opponents' roles in seat order without the learner (single mode): seatings are built from them. */
  private readonly others: readonly SeatRole[];
  /** Per step (fresh each step, as replies keep them): illegal-action rows. */
  private illegalRows: Uint8Array | null = null;
  /** Same-step scratch, reused: per env, the ended episode's rows (read where finalDone is set). */
  private finalScratch: { obs: Float32Array; returns: Float32Array; episodeStep: Int32Array; learnerSeat: Int32Array; reward: Float32Array } | null = null;
  /** Per env, this step: 0, or how its episode ended (Done.Terminated / Done.Truncated) before it restarted. */
  private readonly finalDone: Uint8Array;
  private finalCount = 0;

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
    this.others = this.roles.filter((_, k) => k !== this.learnerSeat);
    this.autoreset = options.autoreset ?? "next-step";
    this.learnerSeatMode = options.learnerSeat ?? "fixed";
    this.illegalAction = options.illegalAction ?? "reject";
    this.illegalReward = options.illegalReward ?? -1;
    this.obsWire = ObsWire.create(options.obsDtype ?? "float32", options.adapter.observation, config, this.game.info.id);
    this.observe = options.observe ?? "all";
    this.maxDecisions = options.maxDecisions ?? null;
    this.bound = this.game.maxDecisions(config);
    this.createAgent = options.createAgent ?? defaultCreateAgent;
    this.modelRoot = options.modelRoot;
    this.seed = options.seed;
    this.rewardFrom = new Uint8Array(this.numEnvs);
    this.illegalSeat = new Int32Array(this.numEnvs);
    this.finalDone = new Uint8Array(this.numEnvs);
    this.envs = [];
    for (let i = 0; i < this.numEnvs; i++) {
      this.envs.push({
        index: i,
        envSeed: 0,
        state: null,
        agents: [],
        seatings: [],
        learner: this.learnerSeat,
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
    if (!Number.isSafeInteger(options.seed) || !Number.isSafeInteger(options.seed + options.numEnvs - 1)) {
      throw new EnvRequestError("invalid_config", `seed must be a safe integer and seed + numEnvs - 1 too (env i gets seed + i), got ${options.seed}`);
    }
    const cap = options.maxDecisions;
    if (cap !== undefined && cap !== null && (!Number.isInteger(cap) || cap < 1)) {
      throw new EnvRequestError("invalid_config", `maxDecisions must be a positive integer or null, got ${cap}`);
    }
    const oneOf = <T extends string>(name: string, value: T | undefined, allowed: readonly T[]): void => {
      if (value !== undefined && !allowed.includes(value)) {
        throw new EnvRequestError("invalid_config", `${name} must be one of ${allowed.join(", ")}, got ${JSON.stringify(value)}`);
      }
    };
    oneOf("autoreset", options.autoreset, ["next-step", "same-step"]);
    oneOf("learnerSeat", options.learnerSeat, ["fixed", "alternating", "random"]);
    oneOf("illegalAction", options.illegalAction, ["reject", "terminate"]);
    oneOf("obsDtype", options.obsDtype, OBS_DTYPES);
    oneOf("observe", options.observe, ["all", "acting"]);
    if (options.illegalReward !== undefined && !Number.isFinite(options.illegalReward)) {
      throw new EnvRequestError("invalid_config", `illegalReward must be a finite number, got ${options.illegalReward}`);
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
    if (facilitator.mode === "multi" && facilitator.learnerSeatMode !== "fixed") {
      throw new EnvRequestError(
        "invalid_config",
        `learnerSeat "${facilitator.learnerSeatMode}" needs a single learner (one client seat); multi mode seats are fixed`,
      );
    }
    // Build one set of agents now so a bad agent spec is refused at creation, not at the first reset.
    facilitator.makeAgents(0, facilitator.learnerSeat);
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
   * Starts a new episode in every env, or in the envs listed in `envs`. An env given a seed (see
   * ResetRequest) is re-seeded: it behaves exactly like env 0 of a new one-env session created
   * with that seed. An env given none goes on to its next episode (its seed stream continues);
   * on the first reset, env i uses the creation seed + i. A plain number is `{seed}`.
   * The first reset must restart every env.
   */
  async reset(request?: number | ResetRequest | null): Promise<EnvBatch> {
    const req: ResetRequest = typeof request === "number" ? { seed: request } : (request ?? {});
    const plan = this.resetPlan(req);
    return this.exclusive(async () => {
      if (req.seed !== undefined && req.envs === undefined) this.seed = req.seed;
      for (const [env, envSeed] of plan) {
        if (envSeed !== null) {
          env.envSeed = deriveSeed(envSeed, "env");
          env.seatings = [];
          env.episode = 0;
        }
      }
      const pending: Promise<void>[] = [];
      try {
        for (const [env] of plan) {
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

  /** Which envs a reset restarts and the seed each is re-seeded with (null: its stream continues). Validates before anything changes. */
  private resetPlan(req: ResetRequest): [EnvSlot, number | null][] {
    const { seed, seeds, envs } = req;
    const n = this.numEnvs;
    if (seed !== undefined && seeds !== undefined) throw new EnvRequestError("invalid_config", "give either seed or seeds, not both");
    if (seed !== undefined && (!Number.isSafeInteger(seed) || !Number.isSafeInteger(seed + n - 1))) {
      throw new EnvRequestError("invalid_config", `seed must be a safe integer and seed + numEnvs - 1 too (env i gets seed + i), got ${seed}`);
    }
    let chosen: EnvSlot[] = this.envs;
    if (envs !== undefined) {
      if (!this.started) throw new EnvRequestError("reset_required", "the first reset restarts every env: leave envs out", 409);
      const seen = new Set<number>();
      chosen = envs.map((i) => {
        const env = Number.isInteger(i) ? this.envs[i] : undefined;
        if (!env) throw new EnvRequestError("invalid_config", `envs: ${i} is not an env index in [0, ${n})`);
        if (seen.has(i)) throw new EnvRequestError("invalid_config", `envs lists env ${i} twice`);
        seen.add(i);
        return env;
      });
    }
    if (seeds !== undefined) {
      if (seeds.length !== chosen.length) {
        throw new EnvRequestError("invalid_config", `seeds must have one entry per env reset (${chosen.length}), got ${seeds.length}`);
      }
      for (const s of seeds) {
        if (s !== null && !Number.isSafeInteger(s)) throw new EnvRequestError("invalid_config", `seeds entries must be safe integers or null, got ${s}`);
      }
    }
    const reseedAll = !this.started;
    return chosen.map((env, k) => {
      let s: number | null = null;
      if (seeds !== undefined) s = seeds[k] ?? null;
      else if (seed !== undefined) s = seed + env.index;
      if (s === null && reseedAll) s = this.seed + env.index;
      return [env, s];
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
      if (this.finalCount > 0) {
        this.finalDone.fill(0);
        this.finalCount = 0;
      }
      const sameStep = this.autoreset === "same-step";
      for (const env of this.envs) {
        let p: void | Promise<void>;
        if (env.done !== Done.Running) {
          rewardFrom[env.index] = 0;
          p = this.beginEpisode(env);
        } else {
          const k = chosen[env.index]!;
          if (k < 0) {
            // illegalAction "terminate": the episode ends here with the penalty as its reward.
            env.done = Done.Terminated;
            env.point = null;
            p = undefined;
          } else {
            p = this.applyClient(env, env.point!.legal[k]);
          }
          if (sameStep) p = p ? p.then(() => this.rollover(env)) : this.rollover(env);
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

  /**
   * Same-step autoreset: when the env's episode just ended, records its last observation, reward,
   * returns and length in this step's final rows, then starts its next episode.
   */
  private rollover(env: EnvSlot): void | Promise<void> {
    if (env.done === Done.Running) return;
    const n = this.numEnvs;
    const s = this.numSeats;
    const o = this.adapter.observation.size;
    const single = this.mode === "single";
    const f = (this.finalScratch ??= {
      obs: new Float32Array(single ? n * o : n * s * o),
      returns: new Float32Array(n * s),
      episodeStep: new Int32Array(n),
      learnerSeat: new Int32Array(n).fill(-1),
      reward: new Float32Array(single ? n : n * s),
    });
    const i = env.index;
    const now = this.returnsOf(env);
    this.rowReward(env, now, f.reward);
    env.lastReturns = now;
    for (let k = 0; k < s; k++) f.returns[i * s + k] = now[k]!;
    f.episodeStep[i] = env.decisions;
    this.finalDone[i] = env.done;
    this.finalCount++;
    if (single) {
      f.learnerSeat[i] = env.learner;
      this.encode(env, env.learner, f.obs.subarray(i * o, (i + 1) * o));
    } else {
      f.obs.fill(0, i * s * o, (i + 1) * s * o);
      for (let k = 0; k < s; k++) {
        if (this.roles[k]!.kind !== "agent") this.encode(env, k, f.obs.subarray((i * s + k) * o, (i * s + k + 1) * o));
      }
    }
    return this.beginEpisode(env);
  }

  /** Writes env's reward row since the previous reply into `out` (the penalty when an illegal action ended it). */
  private rowReward(env: EnvSlot, now: readonly number[], out: Float32Array): void {
    const i = env.index;
    const s = this.numSeats;
    const illegal = this.illegalRows?.[i] === 1;
    if (this.mode === "single") {
      out[i] = illegal ? this.illegalReward : now[env.learner]! - env.lastReturns[env.learner]!;
    } else if (illegal) {
      for (let k = 0; k < s; k++) out[i * s + k] = 0;
      out[i * s + this.illegalSeat[i]!] = this.illegalReward;
    } else {
      for (let k = 0; k < s; k++) out[i * s + k] = now[k]! - env.lastReturns[k]!;
    }
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

  /**
   * A readable picture of env `index`'s table (the game's own drawing, as the play CLI shows it),
   * then whose turn it is and the legal actions. For people watching: never an observation.
   */
  render(index: number): string {
    const env = this.envs[index];
    if (!env) throw new EnvRequestError("invalid_config", `env ${index} is not an env index in [0, ${this.numEnvs})`);
    if (!this.started) return "(not reset yet)";
    let board: string;
    try {
      board = this.game.render(env.state);
    } catch (e) {
      throw new EnvFault("game_fault", `${this.game.info.id}.render threw: ${describeThrown(e)}`, index, e);
    }
    const lines = [board, ""];
    if (this.mode === "single") lines.push(`learner: seat ${env.learner}`);
    if (env.point) {
      const legal = actionLabels(this.game, env.state, env.point).map((a) => `${a.id}:${a.label}`);
      lines.push(`seat ${env.point.seat} to act; legal actions: ${legal.join(", ")}`);
    } else {
      lines.push(env.done === Done.Truncated ? "episode truncated" : "episode over");
    }
    return lines.join("\n") + "\n";
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
    const terminate = this.illegalAction === "terminate";
    let illegal: Uint8Array | null = null;
    for (const env of this.envs) {
      const a = actions[env.index]!;
      if (typeof a !== "number" || !Number.isInteger(a)) {
        throw new EnvRequestError("action_out_of_range", `env ${env.index}: action ${String(a)} is not an integer`, 400, { env: env.index, action: a });
      }
      if (env.done !== Done.Running) continue; // ignored: this env autoresets
      const point = env.point!;
      if (a < 0 || a >= size) {
        if (terminate) {
          (illegal ??= new Uint8Array(this.numEnvs))[env.index] = 1;
          this.illegalSeat[env.index] = point.seat;
          chosen[env.index] = -1;
          continue;
        }
        throw new EnvRequestError("action_out_of_range", `env ${env.index}: action ${a} is out of range [0, ${size})`, 400, { env: env.index, action: a });
      }
      const k = findAction(point, a);
      if (k < 0) {
        if (terminate) {
          (illegal ??= new Uint8Array(this.numEnvs))[env.index] = 1;
          this.illegalSeat[env.index] = point.seat;
          chosen[env.index] = -1;
          continue;
        }
        const legal = Array.from(point.ids).sort((x, y) => x - y);
        const shown = legal.length > 32 ? `${legal.slice(0, 32).join(", ")}, ...` : legal.join(", ");
        const why = explainAction(this.adapter, env.state, point, a);
        throw new EnvRequestError(
          "illegal_action",
          `env ${env.index}: action ${a} is not legal for seat ${point.seat} now${why === null ? "" : `: ${why}`}; legal action ids: ${shown}`,
          400,
          { env: env.index, action: a, seat: point.seat },
        );
      }
      chosen[env.index] = k;
    }
    // Validation passed: from here the step is applied, so the illegal rows belong to it.
    this.illegalRows = terminate ? (illegal ?? new Uint8Array(this.numEnvs)) : null;
    return chosen;
  }

  /**
   * The roles of the seating where the learner sits at `learner` (single mode): the opponents keep
   * their seat order around it. Multi mode: the configured roles.
   */
  private seating(learner: Seat): readonly SeatRole[] {
    if (this.mode !== "single" || learner === this.learnerSeat) return this.roles;
    const learnerRole = this.roles[this.learnerSeat]!;
    return [...this.others.slice(0, learner), learnerRole, ...this.others.slice(learner)];
  }

  /** The learner's seat in the env's next episode (`episode` counts from 0), from its seat mode and seeds. */
  private learnerSeatFor(env: EnvSlot, episodeSeed: number): Seat {
    if (this.mode !== "single") return -1;
    switch (this.learnerSeatMode) {
      case "fixed":
        return this.learnerSeat;
      case "alternating":
        return (this.learnerSeat + env.episode) % this.numSeats;
      case "random":
        return (deriveSeed(episodeSeed, "learnerSeat") >>> 0) % this.numSeats;
    }
  }

  private makeAgents(envSeed: number, learner: Seat): (Facilitatee | null)[] {
    // The configured seating keeps the env's own seed; each other seating gets a stream of its own.
    const seed = learner === this.learnerSeat ? envSeed : deriveSeed(envSeed, `seating:${learner}`);
    return this.seating(learner).map((role, seat) => {
      if (role.kind !== "agent") return null;
      let made: Result<Facilitatee>;
      try {
        made = this.createAgent(role.spec, {
          seed,
          seat,
          game: this.game.info.id,
          adapter: this.adapter,
          actionSpecHash: this.spec.actionSpecHash,
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
    if (this.mode === "single") {
      const learner = this.learnerSeatFor(env, seed);
      env.learner = learner;
      env.agents = env.seatings[learner] ??= this.makeAgents(env.envSeed, learner);
    } else {
      env.agents = env.seatings[0] ??= this.makeAgents(env.envSeed, -1);
    }
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
      throw new EnvFault(
        "game_fault",
        `${this.game.info.id} rules threw applying decision ${env.decisions} of episode ${env.episode}: ${describeThrown(e)}`,
        env.index,
        e,
      );
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
    if (r.length !== this.numSeats)
      throw new EnvFault("game_fault", `${this.game.info.id}.returns gave ${r.length} values for ${this.numSeats} seats`, env.index);
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

  /** The same-step final rows of this step, one per env whose episode ended (in env order). */
  private compactFinal(scratch: typeof this.finalScratch): FinalRows {
    const k = scratch ? this.finalCount : 0;
    const s = this.numSeats;
    const row = this.mode === "single" ? this.adapter.observation.size : s * this.adapter.observation.size;
    const out: FinalRows = {
      envs: new Int32Array(k),
      obs: new Float32Array(k * row),
      returns: new Float32Array(k * s),
      episodeStep: new Int32Array(k),
      learnerSeat: new Int32Array(k),
    };
    if (!scratch) return out;
    let j = 0;
    for (let i = 0; i < this.numEnvs && j < k; i++) {
      if (!this.finalDone[i]) continue;
      out.envs[j] = i;
      out.obs.set(scratch.obs.subarray(i * row, (i + 1) * row), j * row);
      out.returns.set(scratch.returns.subarray(i * s, (i + 1) * s), j * s);
      out.episodeStep[j] = scratch.episodeStep[i]!;
      out.learnerSeat[j] = this.mode === "single" ? scratch.learnerSeat[i]! : -1;
      j++;
    }
    return out;
  }

  /** The reply arrays. rewardFrom[i] 0 (or rewardFrom null) marks rows that just (re)started: reward 0. */
  private batch(rewardFrom: Uint8Array | null): EnvBatch {
    const n = this.numEnvs;
    const s = this.numSeats;
    const o = this.adapter.observation.size;
    const a = this.adapter.actions.size;
    const single = this.mode === "single";
    const acting = !single && this.observe === "acting";
    // One zeroed buffer carved into every array: one allocation per reply instead of ten (the
    // 4-byte arrays first, so each view is aligned). Views behave as separate arrays.
    const obsLen = single || acting ? n * o : n * s * o;
    const rewardLen = single ? n : n * s;
    const words = obsLen + rewardLen + n * s + 4 * n;
    const buf = new ArrayBuffer(4 * words + n * a + 2 * n);
    const obs = new Float32Array(buf, 0, obsLen);
    const reward = new Float32Array(buf, 4 * obsLen, rewardLen);
    const returns = new Float32Array(buf, 4 * (obsLen + rewardLen), n * s);
    const seat = new Int32Array(buf, 4 * (obsLen + rewardLen + n * s), n);
    const episode = new Int32Array(buf, 4 * (obsLen + rewardLen + n * s + n), n);
    const episodeStep = new Int32Array(buf, 4 * (obsLen + rewardLen + n * s + 2 * n), n);
    const learnerSeat = new Int32Array(buf, 4 * (obsLen + rewardLen + n * s + 3 * n), n);
    const mask = new Uint8Array(buf, 4 * words, n * a);
    const terminated = new Uint8Array(buf, 4 * words + n * a, n);
    const truncated = new Uint8Array(buf, 4 * words + n * a + n, n);
    // Same-step finals and illegal rows belong to step replies only.
    const final = rewardFrom && this.finalCount > 0 ? this.finalScratch : null;
    const finalDone = this.finalDone;
    const illegal = rewardFrom ? this.illegalRows : null;
    for (const env of this.envs) {
      const i = env.index;
      if (final && finalDone[i]) {
        // The episode ended in this step and the next one began: its reward and flags, the new first observation.
        if (single) reward[i] = final.reward[i]!;
        else for (let k = 0; k < s; k++) reward[i * s + k] = final.reward[i * s + k]!;
        terminated[i] = finalDone[i] === Done.Terminated ? 1 : 0;
        truncated[i] = finalDone[i] === Done.Truncated ? 1 : 0;
        const now = env.lastReturns;
        for (let k = 0; k < s; k++) returns[i * s + k] = now[k]!;
      } else {
        const now = this.returnsOf(env);
        if (rewardFrom && rewardFrom[i]) this.rowReward(env, now, reward);
        env.lastReturns = now;
        for (let k = 0; k < s; k++) returns[i * s + k] = now[k]!;
        terminated[i] = env.done === Done.Terminated ? 1 : 0;
        truncated[i] = env.done === Done.Truncated ? 1 : 0;
      }
      seat[i] = env.point ? env.point.seat : -1;
      learnerSeat[i] = single ? env.learner : -1;
      episode[i] = env.episode;
      episodeStep[i] = env.decisions;
      if (env.point) writeMask(env.point, mask, i * a);
      if (single) {
        this.encode(env, env.learner, obs.subarray(i * o, (i + 1) * o));
      } else if (acting) {
        if (env.point) this.encode(env, env.point.seat, obs.subarray(i * o, (i + 1) * o));
      } else {
        for (let k = 0; k < s; k++) {
          if (this.roles[k]!.kind !== "agent") this.encode(env, k, obs.subarray((i * s + k) * o, (i * s + k + 1) * o));
        }
      }
    }
    const finalRows = rewardFrom && this.autoreset === "same-step" ? this.compactFinal(final) : null;
    return {
      mode: this.mode,
      numEnvs: n,
      numSeats: s,
      step: this.stepIndex,
      obs,
      obsShape: single || acting ? [n, o] : [n, s, o],
      mask,
      reward,
      rewardShape: single ? [n] : [n, s],
      terminated,
      truncated,
      seat,
      episode,
      episodeStep,
      returns,
      learnerSeat,
      illegal: this.illegalAction === "terminate" ? (illegal ?? new Uint8Array(n)) : null,
      final: finalRows,
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
