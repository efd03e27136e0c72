import { describe, expect, it } from "vitest";
import { abilityHandlers, type AbilityType } from "../../../engine/dcg/ability.ts";
import { SHIPPED_CARDS } from "../../../engine/dcg/cards.ts";
import { makeDcg } from "../../../engine/dcg/index.ts";
import { loadPool } from "../../../engine/dcg/pool.ts";
import { at, scenario } from "./kit.ts";

/** One test per Ability type (docs/cards.md) on a test-only card; the table's keys must be the registry's. */
function gameWith(...cards: unknown[]) {
  const pool = loadPool([...SHIPPED_CARDS, ...cards]);
  if (!pool.ok) throw new Error(pool.error.message);
  return makeDcg(pool.value);
}
const rubric = (id: string, abilities: unknown[], stats = { cost: 1, attack: 1, life: 3 }) => ({ id, name: id, kind: "rubric", ...stats, abilities });
const SELF = [{ kind: "MapActorCard" }, { kind: "FilterAbilityConsumer" }];

const cases: { [K in AbilityType]: () => void } = {
  TriggerAbility: () => {
    // "When summoned, 1 damage to the enemy player" (the first Effect example of the dcg design).
    const game = gameWith(
      rubric("t", [
        {
          type: "TriggerAbility",
          conditions: [[{ kind: "Any" }, { kind: "FilterTriggerKind", triggers: ["Summoned"] }], SELF],
          effect: { kind: "PlayerDamage", amount: 1, target: [{ kind: "MapPlayer" }, { kind: "FilterCardOwner", opponent: true }] },
        },
      ]),
    );
    const sc = scenario(game).withHand(0, "t", "t");
    sc.act({ kind: "summon", card: 0, cell: at("A0") });
    expect(sc.state.players[1].hp).toBe(14);
    expect(sc.commands()).toContain("EffectDeclareCommand");
    sc.act({ kind: "summon", card: 1, cell: at("B0") }); // each answers only its own summon
    expect(sc.state.players[1].hp).toBe(13);
  },
  ParameterAbility: () => {
    // Attack x2 until its first attack is finished.
    const game = gameWith(
      rubric(
        "p",
        [
          {
            type: "ParameterAbility",
            parameter: "Attack",
            calc: { mode: "Multiply", amount: 2 },
            lifetime: [[{ kind: "Any" }, { kind: "FilterTriggerKind", triggers: ["AttackFinished"] }], SELF],
          },
        ],
        { cost: 1, attack: 2, life: 3 },
      ),
    );
    const sc = scenario(game).withUnit(0, "p", "C2").withUnit(1, "Stone Wall", "C3");
    expect(sc.attack("C2")).toBe(4);
    sc.act({ kind: "attack", card: 0, cell: at("C3") });
    expect(sc.life("C3")).toBe(1);
    expect(sc.attack("C2")).toBe(2);
    expect(sc.triggers("AbilityDetached")).toHaveLength(1);
  },
  AreaAbility: () => {
    // Own rubrics in the same row get move cost 0 while they stay there.
    const game = gameWith(
      rubric("a", [
        {
          type: "AreaAbility",
          reach: [{ kind: "MapActorCard" }, { kind: "MapFollowCell", reach: "Row" }, { kind: "FilterCardOwner", opponent: false }],
          ability: { type: "ParameterAbility", parameter: "MoveCost", calc: { mode: "Equalizer", amount: 0 }, lifetime: [] },
        },
      ]),
    );
    const sc = scenario(game).withUnit(0, "a", "A1").withUnit(0, "Agnis", "E1").withPlayer(0, { mp: 0 });
    expect(sc.isLegal({ kind: "moveDeclare", card: 1, cell: at("E2") })).toBe(true);
    sc.act({ kind: "moveDeclare", card: 1, cell: at("E2") }).act({ kind: "reactNone" });
    expect(sc.card(1).attached).toEqual([]); // out of the row: detached
    expect(sc.isLegal({ kind: "moveDeclare", card: 1, cell: at("E1") })).toBe(false);
  },
  NightmareAbility: () => {
    // Sealed unless 2 or more enemy units stand on the field; unsealed, attack +3.
    const game = gameWith(
      rubric("n", [
        {
          type: "NightmareAbility",
          conditions: [[{ kind: "MapCard" }, { kind: "FilterCardOwner", opponent: true }, { kind: "Count", cmp: "GreaterThanOrEqual", value: 2 }]],
        },
        { type: "ParameterAbility", parameter: "Attack", calc: { mode: "Add", amount: 3 }, lifetime: [] },
      ]),
    );
    const sc = scenario(game).withUnit(0, "n", "C2").withUnit(1, "Est", "C3").withHand(1, "Bubble").withTurn(4, 1);
    expect(sc.card(0).sealed).toBe(true);
    expect(sc.attack("C2")).toBe(1);
    sc.act({ kind: "summon", card: 2, cell: at("A6") });
    expect(sc.card(0).sealed).toBe(false);
    expect(sc.attack("C2")).toBe(4);
    expect(sc.triggers("NightmareUnsealed")).toHaveLength(1);
  },
};

describe("Ability types", () => {
  it("every Ability type of the registry has a test here, and only those", () => {
    expect(Object.keys(cases).sort()).toEqual(Object.keys(abilityHandlers).sort());
  });
  for (const [type, run] of Object.entries(cases)) it(type, run);
});
