import { spawnSync } from "node:child_process";
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { hangGuard } from "../fixtures/hang-guard.ts";
import { outDirArg, outFileArg, parseCli, UsageError } from "../../scripts/cli.ts";
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

describe("output paths are checked before the work they would hold", () => {
  it("outFileArg refuses a directory or a missing folder; outDirArg makes the folder now or says what is in the way", () => {
    const dir = mkdtempSync(join(tmpdir(), "cardgym-out-"));
    expect(() => outFileArg("--record", dir)).toThrow(new UsageError(`--record: ${dir} is a directory`));
    expect(() => outFileArg("--out", join(dir, "no", "x.json"))).toThrow(/^--out: cannot write .*x\.json \(ENOENT\)$/);
    expect(outFileArg("--out", join(dir, "x.json"))).toBe(join(dir, "x.json"));
    expect(outDirArg("--out", join(dir, "a", "b"))).toBe(join(dir, "a", "b"));
    writeFileSync(join(dir, "file"), "");
    expect(() => outDirArg("--out", join(dir, "file"))).toThrow(new UsageError(`--out: cannot make the directory ${join(dir, "file")} (a file is in the way)`));
    rmSync(dir, { recursive: true, force: true });
  });

  it.skipIf(!existsSync("/proc/self"))("outDirArg refuses a folder under /proc at once (Node's recursive mkdir spins there forever)", () => {
    // In a child process, so that the old code's endless loop is cut off by the hang guard, not this worker.
    const r = runModule(
      `import { outDirArg } from "./scripts/cli.ts"; try { outDirArg("--out", "/proc/cardgym-nope/out"); } catch (e) { console.error(e.message); process.exit(2); }`,
    );
    expect(r.code, r.stderr).toBe(2);
    expect(r.stderr.trim()).toBe("--out: cannot make the directory /proc/cardgym-nope/out (ENOENT)");
  });

  it("an arena run whose --out is a file stops before playing", () => {
    const dir = mkdtempSync(join(tmpdir(), "cardgym-out-"));
    writeFileSync(join(dir, "taken"), "");
    const run = runScript("arena.ts", ["--game", "sevens", "--agents", "random,sandbag", "--games", "2", "--out", join(dir, "taken")]);
    expect(run.code).toBe(2);
    expect(run.stderr.trim()).toBe(`error: --out: cannot make the directory ${join(dir, "taken")} (a file is in the way)`);
    expect(run.stdout).not.toMatch(/games/);
    rmSync(dir, { recursive: true, force: true });
  });
});

describe("a negative number after a flag is its value, not an option (node's parseArgs calls it ambiguous)", () => {
  it("parseCli reads --seed -1 as --seed=-1, and leaves a boolean flag, --x=... and what follows -- alone", () => {
    const options = { seed: { type: "string" }, quick: { type: "boolean" } } as const;
    expect(parseCli("u", options, ["--seed", "-1", "--quick"]).values).toMatchObject({ seed: "-1", quick: true });
    expect(parseCli("u", options, ["--seed=-2"]).values.seed).toBe("-2");
    expect(parseCli("u", options, ["--", "--seed", "-1"]).positionals).toEqual(["--seed", "-1"]);
    expect(() => parseCli("u", options, ["--quick", "-1"])).toThrow(UsageError);
  });

  it("the arena takes --seed -1 and says what is wrong with --games -3", () => {
    const base = ["--game", "sevens", "--seats", "3", "--agents", "random,computer", "--plan"];
    const ok = runScript("arena.ts", [...base, "--games", "4", "--seed", "-1"]);
    expect(ok.code, ok.stderr).toBe(0);
    expect(JSON.parse(ok.stdout).plan.seed).toBe(-1);
    const bad = runScript("arena.ts", [...base, "--games", "-3"]);
    expect(bad.code).toBe(2);
    expect(bad.stderr.trim()).toBe("error: --games must be between 1 and 1000000, got -3");
    const sprt = runScript("arena.ts", [
      "--sprt",
      "--game",
      "sevens",
      "--seats",
      "3",
      "--candidate",
      "computer",
      "--baseline",
      "random",
      "--seed",
      "-1",
      "--elo0",
      "-20",
      "--plan",
    ]);
    expect(sprt.code, sprt.stderr).toBe(0);
  });
});
