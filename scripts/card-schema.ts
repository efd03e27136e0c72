/**
 * npx tsx scripts/card-schema.ts [--check]
 * Writes docs/card-schema.json from the handler registries (engine/dcg/schema.ts); with --check,
 * exits 1 when the published file is out of date instead.
 */
import { readFileSync, writeFileSync } from "node:fs";
import { buildCardSchema } from "../engine/dcg/schema.ts";
import { main } from "./cli.ts";

export const SCHEMA_PATH = new URL("../docs/card-schema.json", import.meta.url);

main(() => {
  const text = `${JSON.stringify(buildCardSchema(), null, 2)}\n`;
  if (process.argv.includes("--check")) {
    const current = readFileSync(SCHEMA_PATH, "utf8");
    if (current !== text) {
      console.error("docs/card-schema.json is out of date: run npx tsx scripts/card-schema.ts");
      return 1;
    }
    return 0;
  }
  writeFileSync(SCHEMA_PATH, text);
  console.log("wrote docs/card-schema.json");
  return 0;
});
