import { describe, expect, it } from "vitest";
import { Rng, unwrap } from "../../engine/core/index.ts";
import { observationBounds } from "../../env/codec.ts";
import { adapters } from "../../env/games/index.ts";
import { specOf } from "../../env/spec.ts";

/** Configs that reach the extremes the declared ranges are about (big hands, pass limits, modes). */
const CONFIGS: Record<string, unknown[]> = {
  sevens: [{ seats: 3, startPlayer: "diamond7" }, { seats: 6, passLimit: 3, voluntaryPass: true }, { seats: 4, passLimit: 0, shaping: true }, {}],
  shephy: [{}],
  dcg: [{}],
  blackpoker: [{}],
};
const GAMES: Record<string, number> = { sevens: 150, shephy: 60, dcg: 12, blackpoker: 40 };

describe("declared observation bounds", () => {
  for (const [id, adapter] of adapters) {
    it(`${id}: every seat's encoded view lies within the declared low/high over random games`, () => {
      const { game, observation } = adapter;
      const { low, high } = observationBounds(observation);
      const out = new Float32Array(observation.size);
      let checked = 0;
      for (const raw of CONFIGS[id] ?? [{}]) {
        const config = unwrap(game.parseConfig(raw));
        for (let seed = 0; seed < (GAMES[id] ?? 20); seed++) {
          const rng = Rng.seeded(seed * 31 + 5);
          let s = game.setup(config, seed);
          for (;;) {
            for (let seat = 0; seat < config.seats; seat++) {
              observation.encode(game.view(s, seat), out);
              for (let i = 0; i < out.length; i++) {
                const v = out[i]!;
                if (!(v >= low[i]! && v <= high[i]!)) {
                  const f = observation.layout.find((x) => i >= x.offset && i < x.offset + x.length)!;
                  expect.fail(`${id} seed ${seed} seat ${seat}: float ${i} (${f.name}[${i - f.offset}]) = ${v}, declared [${low[i]}, ${high[i]}]`);
                }
              }
              checked++;
            }
            if (game.actor(s) === "terminal") break;
            const legal = game.legal(s);
            s = game.applyTrusted(s, legal[rng.int(legal.length)]);
          }
        }
      }
      expect(checked).toBeGreaterThan(100);
    });
  }

  it("every game bounds every float (finite Box bounds); the spec serves each field's bounds without changing the hash inputs", () => {
    expect([...adapters.keys()].sort()).toEqual(["blackpoker", "dcg", "sevens", "shephy"]);
    for (const id of adapters.keys()) {
      const { low, high } = observationBounds(adapters.get(id)!.observation);
      expect(low.every(Number.isFinite) && high.every(Number.isFinite)).toBe(true);
    }
    for (const [, adapter] of adapters) {
      const spec = specOf(adapter);
      for (const [k, f] of spec.observation.layout.entries()) {
        const declared = adapter.observation.layout[k]!;
        expect(f.low).toBe(declared.low);
        expect(f.high).toBe(declared.high);
        if (f.low !== undefined && f.high !== undefined) expect(f.low).toBeLessThanOrEqual(f.high);
      }
    }
  });
});
