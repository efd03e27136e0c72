import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { Rng, unwrap } from "../../engine/core/index.ts";
import { registry } from "../../engine/games.ts";
import { samplePositions } from "../../agents/bench.ts";
import { OnnxAgent } from "../../agents/onnx/onnx-agent.ts";
import { policyModelFromBytes } from "../../agents/onnx/policy-model.ts";
import { writeMlp } from "../../agents/onnx/write-mlp.ts";
import { BUILTIN_MODEL_DIR } from "../../agents/spec.ts";
import { adapters } from "../../env/games/index.ts";

/**
 * Parity of onnxruntime-node, the one ONNX runtime, against a reference computation of the same
 * network. The reference for the MLPs below is a plain float64 forward pass over the weights
 * writeMlp draws (what a PyTorch export of that MLP computes); the PyTorch side proper is
 * python/tests/test_onnx_parity.py (the exported file against torch's own logits, needs torch).
 * Also: a row's logits do not depend on the batch it runs in (games batched together must decide
 * as they would alone), up to the tolerance of onnxruntime's GEMM, and the masked argmax agrees.
 */

const HIDDEN = 32;

function mlpWeights(obsSize: number, hidden: number, actionSize: number, seed: number) {
  const rng = Rng.seeded(seed);
  const w = (rows: number, cols: number) => {
    const scale = Math.sqrt(2 / rows);
    return Float32Array.from({ length: rows * cols }, () => (rng.nextFloat() * 2 - 1) * scale);
  };
  return { w1: w(obsSize, hidden), b1: w(1, hidden), w2: w(hidden, actionSize), b2: w(1, actionSize) };
}

function referenceLogits(obs: Float32Array, rows: number, obsSize: number, actionSize: number, seed: number): Float64Array {
  const { w1, b1, w2, b2 } = mlpWeights(obsSize, HIDDEN, actionSize, seed);
  const out = new Float64Array(rows * actionSize);
  const h = new Float64Array(HIDDEN);
  for (let r = 0; r < rows; r++) {
    for (let j = 0; j < HIDDEN; j++) {
      let s = b1[j]!;
      for (let i = 0; i < obsSize; i++) s += obs[r * obsSize + i]! * w1[i * HIDDEN + j]!;
      h[j] = Math.max(0, s);
    }
    for (let k = 0; k < actionSize; k++) {
      let s = b2[k]!;
      for (let j = 0; j < HIDDEN; j++) s += h[j]! * w2[j * actionSize + k]!;
      out[r * actionSize + k] = s;
    }
  }
  return out;
}

/** Observations like the encoders make: mostly zeros, some ones, a few other values. */
function sparseObservations(rng: Rng, n: number, size: number): Float32Array {
  const out = new Float32Array(n * size);
  for (let i = 0; i < out.length; i++) {
    const u = rng.nextFloat();
    out[i] = u < 0.75 ? 0 : u < 0.9 ? 1 : rng.nextFloat() * 4 - 2;
  }
  return out;
}

function maxDiff(a: ArrayLike<number>, b: ArrayLike<number>): number {
  expect(a.length).toBe(b.length);
  let m = 0;
  for (let i = 0; i < a.length; i++) m = Math.max(m, Math.abs(a[i]! - b[i]!));
  return m;
}

async function batchLogits(bytes: Uint8Array, input: Float32Array, rows: number, obsSize: number): Promise<Float32Array> {
  const model = policyModelFromBytes("parity", bytes);
  await model.ready();
  const answers = await Promise.all(Array.from({ length: rows }, (_, r) => model.infer(input.subarray(r * obsSize, (r + 1) * obsSize))));
  expect(model.stats.runs).toBe(1); // one batched run
  const out = new Float32Array(rows * answers[0]!.length);
  answers.forEach((a, r) => out.set(a, r * a.length));
  await model.release();
  return out;
}

describe("onnxruntime-node parity", () => {
  for (const id of ["sevens", "shephy", "blackpoker", "dcg"]) {
    it(`${id}: an MLP's logits match the reference forward pass within 1e-4, batched or alone, on real and random observations`, async () => {
      const adapter = adapters.get(id)!;
      const size = adapter.observation.size;
      const actions = adapter.actions.size;
      const bytes = writeMlp({ obsSize: size, hidden: HIDDEN, actionSize: actions, metadata: {}, seed: 5 });
      const game = unwrap(registry.get(id));
      const positions = samplePositions(game, unwrap(game.parseConfig({})), 32, 11);
      expect(positions.length).toBeGreaterThan(20);
      const real = new Float32Array(positions.length * size);
      positions.forEach((p, i) => adapter.observation.encode(p.view, real.subarray(i * size, (i + 1) * size)));
      for (const [input, rows] of [
        [real, positions.length],
        [sparseObservations(Rng.seeded(12), 24, size), 24],
      ] as const) {
        const want = referenceLogits(input, rows, size, actions, 5);
        const batched = await batchLogits(bytes, input, rows, size);
        expect(maxDiff(batched, want)).toBeLessThan(1e-4);
        const model = policyModelFromBytes("parity-1", bytes);
        for (let r = 0; r < rows; r++) {
          const one = await model.infer(input.subarray(r * size, (r + 1) * size));
          expect(maxDiff(one, batched.subarray(r * actions, (r + 1) * actions))).toBeLessThan(1e-5);
        }
        await model.release();
      }
    });
  }

  it("dcg-ppo-v1: the agent makes the same masked-argmax decisions alone and batched with other games", async () => {
    const adapter = adapters.get("dcg")!;
    const bytes = new Uint8Array(readFileSync(join(BUILTIN_MODEL_DIR, "dcg-ppo-v1.onnx")));
    const game = unwrap(registry.get("dcg"));
    const positions = samplePositions(game, unwrap(game.parseConfig({})), 48, 11);
    const alone = policyModelFromBytes("alone", bytes);
    const agent = new OnnxAgent(alone, adapter, { sample: false, temperature: 1 }, 1);
    const one: number[] = [];
    for (const p of positions) one.push(await agent.decide(p));
    expect(alone.stats.largestBatch).toBe(1);
    const together = policyModelFromBytes("together", bytes);
    const agents = positions.map((_, i) => new OnnxAgent(together, adapter, { sample: false, temperature: 1 }, i));
    const many = await Promise.all(positions.map((p, i) => agents[i]!.decide(p)));
    expect(together.stats.largestBatch).toBeGreaterThan(20);
    expect(many).toEqual(one);
    expect(new Set(one).size).toBeGreaterThan(1); // the positions discriminate, or this could not fail
    await alone.release();
    await together.release();
  });
});
