import { deriveSeed, must, Rng, type AnyGame } from "../engine/core/index.ts";
import { ComputerAgent } from "./computer.ts";
import type { DecisionRequest } from "./facilitatee.ts";
import { MctsAgent } from "./mcts.ts";
import { argmaxIndex, OnnxAgent } from "./onnx/onnx-agent.ts";
import { policyModelFromBytes } from "./onnx/policy-model.ts";
import { writeMlp } from "./onnx/write-mlp.ts";
import type { PolicyAdapter } from "./policy-adapter.ts";

export interface BenchFigures {
  readonly game: string;
  readonly positions: number;
  readonly computerDecisionsPerSec: number;
  readonly mctsIterationsPerSec: number;
  readonly mctsDecisionsPerSec: number;
  readonly onnx?: {
    /** "MLP 426-64-53" or the model file benched. */
    readonly model: string;
    readonly obsSize: number;
    readonly actionSize: number;
    /** onnxruntime's own session.run at batch 1 on the same model (one new input tensor per run): its floor. */
    readonly bareRunsPerSec: number;
    /** onnxruntime's session.run on batchSize real observations, per observation. */
    readonly bareBatchedPerSec: number;
    /** The agent's own work at batch 1 without the model: encoding the view and the legal ids, masking. */
    readonly encodePerSec: number;
    readonly batchSize: number;
    /** The agent (onnxruntime-node), sequential awaits: one decision per model run. */
    readonly batch1DecisionsPerSec: number;
    /** batchSize agents deciding at once (Promise.all), repeatedly: the micro-batcher's runs. */
    readonly batchedDecisionsPerSec: number;
    /** Mean requests per model run in the batched measurement. */
    readonly meanBatch: number;
  };
}

export interface BenchOptions {
  readonly positions: number;
  /** Minimum wall time per measurement, in ms. */
  readonly minMs: number;
  readonly mctsIters: number;
  readonly hidden: number;
  readonly batchSize: number;
  readonly seed: number;
  /** Bench this ONNX file (it must fit the game's adapter) instead of a generated MLP. */
  readonly model?: { readonly label: string; readonly bytes: Uint8Array };
}

/** Positions with a real choice, reached by random play from several deals. */
export function samplePositions(game: AnyGame, config: unknown, count: number, seed: number): DecisionRequest[] {
  const out: DecisionRequest[] = [];
  const rng = Rng.seeded(seed);
  for (let deal = 0; out.length < count && deal < count * 20; deal++) {
    let s = game.setup(config, deriveSeed(seed, `bench:${deal}`));
    let step = 0;
    const stopAt = rng.int(60);
    while (game.actor(s) !== "terminal") {
      const legal = game.legal(s);
      const seat = game.actor(s) as number;
      if (step >= stopAt && legal.length > 1) {
        out.push({ game, seat, view: game.view(s, seat), legal, step });
        break;
      }
      s = game.applyTrusted(s, legal[rng.int(legal.length)]);
      step++;
    }
  }
  return out;
}

function timeLoop(minMs: number, body: () => number): number {
  // Returns units of work per second; repeats the body until minMs have passed.
  const start = performance.now();
  let work = 0;
  do work += body();
  while (performance.now() - start < minMs);
  return work / ((performance.now() - start) / 1000);
}

async function timeLoopAsync(minMs: number, body: () => Promise<number>): Promise<number> {
  const start = performance.now();
  let work = 0;
  do work += await body();
  while (performance.now() - start < minMs);
  return work / ((performance.now() - start) / 1000);
}

export async function benchAgents(game: AnyGame, config: unknown, options: BenchOptions, policy?: PolicyAdapter): Promise<BenchFigures> {
  const positions = samplePositions(game, config, options.positions, options.seed);
  if (positions.length === 0) throw new Error(`${game.info.id}: no position with a choice found`);
  // ONNX first, on a fresh heap: after MCTS has built its trees, GC pauses skew the small runs.
  let onnx: BenchFigures["onnx"] | undefined;
  if (policy) onnx = await benchOnnx(positions, options, policy);
  const computer = new ComputerAgent(options.seed);
  const computerRate = timeLoop(options.minMs, () => {
    for (const p of positions) computer.decide(p);
    return positions.length;
  });
  const mcts = new MctsAgent(options.seed, { iters: options.mctsIters });
  let iterations = 0;
  const mctsStart = performance.now();
  let mctsDecisions = 0;
  do {
    for (const p of positions) {
      mcts.decide(p);
      iterations += mcts.lastIterations;
      mctsDecisions++;
    }
  } while (performance.now() - mctsStart < options.minMs);
  const mctsSecs = (performance.now() - mctsStart) / 1000;
  return {
    game: game.info.id,
    positions: positions.length,
    computerDecisionsPerSec: computerRate,
    mctsIterationsPerSec: iterations / mctsSecs,
    mctsDecisionsPerSec: mctsDecisions / mctsSecs,
    ...(onnx ? { onnx } : {}),
  };
}

