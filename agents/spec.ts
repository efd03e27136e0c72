import { deriveSeed, fail, ok, type Result } from "../engine/core/index.ts";
import { ComputerAgent, COMPUTER_DEFAULTS, MAX_SEARCH_ITERATIONS, type EvaluatorChoice } from "./computer.ts";
import { computerLevels, DEFAULT_LEVEL, MAX_LEVEL, MIN_LEVEL, type ComputerLevel } from "./levels.ts";
import type { Facilitatee } from "./facilitatee.ts";
import { GuidedMctsAgent, GUIDED_DEFAULTS } from "./guided-mcts.ts";
import { MctsAgent, MCTS_DEFAULTS } from "./mcts.ts";
import { BUILTIN_MODEL_DIR } from "./paths.ts";
import { OnnxAgent } from "./onnx/onnx-agent.ts";
import { checkPolicyModel, loadPolicyModel, ModelLoadError, RUNTIME_JS_REMOVED, RUNTIMES, type PolicyModel, type Runtime } from "./onnx/policy-model.ts";
import { boolParam, enumParam, intParam, numberParam, optionalIntParam, stringParam } from "./params.ts";
import type { PolicyAdapter } from "./policy-adapter.ts";
import { RandomAgent } from "./random.ts";
import { SandbagAgent } from "./sandbag.ts";
import { TutorialAgent } from "./tutorial.ts";

/**
 * Agents are built from spec strings shared by the CLI, the arena and the server:
 * `name` or `name:key=value,key=value` (e.g. `random`, `mcts:iters=400`).
 */
export interface AgentSpec {
  readonly name: string;
  readonly params: Readonly<Record<string, string>>;
}

export interface AgentContext {
  /** Base seed; each agent derives its own stream from it and its seat. */
  readonly seed: number;
  readonly seat: number;
  readonly game: string;
  /**
   * The game's RL adapter (observation encoder + action codec), for policy agents (onnx). The
   * server and the arena pass env's adapter; agents/ never imports env/.
   */
  readonly adapter?: PolicyAdapter;
  /** The action-spec hash env computes for that adapter; an ONNX model must carry the same. */
  readonly actionSpecHash?: string;
  /** When set, onnx model paths resolve against it and must stay inside it (servers set this). */
  readonly modelRoot?: string;
}

type Factory = (spec: AgentSpec, ctx: AgentContext) => Result<Facilitatee>;

/** The agent's own stream: from the base seed, its seat and its name, never from the game's RNG. */
const agentSeed = (ctx: AgentContext, name: string) => agentStreamSeed(ctx.seed, ctx.seat, name);

/** The seed of the stream of agent `name` seated at `seat` from base seed `base` (what createAgent gives it). */
export const agentStreamSeed = (base: number, seat: number, name: string): number => deriveSeed(base, `agent:${seat}:${name}`);

/** The spec written back canonically (name and parameters in the order given): the agent's name. */
export function specText(spec: AgentSpec): string {
  const params = Object.entries(spec.params).map(([k, v]) => (spec.name === "onnx" && k === "builtin" ? `builtin/${v}` : `${k}=${v}`));
  return params.length === 0 ? spec.name : `${spec.name}:${params.join(",")}`;
}

const MB = 1024 * 1024;

/**
 * Trained policies shipped with the repository (models/builtin/<name>.onnx, each with a <name>.md
 * saying how it was made), seated as `onnx:builtin/<name>` from any host: they resolve here, not
 * against the host's model root, and stay confined to this folder.
 */
export { BUILTIN_MODEL_DIR };
const BUILTIN_NAME = /^[A-Za-z0-9][A-Za-z0-9._-]*$/;

