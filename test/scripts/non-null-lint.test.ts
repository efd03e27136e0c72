import { readFileSync } from "node:fs";
import { ESLint } from "eslint";
import { describe, expect, it } from "vitest";
import { HOT_LOOP_FILES } from "../../scripts/lint/hot-loops.js";
import { repoRoot } from "./run-script.ts";

const root = repoRoot.replace(/\/$/, "");
const RULE = "@typescript-eslint/no-non-null-assertion";
const PLANTED = "export const first = (xs: readonly number[]): number => xs[0]!;\n";

async function nonNullHits(path: string, text = PLANTED): Promise<number> {
  const [result] = await new ESLint({ cwd: root }).lintText(text, { filePath: `${root}/${path}` });
  return (result?.messages ?? []).filter((m) => m.ruleId === RULE).length;
}

/** The hot-loop files docs/quality-bar.md lists under "Non-null assertions" (a bullet that is just "- `path`" each). */
function documentedHotLoops(): string[] {
  const text = readFileSync(`${root}/docs/quality-bar.md`, "utf8");
  const section = text.split(/^### Non-null assertions$/m)[1]?.split(/^#/m)[0] ?? "";
  return [...section.matchAll(/^- `([^`]+)`$/gm)].map((m) => m[1] ?? "");
}

describe("the non-null assertion rule of the project's ESLint config (docs/quality-bar.md)", () => {
  it("refuses a planted `!` in source files that are not on the hot-loop list, in every source folder", async () => {
    for (const path of [
      "engine/shephy/legal.ts",
      "engine/dcg/planted.ts",
      "engine/core/planted.ts",
      "env/live/planted.ts",
      "agents/evaluators/shephy-plan.ts",
      "agents/arena/planted.ts",
      "agents/planted.ts",
      "web/src/planted.ts",
      "env/server/planted.mts",
      "agents/planted.cts",
    ])
      expect(await nonNullHits(path), path).toBe(1);
  });

  it("lets the listed hot-loop files, tests and scripts keep theirs", async () => {
    for (const path of ["engine/dcg/resolve.ts", "engine/sevens/board.ts", "agents/mcts.ts", "test/planted.test.ts", "scripts/planted.ts"]) {
      expect(await nonNullHits(path), path).toBe(0);
    }
  });

  it("exempts exactly the files docs/quality-bar.md lists, each of which exists", async () => {
    expect(documentedHotLoops().sort()).toEqual([...HOT_LOOP_FILES].sort());
    const listed = await new ESLint({ cwd: root }).lintFiles([...HOT_LOOP_FILES]);
    for (const pattern of HOT_LOOP_FILES) {
      const re = new RegExp(`^${pattern.replaceAll(".", "\\.").replaceAll("*", "[^/]*")}$`);
      expect(
        listed.some((r) => re.test(r.filePath.slice(root.length + 1))),
        pattern,
      ).toBe(true);
    }
  });
});
