import { readFileSync } from "node:fs";
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

  it("flag module-level mutable state in engine/: let, var, containers made with new, writes through top-level bindings", async () => {
    const text = [
      "let last: object | null = null;",
      "var hits = 0;",
      "const memo = new WeakMap<object, number>();",
      "const scratch = new Uint8Array(35);",
      "const table = new Array(8).fill(null);",
      "const seen: ReadonlySet<string> = new Set(['a']);",
      "const LIMITS = { depth: 3 };",
      "const ORDER = [1, 2, 3] as const;",
      "export function f(x: object): number {",
      "  last = x;",
      "  LIMITS.depth = 4;",
      "  (table as unknown[]).push(x);",
      "  delete (LIMITS as { depth?: number }).depth;",
      "  Object.assign(LIMITS, { depth: 5 });",
      "  let local = 0;",
      "  const own = new Map<string, number>();",
      "  own.set('a', 1);",
      "  local++;",
      "  return local + LIMITS.depth + ORDER[0] + (seen.has('a') ? 1 : 0) + (memo.get(x) ?? 0) + scratch[0]! + hits;",
      "}",
    ].join("\n");
    const problems = (await layerProblemsOf(root, "engine/x/state.ts", text)).join("\n");
    expect(problems).toMatch(/state\.ts:1: .*top-level `let last`/);
    expect(problems).toMatch(/state\.ts:2: .*top-level `var hits`/);
    expect(problems).toMatch(/state\.ts:3: .*`memo` is made with `new`/);
    expect(problems).toMatch(/state\.ts:4: .*`scratch` is made with `new`/);
    expect(problems).toMatch(/state\.ts:5: .*`table` is made with `new`/);
    expect(problems).toMatch(/state\.ts:11: .*an assignment writes to top-level `LIMITS`/);
    expect(problems).toMatch(/state\.ts:12: .*\.push\(\) writes to top-level `table`/);
    expect(problems).toMatch(/state\.ts:13: .*delete writes to top-level `LIMITS`/);
    expect(problems).toMatch(/state\.ts:14: .*Object\.assign writes to top-level `LIMITS`/);
    // A ReadonlySet (tsc refuses writes), frozen-by-type literals that are only read, and state
    // local to a function pass; so does the same text outside engine/.
    expect(problems).not.toMatch(/state\.ts:(6|7|8|10|15|16|17|18|19):/);
    expect(await layerProblemsOf(root, "agents/state.ts", text)).toEqual([]);
  });

  it("flag a class's static fields and writes through a function's or class's name in engine/", async () => {
    const text = [
      "export class Memo {",
      "  static cache = new Map<string, number>();",
      "  static hits = 0;",
      "  static readonly made = new Set<string>();",
      "  static readonly seen: ReadonlySet<string> = new Set(['a']);",
      "  static readonly LIMIT = 3;",
      "  static readonly ORDER = [1, 2] as const;",
      "  static look(k: string): number {",
      "    return (Memo.cache.get(k) ?? Memo.LIMIT) + Memo.ORDER[0] + (Memo.seen.has(k) ? 1 : 0);",
      "  }",
      "}",
      "export function f(k: string): number {",
      "  (f as unknown as { last: string }).last = k;",
      "  return k.length;",
      "}",
    ].join("\n");
    const problems = (await layerProblemsOf(root, "engine/x/statics.ts", text)).join("\n");
    expect(problems).toMatch(/statics\.ts:2: .*static field `cache`/);
    expect(problems).toMatch(/statics\.ts:3: .*static field `hits`/);
    expect(problems).toMatch(/statics\.ts:4: .*static field `made`/);
    expect(problems).toMatch(/statics\.ts:13: .*an assignment writes to top-level `f`/);
    // Readonly statics that tsc keeps from being written, and reads, pass.
    expect(problems).not.toMatch(/statics\.ts:(5|6|7|8|9):/);
    expect(await layerProblemsOf(root, "agents/statics.ts", text)).toEqual([]);
  });

  it("take no comment as an exception: eslint-disable before a violation in engine/ or env/live changes nothing", async () => {
    const state = (await layerProblemsOf(root, "engine/x/state.ts", "/* eslint-disable */\nexport let last = 0;\n")).join("\n");
    expect(state).toMatch(/state\.ts:2: .*top-level `let last`/);
    const port = await layerProblemsOf(root, "env/live/a.ts", '// eslint-disable-next-line cardgym/ports\nexport { x } from "../server/app.ts";\n');
    expect(port.join("\n")).toMatch(/a\.ts:2: .*may not import env\/server\/app\.ts/);
  });

  it("flag what makes a state depend on the machine or the garbage collector: locale-aware methods, Intl, WeakRef, timers, globals", async () => {
    const text = [
      "export const order = (xs: string[]): string[] => [...xs].sort((a, b) => a.localeCompare(b));",
      "export const label = (n: number): string => n.toLocaleString();",
      "export const upper = (s: string): string => s.toLocaleUpperCase();",
      "export const fmt = new Intl.NumberFormat('en').format(3);",
      "export const ref = (o: object) => new WeakRef(o);",
      "export const reg = new FinalizationRegistry(() => undefined);",
      "export const later = (f: () => void) => { setImmediate(f); queueMicrotask(f); };",
      "export const g = (global as unknown as { x: number }).x;",
      "export const plain = ['b', 'a'].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));",
    ].join("\n");
    const problems = (await layerProblemsOf(root, "engine/x/machine.ts", text)).join("\n");
    expect(problems).toMatch(/machine\.ts:1: .*locale: localeCompare/);
    expect(problems).toMatch(/machine\.ts:2: .*locale: toLocaleString/);
    expect(problems).toMatch(/machine\.ts:3: .*locale: toLocaleUpperCase/);
    expect(problems).toMatch(/machine\.ts:4: .*locale or ICU data/);
    expect(problems).toMatch(/machine\.ts:5: .*garbage collector/);
    expect(problems).toMatch(/machine\.ts:6: .*garbage collector/);
    expect(problems).toMatch(/machine\.ts:7: .*setImmediate.*no clock|machine\.ts:7: .*no clock/);
    expect(problems.match(/machine\.ts:7: /g)?.length).toBe(2);
    expect(problems).toMatch(/machine\.ts:8: .*reaches no globals/);
    expect(problems).not.toMatch(/machine\.ts:9: /);
    expect(await layerProblemsOf(root, "agents/machine.ts", text)).toEqual([]);
  });

  it("flag draft.ts's old module-level memo, planted back into the real file", async () => {
    const path = "engine/dcg/draft.ts";
    const real = readFileSync(`${root}/${path}`, "utf8");
    expect(await layerProblemsOf(root, path, real)).toEqual([]);
    const planted = `${real}\nlet lastResult: BattleData | null = null;\nexport function remember(s: BattleData): void {\n  lastResult = s;\n}\n`;
    expect((await layerProblemsOf(root, path, planted)).join("\n")).toMatch(/draft\.ts:\d+: .*top-level `let lastResult`/);
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

  it("keep generic agents game-agnostic: only a file named for a game imports that game", async () => {
    const at = async (path: string, spec: string) => (await layerProblemsOf(root, path, `import { x } from "${spec}";\nexport { x };`)).join("\n");
    expect(await at("agents/tutorial.ts", "../engine/dcg/board.ts")).toMatch(/agents\/ is game-agnostic: agents\/tutorial\.ts may not import engine\/dcg\//);
    expect(await at("agents/evaluators/rollout.ts", "../../engine/shephy/index.ts")).toMatch(/may not import engine\/shephy\//);
    expect(await at("agents/onnx/a.ts", "../../engine/sevens/state.ts")).toMatch(/may not import engine\/sevens\//);
    // A file of another game is no better placed than a generic one.
    expect(await at("agents/evaluators/shephy-plan.ts", "../../engine/dcg/board.ts")).toMatch(/may not import engine\/dcg\//);
    // The game's own files, the Game contract and the registry of all games pass.
    expect(await at("agents/evaluators/dcg-tutorial.ts", "../../engine/dcg/board.ts")).toBe("");
    expect(await at("agents/evaluators/dcg.ts", "../../engine/dcg/index.ts")).toBe("");
    expect(await at("agents/dcg/helper.ts", "../../engine/dcg/index.ts")).toBe("");
    expect(await at("agents/tutorial.ts", "../engine/core/index.ts")).toBe("");
    expect(await at("agents/a.ts", "../engine/games.ts")).toBe("");
    // What the real files import passes as it is (the whole tree's run is the first test).
    const tutorial = readFileSync(`${root}/agents/tutorial.ts`, "utf8");
    expect(await layerProblemsOf(root, "agents/tutorial.ts", tutorial)).toEqual([]);
  });
  it("keep env/live off env/server but for its declared port (env/live/ports.ts): a planted import of a server file is flagged", async () => {
    const at = async (path: string, text: string) => (await layerProblemsOf(root, path, text)).join("\n");
    const importOf = (spec: string) => `import { x } from "${spec}";\nexport { x };`;
    const refusal = (file: string, target: string) =>
      new RegExp(`env/live/ reaches env/server/ only through its port env/live/ports\\.ts, which env/server/ implements: ${file} may not import ${target}`);
    expect(await at("env/live/a.ts", importOf("../server/api-error.ts"))).toMatch(refusal("env/live/a\\.ts", "env/server/api-error\\.ts"));
    expect(await at("env/live/deep/a.ts", importOf("../../server/plugins/errors.ts"))).toMatch(
      refusal("env/live/deep/a\\.ts", "env/server/plugins/errors\\.ts"),
    );
    expect(await at("env/live/a.ts", 'export { x } from "../server/jobs.ts";')).toMatch(/may not import env\/server\/jobs\.ts/);
    expect(await at("env/live/a.ts", 'export const later = import("../server/app.ts");')).toMatch(/may not import env\/server\/app\.ts/);
    // The port, live's own files, the rest of env/, and the server importing live pass.
    expect(await at("env/live/a.ts", importOf("./ports.ts"))).toBe("");
    expect(await at("env/live/a.ts", importOf("../errors.ts"))).toBe("");
    expect(await at("env/server/a.ts", importOf("../live/ports.ts"))).toBe("");
    expect(await at("env/server/a.ts", importOf("../live/store.ts"))).toBe("");
    // The real table routes pass as they are, and fail with a server import planted back in.
    const path = "env/live/routes.ts";
    const real = readFileSync(`${root}/${path}`, "utf8");
    expect(await layerProblemsOf(root, path, real)).toEqual([]);
    const planted = `${real}\nimport { ApiError } from "../server/api-error.ts";\nexport { ApiError };\n`;
    expect((await layerProblemsOf(root, path, planted)).join("\n")).toMatch(/routes\.ts:\d+: env\/live\/ reaches env\/server\/ only through its port/);
  });

  it("see TypeScript's own ways of naming a module: a type import(...) and import = require(...) are held to the same rules", async () => {
    const at = async (path: string, text: string) => (await layerProblemsOf(root, path, text)).join("\n");
    const typeOf = (spec: string) => `export type T = import("${spec}").X;\n`;
    expect(await at("env/live/a.ts", typeOf("../server/runtime.ts"))).toMatch(/env\/live\/a\.ts may not import env\/server\/runtime\.ts/);
    expect(await at("env/live/a.ts", 'import x = require("../server/app.ts");\nexport { x };\n')).toMatch(/may not import env\/server\/app\.ts/);
    expect(await at("engine/dcg/a.ts", typeOf("../../env/index.ts"))).toMatch(/engine\/ may not import from env\//);
    expect(await at("agents/a.ts", typeOf("../engine/dcg/board.ts"))).toMatch(/agents\/ is game-agnostic: agents\/a\.ts may not import engine\/dcg\//);
    // The same forms pass where an import would.
    expect(await at("env/live/a.ts", typeOf("./ports.ts"))).toBe("");
    expect(await at("agents/a.ts", typeOf("../engine/core/index.ts"))).toBe("");
  });
});
