import { describe, expect, it } from "vitest";
import { SHIPPED_CARDS } from "../../../engine/dcg/cards.ts";
import { makeDcg } from "../../../engine/dcg/index.ts";
import { canAttack, canMove, effectiveCost, effectiveLife, FLAG_PARAMETERS } from "../../../engine/dcg/params.ts";
import { loadPool } from "../../../engine/dcg/pool.ts";
import { attach, damageCard, setSealed } from "../../../engine/dcg/ops.ts";
import { at, ids, mutate, scenario } from "./kit.ts";
import { TRIGGER_NO } from "../../../engine/dcg/trigger.ts";

/** Parameters beyond Attack and MoveCost: the flags (BooleanCalculator) and the stats the rules read. */
function gameWith(...cards: unknown[]) {
  const pool = loadPool([...SHIPPED_CARDS, ...cards]);
  if (!pool.ok) throw new Error(pool.error.message);
  return makeDcg(pool.value);
}
const rubric = (id: string, abilities: unknown[], stats = { cost: 1, attack: 1, life: 3 }) => ({ id, name: id, kind: "rubric", ...stats, abilities });
const param = (parameter: string, calc: unknown, lifetime: unknown[] = []) => ({ type: "ParameterAbility", parameter, calc, lifetime });

describe("flag parameters (BooleanCalculator)", () => {
  it("CanMove: an area that sets it false on adjacent enemies takes their moves away", () => {
    const game = gameWith(
      rubric("snare", [
        {
          type: "AreaAbility",
          reach: [{ kind: "MapActorCard" }, { kind: "MapFollowCell", reach: "D1" }, { kind: "FilterCardOwner", opponent: true }],
          ability: param("CanMove", { mode: "Set", value: false }),
        },
      ]),
    );
    const sc = scenario(game).withUnit(1, "snare", "C3").withUnit(0, "Agnis", "C2").withUnit(0, "Est", "A1");
    const moves = () =>
      sc
        .legal()
        .filter((d) => d.kind === "moveDeclare")
        .map((d) => (d as { card: number }).card);
    expect(moves()).not.toContain(1);
    expect(moves()).toContain(2);
    expect(canMove(sc.state, sc.pool, 1)).toBe(false);
    expect(game.explain!(sc.state, { kind: "moveDeclare", card: 1, cell: at("B2") })).toMatch(/cannot move .*CanMove/);
    // It can still attack the snare.
    expect(sc.isLegal({ kind: "attack", card: 1, cell: at("C3") })).toBe(true);
  });

  it("CanAttack: Set, And, Or and Not fold in attachment order", () => {
    // Printed: true And false = false, Or false stays false; an attached Not flips it back.
    const game = gameWith(
      rubric("pacifist", [param("CanAttack", { mode: "And", value: false }), param("CanAttack", { mode: "Or", value: false })]),
      rubric("freed", [param("CanAttack", { mode: "Not" })]),
    );
    const sc = scenario(game).withUnit(0, "pacifist", "C2").withUnit(1, "Stone Wall", "C3");
    expect(canAttack(sc.state, sc.pool, 0)).toBe(false);
    expect(sc.isLegal({ kind: "attack", card: 0, cell: at("C3") })).toBe(false);
    expect(game.explain!(sc.state, { kind: "attack", card: 0, cell: at("C3") })).toMatch(/cannot attack .*CanAttack/);
    const not = game.pool.cards[game.pool.byId.get("freed")!]!.paramAbilities[0]!;
    mutate(sc, (d) => attach(d, 0, not, 0, false, "Effect"));
    expect(canAttack(sc.state, sc.pool, 0)).toBe(true);
    expect(sc.isLegal({ kind: "attack", card: 0, cell: at("C3") })).toBe(true);
    // Set overrides whatever came before.
    const game2 = gameWith(rubric("set", [param("CanAttack", { mode: "Set", value: false }), param("CanAttack", { mode: "Set", value: true })]));
    expect(canAttack(scenario(game2).withUnit(0, "set", "C2").state, game2.pool, 0)).toBe(true);
  });

  it("the loader pairs a flag with a BooleanCalculator and a number with a NumericCalculator", () => {
    const bad = (calc: unknown, parameter = "CanAttack") => {
      const r = loadPool([rubric("x", [param(parameter, calc)])]);
      return r.ok ? "ok" : r.error.message;
    };
    expect(bad({ mode: "Add", amount: 1 })).toMatch(/abilities\[0\]\.calc\.amount: unknown field .*CanAttack is a flag/);
    expect(bad({ mode: "Set" })).toMatch(/calc\.value: required/);
    expect(bad({ mode: "Not", value: true })).toMatch(/calc\.value: unknown field/);
    expect(bad({ mode: "Set", value: true }, "Attack")).toMatch(/Attack is a number/);
    expect(bad({ mode: "Or", value: true }, "CanMove")).toBe("ok");
    expect(FLAG_PARAMETERS).toEqual(["CanAttack", "CanMove"]);
  });
});

