// @ts-check
/**
 * Lint for TypeScript (npm run lint, part of npm test). typescript-eslint's recommended rules,
 * the layering rule (scripts/lint/layers.js) and engine purity: no clock, no global randomness, no
 * process, no module-level mutable state in engine/ (scripts/check-engine-purity.ts runs just these).
 */
import js from "@eslint/js";
import globals from "globals";
import tseslint from "typescript-eslint";
import { HOT_LOOP_FILES, NON_NULL_CHECKED } from "./scripts/lint/hot-loops.js";
import cardgym, { purityRules } from "./scripts/lint/layers.js";

const root = import.meta.dirname;
/** The extensions of source files, as a glob part. */
const SOURCE = "{ts,mts,cts,tsx,js,mjs,cjs}";

export default tseslint.config(
  { ignores: ["node_modules/", "python/", "**/.venv/", "arena-out/", "out/", "tmp/", "models/runs/", "**/dist/", "build/", ".bundle/"] },
  js.configs.recommended,
  ...tseslint.configs.recommended,
  {
    plugins: { cardgym },
    languageOptions: { ecmaVersion: 2022, sourceType: "module" },
    rules: {
      "cardgym/layers": ["error", { root }],
      // The codebase's own conventions, where the recommended set disagrees with them:
      "@typescript-eslint/no-explicit-any": "off", // adapters and codecs are generic over any game
      "@typescript-eslint/no-unused-vars": ["error", { argsIgnorePattern: "^_", varsIgnorePattern: "^_", caughtErrors: "none" }],
      "no-constant-condition": ["error", { checkLoops: false }],
    },
  },
  // In the source folders no comment switches a rule off (`eslint-disable...` is ignored there, and
  // the rule still reports): the bounds below hold without exceptions (docs/quality-bar.md).
  { files: ["engine", "agents", "env", "web/src"].map((d) => `${d}/**/*.${SOURCE}`), linterOptions: { noInlineConfig: true } },
  // Plain JavaScript (examples, this config) runs on Node: its globals exist.
  { files: ["**/*.{js,mjs,cjs}"], languageOptions: { globals: globals.node } },
  { files: ["engine/**"], rules: purityRules(root) },
  // Generic agents import no game (scripts/lint/generic-agents.js).
  { files: ["agents/**"], rules: { "cardgym/generic-agents": ["error", { root }] } },
  // env/live reaches env/server only through env/live/ports.ts (scripts/lint/ports.js).
  { files: ["env/live/**"], rules: { "cardgym/ports": ["error", { root }] } },
  // Size bounds (docs/quality-bar.md): no function over 120 lines outside tests and scripts, and no
  // file in env/ over 400 lines, so each piece of the serving layer reads in one sitting. Every
  // source extension counts, and so does a function called where it is written (an IIFE), which
  // the rule skips unless told.
  {
    files: ["engine", "agents", "env", "web/src"].map((d) => `${d}/**/*.${SOURCE}`),
    rules: { "max-lines-per-function": ["error", { max: 120, IIFEs: true }] },
  },
  { files: [`env/**/*.${SOURCE}`], rules: { "max-lines": ["error", { max: 400 }] } },
  // No non-null assertion `!` in source files but the measured hot-loop files (scripts/lint/hot-loops.js,
  // docs/quality-bar.md): a value that may be missing gets a check that says what was missing.
  { files: NON_NULL_CHECKED, rules: { "@typescript-eslint/no-non-null-assertion": "error" } },
  { files: HOT_LOOP_FILES, rules: { "@typescript-eslint/no-non-null-assertion": "off" } },
  // Tests re-throw with the step or seed in the message; the original error adds nothing there.
  { files: ["test/**"], rules: { "preserve-caught-error": "off" } },
);
