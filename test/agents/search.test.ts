import { describe, expect, it } from "vitest";
import { deriveSeed, Rng, type AnyGame } from "../../engine/core/index.ts";
import { runMatch } from "../../agents/match.ts";
import { createAgent } from "../../agents/spec.ts";
import type { Facilitatee } from "../../agents/facilitatee.ts";
import { MctsAgent } from "../../agents/mcts.ts";
import { ComputerAgent } from "../../agents/computer.ts";
import { games } from "./fixtures/games.ts";

const agent = (spec: string, seat: number, seed = 1, game = "sevens"): Facilitatee => {
  const made = createAgent(spec, { seed, seat, game });
  if (!made.ok) throw new Error(made.error.message);
  return made.value;
};

function configOf(game: AnyGame, raw: unknown) {
  const parsed = game.parseConfig(raw);
  if (!parsed.ok) throw new Error(parsed.error.message);
  return parsed.value;
}

async function play(game: AnyGame, specs: string[], seed: number, config: unknown = {}) {
  const parsed = configOf(game, config);
  const agents = Array.from({ length: parsed.seats }, (_, s) => agent(specs[s % specs.length]!, s, deriveSeed(seed, "agents"), game.info.id));
  return runMatch({ game, config: parsed, seed, agents });
}

/** A sevens position a few random moves in, from the acting seat's point of view. */
function position(seed: number) {
  const game = games.sevens!;
  const rng = Rng.seeded(seed);
  let s = game.setup(configOf(game, { seats: 4, passLimit: 3, voluntaryPass: true }), seed);
  for (let i = 0; i < 6; i++) s = game.applyTrusted(s, rng.pick(game.legal(s)));
  return { game, state: s, seat: game.actor(s) as number };
}

describe("computer and mcts agents", () => {
  it("play whole games of every game legally (runMatch applies checked) and deterministically", async () => {
    for (const [id, config] of [
      ["sevens", { seats: 3 }],
      ["shephy", {}],
    ] as const) {
      for (const spec of ["computer:dets=2", "mcts:iters=30", "sandbag", "tutorial"]) {
        const a = await play(games[id]!, [spec, "random"], 5, config);
        const b = await play(games[id]!, [spec, "random"], 5, config);
        expect(a.finalHash, `${id} ${spec}`).toBe(b.finalHash);
        expect(a.record.decisions).toEqual(b.record.decisions);
      }
    }
  });

  it("decide from the view alone: states that look the same to the seat get the same decision", () => {
    for (let seed = 1; seed <= 5; seed++) {
      const { game, state, seat } = position(seed);
      const view = game.view(state, seat);
      // Another full state consistent with the same view (hidden cards re-dealt).
      const other = game.determinize(view, seat, Rng.seeded(seed + 100));
      expect(game.view(other, seat)).toEqual(view);
      expect(game.legal(other)).toEqual(game.legal(state));
      for (const make of [() => new ComputerAgent(seed), () => new MctsAgent(seed, { iters: 60 })]) {
        const a = make().decide({ game, seat, view, legal: game.legal(state), step: 0 });
        const b = make().decide({ game, seat, view: game.view(other, seat), legal: game.legal(other), step: 0 });
        expect(a).toBe(b);
      }
    }
  });

  it("take a winning move when there is one (computer stops early, mcts finds it)", () => {
    const game = games.tiny!;
    // tiny: the seat that reaches the target wins; at 8 of 10, "add 2" wins at once.
    const state = { ...game.setup(configOf(game, {}), 1), total: 8 };
    const request = { game, seat: 0, view: game.view(state, 0), legal: game.legal(state), step: 4 };
    expect(request.legal[1]).toEqual({ kind: "add", n: 2 });
    for (let seed = 1; seed <= 10; seed++) {
      expect(new ComputerAgent(seed).decide(request)).toBe(1);
      expect(new MctsAgent(seed, { iters: 50 }).decide(request)).toBe(1);
    }
  });

  it("mcts with an iteration budget is deterministic; with a time budget it still answers legally", () => {
    const { game, state, seat } = position(3);
    const request = { game, seat, view: game.view(state, seat), legal: game.legal(state), step: 6 };
    const a = new MctsAgent(9, { iters: 80 });
    const b = new MctsAgent(9, { iters: 80 });
    expect([a.decide(request), a.decide(request)]).toEqual([b.decide(request), b.decide(request)]);
    expect(a.lastIterations).toBe(80);
    const timed = new MctsAgent(9, { iters: 100_000_000, ms: 15 });
    const i = timed.decide(request);
    expect(i).toBeGreaterThanOrEqual(0);
    expect(i).toBeLessThan(request.legal.length);
    expect(timed.lastIterations).toBeGreaterThan(0);
    expect(timed.lastIterations).toBeLessThan(100_000_000);
  });

  it("sandbag passes whenever it may, tutorial plays the first non-passive decision", () => {
    const sandbag = agent("sandbag", 0);
    const tutorial = agent("tutorial", 0);
    let passes = 0;
    for (let seed = 1; seed <= 20; seed++) {
      const { game, state, seat } = position(seed);
      const legal = game.legal(state);
      const request = { game, seat, view: game.view(state, seat), legal, step: 6 };
      const passAt = legal.findIndex((d: any) => d.kind === "pass");
      if (passAt >= 0) {
        passes++;
        expect(sandbag.decide(request)).toBe(passAt);
      }
      const firstActive = legal.findIndex((d: any) => d.kind !== "pass");
      expect(tutorial.decide(request)).toBe(firstActive >= 0 ? firstActive : 0);
    }
    expect(passes).toBeGreaterThan(0);
  });

  it("sandbag without a pass plays the decision that changes its view the least", () => {
    // shephy has no pass: the sandbag still answers, deterministically, for a given seed.
    const game = games.shephy!;
    const state = game.setup(configOf(game, {}), 4);
    const request = { game, seat: 0, view: game.view(state, 0), legal: game.legal(state), step: 0 };
    const a = agent("sandbag", 0, 3, "shephy").decide(request);
    expect(agent("sandbag", 0, 3, "shephy").decide(request)).toBe(a);
    expect(a).toBeGreaterThanOrEqual(0);
    expect(a).toBeLessThan(request.legal.length);
  });
});
