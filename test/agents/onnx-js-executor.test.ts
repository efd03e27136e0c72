import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { Rng, unwrap } from "../../engine/core/index.ts";
import { registry } from "../../engine/games.ts";
import { samplePositions } from "../../agents/bench.ts";
import { compileJsExecutor } from "../../agents/onnx/js-executor.ts";
import { readModelInfo } from "../../agents/onnx/model-info.ts";
import { GraphUnsupported } from "../../agents/onnx/onnx-graph.ts";
import { OnnxAgent } from "../../agents/onnx/onnx-agent.ts";
import { ModelLoadError, policyModelFromBytes, type Runtime } from "../../agents/onnx/policy-model.ts";
import { ProtobufReader, ProtobufWriter } from "../../agents/onnx/protobuf.ts";
import { writeMlp } from "../../agents/onnx/write-mlp.ts";
import { BUILTIN_MODEL_DIR } from "../../agents/spec.ts";
import { adapters } from "../../env/games/index.ts";
import type { GameAdapter } from "../../env/codec.ts";

// ---- a small ONNX writer for graphs other than writeMlp's ----

const INT64_MAX = 2 ** 63; // rounds to INT64_MAX as exporters write "to the end"

function node(op: string, inputs: string[], outputs: string[], attrs: ProtobufWriter[] = []): ProtobufWriter {
  const w = new ProtobufWriter();
  for (const i of inputs) w.stringField(1, i);
  for (const o of outputs) w.stringField(2, o);
  w.stringField(3, `${op}_${outputs[0]}`).stringField(4, op);
  for (const a of attrs) w.messageField(5, a);
  return w;
}
const intAttr = (name: string, v: number) => new ProtobufWriter().stringField(1, name).int64Field(3, v).varintField(20, 2);
const floatAttr = (name: string, v: number) => new ProtobufWriter().stringField(1, name).floatField(2, v).varintField(20, 1);

function floats(name: string, dims: number[], data: ArrayLike<number>, packed = false): ProtobufWriter {
  const w = new ProtobufWriter();
  for (const d of dims) w.varintField(1, d);
  w.varintField(2, 1).stringField(8, name);
  const raw = new Uint8Array(data.length * 4);
  const dv = new DataView(raw.buffer);
  for (let i = 0; i < data.length; i++) dv.setFloat32(i * 4, data[i]!, true);
  return packed ? w.bytesField(4, raw) : w.bytesField(9, raw); // float_data (packed) or raw_data
}

function ints(name: string, data: number[]): ProtobufWriter {
  const raw = new Uint8Array(data.length * 8);
  const dv = new DataView(raw.buffer);
  data.forEach((v, i) => dv.setBigInt64(i * 8, v >= 2 ** 63 ? 2n ** 63n - 1n : BigInt(v), true));
  return new ProtobufWriter().varintField(1, data.length).varintField(2, 7).stringField(8, name).bytesField(9, raw);
}

function signature(name: string, width: number): ProtobufWriter {
  const shape = new ProtobufWriter()
    .messageField(1, new ProtobufWriter().stringField(2, "batch"))
    .messageField(1, new ProtobufWriter().varintField(1, width));
  const tensorType = new ProtobufWriter().varintField(1, 1).messageField(2, shape);
  return new ProtobufWriter().stringField(1, name).messageField(2, new ProtobufWriter().messageField(1, tensorType));
}

function modelOf(nodes: ProtobufWriter[], inits: ProtobufWriter[], obsSize: number, actionSize: number, extraOutputs: [string, number][] = []): Uint8Array {
  const graph = new ProtobufWriter();
  for (const n of nodes) graph.messageField(1, n);
  graph.stringField(2, "test");
  for (const t of inits) graph.messageField(5, t);
  graph.messageField(11, signature("obs", obsSize)).messageField(12, signature("logits", actionSize));
  for (const [name, w] of extraOutputs) graph.messageField(12, signature(name, w));
  return new ProtobufWriter()
    .varintField(1, 8)
    .messageField(7, graph)
    .messageField(8, new ProtobufWriter().stringField(1, "").varintField(2, 13))
    .finish();
}

