/**
 * Regenerates the golden playthroughs in test/golden/. Run it on purpose, in the same commit as
 * the rules or encoder change that alters them: `npm run golden [-- game ...]`.
 *
 * It refuses to overwrite a file when a state that did not change now gives other observations
 * (or action ids) under the same encoder version (or action-spec hash): bump the version in
 * env/games/<game>.ts first, so that models trained on the old layout are refused at load.
 */
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { registry } from "../engine/games.ts";
import { adapters } from "../env/games/index.ts";
import { main, parseCli, printUsage, UsageError } from "./cli.ts";
import { goldenFile, unversionedChanges, type GoldenFile } from "./golden-format.ts";

const USAGE = "npm run golden [-- game ...]   (regenerates test/golden/<game>.json, every game by default)";

main(() => {
  const { values, positionals: wanted } = parseCli(USAGE, {});
  if (values.help) return printUsage(USAGE, `games: ${registry.ids().join(", ")}`);
  for (const id of wanted) if (!registry.get(id).ok) throw new UsageError(`unknown game "${id}"; known games: ${registry.ids().join(", ")}`);
  return regenerate(wanted) > 0 ? 1 : 0;
});

/** Writes each wanted game's golden file; returns how many were refused. */
function regenerate(wanted: readonly string[]): number {
  let refused = 0;
  for (const game of registry.all()) {
    if (wanted.length > 0 && !wanted.includes(game.info.id)) continue;
    const adapter = adapters.get(game.info.id);
    if (!adapter) throw new Error(`${game.info.id} has no RL adapter`);
    const file = goldenFile(adapter);
    const path = `test/golden/${game.info.id}.json`;
    if (existsSync(path)) {
      const problems = unversionedChanges(JSON.parse(readFileSync(path, "utf8")) as GoldenFile, file);
      if (problems.length > 0) {
        console.error(`error: ${path} not written; bump the version of what changed in env/games/${game.info.id}.ts:\n  ${problems.join("\n  ")}`);
        refused++;
        continue;
      }
    }
    writeFileSync(path, JSON.stringify(file, null, 0) + "\n");
    const decisions = file.playthroughs.reduce((a, p) => a + p.decisions.length, 0);
    console.log(`${path}: ${file.playthroughs.length} playthroughs, ${decisions} decisions (${file.encoder.observation})`);
  }
  return refused;
}
