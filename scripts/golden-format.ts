import { stateHash, type AnyGame } from "../engine/core/index.ts";
import { deriveSeed, Rng } from "../engine/core/index.ts";

/** A golden playthrough: a seeded random-legal game with the hash after every decision. */
export interface GoldenPlaythrough {
  readonly config: unknown;
  readonly seed: number;
  readonly decisions: readonly unknown[];
  readonly hashes: readonly string[];
}

export interface GoldenFile {
  readonly game: string;
  readonly version: string;
  readonly note: string;
  readonly playthroughs: readonly GoldenPlaythrough[];
}

export function goldenPlaythrough(game: AnyGame, config: unknown, seed: number): GoldenPlaythrough {
  const parsed = game.parseConfig(config);
  if (!parsed.ok) throw new Error(parsed.error.message);
  const policy = Rng.seeded(deriveSeed(seed, "golden-policy"));
  let state = game.setup(parsed.value, seed);
  const decisions: unknown[] = [];
  const hashes = [stateHash(state)];
  while (game.actor(state) !== "terminal") {
    const legal = game.legal(state);
    const d = legal[policy.int(legal.length)];
    state = game.applyTrusted(state, d);
    decisions.push(d);
    hashes.push(stateHash(state));
  }
  return { config: parsed.value, seed, decisions, hashes };
}
