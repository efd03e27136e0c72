import type { ESLint, Linter } from "eslint";

export declare const LAYERS: { readonly engine: 0; readonly agents: 1; readonly env: 2; readonly scripts: 3 };
declare const plugin: ESLint.Plugin;
export default plugin;
export declare function purityRules(root: string): Linter.RulesRecord;
