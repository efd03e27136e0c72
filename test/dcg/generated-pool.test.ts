import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { BALANCE_BAND, balanceCheck } from "../../agents/dcg-pool-balance.ts";
import { replay, Rng, stateHash, type GameRecord } from "../../engine/core/index.ts";
import { registry } from "../../engine/games.ts";
import { generateCardSet, MAX_GENERATED_CARDS } from "../../engine/dcg/generate.ts";
import { dcg, type BattleData } from "../../engine/dcg/index.ts";
import { checkCardFiles } from "../../scripts/cards/check-card-files.ts";

/**
 * Generated card pools (docs/cards.md, "Generated pools"). The balance check's game count:
 * 1000 by default (about 4 s here); CARDGYM_POOL_GAMES=n and CARDGYM_POOL_SEED=s for other runs.
 */
const GAMES = Number(process.env.CARDGYM_POOL_GAMES ?? 1000);
const SEED = Number(process.env.CARDGYM_POOL_SEED ?? 1);

describe("generated card pools", () => {
  it("are pure: the same spec gives the same JSON, another seed another pool", () => {
    const a = JSON.stringify(generateCardSet({ seed: 5, cards: 40 }));
    expect(JSON.stringify(generateCardSet({ seed: 5, cards: 40 }))).toBe(a);
    expect(JSON.stringify(generateCardSet({ seed: 6, cards: 40 }))).not.toBe(a);
    expect(() => generateCardSet({ seed: 1, cards: MAX_GENERATED_CARDS + 1 })).toThrow(RangeError);
  });

  it("pass validate-cards (schema and loader) and use the whole vocabulary across a few seeds", () => {
    const dir = mkdtempSync(join(tmpdir(), "cardgym-gen-"));
    try {
      const kinds = new Set<string>();
      for (const seed of [SEED, 2, 3, 4]) {
        const set = generateCardSet({ seed, cards: 40 });
        expect(set.cards).toHaveLength(40);
        const file = join(dir, `gen-${seed}.json`);
        writeFileSync(file, JSON.stringify(set));
        const r = checkCardFiles([file]);
        expect(r.problems).toEqual([]);
        expect(r.books).toBe(4);
        JSON.stringify(set, (k, v: unknown) => {
          if ((k === "kind" || k === "type" || k === "mode" || k === "cmp" || k === "parameter") && typeof v === "string") kinds.add(v);
          if (k === "source") kinds.add("AttachAbility source");
          return v;
        });
      }
      for (const name of [
        "TriggerAbility",
        "ParameterAbility",
        "AreaAbility",
        "NightmareAbility",
        "PlayerDamage",
        "CardDamage",
        "AttachAbility",
        "ConsumeFeint",
        "MapFollowCell",
        "FilterActivateCount",
        "Take",
        "Multiply",
        "LessThan",
        "feint",
        "object",
        // The vocabulary added after the generator's first version: copy, boolean flags, Cost/Life, life and state filters.
        "AttachAbility source",
        "CanAttack",
        "CanMove",
        "Not",
        "Set",
        "Life",
        "Cost",
        "FilterCardHp",
        "FilterTriggerState",
      ]) {
        expect(kinds, name).toContain(name);
      }
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it("config cardPool: validated, bounded, its books by default, records replay from the spec", () => {
    const bad = (cardPool: unknown, extra: Record<string, unknown> = {}) => {
      const r = dcg.parseConfig({ cardPool, ...extra });
      expect(r.ok).toBe(false);
      return r.ok ? "" : `${r.error.code} ${r.error.path ?? ""} ${r.error.message}`;
    };
    expect(bad({ generate: { seed: 1, cards: MAX_GENERATED_CARDS + 1 } })).toMatch(/invalid_config cardPool.generate.cards .*8\.\.200/);
    expect(bad({ generate: { seed: -1, cards: 40 } })).toMatch(/invalid_config cardPool.generate /);
    expect(bad({ generate: { seed: 1, cards: 40 }, extra: 1 })).toMatch(/cardPool must be/);
    expect(bad("x")).toMatch(/cardPool must be/);
    expect(bad({ generate: { seed: 1, cards: 40 } }, { cardSet: { cards: [] } })).toMatch(/either cardSet or cardPool/);

    const cfg = dcg.parseConfig({ cardPool: { generate: { seed: 9, cards: 40 } } });
    if (!cfg.ok) throw new Error(cfg.error.message);
    expect(cfg.value.books).toEqual(["gen-9-book-0", "gen-9-book-1"]);
    expect(cfg.value.cardPool).toEqual({ generate: { seed: 9, cards: 40 } });
    expect("cardSet" in cfg.value).toBe(false);
    expect(dcg.poolFor(cfg.value).cards).toHaveLength(dcg.pool.cards.length + 40);
    // A game, then its record replayed from JSON (the config carries only the spec).
    const rng = Rng.seeded(3);
    let s: BattleData = dcg.setup(cfg.value, 11);
    const decisions: unknown[] = [];
    while (dcg.actor(s) !== "terminal") {
      const d = rng.pick(dcg.legal(s));
      decisions.push(d);
      s = dcg.applyTrusted(s, d);
    }
    const record = JSON.parse(
      JSON.stringify({ game: "dcg", version: dcg.info.version, config: cfg.value, seed: 11, decisions, finalHash: stateHash(s) }),
    ) as GameRecord;
    expect(JSON.stringify(record.config)).not.toContain("abilities");
    const replayed = replay(registry, record);
    expect(replayed.ok, replayed.ok ? "" : replayed.error.message).toBe(true);
  });

  it(`a 40-card pool plays ${GAMES} random games with no error, its books within ${BALANCE_BAND.join("..")}`, async () => {
    const report = await balanceCheck({ seed: SEED, cards: 40 }, { games: GAMES });
    expect(report.books).toHaveLength(4);
    expect(report.books.reduce((n, b) => n + b.games, 0)).toBe(2 * GAMES);
    for (const b of report.books) {
      expect(b.score, JSON.stringify(report.books)).toBeGreaterThanOrEqual(BALANCE_BAND[0]);
      expect(b.score, JSON.stringify(report.books)).toBeLessThanOrEqual(BALANCE_BAND[1]);
    }
  });
});
