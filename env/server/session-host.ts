import { EnvFault } from "../errors.ts";
import type { EnvBatch, LearningFacilitator } from "../learning-facilitator.ts";
import { hostError } from "./host-error.ts";
import { createFacilitator, sessionInfo, type HostSetup } from "./session-info.ts";
import type { HostReply, HostRequest, RebuildBody } from "./host-protocol.ts";
import { runJob } from "./jobs.ts";
import { ReplyBuffer, fitsLayout } from "../reply-layout.ts";
import type { CreateBody } from "./schemas.ts";
import { Tensor, encodeReply } from "./wire.ts";

/**
 * Where sessions live: a SessionHost owns LearningFacilitators and answers one operation at a
 * time. The server runs one host per worker thread (env/server/session-worker.ts), or one on the
 * main thread with `workers: 0`. The protocol is generic: an operation names a facilitator
 * method and carries the request body the route already validated, so a session option added to
 * the create body reaches `LearningFacilitator.create` without touching this file.
 *
 * Replies carry the encoded HTTP payload (msgpack or JSON, as the client asked), built here so
 * the main thread only forwards bytes (transferred, not copied, from a worker).
 */

export type { HostSetup } from "./session-info.ts";

export class SessionHost {
  private readonly sessions = new Map<string, LearningFacilitator>();
  /** Fast-path keys: key -> the session it opens and its watchdog handle. */
  private readonly keys = new Map<string, { session: string; handle: number }>();
  /** Each session's buffer for replies in env/reply-layout.ts's layout, made at its first such reply. */
  private readonly layouts = new WeakMap<LearningFacilitator, ReplyBuffer>();

  constructor(private readonly setup: HostSetup) {}

  get size(): number {
    return this.sessions.size;
  }

  async handle(req: HostRequest): Promise<HostReply> {
    try {
      return await this.dispatch(req);
    } catch (e) {
      return { status: 0, error: hostError(e) };
    }
  }

  /** The session a fast-path key was issued for (env/server/fast-path.ts). */
  keyed(key: string): { session: string; handle: number } | undefined {
    const found = this.keys.get(key);
    return found && this.sessions.has(found.session) ? found : undefined;
  }

  private facilitator(id: string): LearningFacilitator {
    const f = this.sessions.get(id);
    if (!f) throw new EnvFault("codec_fault", `session ${id} is not held by this worker`);
    return f;
  }

  private async dispatch(req: HostRequest): Promise<HostReply> {
    const { session, format } = req;
    switch (req.op) {
      case "create": {
        const f = this.create(req.body);
        this.sessions.set(session, f);
        return {
          status: 201,
          payload: encodeReply(sessionInfo(session, f), format),
          meta: { game: f.settings.game.info.id, mode: f.settings.mode, seats: f.settings.seatNames, numEnvs: f.settings.numEnvs },
        };
      }
      case "rebuild":
        return this.rebuild(session, req.body);
      case "reset":
      case "step": {
        const f = this.facilitator(session);
        const batch = req.op === "reset" ? await f.reset(req.body) : await f.stepNow(req.body.actions);
        const digest = req.digest === false ? {} : { digest: digestBatch(batch) };
        if (req.layout === true && fitsLayout(f)) return { status: 200, payload: this.laidOut(f, batch), step: batch.step, layout: true, ...digest };
        const payload = encodeReply(batchReply(batch, f), format);
        return { status: 200, payload, step: batch.step, ...digest };
      }
      case "mask":
        return { status: 200, payload: encodeReply(maskReply(this.facilitator(session), req.body.labels), format) };
      case "render": {
        const f = this.facilitator(session);
        const index = req.body.env;
        return { status: 200, payload: encodeReply({ step: f.steps, env: index, text: f.render(index) }, format) };
      }
      case "status": {
        // A fast-path session's counters live here only (its steps never pass the main thread).
        const f = this.facilitator(session);
        return { status: 200, counts: { step: f.steps, envSteps: f.envSteps, reset: f.isReset } };
      }
      case "hashes":
        return { status: 200, value: this.facilitator(session).hashes() };
      case "delete":
        this.sessions.delete(session);
        for (const [key, k] of this.keys) if (k.session === session) this.keys.delete(key);
        return { status: 200 };
      case "attach": {
        this.facilitator(session);
        const { key, handle } = req.body;
        this.keys.set(key, { session, handle });
        return { status: 200 };
      }
      case "job":
        return { status: 200, value: await runJob(req.body, this.setup) };
    }
  }

