import { describe, expect, it } from "vitest";
import { createAgent } from "../../agents/spec.ts";
import { Rng, type AnyGame } from "../../engine/core/index.ts";
import type { GameAdapter } from "../../env/codec.ts";
import { adapters } from "../../env/games/index.ts";
import { LearningFacilitator, type EnvBatch } from "../../env/learning-facilitator.ts";

/**
 * A learning session steps its envs in turn, and dcg carries work from one apply to the next (the
 * last result's battle index) in memos that remember one playout. So each env plays through a game
 * instance of its own (Game.instance): every setup, legal list and apply of an env on its own
 * instance, never a state of another env's, and the same bytes as envs sharing one game.
 */
const dcgAdapter = (() => {
  const adapter = adapters.get("dcg");
  if (!adapter) throw new Error("no dcg adapter");
  return adapter;
})();

/**
 * The adapter with a game whose instances record which states they were handed and which they
 * made; the game itself refuses to set up, list or apply (each env must use its instance).
 */
function recording(adapter: GameAdapter): { adapter: GameAdapter; instances: number; setups: number[]; foreign: string[] } {
  const base = adapter.game;
  const made = new WeakMap<object, number>();
  const out = { adapter, instances: 0, setups: [] as number[], foreign: [] as string[] };
  const check = (state: unknown, id: number, what: string): void => {
    const owner = made.get(state as object);
    if (owner !== id) out.foreign.push(`instance ${id} ${what} a state of ${owner === undefined ? "no instance" : `instance ${owner}`}`);
  };
  const own = <S>(state: S, id: number): S => {
    made.set(state as object, id);
    return state;
  };
  const instance = (): AnyGame => {
    const inner = base.instance?.();
    if (inner === undefined) throw new Error("the game has no instances");
    const id = out.instances++;
    out.setups[id] = 0;
    return {
      ...inner,
      setup: (config, seed) => {
        out.setups[id]!++;
        return own(inner.setup(config, seed), id);
      },
      legal: (s) => (check(s, id, "listed decisions of"), inner.legal(s)),
      applyTrusted: (s, d) => (check(s, id, "applied to"), own(inner.applyTrusted(s, d), id)),
      apply: (s, d) => {
        check(s, id, "applied (checked) to");
        const r = inner.apply(s, d);
        return r.ok ? { ok: true, state: own(r.state, id) } : r;
      },
    };
  };
  // The session's own game plays nothing: every env plays on its instance.
  const shared = (what: string) => () => {
    out.foreign.push(`the session's game ${what}`);
    throw new Error(`the session's game ${what}`);
  };
  out.adapter = {
    ...adapter,
    game: { ...base, instance, setup: shared("set up a battle"), legal: shared("listed decisions"), applyTrusted: shared("applied"), apply: shared("applied") },
  };
  return out;
}

/** Every reply's bytes over `steps` random steps (the same picks for the same masks), and the most episodes an env started. */
function play(adapter: GameAdapter, numEnvs: number, seats: string[], steps: number): { rows: string[]; episodes: number } {
  const f = LearningFacilitator.create({ adapter, seats, numEnvs, seed: 4, maxDecisions: null, createAgent, modelRoot: "" });
  let b = f.resetNow(4) as EnvBatch;
  const rng = Rng.seeded(17);
  const size = adapter.actions.size;
  const rows: string[] = [];
  for (let t = 0; t < steps; t++) {
    rows.push([b.obs, b.mask, b.reward, b.terminated, b.truncated, b.seat, b.episode].map((a) => Array.from(a).join(",")).join("|"));
    const actions = Array.from({ length: numEnvs }, (_, i) => {
      const ids: number[] = [];
      for (let k = 0; k < size; k++) if (b.mask[i * size + k]) ids.push(k);
      return ids.length === 0 ? 0 : ids[rng.int(ids.length)]!;
    });
    b = f.stepNow(actions) as EnvBatch;
  }
  rows.push(JSON.stringify(f.hashes()));
  return { rows, episodes: Math.max(...b.episode) };
}

describe("each env of a learning session plays through a game instance of its own", () => {
  it("dcg: an instance per env, and each instance only ever sees its own env's states (episodes ending included)", () => {
    const rec = recording(dcgAdapter);
    const { episodes } = play(rec.adapter, 4, ["learner", "random"], 400);
    expect(rec.instances).toBe(4);
    expect(rec.foreign).toEqual([]);
    // Each instance plays battles of its own (not one instance for every env).
    for (const n of rec.setups) expect(n).toBeGreaterThan(0);
    // The steps span more than one episode: the autoresets were played on the same instances.
    expect(episodes).toBeGreaterThan(1);
  });

  it("dcg: the same bytes as envs sharing one game (no instances)", () => {
    const shared: GameAdapter = { ...dcgAdapter, game: { ...dcgAdapter.game, instance: undefined } };
    for (const seats of [
      ["learner", "random"],
      ["learner", "learner"],
    ]) {
      expect(play(dcgAdapter, 3, seats, 300)).toEqual(play(shared, 3, seats, 300));
    }
  });
});
