/**
 * `npm test`: runs every suite in order even when one fails, streams each one's output live, then
 * prints a summary (suite, result, duration) and exits 1 if any suite failed. One slow or broken
 * suite therefore never hides the results of the ones after it.
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
}

export interface SuiteResult {
  readonly name: string;
  readonly ok: boolean;
  /** The exit code, or the signal that ended the suite. */
  readonly exit: number | string;
  readonly ms: number;
}

/** What `npm test` runs, in this order. */
export const DEFAULT_SUITES: readonly Suite[] = [
  { name: "typecheck", command: "npm run typecheck" },
  { name: "lint", command: "npm run lint" },
  { name: "format:check", command: "npm run format:check" },
  { name: "vitest", command: "npm run test:unit" },
  { name: "test:web", command: "npm run test:web" },
  { name: "test:python", command: "npm run test:python" },
  { name: "gate", command: "npm run gate" },
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

let current: ReturnType<typeof spawn> | null = null;

/** Runs one suite with inherited stdio (its output streams live); resolves when it exits. */
function runSuite(suite: Suite, options: RunOptions): Promise<SuiteResult> {
  const log = options.log ?? console.log;
  const started = Date.now();
  return new Promise((resolve) => {
    const child = spawn(suite.command, { cwd: options.cwd ?? repoRoot, shell: true, stdio: "inherit" });
    current = child;
    const beat =
      options.heartbeatMs && options.heartbeatMs > 0
        ? setInterval(() => log(`[test-all] ${suite.name} still running (${formatDuration(Date.now() - started)})`), options.heartbeatMs)
        : null;
    const finish = (exit: number | string) => {
      if (beat) clearInterval(beat);
      current = null;
      resolve({ name: suite.name, ok: exit === 0, exit, ms: Date.now() - started });
    };
    child.on("error", (e) => {
      log(`[test-all] ${suite.name} could not start: ${e.message}`);
      finish(127);
    });
    child.on("exit", (code, signal) => finish(code ?? signal ?? 1));
  });
}

/** Runs every suite in order, whatever the earlier ones returned. */
export async function runSuites(suites: readonly Suite[], options: RunOptions = {}): Promise<SuiteResult[]> {
  const log = options.log ?? console.log;
  const results: SuiteResult[] = [];
  for (const [i, suite] of suites.entries()) {
    if (options.stopped?.()) break;
    log(`\n[test-all] (${i + 1}/${suites.length}) ${suite.name}: ${suite.command}  [${new Date().toISOString().slice(11, 19)} UTC]`);
    const r = await runSuite(suite, options);
    log(`[test-all] ${suite.name}: ${r.ok ? "passed" : `FAILED (exit ${r.exit})`} in ${formatDuration(r.ms)}`);
    results.push(r);
  }
  return results;
}

/** The summary table printed at the end, and the line naming every failed suite. */
export function summary(results: readonly SuiteResult[]): string {
  const width = Math.max(5, ...results.map((r) => r.name.length));
  const rows = results.map((r) => `${r.name.padEnd(width)}  ${(r.ok ? "passed" : `FAILED (exit ${r.exit})`).padEnd(16)}  ${formatDuration(r.ms)}`);
  const total = results.reduce((a, r) => a + r.ms, 0);
  const failed = results.filter((r) => !r.ok).map((r) => r.name);
  return [
    `${"suite".padEnd(width)}  ${"result".padEnd(16)}  duration`,
    ...rows,
    `${"total".padEnd(width)}  ${"".padEnd(16)}  ${formatDuration(total)}`,
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
      current?.kill(signal);
    });
  }
  const suites = args.suites;
  const results = await runSuites(suites, { heartbeatMs: args.heartbeatMs, stopped: () => interrupted });
  console.log(`\n[test-all] summary\n${summary(results)}`);
  if (interrupted) {
    console.log(`[test-all] interrupted: ${suites.length - results.length} suite(s) not run`);
    process.exit(130);
  }
  process.exit(results.every((r) => r.ok) ? 0 : 1);
}

if (process.argv[1] !== undefined && import.meta.url === pathToFileURL(resolve(process.argv[1])).href) void main();
