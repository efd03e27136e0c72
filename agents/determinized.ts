import { decisionKey, Rng, seed32, type AnyGame, type Seat } from "../engine/core/index.ts";

/**
 * One sampled world: a full state drawn by game.determinize from the agent's own view, plus the
 * sample's legal decisions by key so that the request's decisions can be applied to it.
 * Search agents only ever simulate on these, never on the real state.
 */
export interface Sample {
  readonly state: unknown;
  readonly byKey: ReadonlyMap<string, unknown>;
}

/**
 * A full state drawn from the view with the agent's stream (no legal list: search loops need none).
 * Its 53-bit seed is folded to the 32-bit one that gave its stream before wide seeds had streams
 * of their own (seed32), so every search samples the worlds it always sampled.
 */
export function sampleState(game: AnyGame, view: unknown, seat: Seat, rng: Rng): unknown {
  const state = game.determinize(view, seat, Rng.seeded(seed32(rng.nextU32() * 0x200000 + (rng.nextU32() >>> 11))));
  const actor = game.actor(state);
  if (actor !== seat) {
    throw new Error(`${game.info.id}.determinize returned a state where ${actor === "terminal" ? "the game is over" : `seat ${actor} acts`}, not seat ${seat}`);
  }
  return state;
}

export function sampleWorld(game: AnyGame, view: unknown, seat: Seat, rng: Rng): Sample {
  const state = sampleState(game, view, seat, rng);
  const byKey = new Map<string, unknown>();
  for (const d of game.legal(state)) byKey.set(decisionKey(d), d);
  return { state, byKey };
}

/** The sample's own copy of a decision the view offered; a missing one is a determinize bug. */
export function applyOnSample(game: AnyGame, sample: Sample, key: string, label: () => string): unknown {
  const d = sample.byKey.get(key);
  if (d === undefined) throw new Error(`${game.info.id}.determinize produced a state where "${label()}" is not legal`);
  return game.applyTrusted(sample.state, d);
}
