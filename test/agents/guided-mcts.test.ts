import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { tempDir } from "../fixtures/temp-dir.ts";
import { Rng, type AnyGame } from "../../engine/core/index.ts";
import { dcg } from "../../engine/dcg/index.ts";
import { agentStreamSeed, createAgent, createAgentReady, seatsModel, type AgentContext } from "../../agents/spec.ts";
import { agentCost } from "../../agents/cost.ts";
import { writeMlp, type MlpSpec } from "../../agents/onnx/write-mlp.ts";
import { loadPolicyModel } from "../../agents/onnx/policy-model.ts";
import { sampleState } from "../../agents/determinized.ts";
import { randomPlayout } from "../../agents/evaluators/index.ts";
import { GuidedMctsAgent, saneValue } from "../../agents/guided-mcts.ts";
import type { DecisionRequest } from "../../agents/facilitatee.ts";
import type { PolicyModel } from "../../agents/onnx/policy-model.ts";
import type { PolicyAdapter } from "../../agents/policy-adapter.ts";
import { dcgAdapter } from "../../env/games/dcg.ts";
import { dcgEvaluator } from "../../agents/evaluators/dcg.ts";
import { sevensAdapter } from "../../env/games/sevens.ts";
import { specOf } from "../../env/spec.ts";
import type { GameAdapter } from "../../env/codec.ts";

const dir = tempDir("cardgym-guided-");
const game = dcg as unknown as AnyGame;

function modelFile(name: string, overrides: Partial<MlpSpec> = {}, adapter: GameAdapter = dcgAdapter): string {
  const bytes = writeMlp({
    obsSize: adapter.observation.size,
    hidden: 8,
    actionSize: adapter.actions.size,
    metadata: { game: adapter.game.info.id, obs_version: adapter.observation.version, action_spec_hash: specOf(adapter).actionSpecHash },
    seed: 3,
    ...overrides,
  });
  const path = join(dir, name);
  writeFileSync(path, bytes);
  return path;
}

const ctx = (seat: number, adapter: GameAdapter = dcgAdapter): AgentContext => ({
  seed: 11,
  seat,
  game: adapter.game.info.id,
  adapter,
  actionSpecHash: specOf(adapter).actionSpecHash,
});

/**
 * What the search played (`iters=12`, the golden.onnx model below, both seats) over the first 60
 * decisions of deal 5, recorded before eprior and efpu existed.
 */
const GOLDEN_PLAY = [
  0, 11, 0, 11, 0, 11, 0, 11, 0, 11, 0, 1, 4, 0, 7, 0, 2, 9, 2, 9, 2, 9, 2, 9, 2, 9, 2, 0, 4, 0, 1, 0, 38, 20, 0, 10, 0, 0, 1, 5, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
  1, 1, 19, 0, 14, 0, 0, 0, 2, 0,
];

type Found = { request: DecisionRequest; ids: number[] };

/**
 * The first dcg position, along random play from deals `seeds`, where every legal decision has its
 * own action id and `accept` (given the state after each decision) returns something.
 */
function findPosition<T>(seeds: readonly number[], accept: (found: Found, after: unknown[]) => T | undefined): T {
  const config = dcg.parseConfig({});
  if (!config.ok) throw new Error(config.error.message);
  for (const seed of seeds) {
    let state: unknown = dcg.setup(config.value, seed);
    const rng = Rng.seeded(seed + 4);
    for (let step = 0; step < 2000; step++) {
      const seat = game.actor(state);
      if (seat === "terminal") break;
      const legal = game.legal(state);
      const view = game.view(state, seat);
      const ids = legal.map((d) => dcgAdapter.actions.encode(view as never, d as never));
      if (new Set(ids).size === ids.length) {
        const from = state;
        const hit = accept(
          { request: { game, seat, view, legal, step }, ids },
          legal.map((d) => game.applyTrusted(from, d)),
        );
        if (hit !== undefined) return hit;
      }
      state = game.applyTrusted(state, legal[rng.int(legal.length)]);
    }
  }
  throw new Error("no such position");
}

