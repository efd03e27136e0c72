import { spawnSync } from "node:child_process";
import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { poolWorkerEntry } from "../../scripts/arena/pool.ts";
import { repoRoot } from "./run-script.ts";

/** scripts/run-bundled.mjs's build cache: reused while no input changed, rebuilt when one did. */
describe("run-bundled build cache", () => {
  const dir = mkdtempSync(join(tmpdir(), "cardgym-bundle-"));
  const main = `probe-${process.pid}-${Date.now()}`;
  const entry = join(dir, `${main}.ts`);
  const dep = join(dir, "dep.ts");
  const cache = join(repoRoot, ".bundle", "cache");
  const record = join(cache, `${main}.json`);
  afterAll(() => {
    rmSync(dir, { recursive: true, force: true });
    try {
      const { files } = JSON.parse(readFileSync(record, "utf8")) as { files: string[] };
      for (const f of files) rmSync(join(cache, f), { force: true });
    } catch {
      // nothing cached
    }
    rmSync(record, { force: true });
  });

  const run = () => {
    const out = spawnSync(process.execPath, ["scripts/run-bundled.mjs", entry], { cwd: repoRoot, encoding: "utf8", timeout: 120_000 });
    expect(out.status, out.stderr).toBe(0);
    return out.stdout.trim();
  };

  it("runs a start with unchanged inputs from the cached bundle, and rebuilds when an input changes", () => {
    writeFileSync(dep, 'export const word = "first";\n');
    writeFileSync(entry, 'import { word } from "./dep.ts";\nconsole.log(word);\n');
    expect(run()).toBe("first");
    const { files } = JSON.parse(readFileSync(record, "utf8")) as { files: string[] };
    // Mark the cached bundle: a start that uses it prints the mark, a rebuild would not.
    const cached = join(cache, files[0]!);
    writeFileSync(cached, readFileSync(cached, "utf8").replace('"first"', '"from the cache"'));
    expect(run()).toBe("from the cache");
    writeFileSync(dep, 'export const word = "second, changed";\n');
    expect(run()).toBe("second, changed");
  });
});

describe("run-bundled where it cannot build", () => {
  // A checkout of its own (run-bundled builds into <checkout>/.bundle): the script, the
  // session-worker entry it always bundles, and the repo's node_modules for esbuild.
  const checkout = mkdtempSync(join(tmpdir(), "cardgym-bundle-checkout-"));
  afterAll(() => rmSync(checkout, { recursive: true, force: true }));
  mkdirSync(join(checkout, "scripts"));
  mkdirSync(join(checkout, "env", "server"), { recursive: true });
  copyFileSync(join(repoRoot, "scripts", "run-bundled.mjs"), join(checkout, "scripts", "run-bundled.mjs"));
  writeFileSync(join(checkout, "env", "server", "session-worker.ts"), "export {};\n");
  symlinkSync(join(repoRoot, "node_modules"), join(checkout, "node_modules"));
  const run = (entry: string) =>
    spawnSync(process.execPath, [join(checkout, "scripts", "run-bundled.mjs"), entry], { cwd: checkout, encoding: "utf8", timeout: 120_000 });
  const oneLine = (stderr: string) => stderr.split("\n").filter((l) => l.startsWith("run-bundled:"));

  it("runs an entry in that checkout (the setup works)", () => {
    writeFileSync(join(checkout, "ok.ts"), 'console.log("built");\n');
    const out = run(join(checkout, "ok.ts"));
    expect(out.status, out.stderr).toBe(0);
    expect(out.stdout.trim()).toBe("built");
    rmSync(join(checkout, ".bundle"), { recursive: true, force: true });
  });

  it("a build folder that cannot be made stops with one line naming it, not a stack trace", () => {
    writeFileSync(join(checkout, ".bundle"), "a file where the build folder goes\n");
    writeFileSync(join(checkout, "ok.ts"), 'console.log("built");\n');
    const out = run(join(checkout, "ok.ts"));
    rmSync(join(checkout, ".bundle"), { force: true });
    expect(out.status).toBe(1);
    expect(oneLine(out.stderr)).toEqual([expect.stringMatching(/^run-bundled: cannot make the build folder .*\.bundle: EEXIST: /)]);
    expect(out.stderr).not.toMatch(/^\s+at /m);
  });

  it("an entry esbuild cannot bundle stops with esbuild's message and one line of ours, not a stack trace", () => {
    writeFileSync(join(checkout, "broken.ts"), 'import { nothing } from "./missing.ts";\nconsole.log(nothing);\n');
    const out = run(join(checkout, "broken.ts"));
    expect(out.status).toBe(1);
    expect(out.stderr).toMatch(/missing\.ts/);
    expect(oneLine(out.stderr)).toEqual([
      expect.stringMatching(/^run-bundled: esbuild could not bundle .*broken\.ts into .*\.bundle \(its message is above\)$/),
    ]);
    expect(out.stderr).not.toMatch(/^\s+at /m);
  });
});

describe("the arena's pool worker", () => {
  it("is the module beside the arena in each layout: worker.ts under tsx, the arena-worker bundled with the arena by run-bundled", () => {
    expect(poolWorkerEntry("file:///c/scripts/arena/pool.ts").href).toBe("file:///c/scripts/arena/worker.ts");
    expect(poolWorkerEntry("file:///c/.bundle/arena.run-12-34.mjs").href).toBe("file:///c/.bundle/arena-worker.run-12-34.mjs");
    expect(poolWorkerEntry("file:///c/.bundle/arena.mjs").href).toBe("file:///c/.bundle/arena-worker.mjs");
  });
});