const factories: Record<string, { params: readonly string[]; make: Factory }> = {
  random: { params: [], make: (_spec, ctx) => ok(new RandomAgent(agentSeed(ctx, "random"))) },
  sandbag: { params: [], make: (_spec, ctx) => ok(new SandbagAgent(agentSeed(ctx, "sandbag"))) },
  tutorial: { params: [], make: () => ok(new TutorialAgent()) },
  computer: {
    params: ["dets", "rollouts", "depth", "eval", "beam", "level", "search"],
    make(spec, ctx) {
      const level = intParam(spec, "level", DEFAULT_LEVEL, MIN_LEVEL, MAX_LEVEL);
      if (!level.ok) return level;
      const preset = computerLevels(ctx.game)[level.value as ComputerLevel];
      const dets = intParam(spec, "dets", preset.dets, 1, 256);
      if (!dets.ok) return dets;
      const rollouts = intParam(spec, "rollouts", preset.rollouts, 1, 1024);
      if (!rollouts.ok) return rollouts;
      const depth = intParam(spec, "depth", COMPUTER_DEFAULTS.depth, 0, 1_000_000);
      if (!depth.ok) return depth;
      const evaluator = enumParam<EvaluatorChoice>(spec, "eval", "auto", ["auto", "rollout", "game"]);
      if (!evaluator.ok) return evaluator;
      const beam = intParam(spec, "beam", preset.beam, 1, 10_000);
      if (!beam.ok) return beam;
      const search = intParam(spec, "search", COMPUTER_DEFAULTS.search, 0, MAX_SEARCH_ITERATIONS);
      if (!search.ok) return search;
      const options = {
        dets: dets.value,
        rollouts: rollouts.value,
        depth: depth.value,
        evaluator: evaluator.value,
        beam: beam.value,
        blunder: preset.blunder,
        search: search.value,
      };
      return ok(new ComputerAgent(agentSeed(ctx, "computer"), options, specText(spec)));
    },
  },
  mcts: {
    params: ["iters", "ms", "c", "depth", "leaf", "policy", "cpuct", "noise", "value", "ptemp", "eprior", "efpu", "esettle", "plies", "rollout", "maxMB"],
    make(spec, ctx) {
      if (spec.params.policy !== undefined) return makeGuidedMcts(spec, ctx);
      for (const key of ["cpuct", "noise", "value", "ptemp", "eprior", "efpu", "esettle", "plies", "rollout", "maxMB"]) {
        if (spec.params[key] !== undefined) return fail("invalid_config", `agent "mcts": ${key} needs policy=<model.onnx>`);
      }
      const ms = optionalIntParam(spec, "ms", 1, 600_000);
      if (!ms.ok) return ms;
      // With only a time budget, iterations are capped by the time alone (a large cap).
      const iters = intParam(spec, "iters", ms.value === undefined ? MCTS_DEFAULTS.iters : 100_000_000, 1, 100_000_000);
      if (!iters.ok) return iters;
      const c = numberParam(spec, "c", MCTS_DEFAULTS.c, 0, 100);
      if (!c.ok) return c;
      const depth = intParam(spec, "depth", MCTS_DEFAULTS.depth, 0, 1_000_000);
      if (!depth.ok) return depth;
      const leaf = enumParam(spec, "leaf", MCTS_DEFAULTS.leaf, ["auto", "rollout", "eval"] as const);
      if (!leaf.ok) return leaf;
      const options = { iters: iters.value, c: c.value, depth: depth.value, leaf: leaf.value, ...(ms.value === undefined ? {} : { ms: ms.value }) };
      return ok(new MctsAgent(agentSeed(ctx, "mcts"), options, specText(spec)));
    },
  },
  onnx: {
    params: ["path", "builtin", "sample", "temperature", "maxMB", "batch", "runtime"],
    make(spec, ctx) {
      const path = stringParam(spec, "path");
      if (!path.ok) return path;
      const builtin = stringParam(spec, "builtin");
      if (!builtin.ok) return builtin;
      if (builtin.value !== undefined && path.value !== undefined)
        return fail("invalid_config", 'agent "onnx" takes either path=<model.onnx> or builtin/<name>, not both');
      if (builtin.value !== undefined && !BUILTIN_NAME.test(builtin.value))
        return fail("invalid_config", `agent "onnx": "${builtin.value}" is not a built-in model name`);
      const file = builtin.value !== undefined ? `${builtin.value}.onnx` : path.value;
      if (file === undefined) return fail("invalid_config", 'agent "onnx" needs path=<model.onnx> (or builtin/<name>)');
      const root = builtin.value !== undefined ? BUILTIN_MODEL_DIR : ctx.modelRoot;
      const sample = boolParam(spec, "sample", false);
      if (!sample.ok) return sample;
      const temperature = numberParam(spec, "temperature", 1, 1e-3, 1e3);
      if (!temperature.ok) return temperature;
      const maxMB = numberParam(spec, "maxMB", 64, 0.001, 4096);
      if (!maxMB.ok) return maxMB;
      const batch = intParam(spec, "batch", 4096, 1, 65536);
      if (!batch.ok) return batch;
      // runtime= is kept for specs written before onnxruntime-node became the only runtime.
      if (spec.params.runtime === "js") return fail("invalid_config", `agent "onnx": ${RUNTIME_JS_REMOVED}`);
      const runtime = enumParam<Runtime>(spec, "runtime", "auto", RUNTIMES);
      if (!runtime.ok) return runtime;
      const model = loadCheckedModel("onnx", file, root, maxMB.value, batch.value, ctx, builtin.value);
      if (!model.ok) return model;
      if (!ctx.adapter) return noAdapter("onnx", ctx);
      const options = { sample: sample.value, temperature: temperature.value };
      return ok(new OnnxAgent(model.value, ctx.adapter, options, agentSeed(ctx, "onnx"), specText(spec)));
    },
  },
};

