/**
 * Conformance item 9 against mutants: views that leak what a seat may not know, or hide what it
 * does, fail the re-deal test (test/conformance/leak.ts), which builds its second deal from the
 * rules, not from the game's own view or determinize.
 */
import { describe, expect, it } from "vitest";
import { deriveSeed, Rng, type AnyGame } from "../../engine/core/index.ts";
import { dcg } from "../../engine/dcg/index.ts";
import { HIDDEN, sevens } from "../../engine/sevens/index.ts";
import { dcgAdapter } from "../../env/games/dcg.ts";
import { sevensAdapter } from "../../env/games/sevens.ts";
import type { GameAdapter } from "../../env/codec.ts";
import { playthrough } from "./harness.ts";
import { leakProblems, redeals } from "./leak.ts";

/** Item 9's re-deal check over a few games; every problem found. */
function leaks(game: AnyGame, adapter: GameAdapter, redealOf: string): string[] {
  const r = redeals[redealOf]!;
  const out: string[] = [];
  const count = { hidden: 0, own: 0 };
  for (const seed of [1, 2, 3]) {
    const run = playthrough(game, undefined, {}, seed);
    const rng = Rng.seeded(deriveSeed(seed, "leak"));
    for (let i = 0; i < run.states.length; i += 5) {
      for (let seat = 0; seat < (game.config(run.states[i]).seats as number); seat++) {
        out.push(...leakProblems(game, adapter, r, run.states[i], seat, rng, count));
      }
    }
  }
  expect(count.hidden).toBeGreaterThan(0);
  expect(count.own).toBeGreaterThan(0);
  return out;
}

// Sevens whose view shows every cell as the state has it: who holds which card.
const leakySevens: AnyGame = { ...sevens, view: (s: any, viewer: any) => ({ ...sevens.view(s, viewer), cells: s.cells.slice() }) };
// Sevens whose view hides the viewer's own hand like everybody else's.
const blindSevens: AnyGame = {
  ...sevens,
  view: (s: any, viewer: any) => {
    const v = sevens.view(s, viewer);
    return { ...v, hand: [], playable: [], cells: v.cells.map((c: number) => (c === viewer ? HIDDEN : c)) };
  },
};
// dcg whose view shows the opponent's hand cards as if they were face up.
const leakyDcg: AnyGame = {
  ...dcg,
  view: (s: any, viewer: any) => {
    const v = dcg.view(s, viewer);
    if (viewer === "spectator") return v;
    const cards = v.cards.slice();
    for (const id of s.hands[1 - viewer]) cards[id] = s.cards[id];
    return { ...v, cards };
  },
};

describe("item 9 (leak test) catches leaky and blind views", () => {
  it("passes the real sevens and dcg views", () => {
    expect(leaks(sevens, sevensAdapter, "sevens")).toEqual([]);
    expect(leaks(dcg, dcgAdapter, "dcg")).toEqual([]);
  });

  it("fails a sevens view that shows who holds which card", () => {
    const found = leaks(leakySevens, { ...sevensAdapter, game: leakySevens }, "sevens");
    expect(found.length).toBeGreaterThan(0);
    expect(found[0]).toMatch(/view changed when only what it cannot know was re-dealt/);
  });

  it("fails a dcg view that shows the opponent's hand", () => {
    const found = leaks(leakyDcg, { ...dcgAdapter, game: leakyDcg }, "dcg");
    expect(found.some((p) => /view changed when only what it cannot know/.test(p))).toBe(true);
  });

  it("fails a sevens view that hides the viewer's own hand", () => {
    const found = leaks(blindSevens, { ...sevensAdapter, game: blindSevens }, "sevens");
    expect(found.some((p) => /did not change when its own hand did/.test(p))).toBe(true);
  });
});