/** A dcg position reached by random play where the seat to act has several decisions with distinct action ids. */
function position(): Found {
  return findPosition([5], (found) => (found.request.step > 6 && found.request.legal.length >= 3 ? found : undefined));
}

/** A position where exactly one of at least twelve legal decisions wins the game at once, with its index. */
function oneWinningMove(): Found & { win: number } {
  const seeds = Array.from({ length: 40 }, (_, i) => i + 1);
  return findPosition(seeds, (found, after) => {
    const wins = after.map((s) => game.actor(s) === "terminal" && game.returns(s)[found.request.seat]! > 0);
    return found.request.legal.length >= 12 && wins.filter(Boolean).length === 1 ? { ...found, win: wins.indexOf(true) } : undefined;
  });
}

/** The fewest iterations (1..max) with which the agent the spec makes plays `want`, or max + 1. */
async function iterationsToFind(spec: (iters: number) => string, request: DecisionRequest, want: number, max: number): Promise<number> {
  for (let iters = 1; iters <= max; iters++) {
    const made = await createAgentReady(spec(iters), ctx(request.seat));
    if (!made.ok) throw new Error(made.error.message);
    if ((await made.value.decide(request)) === want) return iters;
  }
  return max + 1;
}

/** What createAgent answers to `mcts:policy=<file>,<params>`: "accepted", or the refusal's message. */
const refusalWith =
  (file: string) =>
  (params: string): string => {
    const made = createAgent(`mcts:policy=${file},${params}`, ctx(0));
    return made.ok ? "accepted" : made.error.message;
  };

async function guided(spec: string, seat: number): Promise<GuidedMctsAgent> {
  const made = await createAgentReady(spec, ctx(seat));
  if (!made.ok) throw new Error(made.error.message);
  return made.value as GuidedMctsAgent;
}

/** The indices a guided search made by `spec` (one agent per seat) plays over the first `count` decisions of deal 5. */
async function playedIndices(spec: string, count: number): Promise<number[]> {
  const config = dcg.parseConfig({});
  if (!config.ok) throw new Error(config.error.message);
  const agents = [await guided(spec, 0), await guided(spec, 1)];
  let state: unknown = dcg.setup(config.value, 5);
  const played: number[] = [];
  for (let step = 0; step < count; step++) {
    const seat = game.actor(state);
    if (seat === "terminal") break;
    const legal = game.legal(state);
    const i = await agents[seat]!.decide({ game, seat, view: game.view(state, seat), legal, step });
    played.push(i);
    state = game.applyTrusted(state, legal[i]);
  }
  return played;
}

