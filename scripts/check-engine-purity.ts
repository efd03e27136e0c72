/**
 * engine/ must stay pure: no imports from agents/, env/ or scripts/, no node:* (or bare node
 * builtin) modules, no Math.random, Date or performance.now. Run by `npm test`; exits non-zero
 * listing every offending line.
 */
import { readdirSync, readFileSync, statSync } from "node:fs";
import { builtinModules } from "node:module";
import { join, relative } from "node:path";

const root = new URL("..", import.meta.url).pathname;
const engine = join(root, "engine");

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

const problems: string[] = [];
for (const file of files(engine)) {
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
if (problems.length > 0) {
  console.error(`engine purity check failed (${problems.length}):\n${problems.join("\n")}`);
  process.exit(1);
}
console.log(`engine purity check: ${files(engine).length} files clean`);
