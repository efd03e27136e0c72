import { deriveSeed, Rng, type AnyGame } from "../engine/core/index.ts";
import { ComputerAgent } from "./computer.ts";
import type { DecisionRequest } from "./facilitatee.ts";
import { MctsAgent } from "./mcts.ts";
import { OnnxAgent } from "./onnx/onnx-agent.ts";
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
    readonly obsSize: number;
    readonly actionSize: number;
    readonly hidden: number;
    /** onnxruntime's own session.run at batch 1 on the same model (one new input tensor per run): the floor. */
    readonly bareRunsPerSec: number;
    /** The agent's own work at batch 1 without the model: encoding the view and the legal ids, masking. */
    readonly encodePerSec: number;
    readonly batch1DecisionsPerSec: number;
    readonly batchedDecisionsPerSec: number;
    readonly batchSize: number;
    readonly runs: number;
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
  if (policy) {
    const bytes = writeMlp({
      obsSize: policy.observation.size,
      hidden: options.hidden,
      actionSize: policy.actions.size,
      metadata: {},
      seed: options.seed,
    });
    const model = policyModelFromBytes("bench-mlp", bytes);
    const session = await model.ready();
    const ort = await import("onnxruntime-node");
    const input = new Float32Array(policy.observation.size);
    policy.observation.encode(positions[0]!.view, input);
    for (let i = 0; i < 64; i++) await session.run({ obs: new ort.Tensor("float32", input, [1, input.length]) });
    const bareRunsPerSec = await timeLoopAsync(options.minMs, async () => {
      for (let i = 0; i < 64; i++) await session.run({ obs: new ort.Tensor("float32", input, [1, input.length]) });
      return 64;
    });
    const fakeLogits = new Float32Array(policy.actions.size);
    const encodePerSec = timeLoop(options.minMs, () => {
      for (const p of positions) {
        policy.observation.encode(p.view, input);
        let best = 0;
        for (let i = 0; i < p.legal.length; i++) if (fakeLogits[policy.actions.encode(p.view, p.legal[i])]! > fakeLogits[best]!) best = i;
      }
      return positions.length;
    });
    const agent = new OnnxAgent(model, policy, { sample: false, temperature: 1 }, options.seed);
    // Warm up the session (first runs allocate).
    for (const p of positions.slice(0, 8)) await agent.decide(p);
    const batch1 = await timeLoopAsync(options.minMs, async () => {
      for (const p of positions) await agent.decide(p);
      return positions.length;
    });
    const agents = Array.from({ length: options.batchSize }, (_, i) => new OnnxAgent(model, policy, { sample: false, temperature: 1 }, i));
    const runsBefore = model.stats.runs;
    const requestsBefore = model.stats.requests;
    const batched = await timeLoopAsync(options.minMs, async () => {
      await Promise.all(agents.map((a, i) => a.decide(positions[i % positions.length]!)));
      return agents.length;
    });
    const runs = model.stats.runs - runsBefore;
    await model.release();
    onnx = {
      obsSize: policy.observation.size,
      actionSize: policy.actions.size,
      hidden: options.hidden,
      bareRunsPerSec,
      encodePerSec,
      batch1DecisionsPerSec: batch1,
      batchedDecisionsPerSec: batched,
      batchSize: runs > 0 ? Math.round((model.stats.requests - requestsBefore) / runs) : 0,
      runs,
    };
  }
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
