import { InvariantError } from "../../engine/core/index.ts";
import { writeMask } from "../decision-point.ts";
import { Done, encodeSeat, returnsOf, type EnvSlot } from "./env-slot.ts";
import type { SessionSettings } from "./settings.ts";
import type { EnvBatch, FinalRows } from "./types.ts";

/** Same-step autoreset's per-env record of the episodes that ended in a step (read where finalDone is set). */
interface FinalScratch {
  obs: Float32Array;
  returns: Float32Array;
  episodeStep: Int32Array;
  learnerSeat: Int32Array;
  reward: Float32Array;
}

/**
 * Writes a learning session's replies: observations, masks, rewards and flags of every env, the
 * rewards of illegal actions, and same-step autoreset's final rows. Holds the per-step scratch it
 * reuses (steps never overlap).
 */
export class ReplyWriter {
  /** Per env during a step: 1 when its reward counts, 0 when it autoresets. */
  private readonly rewardFrom: Uint8Array;
  /** Per env: the seat whose illegal action ended the episode in this step (read where illegalRows is 1). */
  readonly illegalSeat: Int32Array;
  /** Per step (fresh each step, as replies keep them): illegal-action rows. */
  private illegalRows: Uint8Array | null = null;
  /** Same-step scratch, reused: per env, the ended episode's rows (read where finalDone is set). */
  private finalScratch: FinalScratch | null = null;
  /** Per env, this step: 0, or how its episode ended (Done.Terminated / Done.Truncated) before it restarted. */
  private readonly finalDone: Uint8Array;
  private finalCount = 0;
  /** The reply being written (between begin and end). */
  private open: OpenReply | null = null;
  /** With reuseReplies: the arrays every reply is written into, and all their bytes (zeroed before each reply). */
  private shared: { readonly arrays: ReplyArrays; readonly bytes: Uint8Array } | null = null;

  constructor(private readonly settings: SessionSettings) {
    this.rewardFrom = new Uint8Array(settings.numEnvs);
    this.illegalSeat = new Int32Array(settings.numEnvs);
    this.finalDone = new Uint8Array(settings.numEnvs);
  }

  /**
   * A validated step begins: `illegal` marks the envs whose illegal action ends their episode
   * (illegalAction "terminate"); every reward counts until an env is marked restarting.
   */
  startStep(illegal: Uint8Array | null): void {
    this.illegalRows = this.settings.illegalAction === "terminate" ? (illegal ?? new Uint8Array(this.settings.numEnvs)) : null;
    this.rewardFrom.fill(1);
    if (this.finalCount > 0) {
      this.finalDone.fill(0);
      this.finalCount = 0;
    }
  }

  /** Env `index` starts a new episode in this step (next-step autoreset): its reward is 0. */
  markRestart(index: number): void {
    this.rewardFrom[index] = 0;
  }

  /**
   * Same-step autoreset: records the just-ended episode's last observation, reward, returns and
   * length in this step's final rows (the caller then starts its next episode).
   */
  recordFinal(env: EnvSlot): void {
    const { numEnvs: n, numSeats: s, mode, roles } = this.settings;
    const o = this.settings.adapter.observation.size;
    const single = mode === "single";
    const f = (this.finalScratch ??= {
      obs: new Float32Array(single ? n * o : n * s * o),
      returns: new Float32Array(n * s),
      episodeStep: new Int32Array(n),
      learnerSeat: new Int32Array(n).fill(-1),
      reward: new Float32Array(single ? n : n * s),
    });
    const i = env.index;
    const now = returnsOf(this.settings, env);
    this.rowReward(env, now, f.reward);
    env.lastReturns = now;
    for (let k = 0; k < s; k++) f.returns[i * s + k] = now[k]!;
    f.episodeStep[i] = env.decisions;
    this.finalDone[i] = env.done;
    this.finalCount++;
    if (single) {
      f.learnerSeat[i] = env.learner;
      encodeSeat(this.settings, env, env.learner, f.obs.subarray(i * o, (i + 1) * o));
    } else {
      f.obs.fill(0, i * s * o, (i + 1) * s * o);
      for (let k = 0; k < s; k++) {
        if (roles[k]!.kind !== "agent") encodeSeat(this.settings, env, k, f.obs.subarray((i * s + k) * o, (i * s + k + 1) * o));
      }
    }
  }

  /**
   * The reply arrays of every env. A reset reply has no rewards, finals or illegal rows; a step
   * reply's rows that just (re)started have reward 0.
   */
  batch(envs: readonly EnvSlot[], step: number, kind: "reset" | "step"): EnvBatch {
    const reply = this.begin(kind);
    for (const env of envs) this.row(reply, env);
    return this.end(reply, step);
  }

  /**
   * Starts a reply (for a step: after startStep): its arrays, zeroed, then one `row` per env in
   * any order, then `end`. A step writes each env's row as soon as that env is stepped, while its
   * state is still in the CPU's caches, instead of in a pass over every env at the end.
   */
  begin(kind: "reset" | "step"): OpenReply {
    const { numEnvs: n, numSeats: s, mode, observe } = this.settings;
    const o = this.settings.adapter.observation.size;
    const a = this.settings.adapter.actions.size;
    const single = mode === "single";
    const acting = !single && observe === "acting";
    this.open = { kind, acting, arrays: this.replyArrays(n, s, a, single || acting ? n * o : n * s * o, single ? n : n * s) };
    return this.open;
  }

