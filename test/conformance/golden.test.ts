/** quality.md item 11: committed golden playthroughs re-run identically. */
import { existsSync, readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { replay } from "../../engine/core/index.ts";
import { registry } from "../../engine/games.ts";
import type { GoldenFile } from "../../scripts/golden-format.ts";

for (const game of registry.all()) {
  describe(`golden playthroughs: ${game.info.id}`, () => {
    const path = new URL(`../golden/${game.info.id}.json`, import.meta.url);
    it("exist for this game (regenerate with npm run golden)", () => {
      expect(existsSync(path)).toBe(true);
    });
    if (!existsSync(path)) return;
    const file = JSON.parse(readFileSync(path, "utf8")) as GoldenFile;
    it("are for this version of the rules", () => {
      expect(file.version).toBe(game.info.version);
      expect(file.playthroughs.length).toBeGreaterThanOrEqual(3);
    });
    file.playthroughs.forEach((p, i) => {
      it(`playthrough ${i} (seed ${p.seed}) reproduces all ${p.hashes.length} hashes`, () => {
        const out = replay(registry, { game: file.game, version: file.version, config: p.config, seed: p.seed, decisions: p.decisions, hashes: p.hashes });
        if (!out.ok) expect.fail(out.error.message);
        expect(out.value.hashes).toEqual(p.hashes);
      });
    });
  });
}
