/**
 * Regenerates the golden playthroughs in test/golden/. Run it on purpose, in the same commit as
 * the rules or encoder change that alters them: `npm run golden [-- game ...]`.
 *
 * It refuses to overwrite a file when a state that did not change now gives other observations
 * (or action ids) under the same encoder version (or action-spec hash): bump the version in
 * env/games/<game>.ts first, so that models trained on the old layout are refused at load.
 * A file whose content is unchanged is not rewritten (its bytes stay, whatever order a config's
 * keys now come in), so running it on a clean tree leaves the tree clean.
 */
import { existsSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { isDeepStrictEqual } from "node:util";
import { registry } from "../engine/games.ts";
import { adapters } from "../env/games/index.ts";
import { main, parseCli, printUsage, UsageError } from "./cli.ts";
import { goldenFile, unversionedChanges, type GoldenFile } from "./golden-format.ts";

const USAGE = "npm run golden [-- game ...] [--dir DIR]   (regenerates test/golden/<game>.json, every game by default; --dir: another folder)";

main(() => {
  const { values, positionals: wanted } = parseCli(USAGE, { dir: { type: "string" } });
  if (values.help) return printUsage(USAGE, `games: ${registry.ids().join(", ")}`);
  for (const id of wanted) if (!registry.get(id).ok) throw new UsageError(`unknown game "${id}"; known games: ${registry.ids().join(", ")}`);
  const dir = values.dir ?? "test/golden";
  if (!existsSync(dir)) throw new UsageError(`--dir ${dir}: no such directory`);
  return regenerate(wanted, dir) > 0 ? 1 : 0;
});

/** Writes each wanted game's golden file into `dir`; returns how many were refused. */
function regenerate(wanted: readonly string[], dir: string): number {
  let refused = 0;
  for (const game of registry.all()) {
    if (wanted.length > 0 && !wanted.includes(game.info.id)) continue;
    const adapter = adapters.get(game.info.id);
    if (!adapter) throw new Error(`${game.info.id} has no RL adapter`);
    const file = goldenFile(adapter);
    const path = join(dir, `${game.info.id}.json`);
    const decisions = file.playthroughs.reduce((a, p) => a + p.decisions.length, 0);
    const summary = `${path}: ${file.playthroughs.length} playthroughs, ${decisions} decisions (${file.encoder.observation})`;
    if (existsSync(path)) {
      const old = JSON.parse(readFileSync(path, "utf8")) as GoldenFile;
      // The same content (a config's keys may come in another order): the committed bytes stay.
      if (isDeepStrictEqual(old, file)) {
        console.log(`${summary}, unchanged`);
        continue;
      }
      const problems = unversionedChanges(old, file);
      if (problems.length > 0) {
        console.error(`error: ${path} not written; bump the version of what changed in env/games/${game.info.id}.ts:\n  ${problems.join("\n  ")}`);
        refused++;
        continue;
      }
    }
    writeFileSync(path, JSON.stringify(file, null, 0) + "\n");
    console.log(summary);
  }
  return refused;
}
