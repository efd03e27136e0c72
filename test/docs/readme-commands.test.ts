/**
 * Every command the README shows runs as written, or as the documented fast form listed in
 * readme-commands.json (with the reason). Blocks run in README order, each as one shell script
 * (so `. python/.venv/bin/activate` holds for the lines after it); python blocks run with the
 * venv's interpreter. Entries that no longer match a README command fail the test, so the list
 * cannot go stale; a new README command runs as written until someone adds a fast form.
 */
import { spawn, spawnSync } from "node:child_process";
import { existsSync, readFileSync, rmSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { tempDir } from "../fixtures/temp-dir.ts";
import { repoRoot } from "../scripts/run-script.ts";
import { fencedBlocks } from "./markdown.ts";
import { hangGuard } from "../fixtures/hang-guard.ts";
import { withCheckoutLock } from "../fixtures/checkout-lock.ts";

interface Entry {
  readonly run?: string;
  readonly background?: string;
  readonly scriptsExist?: string;
  readonly coveredBy?: string;
  readonly okExit?: readonly number[];
  readonly cleanup?: readonly string[];
  readonly why: string;
}
interface Config {
  readonly serverAddress: string;
  readonly commands: Readonly<Record<string, Entry>>;
}

const config = JSON.parse(readFileSync(new URL("./readme-commands.json", import.meta.url), "utf8")) as Config;
const readme = readFileSync(join(repoRoot, "README.md"), "utf8");
const blocks = fencedBlocks(readme).filter((b) => ["sh", "bash", "python"].includes(b.lang));
const VENV_PYTHON = join(repoRoot, "python", ".venv", "bin", "python");
const sharedDir = tempDir("cgs-"); // short: the shared server's socket paths must fit

function runScript(script: string, timeoutMs: number, shell = "bash"): { code: number | null; out: string } {
  const r = spawnSync(shell, shell === "bash" ? ["-c", script] : ["-"], {
    cwd: repoRoot,
    input: shell === "bash" ? undefined : script,
    encoding: "utf8",
    timeout: timeoutMs,
    // The README's Python lines start a machine-shared server, whose folder is the user's to keep
    // (python/cardgym/shared_server.py): here it is one of this test file's temp folders.
    env: { ...process.env, CARDGYM_DEBUG: "", CARDGYM_SHARED_DIR: sharedDir },
  });
  return { code: r.status, out: `${r.stdout ?? ""}\n${r.stderr ?? ""}`.slice(-4000) };
}

/** Starts a server command in its own process group; resolves with the address its banner names. */
function startServer(command: string, ready: RegExp): Promise<{ address: string; stop: () => void }> {
  const child = spawn("bash", ["-c", command], { cwd: repoRoot, detached: true, stdio: ["ignore", "pipe", "pipe"] });
  const stop = () => {
    try {
      if (child.pid !== undefined) process.kill(-child.pid, "SIGTERM");
    } catch {
      // already gone
    }
  };
  return new Promise((resolve, reject) => {
    let seen = "";
    const guard = hangGuard();
    const timer = setTimeout(() => {
      stop();
      reject(new Error(`hang guard: the server did not print its banner within ${guard / 1000} s:\n${seen}`));
    }, guard);
    const onData = (d: Buffer) => {
      seen += d.toString();
      const m = ready.exec(seen);
      if (m?.[1]) {
        clearTimeout(timer);
        resolve({ address: m[1], stop });
      }
    };
    child.stdout.on("data", onData);
    child.stderr.on("data", onData);
    child.on("exit", (code) => {
      clearTimeout(timer);
      reject(new Error(`server exited (${code}) before its banner:\n${seen}`));
    });
  });
}

/** `npm run X` names inside a package.json script, recursively, must all exist. */
function missingScripts(name: string, scripts: Record<string, string>, seen = new Set<string>()): string[] {
  if (seen.has(name)) return [];
  seen.add(name);
  const body = scripts[name];
  if (body === undefined) return [name];
  return [...body.matchAll(/npm run ([\w:-]+)/g)].flatMap((m) => missingScripts(m[1] ?? "", scripts, seen));
}

describe("the README's commands", () => {
  it("are parsed from its fenced blocks, and every fast form still matches one of them", () => {
    const all = new Set(blocks.flatMap((b) => b.commands));
    expect(all.size).toBeGreaterThan(5);
    for (const command of Object.keys(config.commands)) expect(all, `readme-commands.json lists "${command}", not in README.md`).toContain(command);
    for (const [command, entry] of Object.entries(config.commands)) {
      expect(entry.why.length, command).toBeGreaterThan(20);
      if (entry.coveredBy) expect(existsSync(join(repoRoot, entry.coveredBy)), entry.coveredBy).toBe(true);
    }
  });

  it("parses continuations and comments the way a shell does", () => {
    const [b] = fencedBlocks('```sh\ncurl -s x \\\n     -d \'{"a":"#1"}\'   # send it\nnpm test  # all\n```\n');
    expect(b?.commands).toEqual([`curl -s x -d '{"a":"#1"}'`, "npm test"]);
  });

  // The blocks run `bash scripts/python-env.sh` (pip install -e python/), which writes python/'s
  // build metadata as the wheel test's pip wheel does: one at a time.
  it("run as written or in their documented fast form, in README order", () => withCheckoutLock("python-package", runReadme));
});

/** Every README block in order, as one shell script each (python blocks with the venv's Python). */
async function runReadme(): Promise<void> {
  const scripts = (JSON.parse(readFileSync(join(repoRoot, "package.json"), "utf8")) as { scripts: Record<string, string> }).scripts;
  let server: { address: string; stop: () => void } | null = null;
  try {
    for (const block of blocks) {
      if (block.lang === "python") {
        expect(existsSync(VENV_PYTHON), "a sh block before this one makes python/.venv").toBe(true);
        const r = runScript(block.text, hangGuard(300_000), VENV_PYTHON);
        expect(r.code, `README.md line ${block.line}: the python block failed:\n${r.out}`).toBe(0);
        continue;
      }
      const parts: string[] = ["set -eo pipefail"];
      const cleanup: string[] = [];
      for (const [k, command] of block.commands.entries()) {
        const entry = config.commands[command];
        if (entry?.coveredBy) {
          const test = readFileSync(join(repoRoot, entry.coveredBy), "utf8");
          const script = /npm run ([\w:-]+)/.exec(command)?.[1];
          // A build: the covering test runs its script. Any other line: the covering test reads
          // the README's commands and runs them.
          if (script === undefined) expect(test, `${entry.coveredBy} does not read the README's commands`).toMatch(/README\.md/);
          else
            expect(test, `${entry.coveredBy} does not run the ${script} build`).toMatch(
              new RegExp(scripts[script]?.split(" ")[1]?.replace(/[.*+?^${}()|[\]\\]/g, "\\$&") ?? "^$"),
            );
          continue;
        }
        if (entry?.scriptsExist) {
          expect(missingScripts(entry.scriptsExist, scripts), `npm scripts missing for "${command}"`).toEqual([]);
          parts.push(`echo "::command ${k}"`, "npm ls --depth=0 >/dev/null");
          continue;
        }
        if (entry?.background) {
          server?.stop();
          server = await startServer(entry.run ?? command, new RegExp(entry.background));
          continue;
        }
        let run = entry?.run ?? command;
        if (server) run = run.split(config.serverAddress).join(server.address);
        const ok = entry?.okExit ?? [0];
        // Braces, not a subshell: `. activate` must hold for the lines after it.
        parts.push(
          `echo "::command ${k}"`,
          `{ ${run}
} || { c=$?; case " ${ok.join(" ")} " in *" $c "*) ;; *) echo "::exit $c"; exit $c;; esac; }`,
        );
        cleanup.push(...(entry?.cleanup ?? []));
      }
      try {
        const r = runScript(parts.join("\n"), hangGuard(900_000));
        const failed = /::command (\d+)(?![\s\S]*::command)/.exec(r.out)?.[1];
        expect(r.code, `README.md line ${block.line}: "${block.commands[Number(failed ?? 0)]}" failed:\n${r.out}`).toBe(0);
      } finally {
        for (const f of cleanup) rmSync(join(repoRoot, f), { force: true });
      }
    }
  } finally {
    server?.stop();
  }
}
