// @ts-check
/**
 * ESLint rules that keep the repository's layering (docs/quality-bar.md): imports point
 * engine <- agents <- env <- scripts only, test/ may import anything and nothing imports test/,
 * and engine/ is pure (no packages but TypeBox, no Node modules, no module-level mutable state:
 * no-module-state below; its clock and randomness rules are core ESLint rules, see purityRules). Imports are resolved against the importing file, so
 * `../../env/x.ts` is judged by where it lands, not by how it is spelled.
 */
import { builtinModules } from "node:module";
import { dirname, relative, resolve, sep } from "node:path";
import { genericAgents } from "./generic-agents.js";
import { importSources } from "./import-sources.js";
import { ports } from "./ports.js";

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
    return importSources(check);
  },
};

/** Methods that change the array, Map, Set or typed array they are called on. */
const MUTATORS = new Set(["push", "pop", "shift", "unshift", "splice", "sort", "reverse", "fill", "copyWithin", "set", "add", "delete", "clear"]);
/** Object.* functions that change their first argument. */
const OBJECT_WRITERS = new Set(["assign", "defineProperty", "defineProperties", "setPrototypeOf"]);
/** Type annotations under which tsc itself refuses every write to a `new` container. */
const READONLY_TYPES = new Set(["ReadonlyMap", "ReadonlySet"]);

/** @param {any} node an expression: strips TypeScript's `as`, `satisfies` and `!` */
function unwrap(node) {
  while (node && (node.type === "TSAsExpression" || node.type === "TSSatisfiesExpression" || node.type === "TSNonNullExpression")) node = node.expression;
  return node;
}

/** @param {any} node whether the expression builds its value with `new` (also `new X().fill(0)` and the like) */
function madeWithNew(node) {
  node = unwrap(node);
  while (node) {
    if (node.type === "NewExpression") return true;
    if (node.type === "CallExpression") node = unwrap(node.callee);
    else if (node.type === "MemberExpression") node = unwrap(node.object);
    else return false;
  }
  return false;
}

/** @param {any} id a declared identifier: is its type ReadonlyMap<...> or ReadonlySet<...>? */
function readonlyAnnotated(id) {
  const t = id.typeAnnotation?.typeAnnotation;
  return t?.type === "TSTypeReference" && t.typeName.type === "Identifier" && READONLY_TYPES.has(t.typeName.name);
}

/**
 * What a use of a module-level binding does to its value, if it changes it: `X.a = 1`, `X[i]++`,
 * `delete X.a`, `X.a.push(1)`, `X.set(k, v)`, `Object.assign(X, ...)`. Null for a read.
 * @param {any} ref the Identifier node of the use
 */
function writeThrough(ref) {
  let node = ref;
  let parent = node.parent;
  if (parent?.type === "CallExpression" && parent.arguments[0] === node) {
    const callee = parent.callee;
    if (
      callee.type === "MemberExpression" &&
      callee.object.type === "Identifier" &&
      callee.object.name === "Object" &&
      callee.property.type === "Identifier" &&
      OBJECT_WRITERS.has(callee.property.name)
    )
      return `Object.${callee.property.name}`;
    return null;
  }
  // Climb the member chain X.a[b].c ... (through TypeScript wrappers) to its outermost member.
  while (
    parent &&
    (parent.type === "TSAsExpression" ||
      parent.type === "TSNonNullExpression" ||
      parent.type === "TSSatisfiesExpression" ||
      (parent.type === "MemberExpression" && parent.object === node) ||
      parent.type === "ChainExpression")
  ) {
    if (parent.type === "MemberExpression" && parent.parent?.type === "CallExpression" && parent.parent.callee === parent) {
      const name = parent.computed ? null : parent.property.name;
      if (name !== null && MUTATORS.has(name)) return `.${name}()`;
    }
    node = parent;
    parent = node.parent;
  }
  if (node === ref) return null;
  if ((parent?.type === "AssignmentExpression" && parent.left === node) || (parent?.type === "UpdateExpression" && parent.argument === node))
    return "an assignment";
  if (parent?.type === "UnaryExpression" && parent.operator === "delete") return "delete";
  return null;
}

/**
 * engine/ keeps no state between calls at module level: a replay may depend on (seed, decisions)
 * alone, and two games in one process must not see each other. Reported, for declarations at
 * the top level of a module: every `let` and `var`; every `const` made with `new` (a Map, Set,
 * WeakMap, typed array, `new Array(n).fill(...)`) unless typed ReadonlyMap or ReadonlySet; and,
 * anywhere in the file, every write through a top-level binding (member assignment, `delete`,
 * `++`, a mutating method such as push or set, Object.assign), a function's or class's name
 * included (`f.cache = ...`). A class's static fields are module-level state too: every static
 * field not `readonly`, and a `static readonly` one made with `new` unless typed ReadonlyMap or
 * ReadonlySet. Caches belong in the state or in an object the caller owns and passes in (see
 * docs/quality-bar.md).
 * @type {import("eslint").Rule.RuleModule}
 */
