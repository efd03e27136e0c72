/** Shared CLI plumbing: argument parsing with one-line errors, and a main() wrapper. */
import { accessSync, constants, existsSync, mkdirSync, mkdtempSync, rmSync, statSync } from "node:fs";
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

export function parseCli<T extends NonNullable<ParseArgsConfig["options"]>>(usage: string, options: T, argv: readonly string[] = process.argv.slice(2)) {
  try {
    const args = negativeValues(argv, options);
    return parseArgs({ args, options: { ...options, help: { type: "boolean", short: "h" } }, allowPositionals: true, strict: true });
  } catch (e) {
    throw new UsageError(`${(e as Error).message.split("\n")[0]}\nusage: ${commandLine(usage)}`);
  }
}

/**
 * `argv` with a negative number after a flag that takes a value joined to it: node's parseArgs
 * reads "--seed -1" as --seed followed by an option "-1" and refuses it as ambiguous, where
 * "--seed=-1" is what was meant ("--elo0 -50" in the SPRT docs, a seed drawn below zero).
 */
function negativeValues(argv: readonly string[], options: NonNullable<ParseArgsConfig["options"]>): string[] {
  const out: string[] = [];
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]!;
    const next = argv[i + 1];
    if (arg === "--") return [...out, ...argv.slice(i)];
    const takesValue = arg.startsWith("--") && !arg.includes("=") && options[arg.slice(2)]?.type === "string";
    if (takesValue && next !== undefined && /^-\d/.test(next)) {
      out.push(`${arg}=${next}`);
      i++;
    } else out.push(arg);
  }
  return out;
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

/**
 * mkdirSync(dir, {recursive: true}) without its endless loop: where a folder exists but refuses
 * a child with ENOENT (anywhere under /proc or /sys), Node's recursive mkdir takes the ENOENT for
 * a missing parent, makes the parent (EEXIST) and tries again, at 100% CPU, forever. Here each
 * missing folder is made once, from the outermost, and the first refusal is thrown.
 */
export function makeDirs(dir: string): void {
  const missing: string[] = [];
  for (let at = resolve(dir); !existsSync(at); at = dirname(at)) {
    missing.unshift(at);
    if (dirname(at) === at) break;
  }
  // Nothing missing: Node's own call says whether it is a folder (EEXIST for a file) and cannot loop.
  if (missing.length === 0) mkdirSync(dir, { recursive: true });
  for (const folder of missing) {
    try {
      mkdirSync(folder);
    } catch (e) {
      // Made meanwhile by someone else: fine if it is a folder.
      if (errCode(e) !== "EEXIST" || !statSync(folder).isDirectory()) throw e;
    }
  }
}

/** An output directory, made now (with its parents), so that a run whose results could not be written stops before it runs. */
export function outDirArg(flag: string, dir: string): string {
  try {
    makeDirs(dir);
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
