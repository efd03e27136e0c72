/**
 * `npx tsx scripts/stamp-model.ts <model.onnx> <game>`: re-stamps a model's metadata_props with the
 * game's current observation encoder version and action-spec hash, keeping its other metadata.
 * Use it only when an encoder was renamed without changing a single float (the goldens prove that:
 * `npm run golden` then reports no observation change); it refuses a model whose input or output
 * size differs from the game's spec, and one made for another game.
 */
import { readFileSync, writeFileSync } from "node:fs";
import { META, contractViolations } from "../agents/onnx/contract.ts";
import { readModelInfo } from "../agents/onnx/model-info.ts";
import { metadataEntries, withMetadata } from "../agents/onnx/stamp.ts";
import { adapters } from "../env/games/index.ts";
import { specOf } from "../env/spec.ts";

const [path, game] = process.argv.slice(2);
const adapter = game === undefined ? undefined : adapters.get(game);
if (path === undefined || !adapter) {
  console.error(`usage: npx tsx scripts/stamp-model.ts <model.onnx> <game>  (games: ${[...adapters.keys()].join(", ")})`);
  process.exit(2);
}
const spec = specOf(adapter);
const bytes = new Uint8Array(readFileSync(path));
const metadata = Object.fromEntries(metadataEntries(bytes));
const want = {
  game: spec.game,
  obsVersion: spec.observation.version,
  obsSize: spec.observation.size,
  actionSize: spec.action.size,
  actionSpecHash: spec.actionSpecHash,
};
// Only the version and hash may differ: anything else the contract finds stays a refusal.
const stamped = {
  ...metadata,
  [META.game]: metadata[META.game] ?? "",
  [META.obsVersion]: spec.observation.version,
  [META.actionSpecHash]: spec.actionSpecHash,
};
const out = withMetadata(bytes, stamped);
const problems = contractViolations(readModelInfo(out), want);
if (problems.length > 0) {
  console.error(`error: ${path} not stamped:\n  ${problems.join("\n  ")}`);
  process.exit(1);
}
writeFileSync(path, out);
console.log(
  `${path}: ${META.obsVersion}=${spec.observation.version} ${META.actionSpecHash}=${spec.actionSpecHash} (was ${metadata[META.obsVersion]} ${metadata[META.actionSpecHash]})`,
);
