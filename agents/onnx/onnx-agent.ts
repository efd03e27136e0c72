import { Rng } from "../../engine/core/index.ts";
import type { DecisionRequest, Facilitatee, TimedDecision } from "../facilitatee.ts";
import type { PolicyAdapter } from "../policy-adapter.ts";
import type { PolicyModel } from "./policy-model.ts";

export interface OnnxOptions {
  /** Sample from the masked softmax instead of taking the masked argmax. */
  readonly sample: boolean;
  /** Softmax temperature when sampling. */
  readonly temperature: number;
}

/**
 * A trained policy at the table. It encodes its view with the game's observation encoder, asks
 * the (shared, micro-batched) model for logits over the whole action space, and keeps only the
 * ids of the legal decisions (the mask comes from the legal list, so the choice is always legal):
 * masked argmax, or masked softmax sampling from its own seeded stream. A NaN logit counts as
 * -inf; NaN for every legal action is a fault (decide rejects), not a choice.
 */
export class OnnxAgent implements Facilitatee {
  readonly name: string;
  private readonly rng: Rng;
  /**
   * Buffers reused across decisions: this agent awaits each answer before its next request, so
   * its observation buffer is never queued twice (the model copies it into a batch, or runs it
   * as is at batch 1 and is done with it when the answer arrives).
   */
  private obs: Float32Array | null = null;
  private ids = new Int32Array(16);
  private weights = new Float64Array(16);
  /** A decide awaiting the model; a concurrent call on the same agent gets fresh buffers. */
  private busy = false;

  constructor(
    private readonly model: PolicyModel,
    private readonly adapter: PolicyAdapter,
    private readonly options: OnnxOptions,
    seed: number,
    name = "onnx",
  ) {
    this.rng = Rng.seeded(seed);
    this.name = name;
  }

  /** Resolves once the onnxruntime session exists (or rejects with the reason it cannot). */
  async ready(): Promise<void> {
    await this.model.ready();
  }

  async decide(request: DecisionRequest): Promise<number> {
    return (await this.decideTimed(request)).index;
  }

  /** The decision, with its own encoding and choosing time plus its share of the batched model run. */
  async decideTimed(request: DecisionRequest): Promise<TimedDecision> {
    const start = performance.now();
    const { view, legal } = request;
    const { actions, observation } = this.adapter;
    const shared = !this.busy;
    if (shared && this.ids.length < legal.length) this.ids = new Int32Array(Math.max(legal.length, this.ids.length * 2));
    const ids = shared ? this.ids : new Int32Array(legal.length);
    for (let i = 0; i < legal.length; i++) {
      const id = actions.encode(view, legal[i]);
      if (!Number.isInteger(id) || id < 0 || id >= actions.size) {
        throw new Error(`onnx: the action codec mapped legal decision ${i} to ${id}, outside [0, ${actions.size})`);
      }
      ids[i] = id;
    }
    if (legal.length === 1) return { index: 0, seconds: (performance.now() - start) / 1000 };
    let obs: Float32Array;
    if (shared) {
      if (this.obs === null || this.obs.length !== observation.size) this.obs = new Float32Array(observation.size);
      obs = this.obs;
      obs.fill(0); // an encoder that skips unset features must not see the last view's values
    } else obs = new Float32Array(observation.size);
    observation.encode(view, obs);
    const before = performance.now() - start;
    let answer: { readonly logits: Float32Array; readonly seconds: number };
    if (shared) this.busy = true;
    try {
      answer = await this.model.inferTimed(obs);
    } finally {
      if (shared) this.busy = false;
    }
    const chosen = performance.now();
    const { logits } = answer;
    if (allNaN(logits, ids, legal.length)) {
      // A diverged network answers NaN everywhere: playing its first legal move would pass for a
      // weak policy in every result, so the seat faults (the table applies its default and logs
      // this; the arena and a learning session report it).
      throw new Error(`onnx: the model ${this.model.file} returned NaN for every legal action (${legal.length} of them): its weights have likely diverged`);
    }
    const index = this.options.sample ? this.sampleIndex(logits, ids, legal.length) : argmaxIndex(logits, ids, legal.length);
    return { index, seconds: (before + performance.now() - chosen) / 1000 + answer.seconds };
  }

  private sampleIndex(logits: Float32Array, ids: Int32Array, count: number): number {
    const t = this.options.temperature;
    let max = -Infinity;
    for (let i = 0; i < count; i++) {
      const x = logits[ids[i]!]!;
      if (x > max) max = x;
    }
    if (max === -Infinity || Number.isNaN(max)) return this.rng.int(count);
    if (this.weights.length < count) this.weights = new Float64Array(Math.max(count, this.weights.length * 2));
    const w = this.weights;
    let sum = 0;
    for (let i = 0; i < count; i++) {
      const x = logits[ids[i]!]!;
      w[i] = Number.isNaN(x) ? 0 : Math.exp((x - max) / t);
      sum += w[i]!;
    }
    let u = this.rng.nextFloat() * sum;
    for (let i = 0; i < count; i++) {
      u -= w[i]!;
      if (u < 0) return i;
    }
    return count - 1;
  }
}

/** Whether the logit of every one of the first `count` ids is NaN. */
function allNaN(logits: Float32Array, ids: Int32Array, count: number): boolean {
  for (let i = 0; i < count; i++) if (!Number.isNaN(logits[ids[i]!])) return false;
  return true;
}

/** Index (into the legal list) of the largest logit among the first `count` ids; NaN never wins. */
export function argmaxIndex(logits: Float32Array, ids: Int32Array, count = ids.length): number {
  let best = 0;
  let bestValue = -Infinity;
  for (let i = 0; i < count; i++) {
    const x = logits[ids[i]!]!;
    if (x > bestValue) {
      bestValue = x;
      best = i;
    }
  }
  return best;
}
