import { describe, expect, it } from "vitest";
import { Rng } from "../../engine/core/index.ts";
import type { GameAdapter } from "../../env/codec.ts";
import { decisionPoint, SeenIds } from "../../env/decision-point.ts";
import { EnvFault } from "../../env/errors.ts";
import { adapters } from "../../env/games/index.ts";

/**
 * decisionPoint checks that the codec gives every legal decision its own id. A caller that builds
 * many points (a learning session) reuses one SeenIds for the check, which starts each point with
 * a new stamp instead of clearing its table: the check must hold point after point, also when the
 * stamp wraps around.
 */
const dcg = (() => {
  const adapter = adapters.get("dcg");
  if (!adapter) throw new Error("no dcg adapter");
  return adapter;
})();

describe("SeenIds", () => {
  it("sees each id once per clear, for more clears than its stamps count (the stamp wraps)", () => {
    const seen = new SeenIds(3);
    for (let round = 0; round < 70_000; round++) {
      seen.clear();
      const id = round % 3;
      expect(seen.add(id)).toBe(true);
      expect(seen.add(id)).toBe(false);
      expect(seen.add((id + 1) % 3)).toBe(true);
    }
  });
});

describe("decisionPoint with a reused SeenIds", () => {
  it("gives the same points as a fresh check, and still refuses two decisions with one id", () => {
    const game = dcg.game;
    const config = game.parseConfig({});
    if (!config.ok) throw new Error(config.error.message);
    const seen = new SeenIds(dcg.actions.size);
    const rng = Rng.seeded(2);
    let state = game.setup(config.value, 2);
    for (let step = 0; game.actor(state) !== "terminal"; step++) {
      const seat = game.actor(state) as number;
      const reused = decisionPoint(dcg, state, seat, { seen });
      expect(Array.from(reused.ids), `step ${step}`).toEqual(Array.from(decisionPoint(dcg, state, seat).ids));
      state = game.applyTrusted(state, reused.legal[rng.int(reused.legal.length)]);
    }
    // A codec that gives the last two legal decisions one id, at a point with several.
    state = game.setup(config.value, 2);
    const legal = game.legal(state);
    expect(legal.length).toBeGreaterThan(2);
    const last = legal.at(-1);
    const clash: GameAdapter = {
      ...dcg,
      actions: { ...dcg.actions, encode: (view, d) => dcg.actions.encode(view, d === last ? legal.at(-2) : d) },
    };
    const refused = (() => {
      try {
        decisionPoint(clash, state, game.actor(state) as number, { seen });
        return null;
      } catch (e) {
        return e;
      }
    })();
    expect(refused).toBeInstanceOf(EnvFault);
    expect((refused as EnvFault).code).toBe("codec_fault");
  });
});