describe("mcts with a policy-value network (mcts:policy=...)", () => {
  it("follows the network's prior: a planted prior on one decision or another changes the search's choice", async () => {
    const { request, ids } = position();
    const choices: number[] = [];
    for (const target of [0, ids.length - 1]) {
      const file = modelFile(`prior-${target}.onnx`, { weightScale: 0, logitBias: { [ids[target]!]: 12 }, valueBias: 0 });
      const agent = await guided(`mcts:policy=${file},iters=24`, request.seat);
      choices.push(await agent.decide(request));
      expect(agent.lastVisits.reduce((a, b) => a + b, 0)).toBeGreaterThan(0);
    }
    expect(choices).toEqual([0, ids.length - 1]);
  });

  it("flattens the prior with ptemp: a planted prior draws nearly every visit at 1, far fewer at 50", async () => {
    const { request, ids } = position();
    const file = modelFile("prior-temp.onnx", { weightScale: 0, logitBias: { [ids[0]!]: 12 }, valueBias: 0 });
    const sharp = await guided(`mcts:policy=${file},iters=40,ptemp=1`, request.seat);
    await sharp.decide(request);
    const flat = await guided(`mcts:policy=${file},iters=40,ptemp=50`, request.seat);
    await flat.decide(request);
    expect(sharp.lastVisits[0]).toBeGreaterThanOrEqual(38);
    expect(flat.lastVisits[0]!).toBeLessThan(30);
  });

  it("finds a winning move the prior points at in fewer iterations than plain search", async () => {
    const { request, ids, win } = oneWinningMove();
    const n = request.legal.length;
    const file = modelFile("winner.onnx", { weightScale: 0, logitBias: { [ids[win]!]: 12 }, valueBias: 0 });
    const guidedIters = await iterationsToFind((k) => `mcts:policy=${file},iters=${k}`, request, win, n);
    const plainIters = await iterationsToFind((k) => `mcts:iters=${k}`, request, win, n);
    // The prior sends the first iteration to the winning move; plain search tries the n moves in a
    // random order before it can prefer one.
    expect(guidedIters).toBeLessThanOrEqual(2);
    expect(plainIters).toBeGreaterThan(guidedIters);
  });

  it("values leaves with the evaluator by default, with value=net from the value output when the model has one", async () => {
    const { request } = position();
    const pv = modelFile("pv.onnx", { valueBias: 0.3 });
    const byDefault = await guided(`mcts:policy=${pv},iters=16`, request.seat);
    await byDefault.decide(request);
    expect(byDefault.lastStats.netValues).toBe(0);
    expect(byDefault.lastStats.evalValues).toBeGreaterThan(0);
    const withValue = await guided(`mcts:policy=${pv},iters=16,value=net`, request.seat);
    await withValue.decide(request);
    expect(withValue.lastStats.netValues).toBeGreaterThan(0);
    expect(withValue.lastStats.evalValues).toBe(0);
    const policyOnly = await guided(`mcts:policy=${modelFile("p.onnx")},iters=16,value=net`, request.seat);
    await policyOnly.decide(request);
    expect(policyOnly.lastStats.netValues).toBe(0);
    expect(policyOnly.lastStats.evalValues).toBeGreaterThan(0);
  });

  it("treats a non-finite value as no information and clamps the rest to [-1, 1]", async () => {
    expect([saneValue(NaN), saneValue(Infinity), saneValue(-7), saneValue(0.25)]).toEqual([0, 0, -1, 0.25]);
    const { request } = position();
    const agent = await guided(`mcts:policy=${modelFile("nan.onnx", { valueBias: NaN })},iters=16,value=net`, request.seat);
    const i = await agent.decide(request);
    expect(i).toBeGreaterThanOrEqual(0);
    expect(i).toBeLessThan(request.legal.length);
    expect(agent.lastStats.netValues).toBeGreaterThan(0);
  });

  it("refuses a value output of the wrong shape, and a model for another game", () => {
    const wide = createAgent(`mcts:policy=${modelFile("wide.onnx", { valueBias: 0, valueWidth: 3 })}`, ctx(0));
    expect(wide.ok).toBe(false);
    if (!wide.ok) expect(wide.error.message).toMatch(/output "value" has 3/);
    const other = createAgent(`mcts:policy=${modelFile("sevens.onnx", {}, sevensAdapter)}`, ctx(0));
    expect(other.ok).toBe(false);
    if (!other.ok) expect(other.error.message).toMatch(/wrong game/);
  });

  it("refuses plain-search parameters with a policy and policy parameters without one", () => {
    const file = modelFile("plain.onnx");
    const a = createAgent(`mcts:policy=${file},leaf=rollout`, ctx(0));
    expect(!a.ok && a.error.message).toMatch(/leaf is not used with policy=/);
    const b = createAgent("mcts:cpuct=2", ctx(0));
    expect(!b.ok && b.error.message).toMatch(/cpuct needs policy=/);
    expect(createAgent("mcts:eprior=2", ctx(0))).toMatchObject({ ok: false, error: { message: expect.stringMatching(/eprior needs policy=/) } });
    expect(createAgent("mcts:efpu=true", ctx(0))).toMatchObject({ ok: false, error: { message: expect.stringMatching(/efpu needs policy=/) } });
    expect(seatsModel(`mcts:iters=5,policy=${file}`)).toBe(true);
    expect(seatsModel("mcts:iters=5")).toBe(false);
  });

  it("checks the search parameters' values and bounds", () => {
    const refused = refusalWith(modelFile("bounds.onnx"));
    expect(refused("ptemp=0")).toMatch(/ptemp must be a number between 0.01 and 100/);
    expect(refused("ptemp=x")).toMatch(/ptemp/);
    expect(refused("cpuct=101")).toMatch(/cpuct/);
    expect(refused("value=mix")).toMatch(/value must be one of net, eval, ply/);
    expect(refused("ptemp=0.5,cpuct=3,value=net")).toBe("accepted");
    expect(refused("eprior=-1")).toMatch(/eprior must be a number between 0 and 1000/);
    expect(refused("eprior=1001")).toMatch(/eprior must be a number between 0 and 1000/);
    expect(refused("eprior=NaN")).toMatch(/eprior/);
    expect(refused("efpu=yes")).toMatch(/efpu must be true or false/);
    expect(refused("eprior=8,efpu=1,ptemp=100")).toBe("accepted");
    expect(refused("esettle=2")).toMatch(/esettle must be true or false/);
    expect(refused("value=ply,plies=0")).toMatch(/plies must be an integer between 1 and 64/);
    expect(refused("value=ply,plies=65")).toMatch(/plies/);
    expect(refused("plies=2")).toMatch(/plies needs value=ply/);
    expect(refused("value=ply,plies=4,esettle=1")).toBe("accepted");
  });

  it("with eprior, raises the prior of the decision whose child the evaluator rates higher", async () => {
    const { request, win } = oneWinningMove();
    const n = request.legal.length;
    const flat = modelFile("flat.onnx", { weightScale: 0 });
    const unbiased = await guided(`mcts:policy=${flat},iters=1`, request.seat);
    expect(await unbiased.decide(request)).toBe(0);
    expect(unbiased.lastPriors.every((p) => Math.abs(p - 1 / n) < 1e-9)).toBe(true);
    const biased = await guided(`mcts:policy=${flat},iters=1,eprior=5`, request.seat);
    // The winning move's child is worth 1 to the evaluator, more than any other: its prior is the
    // largest, above uniform, and a single iteration already goes to it.
    expect(await biased.decide(request)).toBe(win);
    const priors = biased.lastPriors;
    expect(priors.reduce((a, b) => a + b, 0)).toBeCloseTo(1, 9);
    expect(priors[win]!).toBeGreaterThan(1 / n);
    for (const [i, p] of priors.entries()) if (i !== win) expect(p).toBeLessThan(priors[win]!);
    expect(biased.lastStats.childValues).toBeGreaterThanOrEqual(n);
    expect(unbiased.lastStats.childValues).toBe(0);
  });

  it("with efpu, an untried decision's Q is its child's value: with no prior term the search goes straight to the win", async () => {
    const { request, win } = oneWinningMove();
    const flat = modelFile("flat-fpu.onnx", { weightScale: 0 });
    const zeroFpu = await guided(`mcts:policy=${flat},iters=1,cpuct=0`, request.seat);
    expect(await zeroFpu.decide(request)).toBe(0);
    const evalFpu = await guided(`mcts:policy=${flat},iters=1,cpuct=0,efpu=true`, request.seat);
    expect(await evalFpu.decide(request)).toBe(win);
  });

  it("with value=ply, values a leaf by its actor's greedy line of best children (up to plies of its own decisions)", async () => {
    const evaluator = dcgEvaluator({ rollouts: 1, depth: 0 });
    const value = (state: unknown, seat: number) => evaluator.value!(game, state, seat);
    /** The greedy line from `leaf` for its actor, as value=ply with `plies` defines it. */
    const greedy = (leaf: unknown, plies: number): number => {
      const actor = game.actor(leaf) as number;
      let state = leaf;
      for (let ply = 1; ; ply++) {
        const children = game.legal(state).map((d) => game.applyTrusted(state, d));
        const values = children.map((c) => value(c, actor));
        const best = values.indexOf(Math.max(...values));
        if (ply >= plies || game.actor(children[best]) !== actor) return values[best]!;
        state = children[best];
      }
    };
    // The first decision leads to a state where the same seat acts again with several choices: the
    // search's first iteration takes it (a flat prior) and the leaf's value concerns only that
    // seat's own decisions, which its view fixes (the opponent's hidden cards do not enter them).
    const { request, after } = findPosition([5, 6, 7], (found, after) => {
      const first = after[0];
      if (found.request.step < 6 || game.actor(first) !== found.request.seat || game.legal(first).length < 3) return undefined;
      return greedy(first, 1) !== value(first, found.request.seat) && greedy(first, 3) !== greedy(first, 1) ? { ...found, after } : undefined;
    });
    const flat = modelFile("flat-ply.onnx", { weightScale: 0 });
    for (const plies of [1, 3]) {
      const agent = await guided(`mcts:policy=${flat},iters=1,value=ply,plies=${plies}`, request.seat);
      await agent.decide(request);
      expect(agent.lastValues[0]).toBeCloseTo(greedy(after[0], plies), 12);
    }
    const plain = await guided(`mcts:policy=${flat},iters=1`, request.seat);
    await plain.decide(request);
    expect(plain.lastValues[0]).toBeCloseTo(value(after[0], request.seat), 12);
  });

  it("with esettle, credits a decision whose effect lands after the opponent's reaction (an attack) in the evaluator prior", async () => {
    const evaluator = dcgEvaluator({ rollouts: 1, depth: 0 });
    // A position where one decision's child gains the most by settling (the opponent's pending
    // reaction passed), and gains something.
    const { request, ids, after, gainer } = findPosition(
      Array.from({ length: 20 }, (_, i) => i + 1),
      (found, after) => {
        const { seat } = found.request;
        const gains = after.map((c) => evaluator.settledValue!(game, c, seat) - evaluator.value!(game, c, seat));
        const top = Math.max(...gains);
        const gainer = gains.indexOf(top);
        return top > 0.05 && gains.filter((g) => g === top).length === 1 ? { ...found, after, gainer } : undefined;
      },
    );
    const flat = modelFile("flat-settle.onnx", { weightScale: 0 });
    const raw = await guided(`mcts:policy=${flat},iters=1,eprior=20`, request.seat);
    await raw.decide(request);
    const settled = await guided(`mcts:policy=${flat},iters=1,eprior=20,esettle=true`, request.seat);
    await settled.decide(request);
    expect(settled.lastPriors[gainer]!).toBeGreaterThan(raw.lastPriors[gainer]!);
    // At a value=eval leaf too: a prior planted on that decision sends the one iteration there, and
    // the leaf (the opponent to react) is worth the settled value to the seat that decided.
    const planted = modelFile("planted-settle.onnx", { weightScale: 0, logitBias: { [ids[gainer]!]: 12 } });
    const { seat } = request;
    const leafRaw = await guided(`mcts:policy=${planted},iters=1`, seat);
    await leafRaw.decide(request);
    expect(leafRaw.lastValues[gainer]).toBeCloseTo(evaluator.value!(game, after[gainer], seat), 12);
    const leafSettled = await guided(`mcts:policy=${planted},iters=1,esettle=true`, seat);
    await leafSettled.decide(request);
    expect(leafSettled.lastValues[gainer]).toBeCloseTo(evaluator.settledValue!(game, after[gainer], seat), 12);
  });

  it("costs more per iteration, for admission, when the evaluator values the expanded node's children", () => {
    const cost = (spec: string): number => {
      const c = agentCost(spec, "dcg");
      if (!c.ok) throw new Error(c.error.message);
      return c.value;
    };
    const plain = cost("mcts:policy=m.onnx,iters=100");
    expect(plain).toBe(200);
    expect(cost("mcts:policy=m.onnx,iters=100,eprior=0,efpu=false")).toBe(plain);
    expect(cost("mcts:policy=m.onnx,iters=100,eprior=5")).toBe(100 * (2 + 16));
    expect(cost("mcts:policy=m.onnx,iters=100,efpu=1")).toBe(100 * (2 + 16));
    expect(cost("mcts:policy=m.onnx,iters=100,value=ply")).toBe(100 * (2 + 16));
    expect(cost("mcts:policy=m.onnx,iters=100,value=ply,plies=4,eprior=5")).toBe(100 * (2 + 64));
  });

  it("eprior=0 plays exactly as the search did before eprior existed", async () => {
    const file = modelFile("golden.onnx", { valueBias: 0.1 });
    // Recorded with the search before eprior and efpu were added (same model, seeds and deal).
    const before = GOLDEN_PLAY;
    expect(before).toHaveLength(60);
    expect(await playedIndices(`mcts:policy=${file},iters=12`, before.length)).toEqual(before);
    expect(await playedIndices(`mcts:policy=${file},iters=12,eprior=0,efpu=false`, before.length)).toEqual(before);
  });

  describe("leaf rollouts (depth=k, rollout=random|net)", () => {
    const evaluator = dcgEvaluator({ rollouts: 1, depth: 0 });
    /** The value, for `seat`, of a leaf whose actor is `actor` and whose rollout ended in `end` (backed up zero-sum). */
    const backedUp = (end: unknown, actor: number, seat: number): number => {
      const v = game.actor(end) === "terminal" ? game.returns(end)[actor]! : saneValue(evaluator.value!(game, end, actor));
      return actor === seat ? v : -v;
    };
    /**
     * With a flat prior and iters=1 the one iteration takes the root's first decision in its first
     * sample, and that child is the leaf. The agent's stream (as createAgent seeds it) drew one
     * sample for the seat check and one for the iteration before the rollout starts: returns that
     * stream, positioned where the rollout begins, and the leaf.
     */
    const leafOfFirstIteration = (request: DecisionRequest): { rng: Rng; leaf: unknown } => {
      const rng = Rng.seeded(agentStreamSeed(11, request.seat, "mcts"));
      sampleState(game, request.view, request.seat, rng);
      const sample = sampleState(game, request.view, request.seat, rng);
      return { rng, leaf: game.applyTrusted(sample, game.legal(sample)[0]) };
    };
    /** The root's first decision's value after one iteration with a random rollout of `depth` decisions, as specified. */
    const randomRolloutValue = (request: DecisionRequest, depth: number): number => {
      const { rng, leaf } = leafOfFirstIteration(request);
      return backedUp(randomPlayout(game, leaf, rng, depth, depth), game.actor(leaf) as number, request.seat);
    };
    /** A position where the first decision's child is not terminal and 4 random decisions from it change its value. */
    const rolloutPosition = (): Found =>
      findPosition([5, 6, 7], (found) => {
        const { request } = found;
        if (request.step < 6) return undefined;
        const { leaf } = leafOfFirstIteration(request);
        if (game.actor(leaf) === "terminal") return undefined;
        const plain = backedUp(leaf, game.actor(leaf) as number, request.seat);
        return randomRolloutValue(request, 4) !== plain ? found : undefined;
      });

    it("values a new leaf by the evaluator after depth random decisions from the agent's own stream", async () => {
      const { request } = rolloutPosition();
      const flat = modelFile("flat-rollout.onnx", { weightScale: 0 });
      const plain = await guided(`mcts:policy=${flat},iters=1`, request.seat);
      await plain.decide(request);
      const { leaf } = leafOfFirstIteration(request);
      expect(plain.lastValues[0]).toBeCloseTo(backedUp(leaf, game.actor(leaf) as number, request.seat), 12);
      const seen = new Set<number>();
      for (const depth of [1, 4, 16]) {
        const agent = await guided(`mcts:policy=${flat},iters=1,depth=${depth}`, request.seat);
        await agent.decide(request);
        expect(agent.lastValues[0]).toBeCloseTo(randomRolloutValue(request, depth), 12);
        expect(agent.lastStats).toMatchObject({ rollouts: 1, rolloutRuns: 0 });
        seen.add(agent.lastValues[0]!);
      }
      // depth=4's value is not the leaf's own (the position was chosen so), and the three depths
      // reach different states.
      expect(randomRolloutValue(request, 4)).not.toBeCloseTo(plain.lastValues[0]!, 6);
      expect(seen.size).toBe(3);
    });

    it("with rollout=net, samples each decision from the network's policy at temperature 1, one run per decision after the leaf's", async () => {
      const { request } = rolloutPosition();
      // Logits that depend on the observation (random weights), so each decision needs its own run.
      const file = modelFile("rollout-net.onnx", { hidden: 16, seed: 9 });
      const model = loadPolicyModel(file, { maxBytes: 64 * 1024 * 1024, maxBatch: 64 });
      await model.ready();
      const legalLogits = async (state: unknown): Promise<number[]> => {
        const seat = game.actor(state) as number;
        const view = game.view(state, seat);
        const obs = new Float32Array(dcgAdapter.observation.size);
        dcgAdapter.observation.encode(view as never, obs);
        const logits = await model.infer(obs);
        return game.legal(state).map((d) => logits[dcgAdapter.actions.encode(view as never, d as never)]!);
      };
      /** The rollout as specified: each decision drawn by one uniform float against the softmax at temperature 1. */
      const netRollout = async (depth: number): Promise<{ value: number; runs: number }> => {
        const { rng, leaf } = leafOfFirstIteration(request);
        let state = leaf;
        let runs = 0;
        for (let step = 0; step < depth && game.actor(state) !== "terminal"; step++) {
          const legal = game.legal(state);
          let i = 0;
          if (legal.length > 1) {
            if (step > 0) runs++;
            const xs = await legalLogits(state);
            const top = Math.max(...xs);
            const w = xs.map((x) => Math.exp(x - top));
            let u = rng.nextFloat() * w.reduce((a, b) => a + b, 0);
            for (i = 0; i < w.length - 1 && (u -= w[i]!) >= 0; i++);
          }
          state = game.applyTrusted(state, legal[i]);
        }
        return { value: backedUp(state, game.actor(leaf) as number, request.seat), runs };
      };
      for (const depth of [1, 4]) {
        // The prior would send the one iteration elsewhere; without the prior term (cpuct=0) it takes the first decision.
        const agent = await guided(`mcts:policy=${file},iters=1,cpuct=0,depth=${depth},rollout=net`, request.seat);
        await agent.decide(request);
        const want = await netRollout(depth);
        expect(agent.lastValues[0]).toBeCloseTo(want.value, 5);
        expect(agent.lastStats.rolloutRuns).toBe(want.runs);
      }
      expect((await netRollout(4)).runs).toBeGreaterThan(0);
    });

    it("is deterministic for a seed and plays as many rollouts as new leaves", async () => {
      const { request } = position();
      const file = modelFile("det-rollout.onnx", { valueBias: 0.1 });
      for (const spec of [`mcts:policy=${file},iters=20,depth=8`, `mcts:policy=${file},iters=20,depth=3,rollout=net`]) {
        const a = await guided(spec, request.seat);
        const b = await guided(spec, request.seat);
        expect(await a.decide(request)).toBe(await b.decide(request));
        expect(a.lastVisits).toEqual(b.lastVisits);
        expect(a.lastValues).toEqual(b.lastValues);
        expect(a.lastStats.rollouts).toBeGreaterThan(0);
        expect(a.lastStats.rollouts + a.lastStats.terminal).toBeGreaterThanOrEqual(a.lastStats.evalValues);
        expect(a.lastStats.rollouts).toBeLessThanOrEqual(20);
      }
    });

    it("checks depth and rollout, and refuses them where they would not be used", () => {
      const refused = refusalWith(modelFile("rollout-bounds.onnx"));
      expect(refused("depth=-1")).toMatch(/depth must be an integer between 0 and 256/);
      expect(refused("depth=257")).toMatch(/depth must be an integer between 0 and 256/);
      expect(refused("depth=2.5")).toMatch(/depth must be an integer/);
      expect(refused("depth=4,rollout=greedy")).toMatch(/rollout must be one of random, net/);
      expect(refused("rollout=net")).toMatch(/rollout needs depth=k/);
      expect(refused("depth=0,rollout=random")).toMatch(/rollout needs depth=k/);
      expect(refused("depth=4,value=net")).toMatch(/depth \(a leaf rollout\) needs value=eval, not value=net/);
      expect(refused("depth=4,value=ply")).toMatch(/needs value=eval, not value=ply/);
      expect(refused("depth=4,esettle=1")).toMatch(/not used with esettle/);
      expect(refused("depth=0,value=net")).toBe("accepted");
      expect(refused("depth=4")).toBe("accepted");
      expect(refused("depth=256,rollout=net,eprior=2")).toBe("accepted");
      expect(createAgent("mcts:rollout=net", ctx(0))).toMatchObject({ ok: false, error: { message: expect.stringMatching(/rollout needs policy=/) } });
      // Without a policy, depth is plain mcts's own (random decisions before the evaluator).
      expect(createAgent("mcts:depth=4", ctx(0)).ok).toBe(true);
    });

    it("costs a short playout per iteration, or two units per rollout decision with rollout=net", () => {
      const cost = (spec: string): number => {
        const c = agentCost(spec, "dcg");
        if (!c.ok) throw new Error(c.error.message);
        return c.value;
      };
      expect(cost("mcts:policy=m.onnx,iters=100,depth=0")).toBe(200);
      expect(cost("mcts:policy=m.onnx,iters=100,depth=16")).toBe(100 * (2 + 1));
      expect(cost("mcts:policy=m.onnx,iters=100,depth=16,rollout=random")).toBe(100 * (2 + 1));
      expect(cost("mcts:policy=m.onnx,iters=100,depth=4,rollout=net")).toBe(100 * (2 + 8));
      expect(cost("mcts:policy=m.onnx,iters=100,depth=4,rollout=net,eprior=5")).toBe(100 * (2 + 16 + 8));
    });
  });

  it("is deterministic for a seed", async () => {
    const { request } = position();
    const file = modelFile("det.onnx", { valueBias: 0.1 });
    const a = await guided(`mcts:policy=${file},iters=20`, request.seat);
    const b = await guided(`mcts:policy=${file},iters=20`, request.seat);
    expect(await a.decide(request)).toBe(await b.decide(request));
    expect(a.lastVisits).toEqual(b.lastVisits);
  });

  it("times a decision by its own work and its share of the network runs, not by the other games' searches that interleave with it", async () => {
    // One clock (ms) that only the searches' own work moves: each observation a search encodes
    // costs it 1 ms (search a) or 3 ms (search b). A batched model answers every queued request
    // at once on a later turn of the event loop, each with a 4 ms share of the run, as the arena's
    // games share one model: the two searches wait on the same runs and resume in turn.
    let clock = 0;
    const queued: ((answer: { logits: Float32Array; value: number | null; seconds: number }) => void)[] = [];
    const model = {
      ready: () => Promise.resolve(),
      inferWithValue: () =>
        new Promise((resolve) => {
          if (queued.length === 0)
            setImmediate(() =>
              queued.splice(0).forEach((answer) => answer({ logits: new Float32Array(dcgAdapter.actions.size), value: null, seconds: 0.004 })),
            );
          queued.push(resolve);
        }),
    } as unknown as PolicyModel;
    const encoded = [0, 0];
    const costing = (who: 0 | 1, ms: number): PolicyAdapter => ({
      actions: dcgAdapter.actions,
      observation: {
        version: dcgAdapter.observation.version,
        size: dcgAdapter.observation.size,
        encode: (view, out) => {
          clock += ms;
          encoded[who]!++;
          dcgAdapter.observation.encode(view, out);
        },
      },
    });
    const { request } = position();
    const a = new GuidedMctsAgent(model, costing(0, 1), 1, { iters: 8 }, "a", () => clock);
    const b = new GuidedMctsAgent(model, costing(1, 3), 2, { iters: 8, depth: 3, rollout: "net" }, "b", () => clock);
    let aEnded = 0;
    const [ta, tb] = await Promise.all([
      a.decideTimed(request).then((t) => {
        aEnded = clock;
        return t;
      }),
      b.decideTimed(request),
    ]);
    expect(encoded[0]).toBeGreaterThan(1);
    expect(encoded[1]).toBeGreaterThan(1);
    // Each search's time is its own encoding plus a 4 ms share per network run (one run per encoding).
    expect(ta.seconds).toBeCloseTo((encoded[0]! * 1) / 1000 + encoded[0]! * 0.004, 9);
    expect(tb.seconds).toBeCloseTo((encoded[1]! * 3) / 1000 + encoded[1]! * 0.004, 9);
    // Every ms of the clock is one search's or the other's, and b's work ran while a's decision
    // was under way: a's wall time would have counted it.
    expect(clock).toBe(encoded[0]! * 1 + encoded[1]! * 3);
    expect(aEnded).toBeGreaterThan(encoded[0]! * 1);
  });
});