  /** The batch in env/reply-layout.ts's layout: written into the session's buffer, then copied (the reply may be written to a socket after the next step). */
  private laidOut(f: LearningFacilitator, batch: EnvBatch): Buffer {
    let out = this.layouts.get(f);
    if (out === undefined) this.layouts.set(f, (out = new ReplyBuffer(f)));
    return Buffer.from(out.bytes.subarray(0, out.batch(batch)));
  }

  /** Creates the session again and replays its log; the digest of the last reply is checked by the caller. */
  private async rebuild(session: string, body: RebuildBody): Promise<HostReply> {
    const f = this.create(body.create);
    let last: EnvBatch | null = null;
    for (const entry of body.log) last = entry.op === "reset" ? await f.reset(entry.body) : await f.stepNow(entry.body.actions);
    this.sessions.set(session, f);
    return { status: 200, ...(last ? { digest: digestBatch(last), step: last.step } : {}) };
  }

  private create(body: CreateBody): LearningFacilitator {
    return createFacilitator(body, this.setup);
  }
}

function maskReply(f: LearningFacilitator, labels: boolean): Record<string, unknown> {
  const { mask, seat } = f.mask();
  return {
    step: f.steps,
    mask: new Tensor("uint8", [f.settings.numEnvs, f.settings.spec.action.size], mask),
    seat: new Tensor("int32", [f.settings.numEnvs], seat),
    labels: labels ? f.labels() : undefined,
  };
}

/** Observations in the session's wire form (obsDtype). */
function obsTensor(f: LearningFacilitator, shape: readonly number[], obs: Float32Array): Tensor {
  const w = f.settings.obsWire.encode(shape, obs);
  return new Tensor(w.dtype, w.shape, w.values);
}

function batchReply(b: EnvBatch, f: LearningFacilitator): Record<string, unknown> {
  const n = b.numEnvs;
  const s = b.numSeats;
  return {
    step: b.step,
    mode: b.mode,
    obs: obsTensor(f, b.obsShape, b.obs),
    mask: new Tensor("uint8", [n, f.settings.spec.action.size], b.mask),
    reward: new Tensor("float32", b.rewardShape, b.reward),
    terminated: new Tensor("bool", [n], b.terminated),
    truncated: new Tensor("bool", [n], b.truncated),
    seat: new Tensor("int32", [n], b.seat),
    info: {
      episode: new Tensor("int32", [n], b.episode),
      episodeStep: new Tensor("int32", [n], b.episodeStep),
      returns: new Tensor("float32", [n, s], b.returns),
      learnerSeat: b.mode === "single" ? new Tensor("int32", [n], b.learnerSeat) : undefined,
      illegal: b.illegal ? new Tensor("bool", [n], b.illegal) : undefined,
    },
    final: b.final ? finalReply(b, f) : undefined,
  };
}

function finalReply(b: EnvBatch, f: LearningFacilitator): Record<string, unknown> {
  const final = b.final;
  if (final === undefined || final === null) throw new Error("session host: a final reply asked for a batch that has no final observations");
  const k = final.envs.length;
  const o = f.settings.spec.observation.size;
  return {
    envs: new Tensor("int32", [k], final.envs),
    obs: obsTensor(f, b.mode === "single" ? [k, o] : [k, b.numSeats, o], final.obs),
    returns: new Tensor("float32", [k, b.numSeats], final.returns),
    episodeStep: new Tensor("int32", [k], final.episodeStep),
    learnerSeat: b.mode === "single" ? new Tensor("int32", [k], final.learnerSeat) : undefined,
  };
}

/**
 * A 32-bit digest of everything a reset/step reply carries (FNV-1a over the arrays' bytes, read
 * as 32-bit words where aligned). A rebuilt session must reproduce its last reply's digest.
 */
export function digestBatch(b: EnvBatch): number {
  let h = 0x811c9dc5 ^ b.step;
  const arrays: ArrayBufferView[] = [b.obs, b.mask, b.reward, b.terminated, b.truncated, b.seat, b.episode, b.episodeStep, b.returns, b.learnerSeat];
  if (b.illegal) arrays.push(b.illegal);
  if (b.final) arrays.push(b.final.envs, b.final.obs, b.final.returns, b.final.episodeStep, b.final.learnerSeat);
  for (const a of arrays) {
    const words = a.byteOffset % 4 === 0 ? Math.floor(a.byteLength / 4) : 0;
    if (words > 0) {
      const w = new Uint32Array(a.buffer, a.byteOffset, words);
      for (const word of w) h = Math.imul(h ^ word, 0x01000193);
    }
    const bytes = new Uint8Array(a.buffer, a.byteOffset + words * 4, a.byteLength - words * 4);
    for (const byte of bytes) h = Math.imul(h ^ byte, 0x01000193);
    h = Math.imul(h ^ a.byteLength, 0x01000193);
  }
  return h >>> 0;
}