describe("Cost and Life parameters", () => {
  it("Cost: the HP its owner loses when the rubric is destroyed; the summon is paid at the printed cost", () => {
    const game = gameWith(
      rubric("martyr", [param("Cost", { mode: "Add", amount: 2 })], { cost: 1, attack: 1, life: 1 }),
      rubric("expendable", [param("Cost", { mode: "Equalizer", amount: 0 })], { cost: 2, attack: 1, life: 1 }),
    );
    const sc = scenario(game).withUnit(0, "Agnis", "C2").withUnit(1, "martyr", "C3").withUnit(0, "Agnis", "B2").withUnit(1, "expendable", "B3");
    expect(effectiveCost(sc.state, sc.pool, 1)).toBe(3);
    sc.act({ kind: "attack", card: 0, cell: at("C3") });
    expect(sc.card(1).layer).toBe("Grave");
    expect(sc.state.players[1].hp).toBe(12);
    expect(sc.triggers("CostDamaged")).toHaveLength(1);
    sc.act({ kind: "attack", card: 2, cell: at("B3") });
    expect(sc.card(3).layer).toBe("Grave");
    expect(sc.state.players[1].hp).toBe(12); // Cost 0: nothing lost
    expect(sc.triggers("CostDamaged")).toEqual([]);
    // Summoning pays the printed cost (a card in the hand carries no abilities).
    const s2 = scenario(game).withHand(0, "martyr");
    s2.act({ kind: "summon", card: 0, cell: at("A0") });
    expect(s2.state.players[0].mp).toBe(7);
  });

  it("Life: a unit enters with its full life, and damage is measured from it", () => {
    const game = gameWith(rubric("giant", [param("Life", { mode: "Add", amount: 2 })], { cost: 1, attack: 1, life: 3 }));
    const sc = scenario(game).withHand(0, "giant");
    sc.act({ kind: "summon", card: 0, cell: at("A0") });
    expect(sc.card(0).life).toBe(5);
    const damaged = [{ kind: "MapCard" }, { kind: "FilterCardDamage" }] as const;
    expect(ids(sc, damaged)).toEqual([]);
    mutate(sc, (d) => damageCard(d, 0, 1, TRIGGER_NO.EffectDamagedCard, "Effect", -1));
    expect(ids(sc, damaged)).toEqual([0]);
    expect(ids(sc, [{ kind: "MapCard" }, { kind: "FilterCardDamage", cmp: "Equal", value: 1 }])).toEqual([0]);
  });

  it("Life: a seal that silences its own Life ability takes the life back, lifting it gives it again", () => {
    // Sealed while its owner has more than 10 HP.
    const nightmare = {
      type: "NightmareAbility",
      conditions: [[{ kind: "MapPlayer" }, { kind: "FilterCardOwner", opponent: false }, { kind: "FilterPlayerHp", cmp: "LessThanOrEqual", value: 10 }]],
    };
    const game = gameWith(rubric("brute", [param("Life", { mode: "Add", amount: 2 }), nightmare], { cost: 1, attack: 1, life: 3 }));
    const calm = scenario(game).withPlayer(0, { hp: 10 }).withHand(0, "brute");
    calm.act({ kind: "summon", card: 0, cell: at("A0") });
    expect([calm.card(0).sealed, calm.card(0).life]).toEqual([false, 5]);
    const sc = scenario(game).withHand(0, "brute");
    sc.act({ kind: "summon", card: 0, cell: at("A0") });
    expect([sc.card(0).sealed, sc.card(0).life]).toEqual([true, 3]);
    mutate(sc, (d) => setSealed(d, 0, false, "Battle"));
    expect(sc.card(0).life).toBe(5);
  });

  it("Life: a change on the Field moves current life with it; losing a Life buff can kill", () => {
    const game = gameWith(
      rubric("banner", [
        {
          type: "AreaAbility",
          reach: [{ kind: "MapActorCard" }, { kind: "MapFollowCell", reach: "D1" }, { kind: "FilterCardOwner", opponent: false }],
          ability: param("Life", { mode: "Add", amount: 2 }),
        },
      ]),
    );
    const sc = scenario(game).withUnit(0, "banner", "C1").withUnit(0, "Est", "C2");
    expect(sc.card(1).life).toBe(4); // 2 printed + 2
    expect(effectiveLife(sc.state, sc.pool, 1)).toBe(4);
    expect(ids(sc, [{ kind: "MapCard" }, { kind: "FilterCardDamage" }])).toEqual([]); // a buff is no damage
    mutate(sc, (d) => damageCard(d, 1, 3, TRIGGER_NO.EffectDamagedCard, "Effect", -1));
    expect(sc.card(1).life).toBe(1);
    // Out of the banner's reach: 2 full life, 3 damage taken: it dies.
    sc.act({ kind: "moveDeclare", card: 1, cell: at("D2") }).act({ kind: "reactNone" });
    expect(sc.card(1).layer).toBe("Grave");
    expect(sc.triggers("CardGraved")).toHaveLength(1);
  });
});
