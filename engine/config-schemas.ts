import { configSchema } from "./core/index.ts";
import { BLACKPOKER_CONFIG_FIELDS } from "./blackpoker/config.ts";
import { DCG_CONFIG_FIELDS } from "./dcg/config.ts";
import { SEVENS_CONFIG_FIELDS } from "./sevens/config.ts";
import { SHEPHY_CONFIG_FIELDS } from "./shephy/state.ts";

/**
 * The JSON Schema of every game's config, from the same TypeBox field maps parseConfig checks
 * with (published as docs/config-schemas.json by scripts/card-schema.ts; a test keeps it equal).
 * A field's `default` is what parseConfig fills in when the field is absent. Rules that tie fields
 * together (dcg: handStart <= bookSize - 5, mpFirst <= mpCap; sevens: voluntaryPass needs a
 * passLimit) and the dcg books and card set are checked by parseConfig on top.
 */
export function buildConfigSchemas(): Record<string, unknown> {
  return {
    $schema: "https://json-schema.org/draft/2020-12/schema",
    $id: "https://cardgym.dev/schemas/game-configs.json",
    title: "cardgym game configs",
    description: "Each game's config object (POST /v1/sessions `config`, `npm run play -- <game> --config`). Generated from engine/config-schemas.ts.",
    $defs: {
      dcg: configSchema(DCG_CONFIG_FIELDS),
      sevens: configSchema(SEVENS_CONFIG_FIELDS),
      shephy: configSchema(SHEPHY_CONFIG_FIELDS),
      blackpoker: configSchema(BLACKPOKER_CONFIG_FIELDS),
    },
  };
}
