import { describe, expect, it } from "vitest";
import { createRegistry, replay } from "../../engine/core/index.ts";
import { runMatch, MatchError } from "../../agents/match.ts";
import { RandomAgent } from "../../agents/random.ts";
import { createAgent, parseAgentSpec } from "../../agents/spec.ts";
import type { Facilitatee } from "../../agents/facilitatee.ts";
import { tiny } from "./tiny-game.ts";
import { ManualClock } from "../../agents/clock.ts";

describe("match runner", () => {
  it("plays a whole game, returns the record, and the record replays to the same hash", async () => {
    const result = await runMatch({ game: tiny, config: {}, seed: 3, agents: [new RandomAgent(1), new RandomAgent(2)] });
    expect(result.returns.reduce((a, b) => a + b, 0)).toBe(0);
    const again = replay(createRegistry([tiny]), JSON.parse(JSON.stringify(result.record)));
    expect(again.ok && again.value.finalHash).toBe(result.finalHash);
  });

  it("applies the expectation's default decision when an agent misses its deadline", async () => {
    const clock = new ManualClock();
    // Seat 0 thinks 6 ms on a 5 ms deadline (its time passes on the clock while it decides).
    const slow: Facilitatee = {
      name: "slow",
      decide: () =>
        new Promise<number>((r) => {
          clock.setTimer(6, () => r(0));
          clock.advance(6);
        }),
    };
    const fast: Facilitatee = { name: "fast", decide: () => 1 };
    const events: boolean[] = [];
    const result = await runMatch({
      game: tiny,
      config: { timeoutMs: 5, target: 6 },
      seed: 1,
      agents: [slow, fast],
      clock,
      onDecision: (e) => events.push(e.timedOut),
    });
    expect(events.filter(Boolean).length).toBeGreaterThan(0);
    expect(events.every((timedOut, step) => timedOut === (step % 2 === 0))).toBe(true);
    expect(result.record.decisions).toContainEqual({ kind: "stall" });
  });

  it("refuses an agent that answers out of range, and a wrong number of agents", async () => {
    const bad: Facilitatee = { name: "bad", decide: () => 9 };
    await expect(runMatch({ game: tiny, config: {}, seed: 1, agents: [bad, bad] })).rejects.toThrow(MatchError);
    await expect(runMatch({ game: tiny, config: {}, seed: 1, agents: [bad] })).rejects.toThrow(/needs 2 agents/);
  });
});

describe("agent specs", () => {
  it("parses name:key=value lists and refuses junk with a clear message", () => {
    const p = parseAgentSpec("mcts:iters=400,c=1.4");
    expect(p.ok && p.value).toEqual({ name: "mcts", params: { iters: "400", c: "1.4" } });
    const unknown = createAgent("nope", { seed: 1, seat: 0, game: "tiny" });
    expect(!unknown.ok && unknown.error.message).toMatch(/unknown agent "nope"; known agents: random/);
    const param = createAgent("random:x=1", { seed: 1, seat: 0, game: "tiny" });
    expect(!param.ok && param.error.message).toMatch(/has no parameter "x"/);
    expect(parseAgentSpec("random:__proto__=1").ok).toBe(false);
    expect(parseAgentSpec("random:novalue").ok).toBe(false);
    expect(parseAgentSpec("x".repeat(600)).ok).toBe(false);
  });

  it("random agents with different seats play different streams, the same seat the same", () => {
    const req = { game: tiny, seat: 0, view: {}, legal: new Array(1000).fill(0), step: 0 };
    const a = createAgent("random", { seed: 1, seat: 0, game: "tiny" });
    const b = createAgent("random", { seed: 1, seat: 0, game: "tiny" });
    const c = createAgent("random", { seed: 1, seat: 1, game: "tiny" });
    if (!a.ok || !b.ok || !c.ok) throw new Error("spec");
    const seq = (x: Facilitatee) => Array.from({ length: 5 }, () => x.decide(req));
    const sa = seq(a.value);
    expect(seq(b.value)).toEqual(sa);
    expect(seq(c.value)).not.toEqual(sa);
  });
});
