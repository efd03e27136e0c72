/**
 * The engine of any checkout, loaded by path, for benchmarks that time two commits against each
 * other (bench-engine-vs in one process, bench-playouts as whole processes). Only the calls a
 * random playout needs are typed: an older checkout may lack anything newer.
 */
import { join } from "node:path";
import { pathToFileURL } from "node:url";
import { UsageError } from "./cli.ts";

export interface CheckoutGame {
  parseConfig(raw: unknown): { ok: boolean; value: unknown };
  setup(config: unknown, seed: number): unknown;
  actor(s: unknown): unknown;
  legal(s: unknown): readonly unknown[];
  applyTrusted(s: unknown, d: unknown): unknown;
  /** Only in checkouts that have them (see Game.applyInPlace). */
  applyInPlace?(s: unknown, d: unknown): unknown;
  ownedCopy?(s: unknown): unknown;
  /** Only in checkouts that have it (see Game.sampleLegal). */
  sampleLegal?(s: unknown, pick: (n: number) => number): unknown;
}

export interface CheckoutEngine {
  readonly game: CheckoutGame;
  readonly Rng: { seeded(n: number): { int(n: number): number } };
}

/** Game `id` and the seeded RNG from the checkout at `root`. */
export async function loadCheckoutEngine(root: string, id: string): Promise<CheckoutEngine> {
  const games = await import(pathToFileURL(join(root, "engine/games.ts")).href);
  const core = await import(pathToFileURL(join(root, "engine/core/index.ts")).href);
  const got = games.registry.get(id);
  if (!got.ok) throw new UsageError(`${root}: no game ${id}`);
  return { game: got.value, Rng: core.Rng };
}
