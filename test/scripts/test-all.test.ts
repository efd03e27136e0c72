import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { batches, DEFAULT_SUITES, parseArgs, runSuites, summary } from "../../scripts/test-all.ts";
import { hangGuard } from "../fixtures/hang-guard.ts";
import { repoRoot, runScript } from "./run-script.ts";

const dirs: string[] = [];
afterEach(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

/** A suite that leaves a marker file, so the test can tell it really ran. */
const marks = (dir: string, name: string) => `${name}=node -e "require('fs').writeFileSync('${join(dir, name)}', 'ran')"`;

describe("npm test's runner (scripts/test-all.ts)", () => {
  it("runs every suite after a failing one, lists the failure in the summary and exits 1", () => {
    const dir = mkdtempSync(join(tmpdir(), "cardgym-test-all-"));
    dirs.push(dir);
    const r = runScript("test-all.ts", [
      "--suite",
      marks(dir, "first"),
      "--suite",
      `broken=node -e "console.error('deliberate failure'); process.exit(3)"`,
      "--suite",
      marks(dir, "later"),
      "--suite",
      "crashes=node -e \"process.kill(process.pid, 'SIGKILL')\"",
      "--suite",
      marks(dir, "last"),
    ]);
    expect(r.code, r.stdout + r.stderr).toBe(1);
    for (const name of ["first", "later", "last"]) expect(existsSync(join(dir, name)), `${name} ran`).toBe(true);
    const table = r.stdout.slice(r.stdout.indexOf("[test-all] summary"));
    expect(table).toMatch(/^first +passed/m);
    expect(table).toMatch(/^broken +FAILED \(exit 3\)/m);
    expect(table).toMatch(/^later +passed/m);
    // Through the shell a signal shows as 128 + its number.
    expect(table).toMatch(/^crashes +FAILED \(exit (SIGKILL|137)\)/m);
    expect(table).toMatch(/^last +passed/m);
    expect(table).toMatch(/^FAILED: broken, crashes$/m);
    // The failing suite's own output streamed through as it ran.
    expect(r.stderr).toContain("deliberate failure");
  });

  it("exits 0 with 'all suites passed' when every suite passes", () => {
    const dir = mkdtempSync(join(tmpdir(), "cardgym-test-all-"));
    dirs.push(dir);
    const r = runScript("test-all.ts", ["--suite", marks(dir, "one"), "--suite", marks(dir, "two")]);
    expect(r.code, r.stdout + r.stderr).toBe(0);
    expect(r.stdout).toMatch(/^all suites passed$/m);
    expect(readFileSync(join(dir, "two"), "utf8")).toBe("ran");
  });

  it("runs by default what npm test always ran, in the same order, each an npm script that exists", () => {
    const scripts = JSON.parse(readFileSync(join(repoRoot, "package.json"), "utf8")).scripts as Record<string, string>;
    expect(scripts.test).toBe("tsx scripts/test-all.ts");
    expect(DEFAULT_SUITES.map((s) => s.name)).toEqual(["typecheck", "lint", "format:check", "vitest", "test:web", "test:python", "gate"]);
    for (const s of DEFAULT_SUITES) {
      const m = /^npm run ([\w:-]+)$/.exec(s.command);
      expect(m?.[1] !== undefined && scripts[m[1]] !== undefined, s.command).toBe(true);
    }
    expect(scripts["test:unit"]).toBe("vitest run");
  });

  it("runs a group's suites at once, each one's output printed whole when it ends, and the summary's total is the wall time", async () => {
    const dir = mkdtempSync(join(tmpdir(), "cardgym-test-all-"));
    dirs.push(dir);
    // Each of the two writes its mark, then waits for the other's: one after the other, the first
    // would wait in vain until its hang guard and fail.
    const meet = (me: string, other: string) =>
      `node -e "const fs=require('fs');console.log('${me} line 1');fs.writeFileSync('${me}','');const until=Date.now()+${hangGuard()};` +
      `const t=setInterval(()=>{if(fs.existsSync('${other}')){clearInterval(t);console.log('${me} line 2');}else if(Date.now()>until){console.error('${me}: ${other} never came');process.exit(4);}},20)"`;
    const lines: string[] = [];
    const started = Date.now();
    const results = await runSuites(
      [
        { name: "alone", command: "node -e 0" },
        { name: "a", command: meet("a", "b"), group: "g" },
        { name: "b", command: `${meet("b", "a")} && exit 3`, group: "g" },
      ],
      { cwd: dir, log: (line) => lines.push(line) },
    );
    const wall = Date.now() - started;
    expect(results.map((r) => [r.name, r.exit])).toEqual([
      ["alone", 0],
      ["a", 0],
      ["b", 3],
    ]);
    const log = lines.join("\n");
    // Both blocks whole: each suite's two lines together, between its own markers.
    expect(log).toMatch(/\[test-all\] a's output:\na line 1\na line 2\n\[test-all\] end of a's output/);
    expect(log).toMatch(/\[test-all\] b's output:\nb line 1\nb line 2\n\[test-all\] end of b's output/);
    expect(log).toMatch(/\(2\/3\) a: .*\(at once with b; its output follows when it ends\)/);
    const table = summary(results, wall);
    expect(table).toMatch(/^total +wall time +\d+ s$/m);
    expect(table.split("\n").at(-1)).toBe("FAILED: b");
  });

  it("groups only consecutive suites of one group; the default runs the static checks together, and the Python suite with the gate", () => {
    const names = (suites: Parameters<typeof batches>[0]) => batches(suites).map((b) => b.map((s) => s.name));
    expect(names(DEFAULT_SUITES)).toEqual([["typecheck", "lint", "format:check"], ["vitest"], ["test:web"], ["test:python", "gate"]]);
    expect(names(parseArgs(["--only", "lint,vitest,gate"]).suites)).toEqual([["lint"], ["vitest"], ["gate"]]);
    expect(
      names([
        { name: "x", command: "x", group: "g" },
        { name: "y", command: "y" },
        { name: "z", command: "z", group: "g" },
      ]),
    ).toEqual([["x"], ["y"], ["z"]]);
  });

  it("refuses malformed arguments and picks suites with --only", () => {
    expect(() => parseArgs(["--suite", "no-command"])).toThrow(/name=command/);
    expect(() => parseArgs(["--only", "nope"])).toThrow(/unknown suites: nope/);
    expect(() => parseArgs(["--bogus", "1"])).toThrow(/unknown flag/);
    // A mistyped last flag is named as unknown, not as a known flag missing its value.
    expect(() => parseArgs(["--onyl"])).toThrow(/unknown flag --onyl/);
    expect(() => parseArgs(["--only"])).toThrow(/--only needs a value/);
    expect(parseArgs(["--only", "gate,lint"]).suites.map((s) => s.name)).toEqual(["lint", "gate"]);
    const text = summary([
      { name: "a", ok: true, exit: 0, ms: 61_000 },
      { name: "b", ok: false, exit: 2, ms: 500 },
    ]);
    expect(text).toContain("1 min 01 s");
    expect(text.split("\n").at(-1)).toBe("FAILED: b");
  });
});
