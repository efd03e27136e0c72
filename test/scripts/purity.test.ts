import { mkdirSync, mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { engineImpurities } from "../../scripts/purity.ts";
import { repoRoot } from "./run-script.ts";

describe("engine purity check", () => {
  it("passes on the real engine", () => {
    const out = engineImpurities(repoRoot);
    expect(out.problems).toEqual([]);
    expect(out.files).toBeGreaterThan(5);
  });

  it("flags node modules, outward imports, the clock and Math.random, but not comments", () => {
    const root = mkdtempSync(join(tmpdir(), "purity-"));
    mkdirSync(join(root, "engine", "x"), { recursive: true });
    writeFileSync(
      join(root, "engine", "x", "bad.ts"),
      [
        'import { readFileSync } from "node:fs";',
        'import { a } from "../../agents/random.ts";',
        'import path from "path";',
        "const r = Math.random();",
        "const t = Date.now() + performance.now();",
        "// Math.random is mentioned in a comment only",
        'import { ok } from "../core/errors.ts";',
      ].join("\n"),
    );
    const { problems } = engineImpurities(root);
    expect(problems.join("\n")).toMatch(/bad\.ts:1: imports the Node module "node:fs"/);
    expect(problems.join("\n")).toMatch(/bad\.ts:2: imports "..\/..\/agents\/random.ts" from outside engine/);
    expect(problems.join("\n")).toMatch(/bad\.ts:3: imports the Node module "path"/);
    expect(problems.join("\n")).toMatch(/bad\.ts:4: uses Math\.random/);
    expect(problems.join("\n")).toMatch(/bad\.ts:5: uses Date/);
    expect(problems.join("\n")).toMatch(/bad\.ts:5: uses performance/);
    expect(problems.some((p) => p.includes("bad.ts:6") || p.includes("bad.ts:7"))).toBe(false);
  });
});
