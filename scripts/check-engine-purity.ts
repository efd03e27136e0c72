/** `npm run check:purity`: fails listing every line that breaks engine/'s purity rules (run by npm test). */
import { fileURLToPath } from "node:url";
import { engineImpurities } from "./purity.ts";

const { files, problems } = engineImpurities(fileURLToPath(new URL("..", import.meta.url)));
if (problems.length > 0) {
  console.error(`engine purity check failed (${problems.length}):\n${problems.join("\n")}`);
  process.exit(1);
}
console.log(`engine purity check: ${files} files clean`);
