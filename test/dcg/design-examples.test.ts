import { describe, expect, it } from "vitest";
import { SHIPPED_CARDS } from "../../engine/dcg/cards.ts";
import { makeDcg } from "../../engine/dcg/index.ts";
import { loadPool } from "../../engine/dcg/pool.ts";
import { at, scenario } from "./scenario.ts";

/** The design document's worked examples, as scenarios (docs/rules/dcg.md, "Where the rules depart from the design document"). */
function gameWith(...cards: unknown[]) {
  const pool = loadPool([...SHIPPED_CARDS, ...cards]);
  if (!pool.ok) throw new Error(pool.error.message);
  return makeDcg(pool.value);
}
const rubric = (id: string, life: number, abilities: unknown[]) => ({ id, name: id, kind: "rubric", cost: 0, attack: 1, life, abilities });
const SELF = [{ kind: "MapActorCard" }, { kind: "FilterAbilityConsumer" }];
const when = (trigger: string, target: unknown[]) => [[{ kind: "Any" }, { kind: "FilterTriggerKind", triggers: [trigger] }], target];

// Card A: "when summoned, 1 damage to every enemy unit".
const A = rubric("chain-a", 3, [
  {
    type: "TriggerAbility",
    conditions: [[{ kind: "Any" }, { kind: "FilterTriggerKind", triggers: ["Summoned"] }], SELF],
    effect: { kind: "CardDamage", amount: 1, target: [{ kind: "MapCard" }, { kind: "FilterCardOwner", opponent: true }] },
  },
]);
// Card B: "when damaged by an ability, 2 damage to the opposing player" (life 1: the damage kills it).
const B = rubric("chain-b", 1, [
  {
    type: "TriggerAbility",
    conditions: when("EffectDamagedCard", [{ kind: "MapTargetCard" }, { kind: "FilterAbilityConsumer" }]),
    effect: { kind: "PlayerDamage", amount: 2, target: [{ kind: "MapPlayer" }, { kind: "FilterCardOwner", opponent: true }] },
  },
]);
// Card C: "when an ally is destroyed, recover 2 HP".
const C = rubric("chain-c", 3, [
  {
    type: "TriggerAbility",
    conditions: when("CardGraved", [{ kind: "MapTargetCard" }, { kind: "FilterCardOwner", opponent: false }]),
    effect: { kind: "PlayerRecoverHp", amount: 2, target: [{ kind: "MapPlayer" }, { kind: "FilterCardOwner", opponent: false }] },
  },
]);
const D = rubric("chain-d", 3, []);

describe("the design document's trigger chain: summon -> damage -> destruction", () => {
  it("A's summon damages B, C and D; B answers its damage with 2 to the opposing player, dies, and C's owner recovers 2", () => {
    const game = gameWith(A, B, C, D);
    const sc = scenario(game)
      .withHand(0, "chain-a")
      .withUnit(1, "chain-b", "A5")
      .withUnit(1, "chain-c", "C5")
      .withUnit(1, "chain-d", "E5")
      .withPlayer(1, { hp: 10 });
    const [b, c, d] = [sc.unitAt("A5"), sc.unitAt("C5"), sc.unitAt("E5")];
    const a = sc.id("chain-a");
    sc.act({ kind: "summon", card: a, cell: at("C0") });
    sc.expect((s) => {
      expect(sc.card(b).layer).toBe("Grave");
      expect([sc.card(c).life, sc.card(d).life]).toEqual([2, 2]);
      expect(s.players[0].hp).toBe(13); // B's 2 damage
      expect(s.players[1].hp).toBe(12); // C's recovery
    });
    // The document's steps in order: Summoned (1), A's ability (2), the damage (3) with one
    // EffectDamagedCard per enemy (4), B's ability (5) and its player damage (6, 7), B to the
    // Grave (8, 9), C's ability (10).
    const chain = sc.trace.triggers
      .map((t) => t.kind)
      .filter((k) => ["Summoned", "EffectDeclared", "EffectDamagedCard", "EffectDamagedPlayerHp", "CardGraved", "EffectRecoveredPlayerHp"].includes(k));
    expect(chain).toEqual([
      "Summoned",
      "EffectDeclared",
      "EffectDamagedCard",
      "EffectDamagedCard",
      "EffectDamagedCard",
      "EffectDeclared",
      "EffectDamagedPlayerHp",
      "CardGraved",
      "EffectDeclared",
      "EffectRecoveredPlayerHp",
    ]);
  });
});

