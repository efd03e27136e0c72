/** `npm run check:purity`: the layering and engine-purity lint rules alone (npm run lint runs them too). */
import { fileURLToPath } from "node:url";
import { parseCli, printUsage } from "./cli.ts";
import { layerProblems } from "./purity.ts";

const USAGE = "npm run check:purity   (no arguments)";
if (parseCli(USAGE, {}).values.help) process.exit(printUsage(USAGE));
const root = fileURLToPath(new URL("..", import.meta.url)).replace(/\/$/, "");
const { files, problems } = await layerProblems(root);
if (problems.length > 0) {
  console.error(`layering / engine purity check failed (${problems.length}):\n${problems.join("\n")}`);
  process.exit(1);
}
console.log(`layering and engine purity: ${files} files clean`);
