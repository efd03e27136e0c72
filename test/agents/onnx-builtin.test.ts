import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { tempDir } from "../fixtures/temp-dir.ts";
import { deriveSeed } from "../../engine/core/index.ts";
import { dcg } from "../../engine/dcg/index.ts";
import { runMatch } from "../../agents/match.ts";
import { readModelInfo } from "../../agents/onnx/model-info.ts";
import { BUILTIN_MODEL_DIR, createAgent, createAgentReady, parseAgentSpec, specText, splitAgentList, type AgentContext } from "../../agents/spec.ts";
import { dcgAdapter } from "../../env/games/dcg.ts";
import { specOf } from "../../env/spec.ts";

const FIXTURE = "dcg-ppo-v1";
const SPEC = `onnx:builtin/${FIXTURE}`;
// A host whose own model root holds nothing: built-ins must not depend on it.
const emptyRoot = tempDir("cardgym-empty-models-");

function ctx(seat = 0, seed = 1, modelRoot?: string): AgentContext {
  return {
    seed,
    seat,
    game: "dcg",
    adapter: dcgAdapter,
    actionSpecHash: specOf(dcgAdapter).actionSpecHash,
    ...(modelRoot === undefined ? {} : { modelRoot }),
  };
}

describe("built-in ONNX opponents (onnx:builtin/<name>)", () => {
  it("parses as the onnx agent with a builtin parameter and writes itself back unchanged", () => {
    const p = parseAgentSpec(`${SPEC},sample=true`);
    expect(p.ok && p.value).toEqual({ name: "onnx", params: { builtin: FIXTURE, sample: "true" } });
    if (p.ok) expect(specText(p.value)).toBe(`${SPEC},sample=true`);
    expect(splitAgentList(`random,${SPEC},sandbag`)).toEqual(["random", SPEC, "sandbag"]);
    // Only onnx knows the shorthand; elsewhere a bare word is still an error.
    expect(parseAgentSpec("mcts:builtin/x").ok).toBe(false);
  });

  it("resolves inside models/builtin whatever the host's model root, and refuses names that escape it", () => {
    expect(existsSync(join(BUILTIN_MODEL_DIR, `${FIXTURE}.onnx`))).toBe(true);
    const seated = createAgent(SPEC, ctx(0, 1, emptyRoot));
    expect(seated.ok).toBe(true);
    expect(seated.ok && seated.value.name).toBe(SPEC);
    expect(createAgent(SPEC, ctx()).ok).toBe(true);
    const escape = createAgent("onnx:builtin/../builtin/dcg-ppo-v1", ctx());
    expect(!escape.ok && escape.error.message).toMatch(/not a built-in model name/);
    const missing = createAgent("onnx:builtin/no-such-model", ctx());
    expect(!missing.ok && missing.error.message).toMatch(/no model file .*built-in model "no-such-model"/);
    expect(!missing.ok && missing.error.message).not.toContain(BUILTIN_MODEL_DIR);
    const both = createAgent(`${SPEC},path=x.onnx`, ctx());
    expect(!both.ok && both.error.message).toMatch(/either path=.* or builtin/);
  });

  it("carries the current dcg spec in its metadata (retrain and re-export when this fails)", () => {
    const info = readModelInfo(new Uint8Array(readFileSync(join(BUILTIN_MODEL_DIR, `${FIXTURE}.onnx`))));
    const spec = specOf(dcgAdapter);
    expect(info.metadata).toMatchObject({ game: "dcg", obs_version: spec.observation.version, action_spec_hash: spec.actionSpecHash });
    expect(readFileSync(join(BUILTIN_MODEL_DIR, `${FIXTURE}.onnx`)).length).toBeLessThan(1024 * 1024);
  });

  it("plays whole dcg games from either seat with only legal decisions", async () => {
    const config = dcg.parseConfig({});
    if (!config.ok) throw new Error(config.error.message);
    let wins = 0;
    for (let g = 0; g < 4; g++) {
      const seat = g % 2;
      const agents = [];
      for (let s = 0; s < 2; s++) {
        const made = await createAgentReady(s === seat ? SPEC : "random", ctx(s, deriveSeed(g, "builtin")));
        if (!made.ok) throw new Error(made.error.message);
        agents.push(made.value);
      }
      // runMatch applies every decision through the checked apply: an illegal one throws.
      const result = await runMatch({ game: dcg, config: config.value, seed: 100 + g, agents });
      expect(result.decisions).toBeGreaterThan(0);
      if (result.returns[seat]! > 0) wins++;
    }
    // Strength is the arena gate's job (.ci/gates.json); this only shows it is not a dud.
    expect(wins).toBeGreaterThanOrEqual(2);
  });
});
