import { Rng } from "../../engine/core/index.ts";
import type { DecisionRequest, Facilitatee } from "../facilitatee.ts";
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
 * masked argmax, or masked softmax sampling from its own seeded stream. NaN logits count as -inf.
 */
export class OnnxAgent implements Facilitatee {
  readonly name: string;
  private readonly rng: Rng;

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
    const { view, legal } = request;
    const { actions, observation } = this.adapter;
    const ids = new Int32Array(legal.length);
    for (let i = 0; i < legal.length; i++) {
      const id = actions.encode(view, legal[i]);
      if (!Number.isInteger(id) || id < 0 || id >= actions.size) {
        throw new Error(`onnx: the action codec mapped legal decision ${i} to ${id}, outside [0, ${actions.size})`);
      }
      ids[i] = id;
    }
    if (legal.length === 1) return 0;
    const obs = new Float32Array(observation.size);
    observation.encode(view, obs);
    const logits = await this.model.infer(obs);
    return this.options.sample ? this.sampleIndex(logits, ids) : argmaxIndex(logits, ids);
  }

  private sampleIndex(logits: Float32Array, ids: Int32Array): number {
    const t = this.options.temperature;
    let max = -Infinity;
    for (let i = 0; i < ids.length; i++) {
      const x = logits[ids[i]!]!;
      if (x > max) max = x;
    }
    if (max === -Infinity || Number.isNaN(max)) return this.rng.int(ids.length);
    const w = new Float64Array(ids.length);
    let sum = 0;
    for (let i = 0; i < ids.length; i++) {
      const x = logits[ids[i]!]!;
      w[i] = Number.isNaN(x) ? 0 : Math.exp((x - max) / t);
      sum += w[i]!;
    }
    let u = this.rng.nextFloat() * sum;
    for (let i = 0; i < ids.length; i++) {
      u -= w[i]!;
      if (u < 0) return i;
    }
    return ids.length - 1;
  }
}

export function argmaxIndex(logits: Float32Array, ids: Int32Array): number {
  let best = 0;
  let bestValue = -Infinity;
  for (let i = 0; i < ids.length; i++) {
    const x = logits[ids[i]!]!;
    if (x > bestValue) {
      bestValue = x;
      best = i;
    }
  }
  return best;
}
