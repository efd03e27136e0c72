/**
 * `npm test`: runs every suite in order even when one fails, streams each one's output live, then
 * prints a summary (suite, result, duration) and exits 1 if any suite failed. One slow or broken
 * suite therefore never hides the results of the ones after it.
 *
 * Consecutive suites of one `group` run at the same time: each of them keeps one core busy or
 * less (tsc, eslint and prettier are single-threaded; the Python suite and the gate mostly wait on
 * one process at a time), so on a 2-core machine one after the other leaves a core idle. A grouped
 * suite's output is collected and printed whole when it ends, under its name, so the log never
 * interleaves two suites' lines. vitest runs alone: it keeps every core busy itself. So do the
 * browser tests: a page waits on a real Chromium, and beside two other suites on a machine already
 * at load 20 one of those waits ran into its 120 s hang guard.
 *
 *   tsx scripts/test-all.ts                      the default suites (below)
 *   tsx scripts/test-all.ts --only vitest,gate   a subset of them, in the default order
 *   tsx scripts/test-all.ts --suite 'name=command' [--suite ...]   other suites (shell commands)
 *   tsx scripts/test-all.ts --heartbeat-s 300    how often to say which suite is still running (0: never)
 */
import { spawn } from "node:child_process";
import { resolve } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";

export interface Suite {
  readonly name: string;
  /** A shell command, run from the repository root. */
  readonly command: string;
  /** Consecutive suites with the same group run at once (see the header); none: alone. */
  readonly group?: string;
}

export interface SuiteResult {
  readonly name: string;
  readonly ok: boolean;
  /** The exit code, or the signal that ended the suite. */
  readonly exit: number | string;
  readonly ms: number;
}

/**
 * What `npm test` runs, in this order. The static checks only read the checkout. The Python tests
 * and the gate share nothing they write: the first use python/.venv (made and filled by vitest's
 * README test before, or by the suite's own python-env.sh) and servers on ports or sockets of
 * their own, the gate writes arena-out/ci*.
 */
export const DEFAULT_SUITES: readonly Suite[] = [
  { name: "typecheck", command: "npm run typecheck", group: "checks" },
  { name: "lint", command: "npm run lint", group: "checks" },
  { name: "format:check", command: "npm run format:check", group: "checks" },
  { name: "vitest", command: "npm run test:unit" },
  { name: "test:web", command: "npm run test:web" },
  { name: "test:python", command: "npm run test:python", group: "python-gate" },
  { name: "gate", command: "npm run gate", group: "python-gate" },
];

const repoRoot = fileURLToPath(new URL("..", import.meta.url));

export function formatDuration(ms: number): string {
  const s = Math.round(ms / 1000);
  return s < 60 ? `${s} s` : `${Math.floor(s / 60)} min ${String(s % 60).padStart(2, "0")} s`;
}

interface RunOptions {
  readonly cwd?: string;
  readonly log?: (line: string) => void;
  readonly heartbeatMs?: number;
  /** Checked before each suite: true stops the run there (the rest are not started). */
  readonly stopped?: () => boolean;
}

const running = new Set<ReturnType<typeof spawn>>();

/**
 * Runs one suite; resolves when it exits. Alone, its output streams live (inherited stdio); with
 * `collect`, stdout and stderr go to one buffer, printed whole (by `log`) when the suite ends.
 */
function runSuite(suite: Suite, options: RunOptions, collect: boolean): Promise<SuiteResult> {
  const log = options.log ?? console.log;
  const started = Date.now();
  return new Promise((resolve) => {
    const child = spawn(suite.command, { cwd: options.cwd ?? repoRoot, shell: true, stdio: collect ? ["ignore", "pipe", "pipe"] : "inherit" });
    running.add(child);
    const output: Buffer[] = [];
    child.stdout?.on("data", (d: Buffer) => output.push(d));
    child.stderr?.on("data", (d: Buffer) => output.push(d));
    const beat =
      options.heartbeatMs && options.heartbeatMs > 0
        ? setInterval(() => log(`[test-all] ${suite.name} still running (${formatDuration(Date.now() - started)})`), options.heartbeatMs)
        : null;
    let done = false;
    const finish = (exit: number | string) => {
      if (done) return;
      done = true;
      if (beat) clearInterval(beat);
      running.delete(child);
      if (collect) {
        const text = Buffer.concat(output).toString("utf8");
        log(`\n[test-all] ${suite.name}'s output:\n${text}${text.endsWith("\n") || text === "" ? "" : "\n"}[test-all] end of ${suite.name}'s output`);
      }
      resolve({ name: suite.name, ok: exit === 0, exit, ms: Date.now() - started });
    };
    child.on("error", (e) => {
      log(`[test-all] ${suite.name} could not start: ${e.message}`);
      finish(127);
    });
    // "close" comes after the exit once its output has all been read. A process the suite left
    // running may hold the output pipe open: then the suite ends a few seconds after its exit.
    child.on("close", (code, signal) => finish(code ?? signal ?? 1));
    child.on("exit", (code, signal) => setTimeout(() => finish(code ?? signal ?? 1), 5000).unref());
  });
}

/** The suites in runs of one group (a suite without a group is a run of its own), in order. */
export function batches(suites: readonly Suite[]): Suite[][] {
  const out: Suite[][] = [];
  for (const suite of suites) {
    const last = out.at(-1);
    if (last && suite.group !== undefined && last[0]!.group === suite.group) last.push(suite);
    else out.push([suite]);
  }
  return out;
}

