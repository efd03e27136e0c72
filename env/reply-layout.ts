import type { EnvBatch, LearningFacilitator } from "./learning-facilitator.ts";

/**
 * A reset or step batch in a fixed binary layout that a reader views without decoding (numpy
 * arrays at known offsets): what in-process sessions (env/inprocess.ts) hand the Python process,
 * and what the fast path (env/server/fast-path.ts) sends instead of msgpack when a request asks
 * for it. Numbers are in the host's byte order (little-endian wherever cardgym runs: env/server/
 * wire.ts refuses big-endian hosts).
 *
 *   int32[8]  header: step, flags (1: multi mode, 2: an illegal row is flagged), numEnvs N,
 *             numSeats S, observation floats, reward floats, action size A, 0
 *   int32[4N] seat, episode, episodeStep, learnerSeat (each N)
 *   float32   reward, returns (N x S), obs
 *   uint8     terminated (N), truncated (N), illegal (N, when flagged), mask (N x A)
 *
 * It carries float32 observations and no same-step `final` rows: a batch with either other is
 * not written in it (see `fitsLayout`).
 */

/** Whether a session's batches fit the layout: float32 observations and next-step autoreset. */
export function fitsLayout(f: LearningFacilitator): boolean {
  return f.settings.obsWire.dtype === "float32" && f.settings.autoreset !== "same-step";
}

/**
 * A session's reply buffer, sized at creation for its largest batch: every reset, step and
 * observation is written into it and the host copies the bytes out before its next call, so no
 * call allocates a buffer for the host (an allocation the host keeps a view of is what costs most
 * per call in an embedded engine).
 */
export class ReplyBuffer {
  readonly bytes: Uint8Array;
  private readonly i32: Int32Array;
  private readonly f32: Float32Array;

  constructor(f: LearningFacilitator) {
    const n = f.settings.numEnvs;
    const s = f.settings.numSeats;
    const floats = n * s + n * s + n * s * f.settings.spec.observation.size;
    const buffer = new ArrayBuffer(4 * (8 + 4 * n + floats) + 3 * n + n * f.settings.spec.action.size);
    this.bytes = new Uint8Array(buffer);
    this.i32 = new Int32Array(buffer, 0, 8 + 4 * n);
    this.f32 = new Float32Array(buffer, 0, 8 + 4 * n + floats);
  }

  /** Writes the batch in the layout of the module comment; returns its length in bytes. */
  batch(b: EnvBatch): number {
    const n = b.numEnvs;
    const ints = 8 + 4 * n;
    const { i32, f32, bytes } = this;
    i32[0] = b.step;
    i32[1] = (b.mode === "multi" ? 1 : 0) | (b.illegal ? 2 : 0);
    i32[2] = n;
    i32[3] = b.numSeats;
    i32[4] = b.obs.length;
    i32[5] = b.reward.length;
    i32[6] = b.mask.length / n;
    i32.set(b.seat, 8);
    i32.set(b.episode, 8 + n);
    i32.set(b.episodeStep, 8 + 2 * n);
    i32.set(b.learnerSeat, 8 + 3 * n);
    f32.set(b.reward, ints);
    f32.set(b.returns, ints + b.reward.length);
    f32.set(b.obs, ints + b.reward.length + b.returns.length);
    const at = 4 * (ints + b.reward.length + b.returns.length + b.obs.length);
    bytes.set(b.terminated, at);
    bytes.set(b.truncated, at + n);
    if (b.illegal) bytes.set(b.illegal, at + 2 * n);
    else bytes.fill(0, at + 2 * n, at + 3 * n);
    bytes.set(b.mask, at + 3 * n);
    return at + 3 * n + b.mask.length;
  }

  /** Writes one observation (float32) at the start; returns its length in bytes. */
  observation(obs: Float32Array): number {
    this.f32.set(obs, 0);
    return obs.byteLength;
  }
}
