import { spawnSync } from "node:child_process";
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { hangGuard } from "../fixtures/hang-guard.ts";
import { repoRoot, runScript } from "./run-script.ts";

/** Runs a module body (ESM, through tsx) in its own Node process. */
function runModule(source: string) {
  const out = spawnSync(process.execPath, ["--import", "tsx", "--input-type=module", "-e", source], {
    cwd: repoRoot,
    encoding: "utf8",
    timeout: hangGuard(120_000),
  });
  return { code: out.status, stderr: out.stderr };
}

describe("a CLI that stops before its work is done", () => {
  it("exits 1 with a line saying so, not 0 as if it had finished (main() of scripts/cli.ts)", () => {
    const r = runModule(`import { main } from "./scripts/cli.ts"; main(() => new Promise(() => {}));`);
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/^error: stopped before finishing/m);
    // Settled bodies and explicit exits keep their codes.
    expect(runModule(`import { main } from "./scripts/cli.ts"; main(() => 3);`).code).toBe(3);
    expect(
      runModule(`import { main } from "./scripts/cli.ts"; main(() => { setTimeout(() => process.exit(0), 10); return new Promise(() => {}); });`).code,
    ).toBe(0);
  });

  it("bench-idle names an old checkout whose server exits before listening, with the server's own message", () => {
    const old = mkdtempSync(join(tmpdir(), "bench-idle-old-"));
    try {
      mkdirSync(join(old, "scripts"));
      writeFileSync(join(old, "scripts", "run-bundled.mjs"), `console.error("this server cannot start"); process.exit(3);\n`);
      const r = runScript("bench-idle.ts", ["--old", old, "--runs", "1", "--settle", "0"]);
      expect(r.code, r.stderr).toBe(1);
      expect(r.stderr).toMatch(/exited \(3\) before listening:\nthis server cannot start/);
      const notACheckout = runScript("bench-idle.ts", ["--old", join(old, "scripts"), "--runs", "1"]);
      expect(notACheckout.code).toBe(2);
      expect(notACheckout.stderr).toMatch(/no scripts\/run-bundled\.mjs there/);
    } finally {
      rmSync(old, { recursive: true, force: true });
    }
  });
});
