/**
 * The events contract (docs/events.md) for every registered game, over random games: the shape
 * rules at every decision, and the leak check (test/conformance/events.ts) at every decision that
 * hides something from someone and at a sample of the others.
 */
import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { decisionOnlyEvents, deriveSeed, Rng, type AnyGame } from "../../engine/core/index.ts";
import { dcg } from "../../engine/dcg/index.ts";
import { registry } from "../../engine/games.ts";
import { eventLeakProblems, eventShapeProblems, viewersOf, type LeakTally } from "./events.ts";
import { variantConfigs } from "../../scripts/golden-format.ts";
import { playthrough, seeds } from "./harness.ts";

/** Games per game id, and how often a decision whose events are all public is leak-checked. */
const GAMES = 12;
const PUBLIC_STRIDE = 9;

/**
 * The configs played, in turn: the default, the golden variants, and for dcg card sets whose
 * effects the default pool lacks (the shipped vocabulary set: effect draws, feints consumed,
 * swaps...; a generated pool).
 */
const VOCABULARY = JSON.parse(readFileSync(new URL("../../cards/vocabulary.json", import.meta.url), "utf8")) as { books: { id: string }[] };
const EXTRA: Readonly<Record<string, readonly Record<string, unknown>[]>> = {
  dcg: [
    { cardSet: VOCABULARY, books: [VOCABULARY.books[0]!.id, VOCABULARY.books[1]!.id] },
    { cardSet: VOCABULARY, books: [VOCABULARY.books[1]!.id, VOCABULARY.books[0]!.id] },
    { cardPool: { generate: { seed: 7, cards: 40 } } },
  ],
};
const configsOf = (game: AnyGame) => [{}, ...(variantConfigs[game.info.id] ?? []), ...(EXTRA[game.info.id] ?? [])];

function checkGame(game: AnyGame, seed: number, tally: LeakTally, leaks: string[]): void {
  const configs = configsOf(game);
  const run = playthrough(game, undefined, configs[seed % configs.length]!, seed);
  const rng = Rng.seeded(deriveSeed(seed, "events-leak"));
  for (let i = 0; i < run.decisions.length; i++) {
    const before = run.states[i];
    const after = run.states[i + 1];
    const decision = run.decisions[i];
    const shape = eventShapeProblems(game, before, decision, after);
    if (shape.length > 0) expect.fail(`seed ${seed} step ${i}: ${shape.join("; ")}`);
    const hidesSomething = game.events(before, decision, after).some((e) => e.to !== "all");
    if (!hidesSomething && i % PUBLIC_STRIDE !== 0) continue;
    for (const viewer of viewersOf(game, before)) {
      const problems = eventLeakProblems(game, before, decision, after, viewer, rng, tally);
      if (problems.length > 0) leaks.push(`seed ${seed} step ${i}: ${problems[0]}`);
    }
  }
}

for (const game of registry.all()) {
  describe(`events: ${game.info.id}`, () => {
    it("the decision comes first with the actor's label, every viewer reads a line of it, small data, pure; no viewer can tell apart worlds it may not", () => {
      const tally: LeakTally = { compared: 0, hiddenCompared: 0 };
      const leaks: string[] = [];
      for (const seed of seeds(GAMES)) checkGame(game, seed, tally, leaks);
      expect(leaks.slice(0, 3)).toEqual([]);
      // The leak check really compared worlds, hidden decisions included where the game has them.
      expect(tally.compared).toBeGreaterThan(50);
      if (game.info.id === "dcg") expect(tally.hiddenCompared).toBeGreaterThan(50);
    });
  });
}

describe("the leak check itself", () => {
  it("catches dcg's old placeholder (every label to everyone: strategy placements and feints)", () => {
    const actor = (s: any) => dcg.actor(s);
    const leaky: AnyGame = { ...dcg, events: decisionOnlyEvents(actor, dcg.describe) };
    const tally: LeakTally = { compared: 0, hiddenCompared: 0 };
    const leaks: string[] = [];
    for (const seed of [1, 2, 3]) {
      const run = playthrough(leaky, undefined, {}, seed);
      const rng = Rng.seeded(deriveSeed(seed, "events-leak"));
      for (let i = 0; i < run.decisions.length; i++) {
        const d = run.decisions[i] as { kind: string };
        if (d.kind !== "strategyMove" && d.kind !== "feint" && d.kind !== "reactFeint") continue;
        for (const viewer of [0, 1, "spectator"] as const) {
          if (eventLeakProblems(leaky, run.states[i], d, run.states[i + 1], viewer, rng, tally).length > 0) leaks.push(`${d.kind} ${viewer}`);
        }
      }
    }
    expect(leaks.some((l) => l.startsWith("strategyMove"))).toBe(true);
    expect(leaks.some((l) => l.startsWith("feint") || l.startsWith("reactFeint"))).toBe(true);
  });
});
