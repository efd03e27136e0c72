/**
 * npm run promote -- MODEL [--name NAME] [--run TEXT] [--history F.jsonl] [--game GAME]
 * Makes MODEL (a registered name, or an .onnx file) the champion of its game in
 * models/registry.json, only if the history records an SPRT that accepted H1 with this exact file
 * (by sha256) as candidate and the current champion's file as baseline. An .onnx file is copied to
 * models/builtin/<name>.onnx and registered (metadata from its stamp, parent = the old champion).
 */
import { copyFileSync, existsSync, readFileSync } from "node:fs";
import { basename, join } from "node:path";
import { parseHistory, type SprtEntry } from "../agents/arena/history.ts";
import { main, parseCli, UsageError, printUsage } from "./cli.ts";
import {
  champion,
  loadRegistry,
  MODELS_DIR,
  modelPath,
  REGISTRY_PATH,
  RegistryError,
  saveRegistry,
  sha256File,
  stampedMetadata,
  type ModelEntry,
} from "./arena/registry.ts";

const USAGE = "npm run promote -- MODEL [--name NAME] [--run TEXT] [--history models/history.jsonl] [--game GAME]";
export const DEFAULT_HISTORY = join(MODELS_DIR, "history.jsonl");
const NAME = /^[A-Za-z0-9][A-Za-z0-9._-]*$/;

main(async () => {
  const { values, positionals } = parseCli(USAGE, {
    name: { type: "string" },
    run: { type: "string" },
    history: { type: "string" },
    game: { type: "string" },
    registry: { type: "string" },
  });
  if (values.help) return printUsage(USAGE);
  if (positionals.length !== 1) throw new UsageError(`give one MODEL (a registered name or an .onnx file)\nusage: ${USAGE}`);
  const model = positionals[0]!;
  const registryPath = values.registry ?? REGISTRY_PATH;
  const reg = loadRegistry(registryPath);
  const modelsDir = join(registryPath, "..");

  // The candidate: a registered entry, or a new file to register.
  let entry: ModelEntry | undefined = reg.models.find((m) => m.name === model);
  let file: string;
  let fresh = false;
  if (entry) file = modelPath(entry, modelsDir);
  else {
    if (!model.endsWith(".onnx") || !existsSync(model)) throw new UsageError(`"${model}" is neither a registered model nor an .onnx file`);
    file = model;
    const sha = sha256File(file);
    const known = reg.models.find((m) => m.sha256 === sha);
    if (known) {
      entry = known;
    } else {
      const meta = stampedMetadata(file);
      const name = values.name ?? basename(file, ".onnx");
      if (!NAME.test(name) || name.length > 64) throw new UsageError(`--name "${name}" must be letters, digits, ".", "_" or "-"`);
      if (reg.models.some((m) => m.name === name)) throw new UsageError(`a model named "${name}" is already registered (give --name)`);
      if (existsSync(join(modelsDir, "builtin", `${name}.onnx`))) throw new UsageError(`models/builtin/${name}.onnx exists already (give --name)`);
      entry = {
        name,
        game: meta.game,
        file: `builtin/${name}.onnx`,
        sha256: sha,
        encoderVersion: meta.encoderVersion,
        specHash: meta.specHash,
        trainingRun: values.run ?? "",
        parent: null,
        created: new Date().toISOString().slice(0, 10),
      };
      fresh = true;
    }
  }
  if (!entry) throw new UsageError(`"${model}" could not be registered`);
  const game = values.game ?? entry.game;
  if (game !== entry.game) throw new UsageError(`${entry.name} is a ${entry.game} model, not ${game}`);
  let current: ModelEntry | null = null;
  try {
    current = champion(reg, game);
  } catch (e) {
    if (!(e instanceof RegistryError)) throw e;
  }
  if (current?.name === entry.name) {
    // Nothing to change (e.g. a copy of the champion's file): say so and succeed, as a second promote would.
    console.log(`${file === model ? `${model} is ${entry.name}, ` : ""}already the ${game} champion: nothing to promote; ${registryPath} unchanged`);
    return 0;
  }

  if (current) {
    const historyPath = values.history ?? DEFAULT_HISTORY;
    let text: string;
    try {
      text = readFileSync(historyPath, "utf8");
    } catch {
      throw new UsageError(`cannot read the history ${historyPath}: run the SPRT against the champion first (docs/sprt.md)`);
    }
    const champSha = sha256File(modelPath(current, modelsDir));
    const sha = entry.sha256;
    const passes = parseHistory(text, `history ${historyPath}`).filter(
      (e): e is SprtEntry => e.kind === "sprt" && e.game === game && e.result === "H1" && e.candidate.sha256 === sha && e.baseline.sha256 === champSha,
    );
    if (passes.length === 0) {
      console.error(
        `error: no SPRT in ${historyPath} accepted H1 for this model (sha256 ${entry.sha256.slice(0, 12)}) against the ${game} champion ${current.name}.\n` +
          `run: npm run arena -- --sprt --game ${game} --candidate onnx:path=${file} --baseline champion --history ${historyPath}`,
      );
      return 1;
    }
    const p = passes.at(-1)!;
    console.log(
      `SPRT pass on record: ${p.time} @${p.commit}, Elo bounds [${p.elo0}, ${p.elo1}], LLR ${p.llr.toFixed(2)}, Elo ${p.elo.toFixed(1)} after ${p.games} games`,
    );
  }
  if (fresh) {
    copyFileSync(file, join(modelsDir, entry.file));
    entry = { ...entry, parent: current?.name ?? null };
    reg.models.push(entry);
  }
  reg.champions[game] = entry.name;
  saveRegistry(reg, registryPath);
  console.log(
    `${entry.name} is now the ${game} champion${current ? ` (was ${current.name})` : ""}; ${registryPath} updated${fresh ? `, model copied to models/${entry.file}` : ""}`,
  );
  return 0;
});
