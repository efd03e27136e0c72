/**
 * engine/ must stay pure: no imports from outside engine/ (agents/, env/, scripts/), no node:* (or
 * bare Node builtin) modules, no Math.random, Date, performance or process.
 */
import { readdirSync, readFileSync, statSync } from "node:fs";
import { builtinModules } from "node:module";
import { join, relative } from "node:path";

function files(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    return statSync(path).isDirectory() ? files(path) : /\.(ts|js|mjs|cjs)$/.test(name) ? [path] : [];
  });
}

const builtins = new Set(builtinModules);
const forbidden: [RegExp, string][] = [
  [/\bMath\.random\b/, "Math.random (use the state's Rng)"],
  [/\bDate\b/, "Date (the engine has no clock)"],
  [/\bperformance\b/, "performance (the engine has no clock)"],
  [/\bprocess\./, "process (the engine does no I/O)"],
  [/\brequire\s*\(/, "require (ESM imports only)"],
];

/** Every offending line under root/engine, as "path:line: what". */
export function engineImpurities(root: string): { files: number; problems: string[] } {
  const engine = join(root, "engine");
  const all = files(engine);
  const problems: string[] = [];
  for (const file of all) {
    const rel = relative(root, file);
    const lines = readFileSync(file, "utf8").split("\n");
    lines.forEach((line, i) => {
      const code = line.replace(/\/\/.*$/, "").replace(/^\s*\*.*$/, "");
      for (const m of code.matchAll(/(?:from\s+|import\s*\(\s*|import\s+)["']([^"']+)["']/g)) {
        const spec = m[1]!;
        if (spec.startsWith("node:") || builtins.has(spec)) problems.push(`${rel}:${i + 1}: imports the Node module "${spec}"`);
        else if (spec.startsWith(".")) {
          const target = relative(root, join(file, "..", spec));
          if (!target.startsWith("engine/")) problems.push(`${rel}:${i + 1}: imports "${spec}" from outside engine/ (${target})`);
        }
      }
      for (const [re, what] of forbidden) if (re.test(code)) problems.push(`${rel}:${i + 1}: uses ${what}`);
    });
  }
  return { files: all.length, problems };
}
