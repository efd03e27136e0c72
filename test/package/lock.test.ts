import { copyFileSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import semver from "semver";
import { afterAll, describe, expect, it } from "vitest";
import { repoRoot } from "../scripts/run-script.ts";
import { run } from "./run.ts";

interface LockEntry {
  readonly engines?: { readonly node?: string } | readonly string[];
}

const pkg = JSON.parse(readFileSync(join(repoRoot, "package.json"), "utf8")) as { engines: { node: string } };
const lock = JSON.parse(readFileSync(join(repoRoot, "package-lock.json"), "utf8")) as { packages: Record<string, LockEntry> };

// Setup must leave a fresh clone clean: `npm install` may not rewrite package-lock.json or warn.
describe("the committed lock", () => {
  const dir = mkdtempSync(join(tmpdir(), "cardgym-lock-"));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it("is what npm install on a fresh clone writes, with no EBADENGINE warning", () => {
    // The files npm reads, in a folder of their own. An empty user config: the project's .npmrc
    // alone must give the same lock, whatever the person who clones has set for themselves.
    for (const f of ["package.json", "package-lock.json", ".npmrc"]) copyFileSync(join(repoRoot, f), join(dir, f));
    writeFileSync(join(dir, "user.npmrc"), "");
    const env = { ...process.env, npm_config_userconfig: join(dir, "user.npmrc"), npm_config_update_notifier: "false" };
    const out = run("npm", ["install", "--package-lock-only", "--no-audit", "--no-fund", "--loglevel=warn"], { cwd: dir, env, withStderr: true });
    expect(out).not.toMatch(/EBADENGINE/);
    expect(readFileSync(join(dir, "package-lock.json"), "utf8")).toBe(readFileSync(join(repoRoot, "package-lock.json"), "utf8"));
  });

  it("holds only packages that run on every Node version package.json's engines admits", () => {
    const ours = pkg.engines.node;
    const narrower = Object.entries(lock.packages).flatMap(([path, entry]) => {
      const node = Array.isArray(entry.engines) ? undefined : (entry.engines as { node?: string } | undefined)?.node;
      return node !== undefined && !semver.subset(ours, node) ? [`${path} wants node ${node}`] : [];
    });
    expect(narrower, `engines.node is "${ours}"`).toEqual([]);
    // And the Node running the tests is one of them.
    expect(semver.satisfies(process.version, ours)).toBe(true);
  });
});
