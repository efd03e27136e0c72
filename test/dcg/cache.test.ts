import { describe, expect, it } from "vitest";
import { Rng, stateHash } from "../../engine/core/index.ts";
import { DcgCache } from "../../engine/dcg/cache.ts";
import { DecisionTable, placedOf } from "../../engine/dcg/decision-table.ts";
import { legal as legalOps } from "../../engine/dcg/operation.ts";
import { Draft } from "../../engine/dcg/draft.ts";
import { applyDecision } from "../../engine/dcg/flow.ts";
import { makeDcg, type BattleData, type Decision } from "../../engine/dcg/index.ts";
import { setupBattle } from "../../engine/dcg/setup.ts";
import { TRIGGER_KINDS, TRIGGER_NO } from "../../engine/dcg/trigger.ts";

/**
 * DcgCache: the memos engine/dcg carries from one apply to the next live in an object the game
 * owns (engine/ keeps no module-level state). They must never change a result, whatever order
 * games and states come in, and the aura list must really be carried along a playout.
 */
const game = makeDcg();
const config = (() => {
  const c = game.parseConfig({});
  if (!c.ok) throw new Error(c.error.message);
  return c.value;
})();

/** One apply with a cache of its own: nothing carried over from any other apply. */
function applyAlone(s: BattleData, decision: Decision): BattleData {
  const d = new Draft(s, game.pool);
  applyDecision(d, decision);
  return d.finish();
}

/** A random playout's decisions and state hashes, every apply memo-free. */
function reference(seed: number): { decisions: Decision[]; hashes: string[] } {
  const rng = Rng.seeded(seed);
  let s = game.setup(config, seed);
  const decisions: Decision[] = [];
  const hashes: string[] = [];
  while (game.actor(s) !== "terminal") {
    const legal = game.legal(s);
    const decision = legal[rng.int(legal.length)]!;
    s = applyAlone(s, decision);
    decisions.push(decision);
    hashes.push(stateHash(s));
  }
  return { decisions, hashes };
}

/**
 * Plays the reference playouts of `seeds` in turn, one decision of each game at a time: `step`
 * applies game g's next decision (`hash` is the state hash memo-free play reached), and every
 * state it returns must hash as memo-free play's did.
 */
function interleave(
  seeds: readonly number[],
  start: (g: number, seed: number) => BattleData,
  step: (before: BattleData, decision: Decision, label: string, hash: string, g: number) => BattleData,
): void {
  const refs = seeds.map(reference);
  const states = seeds.map((seed, g) => start(g, seed));
  const steps = Math.max(...refs.map((r) => r.decisions.length));
  for (let i = 0; i < steps; i++) {
    for (let g = 0; g < seeds.length; g++) {
      const ref = refs[g]!;
      if (i >= ref.decisions.length) continue;
      const label = `game ${g} step ${i}`;
      const next = step(states[g]!, ref.decisions[i]!, label, ref.hashes[i]!, g);
      expect(stateHash(next), label).toBe(ref.hashes[i]);
      states[g] = next;
    }
  }
}

