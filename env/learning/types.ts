import type { Clock } from "../../agents/clock.ts";
import type { Facilitatee } from "../../agents/facilitatee.ts";
import type { AgentContext } from "../../agents/spec.ts";
import type { Result } from "../../engine/core/index.ts";
import type { GameAdapter } from "../codec.ts";
import type { ObsDtype } from "../obs-dtype.ts";
import type { SessionMode } from "../seats.ts";

/*
 * The learning facilitator's public shapes: its options, reset requests and reply arrays.
 */

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
  /**
   * The clock client decisions are timed on (docs/architecture.md, The decision loop). Absent (the
   * default): no deadlines. Given: a client decision whose deadline passed before its action came
   * is replaced by the default decision, as at a live table.
   */
  readonly clock?: Clock;
  /** With a clock: the deadline (ms) of a decision whose game gives none; null or absent: only the game's own. */
  readonly turnMs?: number | null;
  /**
   * For a host that encodes or copies every reply before its next call (the server's session
   * host, the in-process runtime): every reply's arrays are written into the same buffer, so a
   * reply is valid only until the next reset or step. Saves allocating and collecting a buffer per
   * reply (the observations of 64 dcg envs are 865 KB). Default false: each reply owns its arrays.
   */
  readonly reuseReplies?: boolean;
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
