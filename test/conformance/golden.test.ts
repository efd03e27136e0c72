/**
 * Committed golden playthroughs re-run identically: every state hash, and what a trainer sees at
 * every step (each seat's observation, the mask, the legal ids). See scripts/golden-format.ts.
 */
import { existsSync, readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { registry } from "../../engine/games.ts";
import { adapters } from "../../env/games/index.ts";
import { encoderOf, playthroughDifferences, type GoldenFile } from "../../scripts/golden-format.ts";

for (const game of registry.all()) {
  describe(`golden playthroughs: ${game.info.id}`, () => {
    const path = new URL(`../golden/${game.info.id}.json`, import.meta.url);
    const adapter = adapters.get(game.info.id);
    it("exist for this game (regenerate with npm run golden)", () => {
      expect(existsSync(path)).toBe(true);
      expect(adapter).toBeDefined();
    });
    if (!existsSync(path) || !adapter) return;
    const file = JSON.parse(readFileSync(path, "utf8")) as GoldenFile;
    it("are for this version of the rules, observation encoder and action spec", () => {
      expect(file.version).toBe(game.info.version);
      expect(file.encoder).toEqual(encoderOf(adapter));
      expect(file.playthroughs.length).toBeGreaterThanOrEqual(3);
    });
    file.playthroughs.forEach((p, i) => {
      it(`playthrough ${i} (seed ${p.seed}) reproduces all ${p.hashes.length} state, observation, mask and id hashes`, () => {
        expect(p.obs.length).toBe(p.hashes.length);
        expect(playthroughDifferences(p, adapter)).toEqual([]);
      });
    });
  });
}
