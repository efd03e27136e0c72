import { describe, expect, it } from "vitest";
import { Rng, unwrap, type GameEvent } from "../../engine/core/index.ts";
import { Card, RANKS, shephy, type ShephyState } from "../../engine/shephy/index.ts";
import { scenario } from "./scenario.ts";

const sum = (s: ShephyState) => s.field.reduce((t, r) => t + RANKS[r]!, 0);

describe("shephy events", () => {
  it("a play: the sheep it brings onto the field and the cards drawn to refill the hand", () => {
    const s0 = scenario({ field: [1, 10], hand: [Card.Multiply], deck: [Card.Storm, Card.Wolves] });
    const d = { kind: "play", index: 0 } as const;
    const after = shephy.applyTrusted(s0, d);
    const events = shephy.events(s0, d, after);
    expect(events[0]!.face.text).toBe(shephy.describe(s0, d));
    const joined = events.filter((e) => e.kind === "play").map((e) => e.face.data!.sheep);
    // Multiply: a [3] joins the field.
    expect(joined).toEqual([3]);
    expect(after.field.map((r) => RANKS[r])).toEqual([1, 3, 10]);
    const draw = events.find((e) => e.kind === "draw")!;
    expect(draw.to).toBe("all");
    expect(draw.face).toEqual({ text: "draws Storm, Wolves", data: { count: 2, cards: "Storm, Wolves" } });
  });

  it("over random games: the field's sheep changes add up, and the last decision gives the result", () => {
    for (const seed of [1, 2, 3, 4, 5]) {
      let s = shephy.setup(unwrap(shephy.parseConfig({})), seed);
      const rng = Rng.seeded(seed);
      let last: readonly GameEvent[] = [];
      while (shephy.actor(s) !== "terminal") {
        const legal = shephy.legal(s);
        const d = legal[rng.int(legal.length)]!;
        const after = shephy.applyTrusted(s, d);
        last = shephy.events(s, d, after);
        const delta = last.reduce((t, e) => t + (e.kind === "play" ? 1 : e.kind === "death" ? -1 : 0) * Number(e.face.data?.sheep ?? 0), 0);
        expect(delta).toBe(sum(after) - sum(s));
        s = after;
      }
      expect(last.at(-1)!.kind).toBe("result");
      expect(last.at(-1)!.face.data).toEqual({ result: s.result, score: sum(s) });
    }
  });
});
