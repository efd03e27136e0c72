/**
 * The engine's public face (the npm package's `cardgym/engine`): the Game contract, records and
 * replay, the state hash, the registry, and the four shipped games. Pure: no I/O, no clock.
 */
export * from "./core/index.ts";
export { registry } from "./games.ts";
export { dcg } from "./dcg/index.ts";
export { sevens } from "./sevens/index.ts";
export { shephy } from "./shephy/index.ts";
export { blackpoker } from "./blackpoker/index.ts";
