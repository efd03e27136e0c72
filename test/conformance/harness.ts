import { deriveSeed, Rng, stateHash, type AnyGame } from "../../engine/core/index.ts";
import type { GameAdapter } from "../../env/codec.ts";

/** Ids of the legal decisions of the actor, via the adapter's codec (the mask's source). */
export function legalIds(adapter: GameAdapter, state: unknown): number[] {
  const game = adapter.game;
  const actor = game.actor(state);
  if (actor === "terminal") return [];
  const view = game.view(state, actor);
  return game.legal(state).map((d) => adapter.actions.encode(view, d));
}

export function maskOf(adapter: GameAdapter, state: unknown): Uint8Array {
  const mask = new Uint8Array(adapter.actions.size);
  for (const id of legalIds(adapter, state)) mask[id] = 1;
  return mask;
}

export function observe(adapter: GameAdapter, state: unknown, seat: number): Float32Array {
  const out = new Float32Array(adapter.observation.size);
  adapter.observation.encode(adapter.game.view(state, seat), out);
  return out;
}

export interface Step {
  readonly hash: string;
  readonly actor: number | "terminal";
  readonly obsHash: string;
  readonly maskHash: string;
  readonly returns: readonly number[];
}

/** One random-legal playthrough with everything an RL client sees recorded at each step. */
export function playthrough(game: AnyGame, adapter: GameAdapter | undefined, config: unknown, seed: number) {
  const parsed = game.parseConfig(config);
  if (!parsed.ok) throw new Error(parsed.error.message);
  const policy = Rng.seeded(deriveSeed(seed, "conformance-policy"));
  const limit = game.maxDecisions(parsed.value);
  let state = game.setup(parsed.value, seed);
  const states: unknown[] = [state];
  const decisions: unknown[] = [];
  const steps: Step[] = [];
  for (;;) {
    const actor = game.actor(state);
    steps.push(describeStep(game, adapter, state, actor));
    if (actor === "terminal") break;
    if (decisions.length >= limit) throw new Error(`${game.info.id} seed ${seed}: no end within maxDecisions=${limit}`);
    const legal = game.legal(state);
    if (legal.length === 0) throw new Error(`${game.info.id} seed ${seed}: actor ${actor} has no legal decision`);
    const d = legal[policy.int(legal.length)];
    state = game.applyTrusted(state, d);
    decisions.push(d);
    states.push(state);
  }
  return { config: parsed.value, states, decisions, steps, final: state };
}

function describeStep(game: AnyGame, adapter: GameAdapter | undefined, state: unknown, actor: number | "terminal"): Step {
  const seat = actor === "terminal" ? 0 : actor;
  return {
    hash: stateHash(state),
    actor,
    obsHash: adapter ? bytesHash(observe(adapter, state, seat)) : "",
    maskHash: adapter ? bytesHash(maskOf(adapter, state)) : "",
    returns: game.returns(state).slice(),
  };
}

export function bytesHash(view: ArrayBufferView): string {
  const bytes = new Uint8Array(view.buffer, view.byteOffset, view.byteLength);
  let h1 = 0x811c9dc5;
  let h2 = 0x01000193;
  for (let i = 0; i < bytes.length; i++) {
    h1 = Math.imul(h1 ^ bytes[i]!, 0x01000193);
    h2 = Math.imul(h2 + bytes[i]! + 1, 0x5bd1e995) ^ (h2 >>> 13);
  }
  return (h1 >>> 0).toString(16) + ":" + (h2 >>> 0).toString(16) + ":" + bytes.length;
}

/** How many seeds each check runs, scaled by CONFORMANCE_SCALE (default 1). */
export function seeds(base: number): number[] {
  const scale = Number(process.env.CONFORMANCE_SCALE ?? "1");
  const n = Math.max(1, Math.round(base * (Number.isFinite(scale) && scale > 0 ? scale : 1)));
  return Array.from({ length: n }, (_, i) => i + 1);
}
