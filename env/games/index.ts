import type { GameAdapter } from "../codec.ts";
import { blackpokerAdapter } from "./blackpoker.ts";
import { dcgAdapter } from "./dcg.ts";
import { sevensAdapter } from "./sevens.ts";
import { shephyAdapter } from "./shephy.ts";

/** The RL adapter (action codec + observation encoder) of every registered game, by game id. */
export const adapters: ReadonlyMap<string, GameAdapter> = new Map<string, GameAdapter>([
  ["dcg", dcgAdapter],
  ["sevens", sevensAdapter],
  ["shephy", shephyAdapter],
  ["blackpoker", blackpokerAdapter],
]);
