/**
 * `npx tsx scripts/stamp-model.ts <model.onnx> <game>`: re-stamps a model's metadata_props with the
 * game's current observation encoder version and action-spec hash, keeping its other metadata.
 * Use it only when an encoder was renamed without changing a single float (the goldens prove that:
 * `npm run golden` then reports no observation change); it refuses a model whose input or output
 * size differs from the game's spec, and one made for another game.
 */
import { readFileSync, writeFileSync } from "node:fs";
import { META, contractViolations } from "../agents/onnx/contract.ts";
import { ModelFormatError, readModelInfo } from "../agents/onnx/model-info.ts";
import { metadataEntries, withMetadata } from "../agents/onnx/stamp.ts";
import { adapters } from "../env/games/index.ts";
import { specOf } from "../env/spec.ts";
import { main } from "./cli.ts";

const USAGE = `usage: npx tsx scripts/stamp-model.ts <model.onnx> <game>  (games: ${[...adapters.keys()].join(", ")})`;

/** The model's bytes, or one line saying why they cannot be read or are not an ONNX model. */
function readModel(path: string): Uint8Array {
  let bytes: Uint8Array;
  try {
    bytes = new Uint8Array(readFileSync(path));
  } catch (e) {
    throw new Error(`cannot read ${path} (${(e as NodeJS.ErrnoException).code ?? (e as Error).message})`, { cause: e });
  }
  if (bytes.length === 0) throw new Error(`${path} is empty: not an ONNX model`);
  try {
    readModelInfo(bytes);
  } catch (e) {
    if (e instanceof ModelFormatError) throw new Error(`${path}: ${e.message}`, { cause: e });
    throw e;
  }
  return bytes;
}

main(() => {
  const [path, game] = process.argv.slice(2);
  const adapter = game === undefined ? undefined : adapters.get(game);
  if (path === undefined || !adapter) {
    console.error(USAGE);
    return 2;
  }
  const spec = specOf(adapter);
  const bytes = readModel(path);
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
  if (problems.length > 0) throw new Error(`${path} not stamped: ${problems.join("; ")}`);
  writeFileSync(path, out);
  console.log(
    `${path}: ${META.obsVersion}=${spec.observation.version} ${META.actionSpecHash}=${spec.actionSpecHash} (was ${metadata[META.obsVersion]} ${metadata[META.actionSpecHash]})`,
  );
});