  /**
   * Env's row of `reply`: rewards, returns, flags, then the acting seat, counters, mask and
   * observations. Nothing when `reply` is no longer the one being written (an env of a step that
   * failed, whose agent answered after the failure).
   */
  row(reply: OpenReply, env: EnvSlot): void {
    if (reply !== this.open) return;
    const { kind, acting, arrays } = reply;
    const { numSeats: s, mode } = this.settings;
    const single = mode === "single";
    const { reward, returns, terminated, truncated } = arrays;
    const i = env.index;
    const step = kind === "step";
    // Same-step finals belong to step replies only.
    if (step && this.finalDone[i]) {
      // The episode ended in this step and the next one began: its reward and flags, the new first observation.
      const final = this.finalScratch;
      if (final === null) throw new InvariantError(`env ${i}: its episode ended in this step but no final rows were recorded`);
      if (single) reward[i] = final.reward[i]!;
      else for (let k = 0; k < s; k++) reward[i * s + k] = final.reward[i * s + k]!;
      terminated[i] = this.finalDone[i] === Done.Terminated ? 1 : 0;
      truncated[i] = this.finalDone[i] === Done.Truncated ? 1 : 0;
      const now = env.lastReturns;
      for (let k = 0; k < s; k++) returns[i * s + k] = now[k]!;
    } else {
      const now = returnsOf(this.settings, env);
      if (step && this.rewardFrom[i]) this.rowReward(env, now, reward);
      env.lastReturns = now;
      for (let k = 0; k < s; k++) returns[i * s + k] = now[k]!;
      terminated[i] = env.done === Done.Terminated ? 1 : 0;
      truncated[i] = env.done === Done.Truncated ? 1 : 0;
    }
    this.writeRow(env, arrays, acting);
  }

  /** The reply begun, every row written: the EnvBatch of step `step`. */
  end(reply: OpenReply, step: number): EnvBatch {
    if (reply !== this.open) throw new InvariantError("a reply ended that is not the one being written");
    const { kind, acting, arrays } = reply;
    this.open = null;
    const { numEnvs: n, numSeats: s, mode } = this.settings;
    const o = this.settings.adapter.observation.size;
    const single = mode === "single";
    const stepped = kind === "step";
    const illegal = stepped ? this.illegalRows : null;
    return {
      mode,
      numEnvs: n,
      numSeats: s,
      step,
      obs: arrays.obs,
      obsShape: single || acting ? [n, o] : [n, s, o],
      mask: arrays.mask,
      reward: arrays.reward,
      rewardShape: single ? [n] : [n, s],
      terminated: arrays.terminated,
      truncated: arrays.truncated,
      seat: arrays.seat,
      episode: arrays.episode,
      episodeStep: arrays.episodeStep,
      returns: arrays.returns,
      learnerSeat: arrays.learnerSeat,
      illegal: this.settings.illegalAction === "terminate" ? (illegal ?? new Uint8Array(n)) : null,
      final: stepped && this.settings.autoreset === "same-step" ? this.compactFinal(this.finalCount > 0 ? this.finalScratch : null) : null,
    };
  }

  /**
   * A reply's zeroed arrays: fresh ones, or with reuseReplies the shared ones cleared (the sizes are
   * fixed per session). Single mode writes every env's observation row whole (an encoder writes all
   * of its floats), so there the observations, the first bytes of the buffer, are not cleared.
   */
  private replyArrays(n: number, s: number, a: number, obsLen: number, rewardLen: number): ReplyArrays {
    if (!this.settings.reuseReplies) return replyArrays(n, s, a, obsLen, rewardLen);
    if (this.shared === null) {
      const arrays = replyArrays(n, s, a, obsLen, rewardLen);
      this.shared = { arrays, bytes: new Uint8Array(arrays.obs.buffer) };
    } else {
      this.shared.bytes.fill(0, this.settings.mode === "single" ? 4 * obsLen : 0);
    }
    return this.shared.arrays;
  }

  /** The current legal-action mask of every env ([N, A], 0/1) and the seat that must act ([N], -1 when done); all empty before the first reset. */
  mask(envs: readonly EnvSlot[], started: boolean): { mask: Uint8Array; seat: Int32Array } {
    const size = this.settings.adapter.actions.size;
    const mask = new Uint8Array(this.settings.numEnvs * size);
    const seat = new Int32Array(this.settings.numEnvs).fill(-1);
    if (!started) return { mask, seat };
    for (const env of envs) {
      if (env.point) {
        writeMask(env.point, mask, env.index * size);
        seat[env.index] = env.point.seat;
      }
    }
    return { mask, seat };
  }