/**
 * The design document's Abilma example: Abilma (attack 2, life 6) attacks enemy A (life 2) with
 * enemies B (life 3) and C (life 4) beside it; its first ability poisons two random enemies, here B
 * and C. The document's table then shows the second ability recovering Abilma to 9, but that
 * ability's text asks for an ailing target, and A, the card the attack sent to the Grave, is not
 * ailing. The engine follows the text (docs/rules/dcg.md explains why).
 */
describe("the design document's Abilma example with B and C poisoned", () => {
  function attackWithSeed(seed: number) {
    return scenario(undefined, seed)
      .withUnit(0, "Abilma Esthasha", "C2")
      .withUnit(1, "Est", "C3") // enemy A, life 2
      .withUnit(1, "Agnis", "A5") // enemy B, life 3
      .withUnit(1, "Agnis", "E5", { life: 4 }) // enemy C, life 4
      .act({ kind: "attack", card: 0, cell: at("C3") });
  }
  const BC_SEED = 5; // a seed whose random pick is B and C;

  it("A dies unpoisoned, B and C are poisoned, and Abilma does not recover (the text), not 6 -> 9 (the table)", () => {
    const sc = attackWithSeed(BC_SEED);
    expect([1, 2, 3].map((id) => sc.card(id).ailment)).toEqual(["none", "poison", "poison"]);
    expect(sc.card(1).layer).toBe("Grave");
    expect([sc.card(2).life, sc.card(3).life]).toEqual([3, 4]);
    expect(sc.card(0).life).toBe(6);
    expect(sc.triggers("EffectRecoveredCard")).toEqual([]);
  });

  it("the table's reading is a different card, expressible as data: 'when an attack sends an enemy to the Grave while some enemy is ailing'", () => {
    const abilma = SHIPPED_CARDS.find((c) => (c as { id: string }).id === "abilma-esthasha") as { no?: number; abilities: { conditions?: unknown[][] }[] };
    const { no: _printedNo, ...printed } = abilma;
    const [first, second] = abilma.abilities;
    const tableReading = {
      ...printed,
      id: "abilma-table",
      name: "Abilma (table reading)",
      abilities: [
        first,
        {
          ...second,
          conditions: [
            second!.conditions![0],
            second!.conditions![1],
            [
              { kind: "MapCard" },
              { kind: "FilterCardOwner", opponent: true },
              { kind: "FilterCardKind", cardKind: "rubric" },
              { kind: "FilterCardAilment", ailment: "any" },
            ],
          ],
        },
      ],
    };
    const sc = scenario(gameWith(tableReading), BC_SEED)
      .withUnit(0, "abilma-table", "C2")
      .withUnit(1, "Est", "C3")
      .withUnit(1, "Agnis", "A5")
      .withUnit(1, "Agnis", "E5", { life: 4 })
      .act({ kind: "attack", card: 0, cell: at("C3") });
    expect([1, 2, 3].map((id) => sc.card(id).ailment)).toEqual(["none", "poison", "poison"]);
    expect(sc.card(0).life).toBe(9); // as the table shows
  });

  it("when the random pick includes A, the same attack recovers Abilma 6 -> 9", () => {
    const sc = attackWithSeed(1);
    expect(sc.card(1).ailment).toBe("poison");
    expect(sc.card(0).life).toBe(9);
  });
});