/**
 * Reads a model file for an agent and checks it against the game's spec and the model contract
 * (the file is untrusted: every refusal is one line naming the reason).
 */
function loadCheckedModel(
  agent: string,
  file: string,
  root: string | undefined,
  maxMB: number,
  batch: number,
  ctx: AgentContext,
  builtin?: string,
): Result<PolicyModel> {
  if (!ctx.adapter || ctx.actionSpecHash === undefined) return noAdapter(agent, ctx);
  try {
    const model = loadPolicyModel(file, { maxBytes: Math.floor(maxMB * MB), maxBatch: batch, ...(root === undefined ? {} : { root }) });
    checkPolicyModel(model, {
      game: ctx.game,
      obsVersion: ctx.adapter.observation.version,
      obsSize: ctx.adapter.observation.size,
      actionSize: ctx.adapter.actions.size,
      actionSpecHash: ctx.actionSpecHash,
    });
    return ok(model);
  } catch (e) {
    if (e instanceof ModelLoadError) {
      const which = builtin === undefined ? "" : ` (built-in model "${builtin}")`;
      return fail("invalid_config", `agent "${agent}": ${e.message}${which}`);
    }
    throw e;
  }
}

/** `mcts:policy=<file>` or `mcts:policy=builtin/<name>`: PUCT search guided by a policy-value network. */
function makeGuidedMcts(spec: AgentSpec, ctx: AgentContext): Result<Facilitatee> {
  const policy = stringParam(spec, "policy");
  if (!policy.ok) return policy;
  for (const key of ["ms", "c", "leaf"]) {
    if (spec.params[key] !== undefined)
      return fail(
        "invalid_config",
        `agent "mcts": ${key} is not used with policy=; it takes iters, cpuct, noise, value, ptemp, eprior, efpu, esettle, plies, depth, rollout, maxMB`,
      );
  }
  const iters = intParam(spec, "iters", GUIDED_DEFAULTS.iters, 1, 1_000_000);
  if (!iters.ok) return iters;
  const cpuct = numberParam(spec, "cpuct", GUIDED_DEFAULTS.cpuct, 0, 100);
  if (!cpuct.ok) return cpuct;
  const noise = numberParam(spec, "noise", GUIDED_DEFAULTS.rootNoise, 0, 1);
  if (!noise.ok) return noise;
  const value = enumParam(spec, "value", GUIDED_DEFAULTS.value, ["net", "eval", "ply"] as const);
  if (!value.ok) return value;
  const ptemp = numberParam(spec, "ptemp", GUIDED_DEFAULTS.ptemp, 0.01, 100);
  if (!ptemp.ok) return ptemp;
  const eprior = numberParam(spec, "eprior", GUIDED_DEFAULTS.eprior, 0, 1000);
  if (!eprior.ok) return eprior;
  const efpu = boolParam(spec, "efpu", GUIDED_DEFAULTS.efpu);
  if (!efpu.ok) return efpu;
  const esettle = boolParam(spec, "esettle", GUIDED_DEFAULTS.esettle);
  if (!esettle.ok) return esettle;
  const plies = intParam(spec, "plies", GUIDED_DEFAULTS.plies, 1, 64);
  if (!plies.ok) return plies;
  if (spec.params.plies !== undefined && value.value !== "ply") return fail("invalid_config", 'agent "mcts": plies needs value=ply');
  const rollout = leafRollout(spec, value.value, esettle.value);
  if (!rollout.ok) return rollout;
  const maxMB = numberParam(spec, "maxMB", 64, 0.001, 4096);
  if (!maxMB.ok) return maxMB;
  const named = policy.value ?? "";
  const builtin = named.startsWith("builtin/") ? named.slice("builtin/".length) : undefined;
  if (builtin !== undefined && !BUILTIN_NAME.test(builtin)) return fail("invalid_config", `agent "mcts": "${builtin}" is not a built-in model name`);
  const file = builtin !== undefined ? `${builtin}.onnx` : named;
  const root = builtin !== undefined ? BUILTIN_MODEL_DIR : ctx.modelRoot;
  const model = loadCheckedModel("mcts", file, root, maxMB.value, 4096, ctx, builtin);
  if (!model.ok) return model;
  if (!ctx.adapter) return noAdapter("mcts", ctx);
  const options = {
    iters: iters.value,
    cpuct: cpuct.value,
    rootNoise: noise.value,
    value: value.value,
    ptemp: ptemp.value,
    eprior: eprior.value,
    efpu: efpu.value,
    esettle: esettle.value,
    plies: plies.value,
    ...rollout.value,
  };
  return ok(new GuidedMctsAgent(model.value, ctx.adapter, agentSeed(ctx, "mcts"), options, specText(spec)));
}

