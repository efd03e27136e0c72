import { ESLint } from "eslint";
import { describe, expect, it } from "vitest";
import { repoRoot } from "./run-script.ts";

const root = repoRoot.replace(/\/$/, "");

/** Statements that fill a function of `lines` lines whose header and closing brace take a line each. */
const fill = (lines: number) => ["  let total = 0;", ...Array.from({ length: lines - 4 }, (_, i) => `  total += ${i};`), "  return total;"];

/** A function of `lines` lines (its header and closing brace included). */
function fn(lines: number): string {
  return ["export function long(): number {", ...fill(lines), "}", ""].join("\n");
}

/** The other shapes of a function of `lines` lines: an arrow, a method, and functions called where they are written. */
const shapes = (lines: number): Record<string, string> => ({
  arrow: ["export const long = (): number => {", ...fill(lines), "};", ""].join("\n"),
  method: ["export class Long {", "run(): number {", ...fill(lines), "}", "}", ""].join("\n"),
  "arrow IIFE": ["export const long = ((): number => {", ...fill(lines), "})();", ""].join("\n"),
  "function IIFE": ["export const long = (function (): number {", ...fill(lines), "})();", ""].join("\n"),
});

async function rulesHit(path: string, text: string): Promise<string[]> {
  const eslint = new ESLint({ cwd: root });
  const [result] = await eslint.lintText(text, { filePath: `${root}/${path}` });
  return (result?.messages ?? []).map((m) => m.ruleId ?? "").filter((r) => r.startsWith("max-lines"));
}

describe("size bounds of the project's ESLint config (docs/quality-bar.md)", () => {
  it("refuse a function over 120 lines in engine/, agents/, env/ and web/, but not in scripts/ or test/", async () => {
    for (const path of ["engine/dcg/planted.ts", "agents/planted.ts", "env/live/planted.ts", "web/src/planted.ts"]) {
      expect(await rulesHit(path, fn(121)), path).toContain("max-lines-per-function");
      expect(await rulesHit(path, fn(120)), path).not.toContain("max-lines-per-function");
    }
    expect(await rulesHit("scripts/planted.ts", fn(200))).toEqual([]);
  });

  it("count every shape of function (arrows, methods, IIFEs) and every source extension", async () => {
    for (const [shape, text] of Object.entries(shapes(121))) {
      expect(await rulesHit("env/live/planted.ts", text), shape).toContain("max-lines-per-function");
      expect(await rulesHit("env/live/planted.ts", shapes(120)[shape]!), shape).not.toContain("max-lines-per-function");
    }
    const plain = fn(121).replace("(): number", "()");
    for (const path of ["engine/dcg/planted.js", "agents/planted.mjs", "env/server/planted.mts", "web/src/planted.js"]) {
      expect(await rulesHit(path, plain), path).toContain("max-lines-per-function");
    }
    const text = Array.from({ length: 401 }, (_, i) => `export const c${i} = ${i};`).join("\n") + "\n";
    expect(await rulesHit("env/server/planted.js", text)).toContain("max-lines");
  });

  it("hold in the source folders whatever a comment says: eslint-disable switches none of the project's rules off there", async () => {
    const hits = async (path: string, text: string) => {
      const [result] = await new ESLint({ cwd: root }).lintText(text, { filePath: `${root}/${path}` });
      return (result?.messages ?? []).map((m) => m.ruleId ?? "");
    };
    expect(await rulesHit("env/live/planted.ts", `/* eslint-disable */\n${fn(121)}`)).toContain("max-lines-per-function");
    expect(await rulesHit("agents/planted.ts", `/* eslint-disable max-lines-per-function */\n${fn(121)}`)).toContain("max-lines-per-function");
    expect(await hits("engine/dcg/planted.ts", "// eslint-disable-next-line cardgym/no-module-state\nexport let last = 0;\n")).toContain(
      "cardgym/no-module-state",
    );
    expect(await hits("env/live/planted.ts", '// eslint-disable-next-line cardgym/ports\nexport { x } from "../server/app.ts";\n')).toContain("cardgym/ports");
    const nonNull = "export const first = (xs: readonly number[]): number => xs[0]!; // eslint-disable-line @typescript-eslint/no-non-null-assertion\n";
    expect(await hits("web/src/planted.ts", nonNull)).toContain("@typescript-eslint/no-non-null-assertion");
    // Scripts and tests may still say where a rule does not apply.
    expect(await rulesHit("scripts/planted.ts", `/* eslint-disable */\n${fn(200)}`)).toEqual([]);
  });

  it("refuse a file over 400 lines in env/ only", async () => {
    const text = Array.from({ length: 401 }, (_, i) => `export const c${i} = ${i};`).join("\n") + "\n";
    expect(await rulesHit("env/server/planted.ts", text)).toContain("max-lines");
    expect(await rulesHit("agents/planted.ts", text)).not.toContain("max-lines");
  });
});
