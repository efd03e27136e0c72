/**
 * npx tsx scripts/card-schema.ts [--check]
 * Writes docs/card-schema.json and docs/board-file.schema.json (engine/dcg/schema.ts) and
 * docs/config-schemas.json (each game's config fields, engine/<game>/config.ts) from their TypeBox
 * definitions; with --check, exits 1 when a published file is out of date instead.
 */
import { readFileSync, writeFileSync } from "node:fs";
import { buildConfigSchemas } from "../engine/config-schemas.ts";
import { buildBoardSchema, buildCardSchema } from "../engine/dcg/schema.ts";
import { main, parseCli, printUsage, UsageError } from "./cli.ts";

export const SCHEMA_PATH = new URL("../docs/card-schema.json", import.meta.url);
export const CONFIG_SCHEMAS_PATH = new URL("../docs/config-schemas.json", import.meta.url);
export const BOARD_SCHEMA_PATH = new URL("../docs/board-file.schema.json", import.meta.url);

const USAGE = "npx tsx scripts/card-schema.ts [--check]";

main(() => {
  const { values, positionals } = parseCli(USAGE, { check: { type: "boolean" } });
  if (values.help) return printUsage(USAGE);
  if (positionals.length > 0) throw new UsageError(`unexpected argument ${JSON.stringify(positionals[0])}\nusage: ${USAGE}`);
  const files: [URL, string, unknown][] = [
    [SCHEMA_PATH, "docs/card-schema.json", buildCardSchema()],
    [CONFIG_SCHEMAS_PATH, "docs/config-schemas.json", buildConfigSchemas()],
    [BOARD_SCHEMA_PATH, "docs/board-file.schema.json", buildBoardSchema()],
  ];
  for (const [path, name, schema] of files) {
    const text = `${JSON.stringify(schema, null, 2)}\n`;
    if (values.check) {
      let current = "";
      try {
        current = readFileSync(path, "utf8");
      } catch {
        // missing: out of date
      }
      if (current !== text) {
        console.error(`${name} is out of date: run npx tsx scripts/card-schema.ts`);
        return 1;
      }
      continue;
    }
    writeFileSync(path, text);
    console.log(`wrote ${name}`);
  }
  return 0;
});
