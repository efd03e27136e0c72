import { describe, expect, it } from "vitest";
import { Rng, stateHash } from "../../engine/core/index.ts";
import { SHIPPED_CARDS } from "../../engine/dcg/cards.ts";
import { Draft } from "../../engine/dcg/draft.ts";
import { applyDecision } from "../../engine/dcg/flow.ts";
import { makeDcg, type BattleData, type Decision } from "../../engine/dcg/index.ts";
import { loadPool } from "../../engine/dcg/pool.ts";
import { PLAYER_STATE_READS } from "../../engine/dcg/resolve.ts";
import { phraseHandlers, type PhraseKind } from "../../engine/dcg/targeting.ts";
import { Scenario } from "./scenario.ts";

/**
 * Players-only NightmareAbility seals are re-checked only when the player state their conditions
 * can read moved (resolve.ts's PLAYER_STATE_READS), carried from one apply to the next. These tests
 * hold that list to the phrase handlers, and play games whose seals hang on each of those reads,
 * apply by apply against applies that carry nothing over. (Direct damage never moves today without
 * HP or the turn player moving with it, so only those two reads are caught missing by the games.)
 */
const rubric = (id: string, conditions: unknown[][]) => ({
  id,
  name: id,
  kind: "rubric",
  cost: 1,
  attack: 1,
  life: 4,
  abilities: [
    { type: "NightmareAbility", conditions },
    { type: "ParameterAbility", parameter: "Attack", calc: { mode: "Add", amount: 2 }, lifetime: [] },
  ],
});
const OWN = [{ kind: "MapPlayer" }, { kind: "FilterCardOwner", opponent: false }];
const SEALED_UNLESS = {
  // Its owner's turn.
  "own-turn": [[{ kind: "Any" }, { kind: "FilterTurnPlayer" }]],
  // Its owner took direct damage this turn.
  "hurt-today": [[...OWN, { kind: "FilterPlayerDirectDamageInThisTurn", cmp: "GreaterThanOrEqual", value: 1 }]],
  // Its owner is at 12 HP or less.
  "low-hp": [[...OWN, { kind: "FilterPlayerHp", cmp: "LessThanOrEqual", value: 12 }]],
};
const pool = loadPool([...SHIPPED_CARDS, ...Object.entries(SEALED_UNLESS).map(([id, c]) => rubric(id, c))]);
if (!pool.ok) throw new Error(pool.error.message);
const game = makeDcg(pool.value);

/** One apply that carries nothing from earlier applies (a fresh cache: every seal re-checked on a player write). */
function applyAlone(s: BattleData, decision: Decision): BattleData {
  const d = new Draft(s, game.pool);
  applyDecision(d, decision);
  return d.finish();
}

/** A board where units of both seats hang on each read, and raiders that can reach the enemy home. */
function start(seed: number): BattleData {
  const sc = new Scenario(game, seed)
    .withUnit(0, "own-turn", "A1")
    .withUnit(0, "hurt-today", "B1")
    .withUnit(0, "low-hp", "C1")
    .withUnit(0, "charger", "D3")
    .withUnit(0, "charger", "E4")
    .withUnit(1, "own-turn", "A5")
    .withUnit(1, "hurt-today", "B5")
    .withUnit(1, "low-hp", "C5")
    .withUnit(1, "charger", "D2")
    .withUnit(1, "charger", "E3")
    .withBook(0, "charger", "ember-imp", "charger")
    .withBook(1, "charger", "ember-imp", "charger");
  return sc.expect(() => {}).state;
}

describe("players-only seal checks (carried between applies)", () => {
  it("PLAYER_STATE_READS names exactly the phrases that may read player state in a players-only condition", () => {
    const reading = (Object.keys(phraseHandlers) as PhraseKind[]).filter((k) => {
      const h = phraseHandlers[k];
      return h.playerOnly && h.positional !== true;
    });
    expect(reading.sort()).toEqual(Object.keys(PLAYER_STATE_READS).sort());
  });

  it("random games with seals on the turn player, direct damage and HP match applies that carry nothing over", () => {
    let flips = 0;
    for (let seed = 1; seed <= 12; seed++) {
      const rng = Rng.seeded(seed);
      let carried = start(seed);
      let alone = carried;
      for (let step = 0; step < 400 && game.actor(carried) !== "terminal"; step++) {
        const legal = game.legal(carried);
        const decision = legal[rng.int(legal.length)]!;
        const next = game.applyTrusted(carried, decision);
        alone = applyAlone(alone, decision);
        expect(stateHash(next), `seed ${seed} step ${step} (${decision.kind})`).toBe(stateHash(alone));
        for (let id = 0; id < next.cards.length; id++) if (next.cards[id]!.sealed !== carried.cards[id]!.sealed) flips++;
        carried = next;
      }
    }
    // The seals really moved during these games (each read is exercised, not just the starting board).
    expect(flips).toBeGreaterThan(20);
  });
});
