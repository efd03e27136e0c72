/**
 * The models registry (models/registry.json): named model versions with their metadata, and the
 * champion of each game. A registered file is pinned by its sha256, so a model overwritten in place
 * is noticed rather than silently becoming "the champion".
 */
import { createHash } from "node:crypto";
import { readFileSync, writeFileSync } from "node:fs";
import { join, relative, resolve, sep } from "node:path";
import { Type, type Static } from "typebox";
import { Value } from "typebox/value";
import { readModelInfo } from "../../agents/onnx/model-info.ts";
import { PACKAGE_ROOT } from "../../agents/paths.ts";
import { parseJsonText } from "../../engine/core/index.ts";

// From the package root (agents/paths.ts), not from this file: a bundled arena (scripts/run-bundled.mjs,
// as cardgym.ray runs it) sits one folder below the checkout, where "../../models" would leave it.
export const MODELS_DIR = join(PACKAGE_ROOT, "models");
export const REGISTRY_PATH = join(MODELS_DIR, "registry.json");

const Name = Type.String({ minLength: 1, maxLength: 64, pattern: "^[A-Za-z0-9][A-Za-z0-9._-]*$" });
const Hex = (n: number) => Type.String({ pattern: `^[0-9a-f]{${n}}$` });

export const ModelEntrySchema = Type.Object(
  {
    name: Name,
    game: Type.String({ minLength: 1, maxLength: 64 }),
    /** Path relative to models/ (built-in models: builtin/<name>.onnx). */
    file: Type.String({ minLength: 1, maxLength: 256 }),
    sha256: Hex(64),
    /** The observation encoder version the model was trained on (its obs_version metadata). */
    encoderVersion: Type.String({ minLength: 1, maxLength: 64 }),
    /** The action-spec hash (observation layout + action codec) stamped in the model. */
    specHash: Type.String({ minLength: 1, maxLength: 64 }),
    /** How it was trained: a run name, a command or a doc next to the model. */
    trainingRun: Type.String({ maxLength: 1000 }),
    /** The champion it was promoted over (null for the first). */
    parent: Type.Union([Name, Type.Null()]),
    /** ISO date of registration. */
    created: Type.String({ minLength: 10, maxLength: 40 }),
  },
  { additionalProperties: false },
);

export const RegistrySchema = Type.Object(
  {
    /** Game id -> name of its champion. */
    champions: Type.Record(Type.String(), Name),
    models: Type.Array(ModelEntrySchema, { maxItems: 10_000 }),
  },
  { additionalProperties: false },
);

export type ModelEntry = Static<typeof ModelEntrySchema>;
export type Registry = Static<typeof RegistrySchema>;

export class RegistryError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "RegistryError";
  }
}

export function loadRegistry(path = REGISTRY_PATH): Registry {
  let raw: unknown;
  try {
    raw = parseJsonText(readFileSync(path, "utf8"));
  } catch {
    throw new RegistryError(`cannot read the models registry ${relativeName(path)}`);
  }
  if (!Value.Check(RegistrySchema, raw)) {
    const [e] = Value.Errors(RegistrySchema, raw);
    throw new RegistryError(`models registry ${relativeName(path)}: ${e ? `${e.instancePath || "/"} ${e.message}` : "invalid"}`);
  }
  const reg = raw as Registry;
  for (const [game, name] of Object.entries(reg.champions)) {
    if (!reg.models.some((m) => m.name === name && m.game === game))
      throw new RegistryError(`models registry: champion "${name}" of ${game} is not a registered ${game} model`);
  }
  return reg;
}

export function saveRegistry(reg: Registry, path = REGISTRY_PATH): void {
  writeFileSync(path, JSON.stringify(reg, null, 2) + "\n");
}

export const sha256File = (path: string): string => createHash("sha256").update(readFileSync(path)).digest("hex");

const relativeName = (path: string) => relative(process.cwd(), path) || path;

/** The registered file's absolute path, after checking it still has the registered sha256. */
export function modelPath(entry: ModelEntry, modelsDir = MODELS_DIR): string {
  const path = resolve(modelsDir, entry.file);
  if (!path.startsWith(resolve(modelsDir) + sep)) throw new RegistryError(`model "${entry.name}": its file must be inside models/`);
  let sha: string;
  try {
    sha = sha256File(path);
  } catch {
    throw new RegistryError(`model "${entry.name}": cannot read ${entry.file}`);
  }
  if (sha !== entry.sha256)
    throw new RegistryError(
      `model "${entry.name}": ${entry.file} changed since it was registered (sha256 ${sha.slice(0, 12)}, registered ${entry.sha256.slice(0, 12)}); register it as a new version`,
    );
  return path;
}

export function champion(reg: Registry, game: string): ModelEntry {
  const name = reg.champions[game];
  const entry = name === undefined ? undefined : reg.models.find((m) => m.name === name);
  if (!entry) throw new RegistryError(`no ${game} champion in the models registry`);
  return entry;
}

/** The agent spec that seats a registered model (built-in models by name, others by path). */
export function entrySpec(entry: ModelEntry, modelsDir = MODELS_DIR): string {
  modelPath(entry, modelsDir);
  const m = /^builtin\/([A-Za-z0-9][A-Za-z0-9._-]*)\.onnx$/.exec(entry.file);
  return m ? `onnx:builtin/${m[1]}` : `onnx:path=${resolve(modelsDir, entry.file)}`;
}

/**
 * Resolves the registry's names in an agent spec: "champion" (the game's champion) and
 * "model:<name>" (a registered version). Other specs are returned as they are.
 */
export function resolveRegistrySpec(spec: string, game: string, reg: () => Registry): string {
  if (spec === "champion") return entrySpec(champion(reg(), game));
  if (spec.startsWith("model:")) {
    const name = spec.slice("model:".length);
    const entry = reg().models.find((m) => m.name === name);
    if (!entry) throw new RegistryError(`no model "${name}" in the models registry`);
    return entrySpec(entry);
  }
  return spec;
}

/** The file an onnx spec loads (for history records: its sha256 identifies the model). */
export function specModelFile(spec: string, modelRoot?: string): string | null {
  if (!spec.startsWith("onnx:")) return null;
  for (const part of spec.slice(5).split(",")) {
    if (part.startsWith("builtin/")) return join(MODELS_DIR, "builtin", `${part.slice(8)}.onnx`);
    if (part.startsWith("path=")) return resolve(modelRoot ?? process.cwd(), part.slice(5));
  }
  return null;
}

/** Metadata stamped in an ONNX file: game, obs_version, action_spec_hash. */
export function stampedMetadata(path: string): { game: string; encoderVersion: string; specHash: string } {
  const info = readModelInfo(readFileSync(path));
  const md = info.metadata;
  if (!md.game || !md.obs_version || !md.action_spec_hash)
    throw new RegistryError(`${relativeName(path)} lacks the game / obs_version / action_spec_hash metadata (npx tsx scripts/stamp-model.ts)`);
  return { game: md.game, encoderVersion: md.obs_version, specHash: md.action_spec_hash };
}
