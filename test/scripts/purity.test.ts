import { describe, expect, it } from "vitest";
import { layerProblems, layerProblemsOf } from "../../scripts/purity.ts";
import { repoRoot } from "./run-script.ts";

const root = repoRoot.replace(/\/$/, "");

describe("layering and engine purity (the lint rules of scripts/lint/layers.js)", () => {
  it("pass on the real tree", async () => {
    const out = await layerProblems(root);
    expect(out.problems).toEqual([]);
    expect(out.files).toBeGreaterThan(100);
  });

  it("flag node modules, packages, outward imports, the clock and Math.random in engine/, but not comments", async () => {
    const text = [
      'import { readFileSync } from "node:fs";',
      'import { a } from "../../agents/random.ts";',
      'import path from "path";',
      "const r = Math.random();",
      "const t = Date.now() + performance.now();",
      "// Math.random and Date are mentioned in a comment only",
      'import { ok } from "../core/errors.ts";',
      'import { Ajv } from "ajv";',
      "const env = process.env;",
      'const later = import("../../env/index.ts");',
      "export { readFileSync, a, path, r, t, ok, Ajv, env, later };",
    ].join("\n");
    const problems = (await layerProblemsOf(root, "engine/x/bad.ts", text)).join("\n");
    expect(problems).toMatch(/bad\.ts:1: engine\/ is pure: it may not import the package or Node module "node:fs"/);
    expect(problems).toMatch(/bad\.ts:2: engine\/ may not import from agents\//);
    expect(problems).toMatch(/bad\.ts:3: .*"path"/);
    expect(problems).toMatch(/bad\.ts:4: .*Math\.random/);
    expect(problems).toMatch(/bad\.ts:5: .*Date.*no clock/);
    expect(problems).toMatch(/bad\.ts:5: .*performance.*no clock/);
    expect(problems).toMatch(/bad\.ts:8: .*"ajv"/);
    expect(problems).toMatch(/bad\.ts:9: .*process/);
    expect(problems).toMatch(/bad\.ts:10: engine\/ may not import from env\//);
    expect(problems).not.toMatch(/bad\.ts:(6|7):/);
  });

  it("let engine/ import TypeBox (its schema library, pure JS) and no other package", async () => {
    const text = [
      'import Type from "typebox";',
      'import Value from "typebox/value";',
      'import { z } from "zod";',
      'import x from "typebox-extra";',
      "export { Type, Value, z, x };",
    ].join("\n");
    const problems = (await layerProblemsOf(root, "engine/x/schema.ts", text)).join("\n");
    expect(problems).not.toMatch(/schema\.ts:(1|2):/);
    expect(problems).toMatch(/schema\.ts:3: .*"zod"/);
    expect(problems).toMatch(/schema\.ts:4: .*"typebox-extra"/);
  });

  it("hold the whole layering: agents <- env <- scripts, and only test/ imports test/", async () => {
    const at = async (path: string, spec: string) => (await layerProblemsOf(root, path, `import { x } from "${spec}";\nexport { x };`)).join("\n");
    expect(await at("agents/a.ts", "../env/index.ts")).toMatch(/agents\/ may not import from env\//);
    expect(await at("agents/onnx/a.ts", "../../scripts/cli.ts")).toMatch(/agents\/ may not import from scripts\//);
    expect(await at("env/server/a.ts", "../../scripts/cli.ts")).toMatch(/env\/ may not import from scripts\//);
    expect(await at("scripts/a.ts", "../test/conformance/harness.ts")).toMatch(/only test\/ may import from test\//);
    expect(await at("env/a.ts", "../test/x.ts")).toMatch(/only test\/ may import from test\//);
    // Downward and sideways imports, packages outside engine/, and test/ importing anything pass.
    expect(await at("scripts/a.ts", "../env/index.ts")).toBe("");
    expect(await at("env/a.ts", "../agents/spec.ts")).toBe("");
    expect(await at("agents/a.ts", "../engine/games.ts")).toBe("");
    expect(await at("agents/a.ts", "onnxruntime-node")).toBe("");
    expect(await at("test/a.ts", "../scripts/cli.ts")).toBe("");
    expect(await at("test/a.ts", "./helper.ts")).toBe("");
  });
});
