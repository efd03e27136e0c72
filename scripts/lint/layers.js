// @ts-check
/**
 * ESLint rules that keep the repository's layering (docs/docs/quality-bar.md): imports point
 * engine <- agents <- env <- scripts only, test/ may import anything and nothing imports test/,
 * and engine/ is pure (no packages but TypeBox, no Node modules; its clock and randomness rules are core
 * ESLint rules in eslint.config.js). Imports are resolved against the importing file, so
 * `../../env/x.ts` is judged by where it lands, not by how it is spelled.
 */
import { builtinModules } from "node:module";
import { dirname, relative, resolve, sep } from "node:path";

/** Rank of each layer: a file may import from its own rank or lower. */
export const LAYERS = { engine: 0, agents: 1, env: 2, scripts: 3 };
const builtins = new Set(builtinModules);

/**
 * The one package engine/ may import: TypeBox (`typebox`, `typebox/value`, ...), in which the
 * engine's card and config schemas are written (one definition gives the TS type, the published
 * JSON Schema and the loader's check). It is pure JavaScript with no dependencies: no I/O, no
 * clock, no randomness, nothing a replay could depend on beyond (seed, decisions).
 * @param {string} spec
 */
export const enginePackageAllowed = (spec) => spec === "typebox" || spec.startsWith("typebox/");

/** The top-level folder of an absolute path inside root ("" outside it). */
function topFolder(root, file) {
  const rel = relative(root, file);
  if (rel.startsWith("..") || rel === "") return "";
  return rel.split(sep)[0] ?? "";
}

/** @type {import("eslint").Rule.RuleModule} */
const layers = {
  meta: {
    type: "problem",
    docs: { description: "imports point engine <- agents <- env <- scripts; engine imports only engine" },
    schema: [{ type: "object", properties: { root: { type: "string" } }, additionalProperties: false }],
    messages: {
      upward: "{{from}}/ may not import from {{to}}/ (layers: engine <- agents <- env <- scripts)",
      test: "only test/ may import from test/",
      enginePackage: 'engine/ is pure: it may not import the package or Node module "{{spec}}"',
    },
  },
  create(context) {
    const root = context.options[0]?.root ?? context.cwd;
    const file = context.filename;
    const from = topFolder(root, file);
    if (from === "test" || from === "") return {};
    /** @param {import("estree").Node | null | undefined} source */
    const check = (source) => {
      if (!source || source.type !== "Literal" || typeof source.value !== "string") return;
      const spec = source.value;
      if (!spec.startsWith(".") && !spec.startsWith("/")) {
        if (from === "engine") {
          if (!enginePackageAllowed(spec)) context.report({ node: source, messageId: "enginePackage", data: { spec } });
        } else if (spec.startsWith("node:") || builtins.has(spec)) return;
        return;
      }
      const to = topFolder(root, resolve(dirname(file), spec));
      if (to === "test") {
        context.report({ node: source, messageId: "test" });
        return;
      }
      const a = LAYERS[/** @type {keyof typeof LAYERS} */ (from)];
      const b = LAYERS[/** @type {keyof typeof LAYERS} */ (to)];
      if (a === undefined || b === undefined) return;
      if (b > a) context.report({ node: source, messageId: "upward", data: { from, to } });
    };
    return {
      ImportDeclaration: (node) => check(node.source),
      ExportNamedDeclaration: (node) => check(node.source),
      ExportAllDeclaration: (node) => check(node.source),
      ImportExpression: (node) => check(node.source),
    };
  },
};

const plugin = { meta: { name: "cardgym" }, rules: { layers } };
export default plugin;

/**
 * engine/'s extra rules: the layering rule (which for engine/ also refuses every package and Node
 * module) and everything that would make a replay depend on more than (seed, decisions).
 * @param {string} root the repository root
 * @returns {import("eslint").Linter.RulesRecord}
 */
export function purityRules(root) {
  return {
    "cardgym/layers": ["error", { root }],
    "no-restricted-globals": [
      "error",
      { name: "Date", message: "engine/ has no clock" },
      { name: "performance", message: "engine/ has no clock" },
      { name: "process", message: "engine/ does no I/O" },
      { name: "require", message: "engine/ uses ESM imports only" },
      { name: "setTimeout", message: "engine/ has no clock" },
      { name: "setInterval", message: "engine/ has no clock" },
      { name: "crypto", message: "engine/ draws randomness from the state's Rng only" },
    ],
    "no-restricted-properties": [
      "error",
      { object: "Math", property: "random", message: "engine/ draws randomness from the state's Rng only" },
      { object: "globalThis", message: "engine/ reaches no globals" },
    ],
  };
}
