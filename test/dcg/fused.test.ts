import { describe, expect, it } from "vitest";
import { Rng } from "../../engine/core/index.ts";
import { DcgCache } from "../../engine/dcg/cache.ts";
import { Draft } from "../../engine/dcg/draft.ts";
import { fuse } from "../../engine/dcg/fused.ts";
import { HEADS } from "../../engine/dcg/heads.ts";
import { makeDcg, type BattleData, type Pool } from "../../engine/dcg/index.ts";
import { evaluatePhrases, type Scope, type Targeting } from "../../engine/dcg/targeting.ts";
import type { Trigger } from "../../engine/dcg/trigger.ts";
import { configOf, FIVE_POOLS } from "./pools.ts";

/**
 * Fused sentence runs (engine/dcg/fused.ts) stand in for the phrase-by-phrase run of the hottest
 * sentence shapes, so they must give exactly the same items. Every sentence of these pools that
 * has a fused run is evaluated both ways on the states of random games, from every unit on the
 * board as consumer (with itself and with another unit as producer), against no trigger and
 * against the first triggers the decision that led there emitted.
 */
const game = makeDcg();

/** Every targeting sentence in a pool's compiled abilities (conditions, lifetimes, reaches, effect targets). */
function sentencesOf(pool: Pool): Targeting[] {
  const heads = new Set<string>(HEADS);
  const out = new Set<Targeting>();
  const walk = (v: unknown): void => {
    if (Array.isArray(v)) {
      const first = v[0] as { kind?: unknown } | undefined;
      if (first !== undefined && typeof first === "object" && first !== null && heads.has(String(first.kind))) out.add(v as Targeting);
      v.forEach(walk);
    } else if (v !== null && typeof v === "object") Object.values(v).forEach(walk);
  };
  walk(pool.abilities);
  return [...out];
}

describe("fused sentence runs", () => {
  it("give the items the phrase-by-phrase run gives, for every fused sentence of the pools, on random games", () => {
    const checked = new Map<string, { runs: number; nonEmpty: number }>();
    for (const raw of FIVE_POOLS) {
      const cfg = configOf(game, raw);
      const pool = game.poolFor(cfg);
      const fused = sentencesOf(pool).flatMap((t) => {
        const f = fuse(t);
        return f === null ? [] : [{ t, f, shape: t.map((p) => p.kind).join(">") }];
      });
      for (let seed = 1; seed <= 2; seed++) {
        const rng = Rng.seeded(seed);
        let s: BattleData = game.setup(cfg, seed);
        let triggers: readonly Trigger[] = [];
        for (let step = 0; game.actor(s) !== "terminal"; step++) {
          // Every sixth state (a playout's neighbours differ little), the units on the board.
          const units = step % 6 === 0 ? s.cells.filter((id) => id >= 0) : [];
          const d = new Draft(s, pool, null, new DcgCache());
          for (const consumer of units) {
            const owner = s.cards[consumer]!.owner;
            for (const producer of [consumer, units[0]!]) {
              for (const trigger of [null, ...triggers]) {
                const scope: Scope = { consumer, producer, owner, ability: 0, trigger };
                for (const { t, f, shape } of fused) {
                  const got = f(d, scope);
                  const want = evaluatePhrases(d, scope, t);
                  // toEqual per item list is slow at this count: compare the JSON, explain on a miss.
                  if (JSON.stringify(got) !== JSON.stringify(want)) expect(got, `${shape} ${JSON.stringify(scope)}`).toEqual(want);
                  const tally = checked.get(shape) ?? { runs: 0, nonEmpty: 0 };
                  tally.runs++;
                  if (got.ids.length > 0) tally.nonEmpty++;
                  checked.set(shape, tally);
                }
              }
            }
          }
          const options = game.legal(s);
          const next = game.applyTraced(s, options[rng.int(options.length)]!);
          s = next.state;
          triggers = next.trace.triggers.slice(0, 4);
        }
      }
    }
    // Each shape of fused.ts met, and both ways (some runs yield items, some none).
    const shapes = [...checked.keys()];
    for (const head of ["Any>", "MapActorCard>FilterAbility", "MapPlayer>FilterCardOwner>FilterPlayer", "MapActorCard>MapFollowCell>"]) {
      const met = shapes.filter((k) => k.startsWith(head));
      expect(met.length, `a fused ${head}... sentence`).toBeGreaterThan(0);
      expect(
        met.some((k) => checked.get(k)!.nonEmpty > 0 && checked.get(k)!.nonEmpty < checked.get(k)!.runs),
        `${head}... with and without items`,
      ).toBe(true);
    }
  });
});
