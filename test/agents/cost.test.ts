import { describe, expect, it } from "vitest";
import { checkAgentCost, checkDecisionCost } from "../../agents/cost.ts";
import { runScript } from "../scripts/run-script.ts";

describe("the per-decision cost cap (arena --max-agent-cost, live tables)", () => {
  it("names the refused spec and the limit, and no seat (a spec so capped may sit at any seat)", () => {
    const r = checkDecisionCost("mcts:iters=2000", 1000, undefined, "dcg");
    expect(r.ok).toBe(false);
    if (r.ok) return;
    expect(r.error.message).toBe('"mcts:iters=2000" costs 2000 playout units per decision; the limit is --max-agent-cost 1000 (docs/agents.md, Agent cost)');
    // The session check keeps its own wording (seats and envs are real there).
    const session = checkAgentCost(["learner", "mcts:iters=2000"], 2, 1000, undefined, "dcg");
    expect(!session.ok && session.error.message).toContain('seat 1 "mcts:iters=2000"');
  });

  it("admits a spec within the limit", () => {
    expect(checkDecisionCost("mcts:iters=1000", 1000)).toEqual({ ok: true, value: 1000 });
  });

  it("the arena refuses a costly agent in one line naming it, before any game", () => {
    const r = runScript("arena.ts", ["--game", "dcg", "--agents", "random,mcts:iters=2000", "--games", "2", "--max-agent-cost", "1000"]);
    expect(r.code).toBe(2);
    expect(r.stdout).toBe("");
    expect(r.stderr.trim()).toBe(
      'error: --agents: "mcts:iters=2000" costs 2000 playout units per decision; the limit is --max-agent-cost 1000 (docs/agents.md, Agent cost)',
    );
  });
});
