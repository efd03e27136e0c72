/**
 * The repository's code and docs stand alone: no reference to design documents by their private
 * names (the external quality bar file, seed numbers and section marks of the design write-ups)
 * or to paths outside the repository. docs/sources.md names the sources by what they are.
 */
import { execFileSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { repoRoot } from "../scripts/run-script.ts";

const FORBIDDEN: [RegExp, string][] = [
  [/(?<![-\w])quality\.md/, "the external quality bar file (ours is docs/quality-bar.md)"],
  [/\bseeds?[ /_]0\d\d\b/i, "a design write-up by seed number (docs/sources.md names them)"],
  [/§\s*\d/, "a section mark of an outside document"],
  [/\bdef-game\b/, "a framework by package name (docs/sources.md describes it)"],
  [/\/work\/|\/home\/\w|(?<![\w.])shared\/(rules|seeds|design)\//, "a path outside the repository"],
];

function trackedTextFiles(): string[] {
  const out = execFileSync("git", ["ls-files", "-co", "--exclude-standard"], { cwd: repoRoot, encoding: "utf8" });
  return out
    .split("\n")
    .filter((f) => /\.(ts|js|mjs|md|py|sh|json|toml|txt|ya?ml)$/.test(f))
    .filter((f) => !f.startsWith("test/golden/") && !f.startsWith("node_modules/") && f !== "package-lock.json" && f !== "test/docs/self-contained.test.ts");
}

describe("code and docs are self-contained", () => {
  it("name no outside document or path", () => {
    const found: string[] = [];
    for (const file of trackedTextFiles()) {
      let text: string;
      try {
        text = readFileSync(`${repoRoot}/${file}`, "utf8");
      } catch {
        continue; // listed but deleted in the work tree
      }
      text.split("\n").forEach((line, i) => {
        for (const [re, what] of FORBIDDEN) if (re.test(line)) found.push(`${file}:${i + 1}: ${what}: ${line.trim().slice(0, 120)}`);
      });
    }
    expect(found).toEqual([]);
  });
});
