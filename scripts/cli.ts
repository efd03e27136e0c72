/** Shared CLI plumbing: argument parsing with one-line errors, and a main() wrapper. */
import { accessSync, constants, mkdirSync, mkdtempSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join, resolve } from "node:path";
import { parseArgs, type ParseArgsConfig } from "node:util";
import { GameFailure } from "../engine/core/index.ts";

export class UsageError extends Error {}

/**
 * How the messages name our commands. In a checkout they are npm scripts (`npm run play -- ...`);
 * the npm package's `cardgym` bin (scripts/cardgym.ts) runs the same programs as its own commands
 * (`cardgym play ...`) and renames them here, so that its usage lines and hints can be typed as shown.
 */
const commandNames = new Map<string, string>();

/** From now on, messages name each npm script of `names` (e.g. "npm start") as its value (e.g. "cardgym serve"). */
export function nameCommands(names: Readonly<Record<string, string>>): void {
  for (const [script, command] of Object.entries(names)) commandNames.set(script, command);
}

/** `text` with our commands named as this process is run: `npm run play -- x` or `cardgym play x`. */
export function commandLine(text: string): string {
  let out = text;
  for (const [script, command] of commandNames) {
    const escaped = script.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
    out = out.replace(new RegExp(`${escaped}(?: --)?(?=\\s|$|\\))`, "g"), command);
  }
  return out;
}

export function parseCli<T extends NonNullable<ParseArgsConfig["options"]>>(usage: string, options: T, argv = process.argv.slice(2)) {
  try {
    return parseArgs({ args: argv, options: { ...options, help: { type: "boolean", short: "h" } }, allowPositionals: true, strict: true });
  } catch (e) {
    throw new UsageError(`${(e as Error).message.split("\n")[0]}\nusage: ${commandLine(usage)}`);
  }
}

/** `--help` / `-h`: prints the usage line (and any further lines) and returns main()'s exit code, 0, before any work. */
export function printUsage(usage: string, ...more: string[]): number {
  console.log(commandLine([`usage: ${usage}`, ...more].join("\n")));
  return 0;
}

export function intArg(value: string | undefined, name: string, def: number, min = -Number.MAX_SAFE_INTEGER, max = Number.MAX_SAFE_INTEGER): number {
  if (value === undefined) return def;
  if (!/^-?\d+$/.test(value)) throw new UsageError(`--${name} must be an integer, got "${value}"`);
  const n = Number(value);
  if (!Number.isSafeInteger(n) || n < min || n > max) throw new UsageError(`--${name} must be between ${min} and ${max}, got ${value}`);
  return n;
}

export function jsonArg(value: string | undefined, name: string): unknown {
  if (value === undefined) return {};
  try {
    return JSON.parse(value);
  } catch {
    throw new UsageError(`--${name} must be JSON, e.g. --${name} '{"seats":4}'`);
  }
}

const errCode = (e: unknown) => (e as NodeJS.ErrnoException).code ?? (e as Error).message;

/** An output file, refused now if it cannot be written (a directory, a missing folder), not after the work it would hold. */
export function outFileArg(flag: string, file: string): string {
  let exists = true;
  try {
    if (statSync(file).isDirectory()) throw new UsageError(`${flag}: ${file} is a directory`);
  } catch (e) {
    if (e instanceof UsageError) throw e;
    exists = false;
  }
  try {
    accessSync(exists ? file : dirname(resolve(file)), constants.W_OK);
  } catch (e) {
    throw new UsageError(`${flag}: cannot write ${file} (${errCode(e)})`);
  }
  return file;
}

/** An output directory, made now (with its parents), so that a run whose results could not be written stops before it runs. */
export function outDirArg(flag: string, dir: string): string {
  try {
    mkdirSync(dir, { recursive: true });
  } catch (e) {
    throw new UsageError(`${flag}: cannot make the directory ${dir} (${errCode(e) === "EEXIST" ? "a file is in the way" : errCode(e)})`);
  }
  return dir;
}

/**
 * Runs a CLI body; any failure becomes one line on stderr and a non-zero exit, never a stack trace.
 * A body that never settles (it waits for something nothing is left to do, so Node runs out of
 * work) exits 1 with a line saying so, not 0 as if it had finished. An explicit process.exit()
 * (a server stopped by a signal) is left alone.
 */
export function main(body: () => Promise<number | void> | number | void): void {
  let settled = false;
  process.once("exit", () => {
    if (settled || process.exitCode !== undefined) return;
    console.error("error: stopped before finishing: it was waiting for something that could no longer happen");
    process.exitCode = 1;
  });
  Promise.resolve()
    .then(body)
    .finally(() => (settled = true))
    .then((code) => {
      process.exitCode = code ?? 0;
    })
    .catch((e: unknown) => {
      const message = e instanceof GameFailure ? `${e.error.code}: ${e.error.message}` : e instanceof Error ? e.message : String(e);
      console.error(`error: ${commandLine(message)}`);
      if (process.env.CARDGYM_DEBUG) console.error(e);
      process.exitCode = e instanceof UsageError ? 2 : 1;
    });
}

const runTempDirs = new Set<string>();
let runTempDirsHooked = false;

function removeRunTempDirs(): void {
  for (const dir of runTempDirs) rmSync(dir, { recursive: true, force: true });
  runTempDirs.clear();
}

/**
 * A fresh folder in the temp directory for this run of a command (`<tmpdir>/<prefix>XXXXXX`),
 * removed with what it holds when the process ends: normally, on an error, and on Ctrl-C, a kill or
 * a closed terminal (SIGINT, SIGTERM, SIGHUP), after which the signal ends the process as it would
 * have. When the program handles the signal itself (a graceful shutdown), the folder goes when that
 * shutdown exits. Only SIGKILL leaves it. `remove` removes it earlier.
 */
export function runTempDir(prefix: string): { readonly dir: string; remove(): void } {
  if (!runTempDirsHooked) {
    runTempDirsHooked = true;
    process.on("exit", removeRunTempDirs);
    for (const signal of ["SIGINT", "SIGTERM", "SIGHUP"] as const) {
      const onSignal = () => {
        if (process.listenerCount(signal) > 1) return; // the program's own handler exits; "exit" cleans up
        removeRunTempDirs();
        process.removeListener(signal, onSignal);
        process.kill(process.pid, signal);
      };
      process.on(signal, onSignal);
    }
  }
  const dir = mkdtempSync(join(tmpdir(), prefix));
  runTempDirs.add(dir);
  return {
    dir,
    remove() {
      runTempDirs.delete(dir);
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