const noModuleState = {
  meta: {
    type: "problem",
    docs: { description: "engine/ has no module-level mutable state" },
    schema: [],
    messages: {
      variable: "engine/ has no module-level mutable state: top-level `{{kind}} {{name}}` (keep it in the state or in an object passed in)",
      container: "engine/ has no module-level mutable state: top-level `{{name}}` is made with `new` (keep it in the state or in an object passed in)",
      write: "engine/ has no module-level mutable state: {{how}} writes to top-level `{{name}}`",
      staticField:
        "engine/ has no module-level mutable state: static field `{{name}}` is shared by every game (keep it in the state or in an object passed in)",
    },
  },
  create(context) {
    /** @param {any} node a class member: a static field not readonly, or readonly but made with `new`, is reported */
    const staticField = (node) => {
      if (!node.static) return;
      if (node.readonly && !(node.value && madeWithNew(node.value) && !readonlyAnnotated(node))) return;
      const name = node.key?.type === "Identifier" ? node.key.name : context.sourceCode.getText(node.key);
      context.report({ node: node.key, messageId: "staticField", data: { name } });
    };
    /** @param {import("eslint").Scope.Variable} v a top-level binding: every write through it is reported */
    const writesThrough = (v) => {
      for (const r of v.references) {
        const how = r.init ? null : writeThrough(r.identifier);
        if (how !== null) context.report({ node: r.identifier, messageId: "write", data: { how, name: v.name } });
      }
    };
    return {
      PropertyDefinition: staticField,
      AccessorProperty: staticField,
      "Program:exit"() {
        const scopes = context.sourceCode.scopeManager?.scopes ?? [];
        for (const scope of scopes) {
          if (scope.variableScope.type !== "module" && scope.variableScope.type !== "global") continue;
          if (scope.type === "global" && scopes.some((s) => s.type === "module")) continue;
          for (const v of scope.variables) {
            const def = v.defs[0];
            if (def?.type === "FunctionName" || def?.type === "ClassName") {
              writesThrough(v);
              continue;
            }
            if (def?.type !== "Variable") continue;
            const decl = /** @type {any} */ (def.parent);
            if (decl.kind === "let" || decl.kind === "var") {
              context.report({ node: def.name, messageId: "variable", data: { kind: decl.kind, name: v.name } });
              continue;
            }
            const init = /** @type {any} */ (def.node).init;
            if (init && madeWithNew(init) && !readonlyAnnotated(def.name)) context.report({ node: def.name, messageId: "container", data: { name: v.name } });
            writesThrough(v);
          }
        }
      },
    };
  },
};

const plugin = { meta: { name: "cardgym" }, rules: { layers, "no-module-state": noModuleState, "generic-agents": genericAgents, ports } };
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
    "cardgym/no-module-state": "error",
    "no-restricted-globals": [
      "error",
      { name: "Date", message: "engine/ has no clock" },
      { name: "performance", message: "engine/ has no clock" },
      { name: "process", message: "engine/ does no I/O" },
      { name: "require", message: "engine/ uses ESM imports only" },
      { name: "setTimeout", message: "engine/ has no clock" },
      { name: "setInterval", message: "engine/ has no clock" },
      { name: "crypto", message: "engine/ draws randomness from the state's Rng only" },
      { name: "setImmediate", message: "engine/ has no clock" },
      { name: "queueMicrotask", message: "engine/ has no clock" },
      { name: "fetch", message: "engine/ does no I/O" },
      { name: "global", message: "engine/ reaches no globals" },
      { name: "self", message: "engine/ reaches no globals" },
      { name: "window", message: "engine/ reaches no globals" },
      { name: "WeakRef", message: "engine/ may not depend on when the garbage collector runs" },
      { name: "FinalizationRegistry", message: "engine/ may not depend on when the garbage collector runs" },
      { name: "Intl", message: "engine/ may not depend on the machine's locale or ICU data" },
    ],
    // Locale-aware methods answer differently on machines with other locales or ICU data: a sort by
    // localeCompare would make a state depend on where it was computed.
    "no-restricted-syntax": [
      "error",
      ...["localeCompare", "toLocaleString", "toLocaleUpperCase", "toLocaleLowerCase", "toLocaleDateString", "toLocaleTimeString"].map((name) => ({
        selector: `MemberExpression[property.name="${name}"]`,
        message: `engine/ may not depend on the machine's locale: ${name} (compare code units, or format with fixed rules)`,
      })),
    ],
    "no-restricted-properties": [
      "error",
      { object: "Math", property: "random", message: "engine/ draws randomness from the state's Rng only" },
      { object: "globalThis", message: "engine/ reaches no globals" },
    ],
  };
}