describe("dcg's apply memos (DcgCache)", () => {
  it("two games interleaved on one instance, each step also re-applied from the state before, match memo-free play", () => {
    interleave(
      [3, 11],
      (_, seed) => game.setup(config, seed),
      (before, decision, label, hash) => {
        const next = game.applyTrusted(before, decision);
        // The same decision again from the older state: the last result is now `next`, not `before`.
        const again = game.applyTrusted(before, decision);
        expect(stateHash(again), `${label} re-applied`).toBe(hash);
        return next;
      },
    );
  });

  it("games interleaved each on an instance of its own (game.instance()) match memo-free play", () => {
    const instances = [3, 11, 19].map(() => game.instance());
    interleave(
      [3, 11, 19],
      (g, seed) => instances[g]!.setup(config, seed),
      (before, decision, _label, _hash, g) => {
        const own = instances[g]!;
        expect(own.legal(before)).toEqual(game.legal(before));
        return own.applyTrusted(before, decision);
      },
    );
  });

  it("an instance shares every function of its game that reads no memo: its own are the few that do", () => {
    // A learning session holds an instance per env: what an instance makes of its own, every env holds.
    const readers = ["apply", "applyInPlace", "applyTraced", "applyTrusted", "events", "explain", "instance", "legal", "sampleLegal", "setup"];
    const first = game.instance();
    for (const inst of [first, first.instance()]) {
      const own = Object.keys(game).filter((k) => inst[k as keyof typeof inst] !== game[k as keyof typeof game]);
      expect(own.sort()).toEqual(readers);
      expect(Object.keys(inst)).toEqual(Object.keys(game));
    }
  });

  it("a fork keeps its own last result's battle index, and shares the memos of card data", () => {
    const { decisions } = reference(5);
    const a = new DcgCache();
    const b = a.fork();
    expect(b.decisions).toBe(a.decisions);
    expect(b.plans).toBe(a.plans);
    expect(b.poolIndex(game.pool)).toBe(a.poolIndex(game.pool));
    // The area refresh's scratch lists and sampleLegal's hold nothing between calls: one set for all forks.
    expect(b.areaWant).toBe(a.areaWant);
    expect(b.areaTargets).toBe(a.areaTargets);
    expect(b.sample).toBe(a.sample);
    const applyWith = (cache: DcgCache, s: BattleData, decision: Decision): BattleData => {
      const d = new Draft(s, game.pool, null, cache);
      applyDecision(d, decision);
      return d.finish();
    };
    const s = game.setup(config, 5);
    const fromA = applyWith(a, s, decisions[0]!);
    const fromB = applyWith(b, fromA, decisions[1]!);
    // Each cache carries the index of its own last result: the same object each time it is asked.
    expect(a.indexOf(fromA, game.pool, false)).toBe(a.indexOf(fromA, game.pool, false));
    expect(b.indexOf(fromB, game.pool, false)).toBe(b.indexOf(fromB, game.pool, false));
    // Not the other's: a state it did not produce gets an index made for it.
    const carriedByA = a.indexOf(fromA, game.pool, false);
    expect(b.indexOf(fromA, game.pool, false)).not.toBe(carriedByA);
    // One cache for both, as before instances: an apply from fromA takes a's carried index over
    // (and adds to it), so fromA, no longer a's last result, never gets that object again.
    applyWith(a, fromA, decisions[1]!);
    expect(a.indexOf(fromA, game.pool, false)).not.toBe(carriedByA);
  });

  it("a playout with one cache starts most applies from the carried aura list; a fresh cache never does", () => {
    const { decisions } = reference(5);
    const carried = (shared: boolean): number => {
      const cache = new DcgCache();
      let s = game.setup(config, 5);
      let n = 0;
      for (const decision of decisions) {
        const d = new Draft(s, game.pool, null, shared ? cache : new DcgCache());
        if (d.auraUnits !== null) n++;
        applyDecision(d, decision);
        s = d.finish();
      }
      return n;
    };
    expect(carried(false)).toBe(0);
    expect(carried(true)).toBeGreaterThan(decisions.length / 2);
  });

  it("a battle set up with a cache leaves its memos there, so the next apply starts from them (no tables built per battle)", () => {
    const cache = new DcgCache();
    const index = cache.poolIndex(game.pool);
    const s = setupBattle(config, 7, game.pool, game.presets, null, cache);
    expect(cache.auraResult).toBe(s);
    expect(cache.poolIndex(game.pool)).toBe(index);
    // The same battle as one set up without a shared cache.
    expect(stateHash(s)).toBe(stateHash(setupBattle(config, 7, game.pool, game.presets)));
  });

  it("legal() on a state that is no apply's result makes its battle index once for the apply that follows, which takes it over", () => {
    const { decisions } = reference(3);
    // States of a game, each then met as a search meets its samples: a copy no apply made.
    let s = game.setup(config, 3);
    const cache = new DcgCache();
    for (let k = 0; k < 40; k++) {
      const sample = structuredClone(s);
      const listed = cache.indexOf(sample, game.pool, false);
      expect(cache.indexOf(sample, game.pool, false)).toBe(listed);
      // The apply from that very state takes it over; once taken, it is not handed out again.
      expect(cache.indexOf(sample, game.pool, true)).toBe(listed);
      expect(cache.indexOf(sample, game.pool, false)).not.toBe(listed);
      // legal() then applies from samples through one game instance match memo-free play.
      const g = game.instance();
      const fresh = structuredClone(s);
      expect(g.legal(fresh)).toEqual(game.legal(structuredClone(s)));
      const next = g.applyTrusted(fresh, decisions[k]!);
      expect(stateHash(next)).toBe(stateHash(applyAlone(s, decisions[k]!)));
      expect(g.legal(fresh)).toEqual(game.legal(structuredClone(s)));
      s = applyAlone(s, decisions[k]!);
    }
  });

  it("a pool index's tables by trigger number say what the pool's tables by kind name say", () => {
    for (const raw of [{}, { cardPool: { generate: { seed: 5, cards: 80 } } }, { cardPool: { generate: { seed: 9, cards: 120 } } }]) {
      const parsed = game.parseConfig(raw);
      if (!parsed.ok) throw new Error(parsed.error.message);
      const pool = game.poolFor(parsed.value);
      const index = new DcgCache().poolIndex(pool);
      expect(index.kinds).toHaveLength(TRIGGER_KINDS.length);
      TRIGGER_KINDS.forEach((kind, no) => {
        expect(TRIGGER_NO[kind]).toBe(no);
        const ki = index.kinds[no]!;
        expect(ki.no).toBe(no);
        expect([index.listens[no], ki.listens, ki.answers, ki.lifetimes]).toEqual([
          pool.listens[kind] ? 1 : 0,
          pool.listens[kind],
          pool.answers[kind],
          pool.lifetimes[kind],
        ]);
      });
    }
  });

  it("legal() interns its (card, cell) decisions in the table passed in, never in module state", () => {
    const a = new DecisionTable();
    const b = new DecisionTable();
    const one = placedOf(a.summon, 3, 4);
    expect(one).toEqual({ kind: "summon", card: 3, cell: 4 });
    expect(Object.keys(one)).toEqual(["kind", "card", "cell"]);
    expect(Object.isFrozen(one)).toBe(true);
    expect(placedOf(a.summon, 3, 4)).toBe(one);
    // Another table is another set of objects: nothing is shared through the module.
    expect(placedOf(b.summon, 3, 4)).not.toBe(one);
    expect(placedOf(b.summon, 3, 4)).toEqual(one);
    // Out of the table's range: a fresh object each time, the same fields.
    expect(placedOf(a.attack, 500, 2)).toEqual({ kind: "attack", card: 500, cell: 2 });
    expect(placedOf(a.attack, 500, 2)).not.toBe(placedOf(a.attack, 500, 2));
    // A real position's legal list: the same objects from the same table, equal ones from another.
    const rng = Rng.seeded(5);
    const legalWith = (table: DecisionTable) => legalOps(s, game.pool, table, new DcgCache().indexOf(s, game.pool, false));
    let s = game.setup(config, 5);
    while (!legalWith(a).some((d) => d.kind === "summon")) {
      const options = game.legal(s);
      s = game.applyTrusted(s, options[rng.int(options.length)]!);
    }
    const first = legalWith(a);
    const again = legalWith(a);
    const other = legalWith(b);
    const summon = first.findIndex((d) => d.kind === "summon");
    expect(again[summon]).toBe(first[summon]);
    expect(other[summon]).not.toBe(first[summon]);
    expect(other).toEqual(first);
  });
});
