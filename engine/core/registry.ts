import { fail, ok, type Result } from "./errors.ts";
import type { AnyGame } from "./game.ts";

export interface GameRegistry {
  get(id: string): Result<AnyGame>;
  ids(): readonly string[];
  all(): readonly AnyGame[];
}

export function createRegistry(games: readonly AnyGame[]): GameRegistry {
  const byId = new Map<string, AnyGame>();
  for (const g of games) {
    if (byId.has(g.info.id)) throw new Error(`duplicate game id ${g.info.id}`);
    byId.set(g.info.id, g);
  }
  const ids = [...byId.keys()];
  return {
    get(id) {
      const g = typeof id === "string" ? byId.get(id) : undefined;
      return g ? ok(g) : fail("unknown_game", `unknown game ${JSON.stringify(id)}; known games: ${ids.join(", ")}`);
    },
    ids: () => ids,
    all: () => [...byId.values()],
  };
}
