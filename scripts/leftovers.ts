/**
 * What a test run leaves behind: files in the temp directory and processes still running after it
 * ended. A run gets its own temp directory (TMPDIR, which Node's os.tmpdir(), Python's tempfile,
 * Chromium and most tools follow), created in the real one and inherited by every process it
 * starts; at the end that directory must be empty and no process may still run with it in its
 * environment. Other jobs on the machine (another run, another checkout) have their own, so they
 * never count. Used by the vitest suite (test/fixtures/leftover-guard.ts) and, for any other
 * command, by the command line below.
 *
 *   tsx scripts/leftovers.ts -- COMMAND [ARGS...]   runs COMMAND in its own temp directory; exits
 *                                                    1 naming what it left (else COMMAND's code)
 */
import { spawn } from "node:child_process";
import { lstatSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, symlinkSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { pathToFileURL } from "node:url";

export interface Sandbox {
  /** The run's own temp directory. */
  readonly dir: string;
  /** The temp directory it was made in (the machine's, usually /tmp). */
  readonly parent: string;
  /** Entries that are links to caches in `parent`, shared across runs on purpose. */
  readonly shared: readonly string[];
}

/**
 * Caches kept in the temp directory on purpose and reused across runs: linked into each run's own
 * directory, so that a run does not start them cold (tsx's compile cache: tsx-<uid>).
 */
function sharedCaches(): string[] {
  return [`tsx-${process.getuid?.() ?? 0}`];
}

/** A fresh temp directory for one run, in the current one (`<tmpdir>/<prefix>XXXXXX`). */
export function openSandbox(prefix: string): Sandbox {
  const parent = tmpdir();
  const dir = mkdtempSync(join(parent, prefix));
  const shared: string[] = [];
  for (const name of sharedCaches()) {
    try {
      mkdirSync(join(parent, name), { recursive: true, mode: 0o700 });
      symlinkSync(join(parent, name), join(dir, name));
      shared.push(name);
    } catch {
      // no shared cache then: the tool makes its own in the run's directory, allowed below
    }
  }
  return { dir, parent, shared };
}

export interface Leftover {
  readonly kind: "file" | "process";
  /** A temp entry's name, or `pid <n>: <command line>`. */
  readonly what: string;
}

/** Processes (not zombies) whose environment has TMPDIR=dir, except those of `exclude`. */
export function processesOf(dir: string, exclude: ReadonlySet<number>): { pid: number; command: string }[] {
  let names: string[];
  try {
    names = readdirSync("/proc");
  } catch {
    return []; // no /proc (not Linux): processes are not checked
  }
  const marker = `TMPDIR=${dir}`;
  const found: { pid: number; command: string }[] = [];
  for (const name of names) {
    const pid = Number(name);
    if (!Number.isInteger(pid) || exclude.has(pid)) continue;
    try {
      if (!readFileSync(`/proc/${pid}/environ`, "latin1").split("\0").includes(marker)) continue;
      const state = readFileSync(`/proc/${pid}/stat`, "latin1").split(") ").at(-1)?.[0];
      if (state === "Z") continue;
      const command = readFileSync(`/proc/${pid}/cmdline`, "utf8").split("\0").join(" ").trim();
      found.push({ pid, command: command.length > 200 ? `${command.slice(0, 200)}...` : command });
    } catch {
      // gone meanwhile, or not ours to read
    }
  }
  return found;
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/**
 * Ends a run: what it left behind (processes still running after `graceMs`, then killed; entries
 * in its temp directory, shared cache links aside and `allow`ed names aside), then removes the
 * directory. The grace only lets processes told to stop at the very end finish exiting.
 */
export async function closeSandbox(
  box: Sandbox,
  options: { exclude?: ReadonlySet<number>; graceMs?: number; allow?: (name: string) => boolean } = {},
): Promise<Leftover[]> {
  const exclude = options.exclude ?? new Set([process.pid]);
  const until = Date.now() + (options.graceMs ?? 10_000);
  let procs = processesOf(box.dir, exclude);
  while (procs.length > 0 && Date.now() < until) {
    await sleep(100);
    procs = processesOf(box.dir, exclude);
  }
  for (const p of procs) {
    try {
      process.kill(p.pid, "SIGKILL");
    } catch {
      // already gone
    }
  }
  const left: Leftover[] = procs.map((p) => ({ kind: "process", what: `pid ${p.pid}: ${p.command}` }));
  let names: string[] = [];
  try {
    names = readdirSync(box.dir);
  } catch {
    left.push({ kind: "file", what: `(${box.dir} itself was removed)` });
  }
  for (const name of names.sort()) {
    if (box.shared.includes(name) || options.allow?.(name)) continue;
    const isDir = (() => {
      try {
        return lstatSync(join(box.dir, name)).isDirectory();
      } catch {
        return false;
      }
    })();
    left.push({ kind: "file", what: isDir ? `${name}/` : name });
  }
  // The shared caches are links: rmSync removes a link, never what it points to.
  rmSync(box.dir, { recursive: true, force: true });
  return left;
}

/** The report printed when a run left something behind. */
export function describeLeftovers(run: string, left: readonly Leftover[]): string {
  const files = left.filter((l) => l.kind === "file").map((l) => `  ${l.what}`);
  const procs = left.filter((l) => l.kind === "process").map((l) => `  ${l.what}`);
  return [
    `${run} left things behind (each test cleans up what it makes: test/fixtures/temp-dir.ts for temp folders; stop what you start):`,
    ...(files.length > 0 ? ["in its temp directory:", ...files] : []),
    ...(procs.length > 0 ? ["processes still running (now killed):", ...procs] : []),
  ].join("\n");
}

async function cli(argv: readonly string[]): Promise<number> {
  const command = argv[0] === "--" ? argv.slice(1) : argv;
  if (command.length === 0 || command[0] === "--help" || command[0] === "-h") {
    console.log("usage: tsx scripts/leftovers.ts -- COMMAND [ARGS...]");
    return command.length === 0 ? 2 : 0;
  }
  const box = openSandbox("cardgym-run-");
  const child = spawn(command[0]!, command.slice(1), { stdio: "inherit", env: { ...process.env, TMPDIR: box.dir } });
  // Ctrl-C reaches the child through the terminal's process group; a TERM sent to this process is passed on.
  process.on("SIGTERM", () => child.kill("SIGTERM"));
  process.on("SIGINT", () => {});
  const code = await new Promise<number>((done) => {
    child.on("error", (e) => {
      console.error(`leftovers: cannot run ${command[0]}: ${e.message}`);
      done(127);
    });
    child.on("exit", (c, signal) => done(c ?? (signal ? 128 + 15 : 1)));
  });
  // pytest keeps its last three runs' tmp_path folders under pytest-of-<user>, a bounded cache of its own.
  const left = await closeSandbox(box, { allow: (name) => name.startsWith("pytest-of-") });
  if (left.length > 0) {
    console.error(describeLeftovers(command.join(" "), left));
    return code === 0 ? 1 : code;
  }
  return code;
}

if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(resolve(process.argv[1])).href) {
  void cli(process.argv.slice(2)).then((code) => process.exit(code));
}