/** Rounds of the interleaved ONNX measurements; each figure is the best round's rate. */
const ROUNDS = 5;

/** A measured task: its body (one slice of work, returning how many units it did) and its best rate so far. */
interface Task {
  readonly body: () => Promise<number>;
  best: number;
}

const task = (body: () => Promise<number>): Task => ({ body, best: 0 });

/**
 * Measures every task in turn, ROUNDS times, for minMs / ROUNDS each, and keeps each task's best
 * rate: on a shared machine a burst of load then hits one slice of every task alike rather than
 * one whole figure, and the best slice is the least disturbed.
 */
async function interleaved(minMs: number, tasks: readonly Task[]): Promise<void> {
  for (let round = 0; round < ROUNDS; round++) {
    for (const t of tasks) t.best = Math.max(t.best, await timeLoopAsync(Math.max(1, minMs / ROUNDS), t.body));
  }
}

async function benchOnnx(positions: DecisionRequest[], options: BenchOptions, policy: PolicyAdapter): Promise<BenchFigures["onnx"]> {
  if (positions.length === 0) throw new Error("bench: no positions to measure the ONNX agent on");
  const obsSize = policy.observation.size;
  const bytes = options.model?.bytes ?? writeMlp({ obsSize, hidden: options.hidden, actionSize: policy.actions.size, metadata: {}, seed: options.seed });
  const label = options.model?.label ?? `MLP ${obsSize}-${options.hidden}-${policy.actions.size}`;
  const model = policyModelFromBytes("bench", bytes, 4096);
  const ort = await import("onnxruntime-node");
  const session = await model.ortSession();
  const observations = positions.map((p) => {
    const o = new Float32Array(obsSize);
    policy.observation.encode(p.view, o);
    return o;
  });
  const batchInput = new Float32Array(options.batchSize * obsSize);
  const observation = (i: number) => must(observations[i % observations.length], "bench: an encoded position");
  for (let i = 0; i < options.batchSize; i++) batchInput.set(observation(i), i * obsSize);
  const fakeLogits = new Float32Array(policy.actions.size);
  const scratch = new Float32Array(obsSize);
  const ids = new Int32Array(Math.max(...positions.map((p) => p.legal.length)));
  for (let i = 0; i < 64; i++) await session.run({ obs: new ort.Tensor("float32", observation(0), [1, obsSize]) });
  const ortRuns = task(async () => {
    for (let i = 0; i < 64; i++) await session.run({ obs: new ort.Tensor("float32", observation(i), [1, obsSize]) });
    return 64;
  });
  const ortBatched = task(async () => {
    await session.run({ obs: new ort.Tensor("float32", batchInput, [options.batchSize, obsSize]) });
    return options.batchSize;
  });
  const encode = task(async () => {
    for (const p of positions) {
      scratch.fill(0);
      policy.observation.encode(p.view, scratch);
      p.legal.forEach((d, i) => (ids[i] = policy.actions.encode(p.view, d)));
      argmaxIndex(fakeLogits, ids, p.legal.length);
    }
    return positions.length;
  });
  await interleaved(options.minMs, [ortRuns, ortBatched, encode]);
  const agent = new OnnxAgent(model, policy, { sample: false, temperature: 1 }, options.seed);
  for (const p of positions.slice(0, 8)) await agent.decide(p); // warm up (first runs allocate)
  const agents = Array.from({ length: options.batchSize }, (_, i) => new OnnxAgent(model, policy, { sample: false, temperature: 1 }, i));
  const position = (i: number) => must(positions[i % positions.length], "bench: a position");
  await Promise.all(agents.map((a, i) => a.decide(position(i))));
  const tally = { runs: 0, requests: 0 };
  const single = task(async () => {
    for (const p of positions) await agent.decide(p);
    return positions.length;
  });
  const batched = task(async () => {
    const before = { ...model.stats };
    await Promise.all(agents.map((a, i) => a.decide(position(i))));
    tally.runs += model.stats.runs - before.runs;
    tally.requests += model.stats.requests - before.requests;
    return agents.length;
  });
  await interleaved(options.minMs, [single, batched]);
  await model.release();
  return {
    model: label,
    obsSize,
    actionSize: policy.actions.size,
    bareRunsPerSec: ortRuns.best,
    bareBatchedPerSec: ortBatched.best,
    encodePerSec: encode.best,
    batchSize: options.batchSize,
    batch1DecisionsPerSec: single.best,
    batchedDecisionsPerSec: batched.best,
    meanBatch: tally.runs > 0 ? tally.requests / tally.runs : 0,
  };
}
