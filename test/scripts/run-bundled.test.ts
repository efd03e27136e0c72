import { spawnSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
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

describe("the arena's pool worker", () => {
  it("is the module beside the arena in each layout: worker.ts under tsx, the arena-worker bundled with the arena by run-bundled", () => {
    expect(poolWorkerEntry("file:///c/scripts/arena/pool.ts").href).toBe("file:///c/scripts/arena/worker.ts");
    expect(poolWorkerEntry("file:///c/.bundle/arena.run-12-34.mjs").href).toBe("file:///c/.bundle/arena-worker.run-12-34.mjs");
    expect(poolWorkerEntry("file:///c/.bundle/arena.mjs").href).toBe("file:///c/.bundle/arena-worker.mjs");
  });
});
