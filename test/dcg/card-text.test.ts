import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { Rng } from "../../engine/core/index.ts";
import { abilityHandlers } from "../../engine/dcg/ability.ts";
import { BOOLEAN_CALCULATOR_MODES, CALCULATOR_MODES } from "../../engine/dcg/calculator.ts";
import { CARD_TEXT_PHRASES, cardStats, cardText } from "../../engine/dcg/card-text.ts";
import { COMPARATORS } from "../../engine/dcg/comparator.ts";
import { EFFECT_FIELDS } from "../../engine/dcg/effect.ts";
import { HEAD_FIELDS } from "../../engine/dcg/heads.ts";
import { dcg, type Pool } from "../../engine/dcg/index.ts";
import { PARAMETERS } from "../../engine/dcg/params.ts";
import { PIPE_FIELDS } from "../../engine/dcg/pipes.ts";
import { STATE_KINDS } from "../../engine/dcg/state.ts";
import { TRIGGER_KINDS, TRIGGER_TYPES } from "../../engine/dcg/trigger.ts";
import { DIRECTIONS, LAYERS, REACHES, ROW_NAMES } from "../../engine/dcg/validate.ts";
import { CardGen } from "./card-gen.ts";

/** Words that mean the generator fell back instead of saying what the card does. */
const BROKEN = /unknown|undefined|null|NaN|\[object|⟨a⟩|⟨t⟩|\bthing\b/;
/** The shipped cards are meaningful too: each effect reaches something, each trigger names its moment. */
const FALLBACK = new RegExp(`${BROKEN.source}|anything happens|\\bnothing\\b`);

const vocabularyPool = (): Pool => {
  const cfg = dcg.parseConfig({ cardSet: JSON.parse(readFileSync(new URL("../../cards/vocabulary.json", import.meta.url), "utf8")) });
  if (!cfg.ok) throw new Error(cfg.error.message);
  return dcg.poolFor(cfg.value);
};

const textOf = (pool: Pool, id: string): string[] => cardText(pool.cards[pool.byId.get(id)!]!, pool);

describe("dcg card text", () => {
  it("gives every ability of every shipped card (default pool and cards/vocabulary.json) a sentence, with no fallback words", () => {
    const pool = vocabularyPool();
    expect(pool.cards.length).toBeGreaterThan(dcg.pool.cards.length);
    for (const def of pool.cards) {
      const lines = cardText(def, pool);
      expect(lines.length, def.id).toBe(def.kind === "feint" ? 1 : def.abilities.length);
      for (const line of lines) {
        expect(line, def.id).not.toMatch(FALLBACK);
        expect(line, def.id).toMatch(/^[A-Z].*\.$/);
      }
      expect(cardStats(def)).toContain(`${def.cost} MP`);
    }
  });

  it("says what the cards do, from their data", () => {
    const pool = vocabularyPool();
    expect(textOf(pool, "ember-imp")).toEqual(["When this unit is summoned: deal 1 damage to the enemy player."]);
    expect(textOf(pool, "lancer")).toEqual(["When this unit is summoned: deal 1 damage to every enemy unit in the enemy's front row."]);
    expect(textOf(pool, "wisp")).toEqual(["When this unit goes to the grave: draw 1 card."]);
    expect(textOf(pool, "pitfall")).toEqual(["When an enemy unit enters its cell, declare it (1 MP) to deal 2 damage to the entering unit."]);
    expect(textOf(pool, "thornguard")[0]).toBe("When a unit's attack damages one of your units (once per turn): deal 1 damage to the attacker.");
    expect(textOf(pool, "raider")[0]).toMatch(/this unit .*enemy's home rows.*attack \+1/);
    expect(textOf(pool, "berserker")[0]).toContain('give this unit "attack ×2 until it finishes an attack"');
    expect(textOf(pool, "vogaros")).toEqual(["Its other abilities are sealed unless you have 10 or less HP.", "Attack +2."]);
    expect(textOf(pool, "snare-weaver")[0]).toBe("Aura: every enemy rubric orthogonally next to this unit: cannot move.");
    expect(textOf(pool, "headhunter")[0]).toBe("When this unit sends an enemy unit with cost 1 or more to the grave by an attack: draw 1 card.");
    expect(textOf(pool, "est")).toEqual([]);
  });

  it("has a phrase for every kind of every vocabulary list", () => {
    const keys = (o: object) => Object.keys(o).sort();
    expect(keys(CARD_TEXT_PHRASES.heads)).toEqual(keys(HEAD_FIELDS));
    expect(keys(CARD_TEXT_PHRASES.pipes)).toEqual(keys(PIPE_FIELDS));
    expect(keys(CARD_TEXT_PHRASES.effects)).toEqual(keys(EFFECT_FIELDS));
    expect(keys(CARD_TEXT_PHRASES.abilities)).toEqual(keys(abilityHandlers));
    expect(keys(CARD_TEXT_PHRASES.comparators)).toEqual([...COMPARATORS].sort());
    expect(keys(CARD_TEXT_PHRASES.calculators)).toEqual([...CALCULATOR_MODES].sort());
    expect(keys(CARD_TEXT_PHRASES.flags)).toEqual([...BOOLEAN_CALCULATOR_MODES].sort());
    expect(keys(CARD_TEXT_PHRASES.parameters)).toEqual([...PARAMETERS].sort());
    expect(keys(CARD_TEXT_PHRASES.triggers)).toEqual([...TRIGGER_KINDS].sort());
    expect(keys(CARD_TEXT_PHRASES.triggerTypes)).toEqual([...TRIGGER_TYPES].sort());
    expect(keys(CARD_TEXT_PHRASES.states)).toEqual([...STATE_KINDS].sort());
    expect(keys(CARD_TEXT_PHRASES.reaches)).toEqual([...REACHES].sort());
    expect(keys(CARD_TEXT_PHRASES.rows)).toEqual([...ROW_NAMES].sort());
    expect(keys(CARD_TEXT_PHRASES.layers)).toEqual([...LAYERS].sort());
    expect(keys(CARD_TEXT_PHRASES.directions)).toEqual([...DIRECTIONS].sort());
  });

  it("words random card sets drawn from the card schema (every kind in every position) without broken phrases", () => {
    let cards = 0;
    for (let seed = 1; seed <= 60; seed++) {
      const set = new CardGen(Rng.seeded(seed)).cardSet(`t${seed}`);
      const cfg = dcg.parseConfig({ cardSet: set });
      if (!cfg.ok) continue;
      const pool = dcg.poolFor(cfg.value);
      for (const def of pool.cards.slice(dcg.pool.cards.length)) {
        for (const line of cardText(def, pool)) expect(line, `${def.id}: ${line}`).not.toMatch(BROKEN);
        cards++;
      }
    }
    expect(cards).toBeGreaterThan(20);
  });
});
