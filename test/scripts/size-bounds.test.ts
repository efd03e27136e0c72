import { ESLint } from "eslint";
import { describe, expect, it } from "vitest";
import { repoRoot } from "./run-script.ts";

const root = repoRoot.replace(/\/$/, "");

/** A function of `lines` lines (its header and closing brace included). */
function fn(lines: number): string {
  const body = Array.from({ length: lines - 4 }, (_, i) => `  total += ${i};`);
  return ["export function long(): number {", "  let total = 0;", ...body, "  return total;", "}", ""].join("\n");
}

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

  it("refuse a file over 400 lines in env/ only", async () => {
    const text = Array.from({ length: 401 }, (_, i) => `export const c${i} = ${i};`).join("\n") + "\n";
    expect(await rulesHit("env/server/planted.ts", text)).toContain("max-lines");
    expect(await rulesHit("agents/planted.ts", text)).not.toContain("max-lines");
  });
});