/** Runs every suite, whatever the earlier ones returned: a group's at once, the rest in order. Results are in suite order. */
export async function runSuites(suites: readonly Suite[], options: RunOptions = {}): Promise<SuiteResult[]> {
  const log = options.log ?? console.log;
  const results: SuiteResult[] = [];
  let i = 0;
  for (const batch of batches(suites)) {
    if (options.stopped?.()) break;
    const together = batch.length > 1;
    const runs = batch.map((suite) => {
      i++;
      const others = batch.filter((s) => s !== suite).map((s) => s.name);
      log(
        `\n[test-all] (${i}/${suites.length}) ${suite.name}: ${suite.command}  [${new Date().toISOString().slice(11, 19)} UTC]${together ? ` (at once with ${others.join(", ")}; its output follows when it ends)` : ""}`,
      );
      return runSuite(suite, options, together).then((r) => {
        log(`[test-all] ${suite.name}: ${r.ok ? "passed" : `FAILED (exit ${r.exit})`} in ${formatDuration(r.ms)}`);
        return r;
      });
    });
    results.push(...(await Promise.all(runs)));
  }
  return results;
}

/**
 * The summary table printed at the end, and the line naming every failed suite. `wallMs`: the
 * whole run's wall time (grouped suites overlap, so it is less than the sum of the durations).
 */
export function summary(results: readonly SuiteResult[], wallMs?: number): string {
  const width = Math.max(5, ...results.map((r) => r.name.length));
  const rows = results.map((r) => `${r.name.padEnd(width)}  ${(r.ok ? "passed" : `FAILED (exit ${r.exit})`).padEnd(16)}  ${formatDuration(r.ms)}`);
  const total = wallMs ?? results.reduce((a, r) => a + r.ms, 0);
  const failed = results.filter((r) => !r.ok).map((r) => r.name);
  return [
    `${"suite".padEnd(width)}  ${"result".padEnd(16)}  duration`,
    ...rows,
    `${"total".padEnd(width)}  ${(wallMs === undefined ? "" : "wall time").padEnd(16)}  ${formatDuration(total)}`,
    failed.length === 0 ? "all suites passed" : `FAILED: ${failed.join(", ")}`,
  ].join("\n");
}

interface Args {
  readonly suites: readonly Suite[];
  readonly heartbeatMs: number;
}

export function parseArgs(argv: readonly string[]): Args {
  const custom: Suite[] = [];
  let only: string[] | null = null;
  let heartbeatMs = 300_000;
  for (let i = 0; i < argv.length; i++) {
    const flag = argv[i];
    const value = argv[i + 1];
    if (flag !== "--suite" && flag !== "--only" && flag !== "--heartbeat-s") throw new Error(`unknown flag ${flag} (known: --suite, --only, --heartbeat-s)`);
    if (value === undefined) throw new Error(`${flag} needs a value`);
    i++;
    if (flag === "--suite") {
      const eq = value.indexOf("=");
      if (eq <= 0 || eq === value.length - 1) throw new Error(`--suite wants name=command, got ${JSON.stringify(value)}`);
      custom.push({ name: value.slice(0, eq), command: value.slice(eq + 1) });
    } else if (flag === "--only") {
      only = value.split(",").filter((s) => s !== "");
    } else if (flag === "--heartbeat-s") {
      const s = Number(value);
      if (!Number.isFinite(s) || s < 0) throw new Error(`--heartbeat-s wants seconds >= 0, got ${value}`);
      heartbeatMs = s * 1000;
    }
  }
  let suites: readonly Suite[] = custom.length > 0 ? custom : DEFAULT_SUITES;
  if (only !== null) {
    const unknown = only.filter((n) => !suites.some((s) => s.name === n));
    if (unknown.length > 0) throw new Error(`--only names unknown suites: ${unknown.join(", ")} (known: ${suites.map((s) => s.name).join(", ")})`);
    suites = suites.filter((s) => only!.includes(s.name));
  }
  return { suites, heartbeatMs };
}

const USAGE = "npm test [-- --only vitest,gate] [--suite 'name=command' ...] [--heartbeat-s S]";

async function main(): Promise<void> {
  if (process.argv.includes("--help") || process.argv.includes("-h")) {
    console.log(`usage: ${USAGE}\nsuites: ${DEFAULT_SUITES.map((s) => s.name).join(", ")}`);
    process.exit(0);
  }
  let args: Args;
  try {
    args = parseArgs(process.argv.slice(2));
  } catch (e) {
    console.error(`test-all: ${(e as Error).message}`);
    process.exit(2);
  }
  // Ctrl-C or a CI cancel reaches the running suite through the terminal's process group; stop
  // starting new ones and exit once it has gone.
  let interrupted = false;
  for (const signal of ["SIGINT", "SIGTERM"] as const) {
    process.on(signal, () => {
      interrupted = true;
      for (const child of running) child.kill(signal);
    });
  }
  const suites = args.suites;
  const started = Date.now();
  const results = await runSuites(suites, { heartbeatMs: args.heartbeatMs, stopped: () => interrupted });
  console.log(`\n[test-all] summary\n${summary(results, Date.now() - started)}`);
  if (interrupted) {
    console.log(`[test-all] interrupted: ${suites.length - results.length} suite(s) not run`);
    process.exit(130);
  }
  process.exit(results.every((r) => r.ok) ? 0 : 1);
}

if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(resolve(process.argv[1])).href) void main();
