import { describe, expect, it } from "vitest";
import { deriveSeed, replay } from "../../engine/core/index.ts";
import { runMatch } from "../../agents/match.ts";
import { createAgent } from "../../agents/spec.ts";
import { games, testRegistry } from "./fixtures/games.ts";

describe("replays of games with bots", () => {
  it("re-run from the record alone (decisions are recorded, no agent is consulted)", async () => {
    for (const [id, config, specs] of [
      ["sevens", { seats: 4, passLimit: 2, voluntaryPass: true }, ["computer:dets=2", "mcts:iters=40", "sandbag", "tutorial"]],
      ["shephy", {}, ["mcts:iters=40"]],
      ["shephy", {}, ["computer:dets=2"]],
    ] as const) {
      const game = games[id]!;
      const parsed = game.parseConfig(config);
      if (!parsed.ok) throw new Error(parsed.error.message);
      const agents = specs.map((spec, seat) => {
        const made = createAgent(spec, { seed: deriveSeed(4, "bots"), seat, game: id });
        if (!made.ok) throw new Error(made.error.message);
        return made.value;
      });
      const result = await runMatch({ game, config: parsed.value, seed: 4, agents });
      // Through JSON, as a record file would travel; replay knows nothing of the agents.
      const again = replay(testRegistry, JSON.parse(JSON.stringify(result.record)));
      if (!again.ok) throw new Error(again.error.message);
      expect(again.value.finalHash).toBe(result.finalHash);
      expect(again.value.hashes).toHaveLength(result.decisions + 1);
      // And a tampered record is caught: the bots' decisions really are what replays.
      const tampered = { ...result.record, decisions: result.record.decisions.slice(0, -1) };
      const short = replay(testRegistry, JSON.parse(JSON.stringify(tampered)));
      expect(short.ok).toBe(false);
    }
  });
});