function randomArray(rng: Rng, n: number, scale = 1): Float32Array {
  return Float32Array.from({ length: n }, () => (rng.nextFloat() * 2 - 1) * scale);
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

async function ortLogits(bytes: Uint8Array, input: Float32Array, n: number, obsSize: number): Promise<Float32Array> {
  const ort = await import("onnxruntime-node");
  const session = await ort.InferenceSession.create(bytes, { intraOpNumThreads: 1 });
  const out = await session.run({ obs: new ort.Tensor("float32", input, [n, obsSize]) });
  await session.release();
  return out.logits!.data as Float32Array;
}

function jsLogits(bytes: Uint8Array, input: Float32Array, n: number, simd = true): Float32Array {
  const js = compileJsExecutor(bytes, readModelInfo(bytes), { simd });
  const out = new Float32Array(n * js.actionSize);
  js.run(input, n, out);
  return out;
}

function maxDiff(a: Float32Array, b: Float32Array): number {
  expect(a.length).toBe(b.length);
  let m = 0;
  for (let i = 0; i < a.length; i++) m = Math.max(m, Math.abs(a[i]! - b[i]!));
  return m;
}

// A graph using every op and attribute form the executor claims, beside a value head it must skip.
function kitchenSink(): { bytes: Uint8Array; obsSize: number; actionSize: number } {
  const rng = Rng.seeded(3);
  const obsSize = 24;
  const actionSize = 7;
  const nodes = [
    node("Constant", [], ["shape3"], [new ProtobufWriter().stringField(1, "value").messageField(5, ints("", [-1, 3, 4])).varintField(20, 4)]),
    node("Slice", ["obs", "s1_starts", "s1_ends", "s1_axes"], ["s1"]),
    node("Reshape", ["s1", "shape3"], ["r1"]),
    node("MatMul", ["r1", "w1"], ["m1"]),
    node("Add", ["m1", "b1"], ["a1"]),
    node("Sigmoid", ["a1"], ["t1"]),
    node("Flatten", ["t1"], ["f1"], [intAttr("axis", 1)]),
    node("Slice", ["obs", "s2_starts", "s2_ends", "s2_axes", "s2_steps"], ["s2"]),
    node("Slice", ["obs", "s3_starts", "s3_ends", "s3_axes"], ["s3"]),
    node("Reshape", ["s3", "shape_0_2_m1"], ["r3"]),
    node("Sub", ["c3", "r3"], ["sub3"]),
    node("Flatten", ["sub3"], ["f3"]),
    node("Concat", ["f1", "s2", "f3"], ["cat"], [intAttr("axis", -1)]),
    node("Gemm", ["cat", "wg", "bg"], ["g1"], [floatAttr("alpha", 0.5), floatAttr("beta", 2), intAttr("transB", 1)]),
    node("LeakyRelu", ["g1"], ["l1"], [floatAttr("alpha", 0.1)]),
    node("Div", ["l1", "two"], ["d1"]),
    node("Mul", ["d1", "d1"], ["sq"]),
    node("Relu", ["d1"], ["rl"]),
    node("Add", ["sq", "rl"], ["sum"]),
    node("Tanh", ["sum"], ["tn"]),
    node("Identity", ["tn"], ["id"]),
    node("Gemm", ["id", "wo", "bo"], ["logits"]),
    node("MatMul", ["id", "wv"], ["value"]),
  ];
  const inits = [
    ints("s1_starts", [0]), ints("s1_ends", [12]), ints("s1_axes", [1]),
    ints("s2_starts", [-1]), ints("s2_ends", [11]), ints("s2_axes", [-1]), ints("s2_steps", [-2]),
    ints("s3_starts", [0, 12]), ints("s3_ends", [INT64_MAX, 24]), ints("s3_axes", [0, 1]),
    ints("shape_0_2_m1", [0, 2, -1]),
    floats("w1", [4, 5], randomArray(rng, 20)), floats("b1", [5], randomArray(rng, 5)),
    floats("c3", [1, 6], randomArray(rng, 6)),
    floats("wg", [16, 33], randomArray(rng, 16 * 33, 0.4)), floats("bg", [1, 16], randomArray(rng, 16)),
    floats("two", [], [2]),
    floats("wo", [16, actionSize], randomArray(rng, 16 * actionSize), true), floats("bo", [actionSize], randomArray(rng, actionSize), true),
    floats("wv", [16, 1], randomArray(rng, 16)),
  ];
  return { bytes: modelOf(nodes, inits, obsSize, actionSize, [["value", 1]]), obsSize, actionSize };
}

function gameModel(id: string): { adapter: GameAdapter; bytes: Uint8Array; label: string } {
  const adapter = adapters.get(id)!;
  if (id === "dcg") return { adapter, bytes: new Uint8Array(readFileSync(join(BUILTIN_MODEL_DIR, "dcg-ppo-v1.onnx"))), label: "dcg-ppo-v1" };
  const bytes = writeMlp({ obsSize: adapter.observation.size, hidden: 64, actionSize: adapter.actions.size, metadata: {}, seed: 5 });
  return { adapter, bytes, label: `MLP ${adapter.observation.size}-64-${adapter.actions.size}` };
}

describe("JS executor", () => {
  it("reads signed int64 varints (ONNX writes -1 as ten bytes)", () => {
    const bytes = new ProtobufWriter().int64Field(1, -1).int64Field(2, -300).int64Field(3, 2 ** 40).finish();
    const r = new ProtobufReader(bytes, bytes.length, 0, true);
    expect([r.next().value, r.next().value, r.next().value]).toEqual([-1, -300, 2 ** 40]);
  });

  it("runs every supported op as onnxruntime does, and skips outputs the logits do not need", async () => {
    const { bytes, obsSize, actionSize } = kitchenSink();
    const js = compileJsExecutor(bytes, readModelInfo(bytes));
    expect(js.ops.split(" ").filter((o) => o === "MatMul")).toHaveLength(1); // the value head's MatMul is not compiled
    expect(js.actionSize).toBe(actionSize);
    const n = 16;
    const input = sparseObservations(Rng.seeded(9), n, obsSize);
    const want = await ortLogits(bytes, input, n, obsSize);
    expect(maxDiff(jsLogits(bytes, input, n), want)).toBeLessThan(1e-5);
    expect(maxDiff(jsLogits(bytes, input, n, false), want)).toBeLessThan(1e-5);
  });

  it("reads float_data initializers as raw_data ones", async () => {
    const rng = Rng.seeded(4);
    const w = randomArray(rng, 10 * 6);
    const b = randomArray(rng, 6);
    const make = (packed: boolean) => modelOf([node("MatMul", ["obs", "w"], ["h"]), node("Add", ["h", "b"], ["logits"])], [floats("w", [10, 6], w, packed), floats("b", [6], b, packed)], 10, 6);
    const input = sparseObservations(rng, 4, 10);
    const raw = jsLogits(make(false), input, 4);
    expect(jsLogits(make(true), input, 4)).toEqual(raw);
    expect(maxDiff(raw, await ortLogits(make(true), input, 4, 10))).toBeLessThan(1e-5);
  });

  for (const id of ["sevens", "shephy", "blackpoker", "dcg"]) {
    it(`agrees with onnxruntime within 1e-4 on ${id}: random inputs and real observations, same masked argmax`, async () => {
      const { adapter, bytes } = gameModel(id);
      const size = adapter.observation.size;
      const game = unwrap(registry.get(id));
      const positions = samplePositions(game, unwrap(game.parseConfig({})), 48, 11);
      expect(positions.length).toBeGreaterThan(20);
      const n = positions.length;
      const real = new Float32Array(n * size);
      positions.forEach((p, i) => adapter.observation.encode(p.view, real.subarray(i * size, (i + 1) * size)));
      const random = sparseObservations(Rng.seeded(12), 32, size);
      for (const [input, rows] of [[real, n], [random, 32]] as const) {
        const want = await ortLogits(bytes, input, rows, size);
        for (const simd of [true, false]) expect(maxDiff(jsLogits(bytes, input, rows, simd), want)).toBeLessThan(1e-4);
      }
      // The decisions the two executors make through the agent, position by position.
      const decide = async (runtime: Runtime) => {
        const model = policyModelFromBytes(`${id}-${runtime}`, bytes, 4096, runtime);
        await model.ready();
        const agent = new OnnxAgent(model, adapter, { sample: false, temperature: 1 }, 1);
        const out: number[] = [];
        for (const p of positions) out.push(await agent.decide(p));
        await model.release();
        return { out, stats: model.stats };
      };
      const js = await decide("js");
      const ort = await decide("ort");
      expect(js.out).toEqual(ort.out);
      expect(js.stats.jsRequests).toBe(js.stats.requests);
      expect(ort.stats.jsRuns).toBe(0);
      expect(new Set(js.out).size).toBeGreaterThan(1); // the positions discriminate, or this could not fail
    });
  }

  it("gives an observation the same logits whatever batch it runs in", () => {
    const { adapter, bytes } = gameModel("sevens");
    const size = adapter.observation.size;
    const input = sparseObservations(Rng.seeded(2), 5, size);
    const batch = jsLogits(bytes, input, 5);
    for (let i = 0; i < 5; i++) {
      const one = jsLogits(bytes, input.slice(i * size, (i + 1) * size), 1);
      expect(one).toEqual(batch.subarray(i * one.length, (i + 1) * one.length));
    }
  });

  it("auto: one executor per loaded model whatever the batch, chosen from the graph and the host's expected batch; runtime=js refuses what it cannot run", async () => {
    const { adapter, bytes } = gameModel("sevens");
    const model = policyModelFromBytes("auto-sevens", bytes);
    expect(model.runtime).toBe("auto");
    expect(model.js?.ops).toBe("MatMul Add Relu MatMul Add");
    expect(model.jsOnly).toBe(true);
    await model.ready();
    const obs = sparseObservations(Rng.seeded(1), 256, adapter.observation.size);
    const rows = Array.from({ length: 256 }, (_, i) => obs.slice(i * adapter.observation.size, (i + 1) * adapter.observation.size));
    const alone = await model.infer(rows[0]!);
    expect(model.stats).toMatchObject({ runs: 1, jsRuns: 1 });
    const all = await Promise.all(rows.map((r) => model.infer(r)));
    expect(model.stats).toMatchObject({ runs: 2, jsRuns: 2, requests: 257 });
    // The same executor for a lone request and a batch of 256: bit-identical logits, so a decision
    // never depends on which batch its request happened to land in.
    expect(all[0]).toEqual(alone);
    await model.release();

    // A host that asks many decisions at once (a server session of 64 envs) gets onnxruntime,
    // whose GEMM wins on big batches; so does a model too large for the JS executor to pay off
    // beyond a few observations (blackpoker's 1097-64-589) once a host batches more than that.
    const many = policyModelFromBytes("auto-sevens-64", bytes, 4096, "auto", 64);
    expect(many.js).toBeNull();
    expect(many.jsUnsupported).toMatch(/onnxruntime is expected to be faster at batches of 64/);
    const bp = gameModel("blackpoker").bytes;
    expect(policyModelFromBytes("auto-blackpoker-1", bp).jsOnly).toBe(true);
    const big = policyModelFromBytes("auto-blackpoker-16", bp, 4096, "auto", 16);
    expect(big.js).toBeNull();
    expect(big.jsOnly).toBe(false);

    const transposed = modelOf([node("Transpose", ["obs"], ["t"], [intAttr("perm", 0)]), node("MatMul", ["t", "w"], ["logits"])], [floats("w", [4, 2], new Float32Array(8))], 4, 2);
    const fallback = policyModelFromBytes("transpose", transposed);
    expect(fallback.js).toBeNull();
    expect(fallback.jsOnly).toBe(false);
    expect(fallback.jsUnsupported).toMatch(/op Transpose/);
    expect(() => policyModelFromBytes("transpose", transposed, 4096, "js")).toThrow(ModelLoadError);
    expect(() => policyModelFromBytes("transpose", transposed, 4096, "js")).toThrow(/runtime=js cannot run this model: op Transpose/);
    expect(policyModelFromBytes("forced", bytes, 4096, "ort").js).toBeNull();
    expect(policyModelFromBytes("forced", bytes, 4096, "js").jsOnly).toBe(true);
  });

  it("corrupted models: refused with a ModelLoadError, or run by both executors with the same logits", async () => {
    const ort = await import("onnxruntime-node");
    const bases = [
      writeMlp({ obsSize: 20, hidden: 8, actionSize: 5, metadata: {}, seed: 1 }),
      new Uint8Array(readFileSync(join(BUILTIN_MODEL_DIR, "dcg-ppo-v1.onnx"))),
    ];
    const rng = Rng.seeded(2);
    let compared = 0;
    for (let t = 0; t < 240; t++) {
      const bytes = bases[t % 2]!.slice();
      // dcg-ppo-v1's nodes sit in its first 6000 bytes; corrupt structure there, not just weights.
      const span = t % 2 === 1 ? 6000 : bytes.length;
      for (let f = 1 + rng.int(3); f > 0; f--) bytes[rng.int(span)] = rng.int(256);
      let js;
      try {
        js = policyModelFromBytes(`fuzz-${t}`, bytes, 4096, "js").js!;
      } catch (e) {
        expect(e).toBeInstanceOf(ModelLoadError); // never another exception
        continue;
      }
      let session;
      try {
        session = await ort.InferenceSession.create(bytes, { intraOpNumThreads: 1, logSeverityLevel: 3 });
      } catch (e) {
        throw new Error(`copy ${t}: the JS executor runs a model onnxruntime refuses: ${(e as Error).message.slice(0, 300)}`);
      }
      const n = 3;
      const input = sparseObservations(rng, n, js.obsSize);
      const want = (await session.run({ obs: new ort.Tensor("float32", input, [n, js.obsSize]) })).logits!.data as Float32Array;
      await session.release();
      const got = new Float32Array(n * js.actionSize);
      js.run(input, n, got);
      expect(got.length).toBe(want.length);
      for (let i = 0; i < got.length; i++) {
        if (Number.isNaN(want[i])) expect(got[i]).toBeNaN();
        else expect(Math.abs(got[i]! - want[i]!)).toBeLessThan(1e-4 * Math.max(1, Math.abs(want[i]!)));
      }
      compared++;
    }
    expect(compared).toBeGreaterThan(50);
  });

  it("declines what it cannot run exactly: batch-axis slices, non-finite weights, bad tensors", () => {
    const refuse = (nodes: ProtobufWriter[], inits: ProtobufWriter[], inSize = 4, outSize = 2) => {
      const bytes = modelOf(nodes, inits, inSize, outSize);
      try {
        compileJsExecutor(bytes, readModelInfo(bytes));
      } catch (e) {
        expect(e).toBeInstanceOf(GraphUnsupported);
        return (e as Error).message;
      }
      return "accepted";
    };
    const w = floats("w", [4, 2], new Float32Array(8));
    expect(refuse([node("Slice", ["obs", "st", "en", "ax"], ["s"]), node("MatMul", ["s", "w"], ["logits"])], [w, ints("st", [1]), ints("en", [INT64_MAX]), ints("ax", [0])])).toMatch(/batch axis/);
    expect(refuse([node("MatMul", ["obs", "w"], ["logits"])], [floats("w", [4, 2], [0, 1, Infinity, 0, 0, 0, 0, 0])])).toMatch(/non-finite/);
    const short = new ProtobufWriter().varintField(1, 4).varintField(1, 2).varintField(2, 1).stringField(8, "w").bytesField(9, new Uint8Array(12));
    expect(refuse([node("MatMul", ["obs", "w"], ["logits"])], [short])).toMatch(/12 bytes of raw_data for 8 float32/);
    expect(refuse([node("MatMul", ["obs", "w"], ["logits"])], [floats("w", [4, 3], new Float32Array(12))])).toMatch(/declared with 2 actions but computes 3/);
    expect(refuse([node("Flatten", ["obs"], ["f"], [intAttr("axis", 0)]), node("MatMul", ["f", "w"], ["logits"])], [w])).toMatch(/Flatten with axis 0/);
    expect(refuse([node("MatMul", ["obs", "w"], ["logits"], [intAttr("foo", 1)])], [w])).toMatch(/attribute "foo"/);
  });
});
