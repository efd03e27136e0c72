import { describe, expect, it } from "vitest";
import { createAgent, knownAgents, splitAgentList } from "../../agents/spec.ts";

const ctx = { seed: 1, seat: 0, game: "sevens" };
const error = (spec: string) => {
  const made = createAgent(spec, ctx);
  return made.ok ? "built" : made.error.message;
};

describe("agent spec strings", () => {
  it("builds every agent from its spec, named by its spec", () => {
    expect(knownAgents()).toEqual(expect.arrayContaining(["random", "sandbag", "tutorial", "computer", "mcts", "onnx"]));
    for (const spec of [
      "random",
      "sandbag",
      "tutorial",
      "computer",
      "computer:dets=2,rollouts=3,depth=10,eval=rollout",
      "mcts",
      "mcts:iters=50,c=1.2",
      "mcts:ms=20",
    ]) {
      const made = createAgent(spec, ctx);
      expect(made.ok, spec).toBe(true);
      if (made.ok && spec.includes(":")) expect(made.value.name).toBe(spec);
    }
  });

  it("refuses bad parameters with messages naming the agent, the parameter and the range", () => {
    expect(error("mcts:iters=abc")).toBe('agent "mcts": iters must be an integer between 1 and 100000000, got "abc"');
    expect(error("mcts:iters=0")).toMatch(/iters must be an integer between 1/);
    expect(error("mcts:c=-1")).toMatch(/agent "mcts": c must be a number between 0 and 100, got "-1"/);
    expect(error("mcts:ms=1.5")).toMatch(/ms must be an integer/);
    expect(error("computer:dets=0")).toMatch(/agent "computer": dets must be an integer between 1 and 256, got "0"/);
    expect(error("computer:eval=magic")).toMatch(/eval must be one of auto, rollout, game/);
    expect(error("computer:speed=3")).toMatch(/agent "computer" has no parameter "speed"; it takes dets, rollouts, depth, eval/);
    expect(error("sandbag:x=1")).toMatch(/agent "sandbag" has no parameter "x"$/);
    expect(error("onnx")).toMatch(/agent "onnx" needs path=<model.onnx>/);
    expect(error("onnx:path=m.onnx,sample=maybe")).toMatch(/sample must be true or false/);
    expect(error("onnx:path=m.onnx")).toMatch(/needs the sevens adapter and action-spec hash/);
  });

  it("splits agent lists whose specs carry their own commas", () => {
    expect(splitAgentList("random,mcts:iters=200,c=1,computer")).toEqual(["random", "mcts:iters=200,c=1", "computer"]);
    expect(splitAgentList("onnx:path=a.onnx,sample=true; random")).toEqual(["onnx:path=a.onnx,sample=true", "random"]);
    expect(splitAgentList(" random , sandbag ")).toEqual(["random", "sandbag"]);
  });
});
