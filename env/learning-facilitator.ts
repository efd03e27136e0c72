import { deriveSeed, stateHash, must } from "../engine/core/index.ts";
import { actionLabels } from "./decision-point.ts";
import { EnvFault, EnvRequestError, describeThrown } from "./errors.ts";
import { chooseActions, resetPlan } from "./learning/actions.ts";
import { Done, encodeSeat, newEnvSlot, type EnvSlot, pointOf } from "./learning/env-slot.ts";
import { EpisodeRunner } from "./learning/episodes.ts";
import { ReplyWriter, type OpenReply } from "./learning/replies.ts";
import { resolveSettings, type SessionSettings } from "./learning/settings.ts";
import type { EnvBatch, FacilitatorOptions, ResetRequest } from "./learning/types.ts";

export type {
  AgentFactory,
  AutoresetMode,
  EnvBatch,
  FacilitatorOptions,
  FinalRows,
  IllegalActionMode,
  LearnerSeatMode,
  ObserveMode,
  ResetRequest,
} from "./learning/types.ts";
export type { SessionSettings } from "./learning/settings.ts";

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
  /**
   * The session's options, checked and with their defaults filled in (game, adapter, spec, config,
   * seatNames, roles, mode, numEnvs, numSeats, learnerSeat, autoreset, obsWire...): fixed at creation.
   */
  readonly settings: SessionSettings;
  private readonly episodes: EpisodeRunner;
  private readonly replies: ReplyWriter;
  private readonly envs: EnvSlot[];
  /** What a first reset without a seed counts env seeds from: the creation seed, or the last session-wide reset's. */
  private seed: number;
  private started = false;
  private busy = false;
  private stepIndex = 0;
  private totalEnvSteps = 0;

  private constructor(settings: SessionSettings) {
    this.settings = settings;
    this.seed = settings.seed;
    this.episodes = new EpisodeRunner(settings);
    this.replies = new ReplyWriter(settings);
    this.envs = Array.from({ length: settings.numEnvs }, (_, i) => newEnvSlot(settings, i));
  }

  /** Validates the options (config through the game, seats, agent specs); throws EnvRequestError. */
  static create(options: FacilitatorOptions): LearningFacilitator {
    const facilitator = new LearningFacilitator(resolveSettings(options));
    // Build one set of agents now so a bad agent spec is refused at creation, not at the first reset.
    facilitator.episodes.makeAgents(0, facilitator.settings.learnerSeat);
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
    return this.resetNow(request);
  }

  /**
   * reset() without a promise when every agent answered synchronously (the in-process runtime,
   * which has no event loop to settle one): same effects and errors as reset(), thrown
   * synchronously; a promise only when some agent returned one.
   */
  resetNow(request?: number | ResetRequest | null): EnvBatch | Promise<EnvBatch> {
    const req: ResetRequest = typeof request === "number" ? { seed: request } : (request ?? {});
    const plan = resetPlan(this.envs, req, this.seed, this.started);
    if (this.busy) throw busyError();
    this.busy = true;
    let sync = true;
    try {
      if (req.seed !== undefined && req.envs === undefined) this.seed = req.seed;
      for (const [env, envSeed] of plan) {
        if (envSeed !== null) {
          env.envSeed = deriveSeed(envSeed, "env");
          env.seatings = [];
          env.episode = 0;
        }
      }
      let pending: Promise<void>[] | null = null;
      try {
        for (const [env] of plan) {
          const p = this.episodes.beginEpisode(env);
          if (p) (pending ??= []).push(p);
        }
      } catch (e) {
        if (pending) abandon(pending);
        throw e;
      }
      if (pending === null) return this.finishReset();
      sync = false;
      return settleInOrder(pending)
        .then(() => this.finishReset())
        .finally(() => {
          this.busy = false;
        });
    } finally {
      if (sync) this.busy = false;
    }
  }

  private finishReset(): EnvBatch {
    this.started = true;
    this.stepIndex = 0;
    return this.replies.batch(this.envs, this.stepIndex, "reset");
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
    const { chosen, illegal } = chooseActions(this.settings, this.envs, actions, this.replies.illegalSeat);
    // Validation passed: from here the step is applied, so the illegal rows belong to it.
    this.replies.startStep(illegal);
    const reply = this.replies.begin("step");
    this.busy = true;
    let pending: Promise<void>[] | null = null;
    let sync = true;
    try {
      for (const env of this.envs) {
        const p = this.stepEnv(env, must(chosen[env.index], "the action index chosen for an env"));
        if (p) (pending ??= []).push(p.then(() => this.replies.row(reply, env)));
        else this.replies.row(reply, env);
      }
      if (pending === null) return this.finishStep(reply);
      sync = false;
      return settleInOrder(pending)
        .then(() => this.finishStep(reply))
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

  /** One env's part of a step: its next episode when the last one ended, else the chosen decision (index `k` of its legal ones). */
  private stepEnv(env: EnvSlot, k: number): void | Promise<void> {
    if (env.done !== Done.Running) {
      this.replies.markRestart(env.index);
      return this.episodes.beginEpisode(env);
    }
    let p: void | Promise<void>;
    if (k < 0) {
      // illegalAction "terminate": the episode ends here with the penalty as its reward.
      env.done = Done.Terminated;
      env.point = null;
      p = undefined;
    } else {
      p = this.episodes.applyClient(env, pointOf(env).legal[k]);
    }
    if (this.settings.autoreset !== "same-step") return p;
    return p ? p.then(() => this.rollover(env)) : this.rollover(env);
  }

  private finishStep(reply: OpenReply): EnvBatch {
    this.stepIndex++;
    this.totalEnvSteps += this.settings.numEnvs;
    return this.replies.end(reply, this.stepIndex);
  }

  /** Same-step autoreset: when the env's episode just ended, records its final rows, then starts its next episode. */
  private rollover(env: EnvSlot): void | Promise<void> {
    if (env.done === Done.Running) return;
    this.replies.recordFinal(env);
    return this.episodes.beginEpisode(env);
  }

  /** The current legal-action mask of every env ([N, A], 0/1) and the seat that must act ([N], -1 when done). */
  mask(): { mask: Uint8Array; seat: Int32Array } {
    return this.replies.mask(this.envs, this.started);
  }

  /** Readable labels of every env's legal actions (debugging, UIs), in id order. */
  labels(): { id: number; label: string }[][] {
    return this.envs.map((env) => (this.started && env.point ? actionLabels(this.settings.game, env.state, env.point) : []));
  }

  /**
   * A readable picture of env `index`'s table (the game's own drawing, as the play CLI shows it),
   * then whose turn it is and the legal actions. For people watching: never an observation.
   */
  render(index: number): string {
    const env = this.envs[index];
    if (!env) throw new EnvRequestError("invalid_config", `env ${index} is not an env index in [0, ${this.settings.numEnvs})`);
    if (!this.started) return "(not reset yet)";
    let board: string;
    try {
      board = this.settings.game.render(env.state);
    } catch (e) {
      throw new EnvFault("game_fault", `${this.settings.game.info.id}.render threw: ${describeThrown(e)}`, index, e);
    }
    const lines = [board, ""];
    if (this.settings.mode === "single") lines.push(`learner: seat ${env.learner}`);
    if (env.point) {
      const legal = actionLabels(this.settings.game, env.state, env.point).map((a) => `${a.id}:${a.label}`);
      lines.push(`seat ${env.point.seat} to act; legal actions: ${legal.join(", ")}`);
    } else {
      lines.push(env.done === Done.Truncated ? "episode truncated" : "episode over");
    }
    return lines.join("\n") + "\n";
  }

  /** The decisions of env `index`'s current (or just ended) episode, every seat's, in order: with its seed, the episode's record. */
  episodeDecisions(index: number): readonly unknown[] {
    const env = this.envs[index];
    if (!env) throw new EnvRequestError("invalid_config", `env ${index} is not an env index in [0, ${this.settings.numEnvs})`);
    return env.loop?.decisions ?? [];
  }

  /**
   * Seat `seat`'s observation of env `index` as it stands: the row an observe "all" reply carries
   * for that seat (all zeros for a seat played by an agent), for a host that asks for the other
   * seats' observations only when they are read (observe "acting" replies, then this).
   */
  observation(index: number, seat: number): Float32Array {
    const env = this.envs[index];
    if (!env) throw new EnvRequestError("invalid_config", `env ${index} is not an env index in [0, ${this.settings.numEnvs})`);
    const role = this.settings.roles[seat];
    if (!Number.isInteger(seat) || !role) throw new EnvRequestError("invalid_config", `seat ${seat} is not a seat index in [0, ${this.settings.numSeats})`);
    if (!this.started) throw new EnvRequestError("reset_required", "reset the session before reading its observations", 409);
    const out = new Float32Array(this.settings.spec.observation.size);
    if (role.kind !== "agent") encodeSeat(this.settings, env, seat, out);
    return out;
  }

  /** The canonical state hash of every env (tests and desync hunting; never sent by default: it fingerprints hidden state). */
  hashes(): (string | null)[] {
    return this.envs.map((env) => (this.started ? stateHash(env.state) : null));
  }
}

function busyError(): EnvRequestError {
  return new EnvRequestError("session_busy", "another request is stepping this session; send one request at a time per session", 409);
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
