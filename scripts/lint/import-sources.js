// @ts-check
/**
 * Every place a file names another module, for the import rules (layers, generic-agents, ports):
 * `import ... from`, `export ... from`, `import(...)` as an expression, and TypeScript's own two
 * forms, `import("...")` as a type (`type T = import("../server/app.ts").App`) and
 * `import x = require("...")`. A rule that listened only to the first three let a type reach
 * across a boundary unnoticed.
 */

/**
 * The visitor that hands each module specifier's string literal node to `check`.
 * @param {(source: any) => void} check
 * @returns {import("eslint").Rule.RuleListener}
 */
export function importSources(check) {
  return {
    ImportDeclaration: (node) => check(node.source),
    ExportNamedDeclaration: (node) => check(node.source),
    ExportAllDeclaration: (node) => check(node.source),
    ImportExpression: (node) => check(node.source),
    // typescript-eslint's nodes (absent from ESTree's types): `source` is the literal in v8; older
    // parsers put it under `argument` as a literal type.
    /** @param {any} node */
    TSImportType: (node) => check(node.source ?? node.argument?.literal),
    /** @param {any} node */
    TSImportEqualsDeclaration: (node) => {
      if (node.moduleReference?.type === "TSExternalModuleReference") check(node.moduleReference.expression);
    },
  };
}