/** The guided search's leaf rollout (`depth`, `rollout`), refused where it would not be used. */
function leafRollout(spec: AgentSpec, value: string, esettle: boolean): Result<{ depth: number; rollout: "random" | "net" }> {
  const depth = intParam(spec, "depth", GUIDED_DEFAULTS.depth, 0, MAX_GUIDED_DEPTH);
  if (!depth.ok) return depth;
  const rollout = enumParam(spec, "rollout", GUIDED_DEFAULTS.rollout, ["random", "net"] as const);
  if (!rollout.ok) return rollout;
  if (spec.params.rollout !== undefined && depth.value === 0) return fail("invalid_config", 'agent "mcts": rollout needs depth=k (k >= 1) with policy=');
  if (depth.value > 0 && value !== "eval") return fail("invalid_config", `agent "mcts": depth (a leaf rollout) needs value=eval, not value=${value}`);
  if (depth.value > 0 && esettle) return fail("invalid_config", 'agent "mcts": depth (a leaf rollout) is not used with esettle');
  return ok({ depth: depth.value, rollout: rollout.value });
}

/** The longest leaf rollout of the guided search (each decision may cost a network run). */
export const MAX_GUIDED_DEPTH = 256;

/**
 * The spec seats a network (`onnx...`, or `mcts:...,policy=...`): hosts then keep several games in
 * flight so that the network's runs batch across them.
 */
export function seatsModel(spec: string): boolean {
  return spec === "onnx" || spec.startsWith("onnx:") || (spec.startsWith("mcts:") && /[:,]policy=/.test(spec));
}

export const MAX_SPEC_LENGTH = 512;

