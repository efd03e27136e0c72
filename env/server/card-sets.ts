import { readFileSync, realpathSync, statSync } from "node:fs";
import { isAbsolute, relative, resolve } from "node:path";
import { DEFAULT_CARD_SET_DIR } from "../../agents/paths.ts";
import { EnvRequestError } from "../errors.ts";
import { parseJsonText } from "../../engine/core/index.ts";
import { guardJson } from "../../engine/dcg/json-guard.ts";

/**
 * User card sets named by file. A session config may say `"cardSetFile": "my-set.json"`; the
 * server reads that file from its card-set directory (confined: no path may leave it, symlinks
 * included) and inlines the data as `config.cardSet` before the game parses the config, so the
 * engine stays free of I/O and the session's records replay without the file.
 */
export { DEFAULT_CARD_SET_DIR };
export const MAX_CARD_SET_BYTES = 1_048_576;

const fail = (message: string): never => {
  throw new EnvRequestError("invalid_config", message);
};

/** Reads and parses a card-set file inside `dir`; errors are EnvRequestErrors naming config.cardSetFile. */
export function readCardSetFile(dir: string, name: unknown): unknown {
  if (typeof name !== "string" || name.length === 0 || name.length > 255)
    return fail("config.cardSetFile must be a file name (a .json file in the server's card-set directory)");
  if (!name.endsWith(".json")) return fail(`config.cardSetFile: ${JSON.stringify(name)} is not a .json file`);
  if (isAbsolute(name) || name.includes("\0")) return fail(`config.cardSetFile: ${JSON.stringify(name)} must be relative to the card-set directory`);
  const root = resolve(dir);
  const inside = (p: string) => {
    const rel = relative(root, p);
    return rel.length > 0 && !rel.startsWith("..") && !isAbsolute(rel);
  };
  const path = resolve(root, name);
  if (!inside(path)) return fail(`config.cardSetFile: ${JSON.stringify(name)} is outside the card-set directory`);
  let real: string;
  try {
    real = realpathSync(path);
  } catch {
    return fail(`config.cardSetFile: no card-set file ${JSON.stringify(name)} in the server's card-set directory`);
  }
  let realRoot: string;
  try {
    realRoot = realpathSync(root);
  } catch {
    return fail("config.cardSetFile: the server has no card-set directory");
  }
  const rel = relative(realRoot, real);
  if (rel.length === 0 || rel.startsWith("..") || isAbsolute(rel)) return fail(`config.cardSetFile: ${JSON.stringify(name)} is outside the card-set directory`);
  const st = statSync(real);
  if (!st.isFile()) return fail(`config.cardSetFile: ${JSON.stringify(name)} is not a file`);
  if (st.size > MAX_CARD_SET_BYTES) return fail(`config.cardSetFile: ${JSON.stringify(name)} is larger than ${MAX_CARD_SET_BYTES} bytes`);
  let data: unknown;
  try {
    data = parseJsonText(readFileSync(real, "utf8"));
  } catch (e) {
    return fail(`config.cardSetFile: ${JSON.stringify(name)} is not valid JSON (${(e as Error).message})`);
  }
  // Refused here, before the config is copied to a session worker: a million nested arrays fit in
  // a megabyte, and nothing that walks them recursively must ever see them. The same first pass
  // the game gives card data (json-guard: plain JSON, bounded nesting, size and keys).
  const unsafe = guardJson(data, "cardSet");
  if (unsafe !== null) return fail(`config.cardSetFile: ${JSON.stringify(name)}: ${unsafe}`);
  return data;
}

/** The config with `cardSetFile` replaced by the file's data as `cardSet` (unchanged without one). */
export function inlineCardSet(config: Record<string, unknown> | undefined, dir: string): Record<string, unknown> | undefined {
  if (config === undefined || config === null || typeof config !== "object" || !Object.hasOwn(config, "cardSetFile")) return config;
  const { cardSetFile, ...rest } = config;
  if (Object.hasOwn(rest, "cardSet")) fail("config: give either cardSet (inline) or cardSetFile, not both");
  return { ...rest, cardSet: readCardSetFile(dir, cardSetFile) };
}