  /** Env's row of a reply but rewards, returns and flags: acting seat, counters, mask and observations. */
  private writeRow(env: EnvSlot, rows: ReplyArrays, acting: boolean): void {
    const { numSeats: s, mode, roles } = this.settings;
    const o = this.settings.adapter.observation.size;
    const a = this.settings.adapter.actions.size;
    const single = mode === "single";
    const i = env.index;
    const obs = rows.obs;
    rows.seat[i] = env.point ? env.point.seat : -1;
    rows.learnerSeat[i] = single ? env.learner : -1;
    rows.episode[i] = env.episode;
    rows.episodeStep[i] = env.decisions;
    if (env.point) writeMask(env.point, rows.mask, i * a);
    if (single) {
      encodeSeat(this.settings, env, env.learner, obs.subarray(i * o, (i + 1) * o));
    } else if (acting) {
      if (env.point) encodeSeat(this.settings, env, env.point.seat, obs.subarray(i * o, (i + 1) * o));
    } else {
      for (let k = 0; k < s; k++) {
        if (roles[k]!.kind !== "agent") encodeSeat(this.settings, env, k, obs.subarray((i * s + k) * o, (i * s + k + 1) * o));
      }
    }
  }

  /** Writes env's reward row since the previous reply into `out` (the penalty when an illegal action ended it). */
  private rowReward(env: EnvSlot, now: readonly number[], out: Float32Array): void {
    const { numSeats: s, mode, illegalReward } = this.settings;
    const i = env.index;
    const illegal = this.illegalRows?.[i] === 1;
    if (mode === "single") {
      out[i] = illegal ? illegalReward : now[env.learner]! - env.lastReturns[env.learner]!;
    } else if (illegal) {
      for (let k = 0; k < s; k++) out[i * s + k] = 0;
      out[i * s + this.illegalSeat[i]!] = illegalReward;
    } else {
      for (let k = 0; k < s; k++) out[i * s + k] = now[k]! - env.lastReturns[k]!;
    }
  }

  /** The same-step final rows of this step, one per env whose episode ended (in env order). */
  private compactFinal(scratch: FinalScratch | null): FinalRows {
    const { numEnvs, numSeats: s, mode } = this.settings;
    const k = scratch ? this.finalCount : 0;
    const row = mode === "single" ? this.settings.adapter.observation.size : s * this.settings.adapter.observation.size;
    const out: FinalRows = {
      envs: new Int32Array(k),
      obs: new Float32Array(k * row),
      returns: new Float32Array(k * s),
      episodeStep: new Int32Array(k),
      learnerSeat: new Int32Array(k),
    };
    if (!scratch) return out;
    let j = 0;
    for (let i = 0; i < numEnvs && j < k; i++) {
      if (!this.finalDone[i]) continue;
      out.envs[j] = i;
      out.obs.set(scratch.obs.subarray(i * row, (i + 1) * row), j * row);
      out.returns.set(scratch.returns.subarray(i * s, (i + 1) * s), j * s);
      out.episodeStep[j] = scratch.episodeStep[i]!;
      out.learnerSeat[j] = mode === "single" ? scratch.learnerSeat[i]! : -1;
      j++;
    }
    return out;
  }
}

/** A reply being written: its kind, whether it holds only the acting seats' rows (observe "acting"), its arrays. */
export interface OpenReply {
  readonly kind: "reset" | "step";
  readonly acting: boolean;
  readonly arrays: ReplyArrays;
}

/** A reply's zeroed arrays. */
interface ReplyArrays {
  readonly obs: Float32Array;
  readonly reward: Float32Array;
  readonly returns: Float32Array;
  readonly seat: Int32Array;
  readonly episode: Int32Array;
  readonly episodeStep: Int32Array;
  readonly learnerSeat: Int32Array;
  readonly mask: Uint8Array;
  readonly terminated: Uint8Array;
  readonly truncated: Uint8Array;
}

/**
 * One zeroed buffer carved into every array of a reply (n envs, s seats, a action ids,
 * obsLen and rewardLen floats of observations and rewards): one allocation per reply instead of ten (the 4-byte arrays first, so each view is
 * aligned). Views behave as separate arrays.
 */
function replyArrays(n: number, s: number, a: number, obsLen: number, rewardLen: number): ReplyArrays {
  const words = obsLen + rewardLen + n * s + 4 * n;
  const buf = new ArrayBuffer(4 * words + n * a + 2 * n);
  return {
    obs: new Float32Array(buf, 0, obsLen),
    reward: new Float32Array(buf, 4 * obsLen, rewardLen),
    returns: new Float32Array(buf, 4 * (obsLen + rewardLen), n * s),
    seat: new Int32Array(buf, 4 * (obsLen + rewardLen + n * s), n),
    episode: new Int32Array(buf, 4 * (obsLen + rewardLen + n * s + n), n),
    episodeStep: new Int32Array(buf, 4 * (obsLen + rewardLen + n * s + 2 * n), n),
    learnerSeat: new Int32Array(buf, 4 * (obsLen + rewardLen + n * s + 3 * n), n),
    mask: new Uint8Array(buf, 4 * words, n * a),
    terminated: new Uint8Array(buf, 4 * words + n * a, n),
    truncated: new Uint8Array(buf, 4 * words + n * a + n, n),
  };
}