export function parseAgentSpec(text: unknown): Result<AgentSpec> {
  if (typeof text !== "string" || text.length === 0) return fail("invalid_config", "an agent spec must be a non-empty string");
  if (text.length > MAX_SPEC_LENGTH) return fail("invalid_config", `an agent spec must be at most ${MAX_SPEC_LENGTH} characters`);
  const colon = text.indexOf(":");
  const name = colon < 0 ? text : text.slice(0, colon);
  const params: Record<string, string> = Object.create(null);
  if (colon >= 0) {
    for (const part of text.slice(colon + 1).split(",")) {
      if (part === "") continue;
      const eq = part.indexOf("=");
      // `onnx:builtin/<name>`: a shipped model (see BUILTIN_MODEL_DIR), short for builtin=<name>.
      if (eq < 0 && name === "onnx" && part.startsWith("builtin/")) {
        params.builtin = part.slice("builtin/".length);
        continue;
      }
      if (eq <= 0) return fail("invalid_config", `agent spec "${text}": parameter "${part}" is not key=value`);
      const key = part.slice(0, eq);
      if (key === "__proto__" || key === "constructor" || key === "prototype") {
        return fail("invalid_config", `agent spec "${text}": parameter name "${key}" is not allowed`);
      }
      params[key] = part.slice(eq + 1);
    }
  }
  return ok({ name, params });
}

export function knownAgents(): readonly string[] {
  return Object.keys(factories);
}

export function createAgent(text: string, ctx: AgentContext): Result<Facilitatee> {
  const parsed = parseAgentSpec(text);
  if (!parsed.ok) return parsed;
  const entry = Object.hasOwn(factories, parsed.value.name) ? factories[parsed.value.name] : undefined;
  if (!entry) return fail("invalid_config", `unknown agent "${parsed.value.name}"; known agents: ${knownAgents().join(", ")}`);
  for (const key of Object.keys(parsed.value.params)) {
    if (!entry.params.includes(key)) {
      return fail(
        "invalid_config",
        `agent "${parsed.value.name}" has no parameter "${key}"${entry.params.length ? `; it takes ${entry.params.join(", ")}` : ""}`,
      );
    }
  }
  return entry.make(parsed.value, ctx);
}

/**
 * createAgent, then wait until the agent can answer (an ONNX agent's onnxruntime session exists),
 * so a model onnxruntime itself rejects is refused here, as an error value, rather than at the
 * first decision. Hosts that can await (server, arena) should prefer it.
 */
export async function createAgentReady(text: string, ctx: AgentContext): Promise<Result<Facilitatee>> {
  const made = createAgent(text, ctx);
  if (!made.ok) return made;
  const agent = made.value as Facilitatee & { ready?: () => Promise<void> };
  if (typeof agent.ready === "function") {
    try {
      await agent.ready();
    } catch (e) {
      return fail("invalid_config", `agent "${agent.name}": ${(e as Error).message}`);
    }
  }
  return made;
}

/**
 * Splits a comma-separated list of agent specs where specs may carry their own commas:
 * "random,mcts:iters=200,c=1,computer" -> ["random", "mcts:iters=200,c=1", "computer"]. A piece
 * with "=" but no ":" continues the previous spec's parameters. ";" always separates.
 */
export function splitAgentList(text: string): string[] {
  const out: string[] = [];
  for (const group of text.split(";")) {
    for (const raw of group.split(",")) {
      const piece = raw.trim();
      if (piece === "") continue;
      if (out.length > 0 && !piece.includes(":") && piece.includes("=") && out.at(-1)?.includes(":")) {
        out[out.length - 1] += `,${piece}`;
      } else out.push(piece);
    }
  }
  return out;
}

/** The refusal of a model agent whose host gave no RL adapter (or action-spec hash) for the game. */
function noAdapter(agent: string, ctx: AgentContext): Result<never> {
  return fail("invalid_config", `agent "${agent}" needs the ${ctx.game} adapter and action-spec hash from its host (arena, server); none was given`);
}
