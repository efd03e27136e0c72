import { createRegistry } from "./core/index.ts";

/** Every game this engine ships, by id. */
export const registry = createRegistry([]);
