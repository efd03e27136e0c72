import { describe, expect, it } from "vitest";
import { projectEvents, Rng, unwrap } from "../../engine/core/index.ts";
import { blackpoker, cardLabel, type BlackpokerState } from "../../engine/blackpoker/index.ts";

/** Every (before, decision, after) of a few random games. */
function* steps(seeds: readonly number[]): Generator<[BlackpokerState, any, BlackpokerState]> {
  for (const seed of seeds) {
    let s = blackpoker.setup(unwrap(blackpoker.parseConfig({})), seed);
    const rng = Rng.seeded(seed);
    while (blackpoker.actor(s) !== "terminal") {
      const legal = blackpoker.legal(s);
      const d = legal[rng.int(legal.length)]!;
      const after = blackpoker.applyTrusted(s, d);
      yield [s, d, after];
      s = after;
    }
  }
}

describe("blackpoker events", () => {
  it("draws name the cards to their owner only; Life lost to the Grave is public damage with the amount; a bulwark's card stays with its controller", () => {
    let draws = 0;
    let damages = 0;
    let bulwarks = 0;
    let results = 0;
    for (const [before, d, after] of steps([1, 2, 3, 4, 5, 6, 7, 8])) {
      const events = blackpoker.events(before, d, after);
      for (const e of events) {
        if (e.kind === "draw") {
          draws++;
          const p = e.seat!;
          const gained = after.players[p]!.hand.filter((c) => !before.players[p]!.hand.includes(c));
          expect(e.to).toEqual([p]);
          expect(e.face.data).toEqual({ count: gained.length, cards: gained.map(cardLabel).join(" ") });
          const other = projectEvents([e], 1 - p)[0]!;
          expect(other.data).toEqual({ count: gained.length });
          for (const c of gained) expect(other.text).not.toContain(cardLabel(c));
          expect(projectEvents([e], "spectator")).toEqual([other]);
        }
        if (e.kind === "damage") {
          damages++;
          const p = e.seat!;
          expect(e.to).toBe("all");
          expect(e.face.data!.life).toBe(after.players[p]!.life.length);
          const fromLife = before.players[p]!.life.filter((c) => !after.players[p]!.life.includes(c) && after.players[p]!.grave.includes(c));
          expect(e.face.data!.amount).toBe(fromLife.length);
          expect(before.players[p]!.life.length - after.players[p]!.life.length).toBeGreaterThanOrEqual(fromLife.length);
        }
        if (e.kind === "play" && e.face.data?.bulwark === true) {
          bulwarks++;
          expect(e.to).toEqual([e.seat]);
          expect(projectEvents([e], 1 - e.seat!)[0]!.data).toEqual({ uid: e.face.data.uid, bulwark: true });
        }
        if (e.kind === "result") {
          results++;
          expect(e.face.data!.winner).toBe(after.result!.every((r) => r === 0) ? null : after.result!.indexOf(1));
        }
      }
    }
    expect(draws).toBeGreaterThan(10);
    expect(damages).toBeGreaterThan(5);
    expect(bulwarks).toBeGreaterThan(0);
    expect(results).toBe(8);
  });
});
