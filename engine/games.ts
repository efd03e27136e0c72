import { createRegistry } from "./core/index.ts";
import { blackpoker } from "./blackpoker/index.ts";
import { dcg } from "./dcg/index.ts";
import { sevens } from "./sevens/index.ts";
import { shephy } from "./shephy/index.ts";

/** Every game this engine ships, by id. */
export const registry = createRegistry([dcg, sevens, shephy, blackpoker]);
