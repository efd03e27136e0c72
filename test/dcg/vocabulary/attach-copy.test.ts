import { describe, expect, it } from "vitest";
import { SHIPPED_CARDS } from "../../../engine/dcg/cards.ts";
import { makeDcg } from "../../../engine/dcg/index.ts";
import { loadPool } from "../../../engine/dcg/pool.ts";
import { at, mutate, scenario } from "./kit.ts";

/**
 * AttachAbility with `source` (the design's "copy the defeated enemy's ability"): the printed
 * TriggerAbilities and ParameterAbilities of the cards the source yields are attached to the target.
 */
function gameWith(...cards: unknown[]) {
  const pool = loadPool([...SHIPPED_CARDS, ...cards]);
  if (!pool.ok) throw new Error(pool.error.message);
  return makeDcg(pool.value);
}
const SELF = [{ kind: "MapActorCard" }, { kind: "FilterAbilityConsumer" }];
const when = (...triggers: string[]) => [{ kind: "Any" }, { kind: "FilterTriggerKind", triggers }];

/** When its attack sends a card to the Grave, it copies that card's abilities. */
const mimic = {
  id: "mimic",
  name: "mimic",
  kind: "rubric",
  cost: 1,
  attack: 3,
  life: 6,
  abilities: [
    {
      type: "TriggerAbility",
      conditions: [[...when("CardGraved"), { kind: "FilterTriggerType", types: ["Attack"] }], SELF],
      effect: { kind: "AttachAbility", source: [{ kind: "MapTargetCard" }], target: [{ kind: "MapCard" }, { kind: "FilterAbilityConsumer" }] },
    },
  ],
};
/** Attack +2; after each of its attacks, 1 damage to the enemy player; and a NightmareAbility, which is never copied. */
const donor = {
  id: "donor",
  name: "donor",
  kind: "rubric",
  cost: 1,
  attack: 1,
  life: 1,
  abilities: [
    { type: "ParameterAbility", parameter: "Attack", calc: { mode: "Add", amount: 2 }, lifetime: [] },
    { type: "NightmareAbility", conditions: [] },
    {
      type: "TriggerAbility",
      conditions: [when("AttackFinished"), SELF],
      effect: { kind: "PlayerDamage", amount: 1, target: [{ kind: "MapPlayer" }, { kind: "FilterCardOwner", opponent: true }] },
    },
  ],
};

describe("AttachAbility copying abilities (source)", () => {
  it("copies the defeated enemy's printed Trigger and Parameter abilities, which then work for the copier", () => {
    const game = gameWith(mimic, donor);
    const pool = game.pool;
    const d = pool.cards[pool.byId.get("donor")!]!;
    const sc = scenario(game).withUnit(0, "mimic", "C2").withUnit(1, "donor", "C3").withUnit(1, "Stone Wall", "D2");
    expect(sc.attack("C2")).toBe(3);
    sc.act({ kind: "attack", card: 0, cell: at("C3") });
    expect(sc.card(1).layer).toBe("Grave");
    // Printed order, the NightmareAbility left out; produced by the copier.
    expect(sc.card(0).attached).toEqual([
      { ability: d.paramAbilities[0], producer: 0, area: false },
      { ability: d.triggerAbilities[0], producer: 0, area: false },
    ]);
    expect(sc.triggers("AbilityAttached")).toHaveLength(2);
    expect(sc.attack("C2")).toBe(5);
    expect(sc.card(0).sealed).toBe(false);
    // The copied TriggerAbility answers for the copier: its attack hurts the donor's owner.
    const hp = sc.state.players[1].hp;
    mutate(sc, (dr) => void (dr.card(0).attacked = -1)); // a rubric attacks once a turn: let it again
    sc.act({ kind: "attack", card: 0, cell: at("D2") });
    expect(sc.state.players[1].hp).toBe(hp - 1);
    expect(sc.card(2).life).toBe(5 - 5);
  });

  it("copies nothing from a card without printed Trigger or Parameter abilities (no trigger)", () => {
    const game = gameWith(mimic);
    const sc = scenario(game).withUnit(0, "mimic", "C2").withUnit(1, "Est", "C3");
    sc.act({ kind: "attack", card: 0, cell: at("C3") });
    expect(sc.card(1).layer).toBe("Grave");
    expect(sc.card(0).attached).toEqual([]);
    expect(sc.triggers("AbilityAttached")).toEqual([]);
  });

  it("takes exactly one of ability and source, and checks the source's Targeting", () => {
    const card = (effect: unknown) => ({
      id: "x",
      name: "x",
      kind: "rubric",
      cost: 1,
      attack: 1,
      life: 1,
      abilities: [{ type: "TriggerAbility", conditions: [when("Summoned")], effect }],
    });
    const both = loadPool([
      card({
        kind: "AttachAbility",
        source: [{ kind: "MapTargetCard" }],
        ability: { type: "ParameterAbility", parameter: "Attack", calc: { mode: "Add", amount: 1 } },
        target: [{ kind: "MapActorCard" }],
      }),
    ]);
    expect(!both.ok && both.error.message).toMatch(/exactly one of ability .* and source/);
    const neither = loadPool([card({ kind: "AttachAbility", target: [{ kind: "MapActorCard" }] })]);
    expect(!neither.ok && neither.error.message).toMatch(/exactly one of/);
    const bad = loadPool([card({ kind: "AttachAbility", source: [{ kind: "FilterCardKind", cardKind: "rubric" }], target: [{ kind: "MapActorCard" }] })]);
    expect(!bad.ok && bad.error.message).toMatch(/abilities\[0\]\.effect\.source/);
  });
});
