import type { EnvBatch, LearningFacilitator } from "./learning-facilitator.ts";

/**
 * A reset or step batch in a fixed binary layout that a reader views without decoding (numpy
 * arrays at known offsets): what in-process sessions (env/inprocess.ts) hand the Python process,
 * and what the fast path (env/server/fast-path.ts) sends instead of msgpack when a request asks
 * for it. Numbers are in the host's byte order (little-endian wherever cardgym runs: env/server/
 * wire.ts refuses big-endian hosts).
 *
 *   int32[8]  header: step, flags (1: multi mode, 2: an illegal row is flagged, 4: same-step
 *             final rows follow), numEnvs N, numSeats S, observation floats, reward floats,
 *             action size A, final rows K (0 without flag 4)
 *   int32[4N] seat, episode, episodeStep, learnerSeat (each N)
 *   float32   reward, returns (N x S), obs
 *   uint8     terminated (N), truncated (N), illegal (N, when flagged), mask (N x A)
 *   with flag 4, from the next multiple of 4 bytes: the `final` rows of the episodes that ended
 *   in a same-step step (K of them, K = 0 included, as the server's reply carries them):
 *   int32     envs (K), episodeStep (K), learnerSeat (K)
 *   float32   returns (K x S), obs (K x O single mode, K x S x O multi mode)
 *
 * It carries float32 observations only. The in-process host writes same-step batches in it; the
 * fast path sends only next-step ones (see `fitsLayout`).
 */

/** Whether the fast path may send a session's batches in the layout: float32 observations and next-step autoreset. */
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
    const o = f.settings.spec.observation.size;
    const floats = n * s + n * s + n * s * o;
    let size = 4 * (8 + 4 * n + floats) + 3 * n + n * f.settings.spec.action.size;
    // Same-step sessions: room for a final row per env (every seat's observation at most).
    if (f.settings.autoreset === "same-step") size = align4(size) + 4 * (3 * n + n * s + n * s * o);
    const buffer = new ArrayBuffer(size);
    this.bytes = new Uint8Array(buffer);
    this.i32 = new Int32Array(buffer, 0, size >> 2);
    this.f32 = new Float32Array(buffer, 0, size >> 2);
  }

  /** Writes the batch in the layout of the module comment; returns its length in bytes. */
  batch(b: EnvBatch): number {
    const n = b.numEnvs;
    const ints = 8 + 4 * n;
    const { i32, f32, bytes } = this;
    const final = b.final;
    i32[0] = b.step;
    i32[1] = (b.mode === "multi" ? 1 : 0) | (b.illegal ? 2 : 0) | (final ? 4 : 0);
    i32[2] = n;
    i32[3] = b.numSeats;
    i32[4] = b.obs.length;
    i32[5] = b.reward.length;
    i32[6] = b.mask.length / n;
    i32[7] = final ? final.envs.length : 0;
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
    const end = at + 3 * n + b.mask.length;
    if (!final) return end;
    const k = final.envs.length;
    let w = align4(end) >> 2;
    i32.set(final.envs, w);
    i32.set(final.episodeStep, (w += k));
    i32.set(final.learnerSeat, (w += k));
    f32.set(final.returns, (w += k));
    f32.set(final.obs, (w += final.returns.length));
    return 4 * (w + final.obs.length);
  }

  /** Writes one observation (float32) at the start; returns its length in bytes. */
  observation(obs: Float32Array): number {
    this.f32.set(obs, 0);
    return obs.byteLength;
  }
}

function align4(bytes: number): number {
  return (bytes + 3) & ~3;
}
