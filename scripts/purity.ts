/**
 * The layering and engine-purity rules of eslint.config.js on their own (npm run check:purity, and
 * the test that proves they bite): imports point engine <- agents <- env <- scripts, nothing but
 * test/ imports test/, and engine/ imports no package or Node module and uses no clock, global
 * randomness or process and keeps no module-level mutable state, and generic agents/ files import
 * no game (scripts/lint/generic-agents.js), and env/live reaches env/server only through its port
 * (scripts/lint/ports.js). `npm run lint` applies the same
 * rules with everything else.
 */
import { ESLint } from "eslint";
import tseslint from "typescript-eslint";
import cardgym, { purityRules } from "./lint/layers.js";

const LAYER_DIRS = ["engine", "agents", "env", "scripts"];

function linter(root: string): ESLint {
  return new ESLint({
    cwd: root,
    overrideConfigFile: true,
    overrideConfig: [
      {
        files: ["**/*.ts", "**/*.js"],
        languageOptions: { parser: tseslint.parser, sourceType: "module" },
        // typescript-eslint's rules are loaded (not enabled) so that disable comments naming them resolve.
        plugins: { cardgym, "@typescript-eslint": tseslint.plugin },
        linterOptions: { reportUnusedDisableDirectives: "off" },
        rules: { "cardgym/layers": ["error", { root }] },
      },
      // As in eslint.config.js: no comment switches these rules off in the source folders.
      { files: ["engine/**", "agents/**", "env/**"], linterOptions: { noInlineConfig: true } },
      { files: ["engine/**"], rules: purityRules(root) },
      { files: ["agents/**"], rules: { "cardgym/generic-agents": ["error", { root }] } },
      { files: ["env/live/**"], rules: { "cardgym/ports": ["error", { root }] } },
    ],
  });
}

function describe(root: string, results: ESLint.LintResult[]): string[] {
  return results.flatMap((r) => r.messages.map((m) => `${r.filePath.slice(root.length + 1)}:${m.line}: ${m.message}`));
}

/** Every layering or purity problem under root's layer folders, as "path:line: what". */
export async function layerProblems(root: string): Promise<{ files: number; problems: string[] }> {
  const results = await linter(root).lintFiles(LAYER_DIRS.map((d) => `${d}/**/*.ts`));
  return { files: results.length, problems: describe(root, results) };
}

/** The same check on one file's text, as if it lived at `path` (relative to root). */
export async function layerProblemsOf(root: string, path: string, text: string): Promise<string[]> {
  return describe(root, await linter(root).lintText(text, { filePath: `${root}/${path}` }));
}
