import { mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { beforeAll, describe, expect, it } from "vitest";
import { tempDir } from "../fixtures/temp-dir.ts";
import { deriveSeed, replay, type AnyGame } from "../../engine/core/index.ts";
import { runMatch } from "../../agents/match.ts";
import { createAgent, createAgentReady, type AgentContext } from "../../agents/spec.ts";
import { writeMlp } from "../../agents/onnx/write-mlp.ts";
import { loadPolicyModel } from "../../agents/onnx/policy-model.ts";
import { readModelInfo } from "../../agents/onnx/model-info.ts";
import { OnnxAgent } from "../../agents/onnx/onnx-agent.ts";
import { runArena } from "../../agents/arena/tournament.ts";
import { sevensAdapter } from "../../env/games/sevens.ts";
import { shephyAdapter } from "../../env/games/shephy.ts";
import { specOf } from "../../env/spec.ts";
import type { GameAdapter } from "../../env/codec.ts";
import { testRegistry } from "./fixtures/games.ts";

const dir = tempDir("cardgym-onnx-");
const HIDDEN = 16;

function metadataFor(adapter: GameAdapter) {
  return { game: adapter.game.info.id, obs_version: adapter.observation.version, action_spec_hash: specOf(adapter).actionSpecHash };
}

function modelFile(name: string, adapter: GameAdapter, overrides: Partial<Parameters<typeof writeMlp>[0]> = {}): string {
  const bytes = writeMlp({
    obsSize: adapter.observation.size,
    hidden: HIDDEN,
    actionSize: adapter.actions.size,
    metadata: metadataFor(adapter),
    seed: 7,
    ...overrides,
  });
  const path = join(dir, name);
  writeFileSync(path, bytes);
  return path;
}

function ctxFor(adapter: GameAdapter, seat = 0, seed = 1): AgentContext {
  return { seed, seat, game: adapter.game.info.id, adapter, actionSpecHash: specOf(adapter).actionSpecHash };
}

function configOf(game: AnyGame, raw: unknown) {
  const parsed = game.parseConfig(raw);
  if (!parsed.ok) throw new Error(parsed.error.message);
  return parsed.value;
}

let sevensModel = "";
let shephyModel = "";
beforeAll(() => {
  sevensModel = modelFile("sevens.onnx", sevensAdapter);
  shephyModel = modelFile("shephy.onnx", shephyAdapter);
});

describe("ONNX policy agent", () => {
  it("reads the contract from the ModelProto bytes: signature, opset and metadata_props", () => {
    const info = readModelInfo(new Uint8Array(readFileSync(sevensModel)));
    expect(info.irVersion).toBe(8);
    expect(info.opsetVersion).toBe(13);
    expect(info.metadata).toEqual(metadataFor(sevensAdapter));
    expect(info.inputs.filter((i) => !info.initializers.has(i.name))).toEqual([{ name: "obs", elemType: 1, dims: ["batch", sevensAdapter.observation.size] }]);
    expect(info.outputs).toEqual([{ name: "logits", elemType: 1, dims: ["batch", sevensAdapter.actions.size] }]);
  });

  it("computes the MLP the test wrote: onnxruntime's logits match a plain JS forward pass", async () => {
    {
      const model = loadPolicyModel(sevensModel, { maxBytes: 1 << 24 });
      const obs = Float32Array.from({ length: sevensAdapter.observation.size }, (_, i) => ((i * 37) % 11) / 10);
      const logits = await model.infer(obs);
      // Rebuild the weights exactly as writeMlp drew them and run the network by hand.
      const { Rng } = await import("../../engine/core/index.ts");
      const rng = Rng.seeded(7);
      const w = (rows: number, cols: number) => {
        const scale = Math.sqrt(2 / rows);
        return Float32Array.from({ length: rows * cols }, () => (rng.nextFloat() * 2 - 1) * scale);
      };
      const n = obs.length;
      const A = sevensAdapter.actions.size;
      const w1 = w(n, HIDDEN),
        b1 = w(1, HIDDEN),
        w2 = w(HIDDEN, A),
        b2 = w(1, A);
      const h = Array.from({ length: HIDDEN }, (_, j) => Math.max(0, b1[j]! + Array.from(obs).reduce((s, x, i) => s + x * w1[i * HIDDEN + j]!, 0)));
      const want = Array.from({ length: A }, (_, k) => b2[k]! + h.reduce((s, x, j) => s + x * w2[j * A + k]!, 0));
      expect(logits.length).toBe(A);
      for (let k = 0; k < A; k++) expect(Math.abs(logits[k]! - want[k]!)).toBeLessThan(1e-4);
    }
  });

  it("plays whole games (sevens, shephy) with only legal decisions, argmax and sampling, and the records replay without it", async () => {
    for (const [adapter, path, config] of [
      [sevensAdapter, sevensModel, { seats: 4, passLimit: 3, voluntaryPass: true }],
      [shephyAdapter, shephyModel, {}],
    ] as const) {
      const game = adapter.game;
      const cfg = configOf(game, config);
      for (const spec of [`onnx:path=${path}`, `onnx:path=${path},sample=true,temperature=0.5`]) {
        for (let seed = 1; seed <= 3; seed++) {
          const agents = [];
          for (let s = 0; s < cfg.seats; s++) {
            const made = await createAgentReady(s % 2 === 0 ? spec : "random", ctxFor(adapter as GameAdapter, s, deriveSeed(seed, "a")));
            if (!made.ok) throw new Error(made.error.message);
            agents.push(made.value);
          }
          // runMatch applies every decision through the checked apply: an illegal one throws.
          const result = await runMatch({ game, config: cfg, seed, agents });
          expect(result.decisions).toBeGreaterThan(0);
          const again = replay(testRegistry, JSON.parse(JSON.stringify(result.record)));
          expect(again.ok && again.value.finalHash).toBe(result.finalHash);
        }
      }
    }
  });

  it("a model that answers NaN for every legal action faults instead of playing its first legal move; a NaN logit alone never wins", async () => {
    const cfg = configOf(sevensAdapter.game, {});
    const diverged = modelFile("nan.onnx", sevensAdapter, { weightScale: Number.NaN });
    for (const spec of [`onnx:path=${diverged}`, `onnx:path=${diverged},sample=true`]) {
      const agents = [];
      for (let s = 0; s < cfg.seats; s++) {
        const made = await createAgentReady(s === 0 ? spec : "random", ctxFor(sevensAdapter, s));
        if (!made.ok) throw new Error(made.error.message);
        agents.push(made.value);
      }
      await expect(runMatch({ game: sevensAdapter.game, config: cfg, seed: 3, agents })).rejects.toThrow(/returned NaN for every legal action/);
    }
    // One NaN logit on an action the model would otherwise prefer: the agent plays another legal action.
    const ids = Int32Array.from([0, 1, 2]);
    const { argmaxIndex } = await import("../../agents/onnx/onnx-agent.ts");
    expect(argmaxIndex(Float32Array.from([1, Number.NaN, 0.5]), ids)).toBe(0);
    expect(argmaxIndex(Float32Array.from([Number.NaN, 0.2, 0.5]), ids)).toBe(2);
  });

  it("refuses at load a model that declares a dynamic batch but only runs at batch 1, naming the file; a fixed batch of 1 is still run one at a time", async () => {
    const batchOne = modelFile("batch-one.onnx", sevensAdapter, { logitsShape: [1, sevensAdapter.actions.size] });
    const made = await createAgentReady(`onnx:path=${batchOne}`, ctxFor(sevensAdapter));
    expect(made.ok).toBe(false);
    if (!made.ok) {
      expect(made.error.code).toBe("invalid_config");
      expect(made.error.message).toContain(batchOne);
      expect(made.error.message).toMatch(/declares a dynamic batch but fails at a batch of 2/);
    }
    // Logits that come back in the wrong shape without an error from onnxruntime are refused too.
    const oneRow = modelFile("one-row.onnx", sevensAdapter, { logitsShape: [1, -1], seed: 5 });
    const wrong = await createAgentReady(`onnx:path=${oneRow}`, ctxFor(sevensAdapter));
    expect(wrong.ok).toBe(false);
    const A = sevensAdapter.actions.size;
    if (!wrong.ok) expect(wrong.error.message).toContain(`at a batch of 2 "logits" has shape [1, ${2 * A}], expected [2, ${A}]`);
    // Declared fixed batch 1: the agent never batches it, so it is accepted and answers.
    const fixed = modelFile("fixed-one.onnx", sevensAdapter, { batch: 1, logitsShape: [1, sevensAdapter.actions.size], seed: 9 });
    const model = loadPolicyModel(fixed, { maxBytes: 1 << 24 });
    await model.ready();
    const obs = new Float32Array(sevensAdapter.observation.size);
    const answers = await Promise.all([model.infer(obs), model.infer(obs)]);
    expect(answers.map((a) => a.length)).toEqual([sevensAdapter.actions.size, sevensAdapter.actions.size]);
    expect(model.stats.largestBatch).toBe(1);
  });

  it("batches requests made together into one onnxruntime run", async () => {
    const model = loadPolicyModel(sevensModel, { maxBytes: 1 << 24, maxBatch: 4096 });
    await model.ready();
    const before = { ...model.stats };
    const game = sevensAdapter.game;
    let seed = 1;
    while (game.legal(game.setup(configOf(game, { seats: 4 }), seed)).length < 2) seed++;
    const state = game.setup(configOf(game, { seats: 4 }), seed);
    const seat = game.actor(state) as number;
    const agents = Array.from({ length: 32 }, (_, i) => new OnnxAgent(model, sevensAdapter, { sample: false, temperature: 1 }, i));
    const request = { game, seat, view: game.view(state, seat), legal: game.legal(state), step: 0 };
    if (request.legal.length < 2) throw new Error("need a real choice");
    const answers = await Promise.all(agents.map((a) => a.decide(request)));
    expect(new Set(answers).size).toBe(1); // argmax: same view, same answer
    expect(model.stats.requests - before.requests).toBe(32);
    expect(model.stats.runs - before.runs).toBe(1);
    expect(model.stats.largestBatch).toBeGreaterThanOrEqual(32);
  });

  it("charges each request of a batch an equal share of the run, not its wait", async () => {
    const model = loadPolicyModel(sevensModel, { maxBytes: 1 << 24, maxBatch: 4096 });
    await model.ready();
    const runs = model.stats.runs;
    const obs = new Float32Array(sevensAdapter.observation.size);
    const answers = await Promise.all(Array.from({ length: 24 }, () => model.inferTimed(obs)));
    expect(model.stats.runs - runs).toBe(1);
    const shares = new Set(answers.map((a) => a.seconds));
    expect(shares.size).toBe(1);
    expect([...shares][0]).toBeGreaterThan(0);
  });

  it("plays through the arena with concurrent games by default when an ONNX agent is seated, and batches across them", async () => {
    const game = sevensAdapter.game;
    const own = modelFile("arena.onnx", sevensAdapter, { seed: 11 }); // its own cache entry and stats
    const spec = `onnx:path=${own}`;
    const run = await runArena({
      game,
      config: configOf(game, { seats: 3 }) as never,
      agents: [spec, "random"],
      games: 8,
      seed: 2,
      context: { adapter: sevensAdapter, actionSpecHash: specOf(sevensAdapter).actionSpecHash },
    });
    expect(run.results).toHaveLength(8);
    expect(run.timing[0]!.decisions).toBeGreaterThan(0);
    // The arena's agents share one loaded model: its stats count every game's requests.
    const model = loadPolicyModel(own, { maxBytes: 64 * 1024 * 1024, maxBatch: 4096 });
    expect(model.stats.requests).toBeGreaterThan(0);
    expect(model.stats.requests).toBeLessThanOrEqual(run.timing[0]!.decisions); // forced moves skip the model
    expect(model.stats.largestBatch).toBeGreaterThan(1);
  });

  it("runtime=ort and runtime=auto (older specs) run onnxruntime; runtime=js says the in-process executor is gone; an unknown runtime is refused", async () => {
    const game = sevensAdapter.game;
    let seed = 1;
    while (game.legal(game.setup(configOf(game, { seats: 4 }), seed)).length < 2) seed++;
    const state = game.setup(configOf(game, { seats: 4 }), seed);
    const seat = game.actor(state) as number;
    const request = { game, seat, view: game.view(state, seat), legal: game.legal(state), step: 0 };
    const model = loadPolicyModel(sevensModel, { maxBytes: 64 * 1024 * 1024, maxBatch: 4096 });
    const answers: number[] = [];
    for (const suffix of ["", ",runtime=ort", ",runtime=auto"]) {
      const runs = model.stats.runs;
      const made = await createAgentReady(`onnx:path=${sevensModel}${suffix}`, ctxFor(sevensAdapter, seat));
      if (!made.ok) throw new Error(made.error.message);
      answers.push(await made.value.decide(request));
      expect(model.stats.runs).toBe(runs + 1); // one shared model, whatever runtime= said
    }
    expect(new Set(answers).size).toBe(1);
    const js = createAgent(`onnx:path=${sevensModel},runtime=js`, ctxFor(sevensAdapter));
    expect(js.ok).toBe(false);
    if (!js.ok) expect(js.error.message).toMatch(/runtime=js is no longer supported: onnxruntime-node runs every model/);
    const bad = createAgent(`onnx:path=${sevensModel},runtime=fast`, ctxFor(sevensAdapter));
    expect(bad.ok).toBe(false);
    if (!bad.ok) expect(bad.error.message).toMatch(/runtime.*auto, ort/);
  });

  it("refuses mismatched, truncated, oversized and non-models with a message naming the problem", () => {
    const refuse = (spec: string, ctx = ctxFor(sevensAdapter)) => {
      const made = createAgent(spec, ctx);
      expect(made.ok, spec).toBe(false);
      return made.ok ? "" : made.error.message;
    };
    const wrongInput = modelFile("wrong-input.onnx", sevensAdapter, { obsSize: 10 });
    expect(refuse(`onnx:path=${wrongInput}`)).toMatch(
      new RegExp(`wrong input size: input "obs" has 10 observation floats, the game's spec has ${sevensAdapter.observation.size}`),
    );
    const wrongActions = modelFile("wrong-actions.onnx", sevensAdapter, { actionSize: 50 });
    expect(refuse(`onnx:path=${wrongActions}`)).toMatch(/wrong action count: output "logits" has 50 actions, the game's spec has 53/);
    const wrongHash = modelFile("wrong-hash.onnx", sevensAdapter, { metadata: { ...metadataFor(sevensAdapter), action_spec_hash: "0123456789abcdef" } });
    expect(refuse(`onnx:path=${wrongHash}`)).toMatch(/wrong action-spec hash .*action_spec_hash="0123456789abcdef", expected "[0-9a-f]{16}"/);
    expect(refuse(`onnx:path=${shephyModel}`)).toMatch(/wrong game: the model says game="shephy", expected "sevens"/);
    const noMeta = modelFile("no-meta.onnx", sevensAdapter, { metadata: {} });
    expect(refuse(`onnx:path=${noMeta}`)).toMatch(/metadata_props has no "game"/);
    const bytes = readFileSync(sevensModel) as Buffer;
    const truncated = join(dir, "truncated.onnx");
    writeFileSync(truncated, bytes.subarray(0, Math.floor(bytes.length / 2)));
    expect(refuse(`onnx:path=${truncated}`)).toMatch(/truncated/);
    expect(refuse(`onnx:path=${sevensModel},maxMB=0.001`)).toMatch(/too large: .* MB, the limit is 0.0 MB \(maxMB\)/);
    const junk = join(dir, "junk.onnx");
    writeFileSync(junk, "this is not a model, just some text\n");
    expect(refuse(`onnx:path=${junk}`)).toMatch(/not an ONNX model/);
    expect(refuse(`onnx:path=${join(dir, "missing.onnx")}`)).toMatch(/not found/);
    // A server confines model paths to its model directory.
    const root = join(dir, "models");
    mkdirSync(root, { recursive: true });
    writeFileSync(join(root, "inside.onnx"), bytes);
    const confined = { ...ctxFor(sevensAdapter), modelRoot: root };
    expect(createAgent("onnx:path=inside.onnx", confined).ok).toBe(true);
    expect(refuse("onnx:path=../sevens.onnx", confined)).toBe('agent "onnx": no model file "../sevens.onnx" in the model directory (paths are relative to it)');
    expect(refuse(`onnx:path=${sevensModel}`, confined)).toMatch(/no model file .* in the model directory/);
    // No oracle: an existing file outside, a missing one, a missing one inside, and a folder read the same; no server path is shown.
    const texts = ["/etc/passwd", "/etc/nonexistent", "missing.onnx", "../../etc/passwd", "."].map((p) =>
      refuse(`onnx:path=${p}`, confined).replace(JSON.stringify(p), "P"),
    );
    expect(new Set(texts).size).toBe(1);
    for (const t of texts) expect(t).not.toContain(root);
    rmSync(root, { recursive: true });
    expect(refuse("onnx:path=inside.onnx", confined)).toBe(`agent "onnx": the server's model directory does not exist`);
  });
});
