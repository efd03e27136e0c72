import { spawn } from "node:child_process";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { repoRoot } from "./run-script.ts";

/**
 * Every npm script that runs one of our programs answers `-- --help` (and `-- -h`) with its usage
 * and exit 0, before doing any work: a benchmark, a build or a load test asked for help must not
 * start. The scripts below are the ones that take no help flag: compositions of other commands.
 */
const NOT_A_PROGRAM: Readonly<Record<string, string>> = {
  "test:unit": "vitest itself (its own --help is vitest's)",
  "test:load": "a shell script around the suites",
  "test:web": "vitest with the browser config",
  "test:python": "pytest through a shell script",
  "test:integrations": "a shell script that builds a venv",
  typecheck: "tsc twice",
  lint: "eslint",
  format: "prettier",
  "format:check": "prettier",
};

const scripts = (JSON.parse(readFileSync(join(repoRoot, "package.json"), "utf8")) as { scripts: Record<string, string> }).scripts;
const programs = Object.keys(scripts).filter((name) => !(name in NOT_A_PROGRAM));

function npmRun(name: string, flag: string): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    const child = spawn("npm", ["run", "-s", name, "--", flag], {
      cwd: repoRoot,
      stdio: ["ignore", "pipe", "pipe"],
      env: { ...process.env, CARDGYM_DEBUG: "" },
    });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (d: Buffer) => (stdout += d.toString()));
    child.stderr.on("data", (d: Buffer) => (stderr += d.toString()));
    // Only a guard against a script that starts its work and never ends.
    const guard = setTimeout(() => child.kill("SIGKILL"), 180_000);
    child.on("close", (code) => {
      clearTimeout(guard);
      resolve({ code, stdout, stderr });
    });
  });
}

describe("npm scripts answer --help", () => {
  it("lists the programs it checks (every script but the compositions)", () => {
    expect(programs).toEqual(expect.arrayContaining(["start", "test", "play", "arena", "bench:wire", "build:npm", "build:wheel", "golden", "load"]));
    for (const name of Object.keys(NOT_A_PROGRAM)) expect(scripts, `NOT_A_PROGRAM names "${name}", not in package.json`).toHaveProperty(name);
  });

  // Concurrent: each is a few seconds of process start-up, and there are about twenty.
  it.concurrent.each(programs)("npm run %s -- --help prints its usage first and exits 0", async (name) => {
    for (const flag of ["--help", "-h"]) {
      const r = await npmRun(name, flag);
      expect(r.code, `${name} ${flag}:\n${r.stdout}\n${r.stderr}`).toBe(0);
      // The usage is the first thing printed: nothing was built, measured or served before it.
      expect(r.stdout.split("\n")[0], `${name} ${flag}:\n${r.stdout}\n${r.stderr}`).toMatch(/^usage: /);
      expect(r.stdout.split("\n").length, r.stdout).toBeLessThan(30);
    }
  });
});
