import { describe, expect, it } from "vitest";
import { Rng, stateHash } from "../../engine/core/index.ts";
import { BattleIndex } from "../../engine/dcg/battle-index.ts";
import { DcgCache } from "../../engine/dcg/cache.ts";
import { Draft } from "../../engine/dcg/draft.ts";
import { applyDecision } from "../../engine/dcg/flow.ts";
import { makeDcg, type BattleData, type DcgConfig } from "../../engine/dcg/index.ts";

/**
 * The battle index (engine/dcg/battle-index.ts) is carried from one apply to the next along a
 * playout and added to as abilities are attached. Ability matching reads it instead of every
 * card, so a carried index that missed a carrier would silently skip an ability: these games
 * (generated pools use AttachAbility, lifetimes, poison and copied abilities) are played with the
 * index carried and with a fresh one made from the state at every apply, and must agree; after
 * every apply the carried index is checked against the state itself.
 */
const game = makeDcg();
const CONFIGS: unknown[] = [
  {},
  { books: ["venom", "tempo"] },
  { cardPool: { generate: { seed: 5, cards: 80 } } },
  { cardPool: { generate: { seed: 9, cards: 120 } } },
];

function configOf(raw: unknown): DcgConfig {
  const c = game.parseConfig(raw);
  if (!c.ok) throw new Error(c.error.message);
  return c.value;
}

/** Checks what `index` must list against the state itself (not against another index). */
function checkIndex(index: BattleIndex, s: BattleData, cfg: DcgConfig, where: string): number {
  const pool = game.poolFor(cfg);
  let attached = 0;
  s.cards.forEach((c, id) => {
    for (const a of c.attached) {
      const ab = pool.abilities[a.ability]!;
      if (ab.type === "TriggerAbility") expect(index.triggerCarriers, `${where}: trigger carrier ${id}`).toContain(id);
      if (ab.type === "ParameterAbility" && ab.lifetime.length > 0) expect(index.lifetimeCarriers, `${where}: lifetime carrier ${id}`).toContain(id);
      if (a.area) expect(index.areaCarrier[id], `${where}: area carrier ${id}`).toBe(1);
      attached++;
    }
    if (c.ailment === "poison") expect(index.poisoned, `${where}: poisoned ${id}`).toContain(id);
    if (c.layer === "Strategy") expect(index.strategy[c.owner], `${where}: strategy ${id}`).toContain(id);
  });
  for (const seat of [0, 1] as const) {
    const cells = s.cells.flatMap((id, cell) => (id >= 0 && s.cards[id]!.owner === seat && pool.cards[s.cards[id]!.def]!.kind === "rubric" ? [cell] : []));
    expect(index.rubricCells[seat], `${where}: rubric cells of ${seat}`).toEqual(cells);
  }
  s.cards.forEach((c, id) => {
    const def = pool.cards[c.def]!;
    expect(index.aura[id], `${where}: aura ${id}`).toBe(def.nightmare >= 0 || def.areaAbilities.length > 0 ? 1 : 0);
  });
  // The refresh's cells: every unit with an aura flag or a carrier mark, and no other cell.
  const auraCells = s.cells.flatMap((id, cell) => (id >= 0 && (index.aura[id] === 1 || index.areaCarrier[id] === 1) ? [cell] : []));
  expect(index.auraCells, `${where}: aura cells`).toEqual(auraCells);
  for (const list of [index.triggerCarriers, index.lifetimeCarriers, index.poisoned, ...index.strategy]) expect(list).toEqual([...list].sort((x, y) => x - y));
  return attached;
}

describe("the battle index carried along a playout", () => {
  it("gives the same games as an index made afresh at every apply, and lists what the state holds", () => {
    let attachedSeen = 0;
    for (const raw of CONFIGS) {
      const cfg = configOf(raw);
      const pool = game.poolFor(cfg);
      for (let seed = 1; seed <= 5; seed++) {
        const rng = Rng.seeded(seed);
        const carried = new DcgCache();
        let s = game.setup(cfg, seed);
        let alone = s;
        let step = 0;
        while (game.actor(s) !== "terminal") {
          const options = game.legal(s);
          const decision = options[rng.int(options.length)]!;
          const d = new Draft(s, pool, null, carried);
          applyDecision(d, decision);
          s = d.finish();
          // The same decision with nothing carried over: a fresh cache, so a fresh index.
          const once = new Draft(alone, pool, null, new DcgCache());
          applyDecision(once, decision);
          alone = once.finish();
          expect(stateHash(s), `${JSON.stringify(raw)} seed ${seed} step ${step}`).toBe(stateHash(alone));
          attachedSeen += checkIndex(carried.indexOf(s, pool, false), s, cfg, `${JSON.stringify(raw)} seed ${seed} step ${step}`);
          step++;
        }
      }
    }
    // The games did attach what the index tracks (else this test would check nothing).
    expect(attachedSeen).toBeGreaterThan(0);
  });

  it("is the last result's own index only for that very state; another state gets one made for it until a draft takes that over", () => {
    const cfg = configOf({});
    const cache = new DcgCache();
    const s = game.setup(cfg, 3);
    const a = cache.indexOf(s, game.pool, false);
    expect(cache.indexOf(s, game.pool, false)).toBe(a);
    const d = new Draft(s, game.pool, null, cache);
    expect(d.index).toBe(a);
    expect(cache.indexOf(s, game.pool, false)).not.toBe(a);
    const result = d.finish();
    expect(cache.indexOf(result, game.pool, false)).toBe(d.index);
    // Taken over by a draft: the cache forgets it, so an apply that throws leaves nothing behind.
    const taken = cache.indexOf(result, game.pool, true);
    expect(taken).toBe(d.index);
    expect(cache.indexOf(result, game.pool, false)).not.toBe(taken);
  });
});
