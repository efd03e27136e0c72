import { describe, expect, it } from "vitest";
import { at, scenario } from "./scenario.ts";

/** One scenario per starter card, plus the dcg design's two worked examples. */
describe("the dcg design's worked example 1: Abilma Esthasha (attack damage -> poison 2 random enemies -> ailing target dies -> recover 3)", () => {
  it("runs the chain in the seed's order", () => {
    const sc = scenario()
      .withUnit(0, "Abilma Esthasha", "C2")
      .withUnit(1, "Est", "C3") // enemy A, life 2
      .withUnit(1, "Agnis", "A5") // enemy B, life 3
      .act({ kind: "attack", card: 0, cell: at("C3") });
    sc.expect((s) => {
      expect(sc.card(0).life).toBe(9); // 6 -> 9: recovery may exceed the printed life
      expect(sc.card(1).layer).toBe("Grave");
      expect(sc.card(2).ailment).toBe("poison");
      expect(s.players[1].hp).toBe(15); // Est costs 0
    });
    const kinds = sc.trace.triggers.map((t) => t.kind).filter((k) => !["PlayerMpChanged", "AttackCountChanged", "StateChanged"].includes(k));
    expect(kinds).toEqual([
      "AttackDeclared",
      "AttackDamaged",
      "EffectDeclared",
      "CardAilmentChanged",
      "CardAilmentChanged",
      "EffectFinished",
      "AttackDestroyed",
      "CardGraved",
      "EffectDeclared",
      "EffectRecoveredCard",
      "EffectFinished",
      "AttackFinished",
    ]); // no CostDamaged: Est costs 0
    expect(sc.commands()).toEqual([
      "AttackDeclareCommand",
      "AttackDamageCommand",
      "EffectDeclareCommand",
      "EffectFinishCommand",
      "AttackDestroyCommand",
      "EffectDeclareCommand",
      "EffectFinishCommand",
      "AttackFinishCommand",
    ]);
    // The States of the design's table, each entered with a StateChanged.
    expect(sc.states()).toEqual(["AttackDeclare", "AttackDamage", "AttackDestroy", "AttackFinish", "Main"]);
  });

  it("poisons 2 of 3 enemies at random (seeded); recovers only when the dead target was ailing", () => {
    const outcomes = new Set<string>();
    for (let seed = 1; seed <= 40; seed++) {
      const sc = scenario(undefined, seed)
        .withUnit(0, "Abilma Esthasha", "C2")
        .withUnit(1, "Est", "C3")
        .withUnit(1, "Agnis", "A5")
        .withUnit(1, "Agnis", "E5")
        .act({ kind: "attack", card: 0, cell: at("C3") });
      const poisoned = [1, 2, 3].filter((id) => sc.card(id).ailment === "poison");
      expect(poisoned).toHaveLength(2);
      const targetAiling = poisoned.includes(1);
      expect(sc.card(0).life).toBe(targetAiling ? 9 : 6);
      outcomes.add(poisoned.join(","));
    }
    expect(outcomes.size).toBe(3);
  });

  it("does not fire when the attack only damages an object", () => {
    const sc = scenario().withUnit(0, "Abilma Esthasha", "C2").withUnit(1, "Stone Wall", "C3").withUnit(1, "Agnis", "A5");
    sc.act({ kind: "attack", card: 0, cell: at("C3") });
    expect(sc.card(2).ailment).toBe("none");
    expect(sc.life("C3")).toBe(3);
  });
});

describe("the dcg design's worked example 2: Farhalla's AreaAbility D1 (attach, detach out of reach, vanish with the producer)", () => {
  it("attaches to allies in reach, detaches when one walks away, vanishes when Farhalla goes to the Grave", () => {
    const sc = scenario()
      .withHand(0, "Farhalla")
      .withUnit(0, "Agnis", "B2") // ally A (left)
      .withUnit(0, "Est", "D2") // ally B (right)
      .withUnit(0, "Agnis", "C0") // ally C (below, two rows away: out of reach)
      .withUnit(1, "Vogaros", "C3")
      .withPlayer(1, { hp: 10 }); // Vogaros's nightmare is unsealed: attack 5
    const farhalla = 0;
    sc.act({ kind: "summon", card: farhalla, cell: at("C2") });
    expect(sc.triggers("AbilityAttached")).toHaveLength(2);
    expect([sc.attack("B2"), sc.attack("D2"), sc.attack("C0")]).toEqual([3, 2, 2]);
    expect(sc.card(sc.unitAt("B2")).attached.some((a) => a.area && a.producer === farhalla)).toBe(true);

    // Ally A walks out of reach: its buff is detached at the next board update.
    sc.act({ kind: "moveDeclare", card: sc.unitAt("B2"), cell: at("A2") }).act({ kind: "reactNone" });
    expect(sc.triggers("AbilityDetached")).toHaveLength(1);
    expect([sc.attack("A2"), sc.attack("D2")]).toEqual([2, 2]);

    // Farhalla is destroyed on the Guest's turn: every buff it produced goes with it.
    sc.act({ kind: "turnFinish" }).act({ kind: "drawOrCharge", charge: true });
    sc.act({ kind: "attack", card: sc.unitAt("C3"), cell: at("C2") });
    expect(sc.card(farhalla).layer).toBe("Grave");
    expect(sc.attack("D2")).toBe(1);
    expect(sc.state.cards.every((c) => c.attached.every((a) => a.producer !== farhalla))).toBe(true);
    expect(sc.state.players[0].hp).toBe(13); // Farhalla's cost
  });

  it("buffs the attack damage dealt", () => {
    const sc = scenario().withUnit(0, "Farhalla", "C1").withUnit(0, "Agnis", "C2").withUnit(1, "Stone Wall", "C3");
    sc.act({ kind: "attack", card: 1, cell: at("C3") });
    expect(sc.life("C3")).toBe(2); // 5 - (2 + 1)
  });
});

describe("starter cards", () => {
  it("Est (0/1/2) and Agnis (1/2/3): attack damage equals attack; a dead rubric costs its owner its cost", () => {
    const sc = scenario().withUnit(0, "Agnis", "C2").withUnit(0, "Est", "D3").withUnit(1, "Agnis", "C3", { life: 2 }).withUnit(1, "Est", "D4");
    sc.act({ kind: "attack", card: 0, cell: at("C3") });
    expect(sc.unitAt("C3")).toBe(-1);
    expect(sc.state.players[1].hp).toBe(14);
    sc.act({ kind: "attack", card: 1, cell: at("D4") });
    expect(sc.life("D4")).toBe(1);
    expect(sc.state.players[0].attacks).toBe(0);
  });

  it("Blitz: the first move each turn costs 0, the next 1; re-attached at its owner's TurnStarted", () => {
    const sc = scenario().withUnit(0, "Blitz", "C1").withPlayer(0, { mp: 3 }).withBook(0, "Est").withBook(1, "Est");
    sc.act({ kind: "moveDeclare", card: 0, cell: at("C2") }).act({ kind: "reactNone" });
    expect(sc.state.players[0].mp).toBe(3);
    expect(sc.unitAt("C2")).toBe(0);
    sc.act({ kind: "moveDeclare", card: 0, cell: at("C3") }).act({ kind: "reactNone" });
    expect(sc.state.players[0].mp).toBe(2);
    // Guest's turn does not re-attach it; Host's next turn does.
    sc.act({ kind: "turnFinish" }).act({ kind: "drawOrCharge", charge: true }).act({ kind: "turnFinish" });
    expect(sc.triggers("AbilityAttached")).toHaveLength(1);
    sc.act({ kind: "drawOrCharge", charge: true });
    const mp = sc.state.players[0].mp;
    sc.act({ kind: "moveDeclare", card: 0, cell: at("C4") }).act({ kind: "reactNone" });
    expect(sc.state.players[0].mp).toBe(mp);
  });

  it("Blitz: a freshly summoned Blitz has its free move", () => {
    const sc = scenario().withHand(0, "Blitz").withPlayer(0, { mp: 2 });
    sc.act({ kind: "summon", card: 0, cell: at("B1") });
    expect(sc.state.players[0].mp).toBe(0);
    expect(sc.isLegal({ kind: "moveDeclare", card: 0, cell: at("B2") })).toBe(true);
  });

  it("Vogaros: sealed (attack 3) while its owner's HP > 10, attack 5 once HP <= 10", () => {
    const sc = scenario().withUnit(0, "Vogaros", "A1").withPlayer(0, { hp: 11 }).withUnit(0, "Agnis", "C2", { life: 2 }).withFeint(1, "Pitfall", "C3");
    expect(sc.card(0).sealed).toBe(true);
    expect(sc.attack("A1")).toBe(3);
    // Agnis walks into a Pitfall and dies: Host loses 1 HP (Agnis's cost) and Vogaros awakens.
    sc.act({ kind: "moveDeclare", card: 1, cell: at("C3") })
      .act({ kind: "reactNone" })
      .act({ kind: "feintDeclare" });
    expect(sc.card(1).layer).toBe("Grave");
    expect(sc.state.players[0].hp).toBe(10);
    expect(sc.triggers("NightmareUnsealed")).toHaveLength(1);
    expect(sc.card(0).sealed).toBe(false);
    expect(sc.attack("A1")).toBe(5);
  });

  it("Bubble and Stone Wall: objects in the Placement, never move or attack, can be attacked, cost no HP when destroyed", () => {
    const sc = scenario().withHand(0, "Bubble", "Stone Wall").withUnit(1, "Agnis", "C4");
    expect(sc.isLegal({ kind: "summon", card: 0, cell: at("C3") })).toBe(true); // centre row is in the Placement
    sc.act({ kind: "summon", card: 0, cell: at("C3") }).act({ kind: "summon", card: 1, cell: at("B3") });
    expect(sc.state.players[0].mp).toBe(5);
    expect(sc.legal().some((d) => (d.kind === "moveDeclare" || d.kind === "attack") && (d.card === 0 || d.card === 1))).toBe(false);
    sc.act({ kind: "turnFinish" })
      .act({ kind: "drawOrCharge", charge: true })
      .act({ kind: "attack", card: 2, cell: at("C3") });
    expect(sc.card(0).layer).toBe("Grave");
    expect(sc.state.players[0].hp).toBe(15);
    expect(sc.life("B3")).toBe(5);
  });

  it("Pitfall: an enemy rubric entering takes 2 damage when declared (cost paid then); passing reveals it to the Grave", () => {
    const sc = scenario().withUnit(0, "Agnis", "C2").withFeint(1, "Pitfall", "C3").withPlayer(1, { mp: 1 });
    sc.act({ kind: "moveDeclare", card: 0, cell: at("C3") }).act({ kind: "reactNone" });
    expect(sc.state.state.kind).toBe("FeintDeclare");
    sc.act({ kind: "feintDeclare" });
    expect(sc.life("C3")).toBe(1);
    expect(sc.state.players[1].mp).toBe(0);
    expect(sc.card(1).layer).toBe("Grave");
    expect(sc.state.players[1].feint).toBe(-1);

    const pass = scenario().withUnit(0, "Agnis", "C2").withFeint(1, "Pitfall", "C3");
    pass
      .act({ kind: "moveDeclare", card: 0, cell: at("C3") })
      .act({ kind: "reactNone" })
      .act({ kind: "feintPass" });
    expect(pass.life("C3")).toBe(3);
    expect(pass.card(1).layer).toBe("Grave");
  });

  it("Mirage: negates an attack on a unit within Chebyshev 1; the attack is still spent", () => {
    const sc = scenario().withUnit(0, "Agnis", "C2").withUnit(1, "Est", "C3").withFeint(1, "Mirage", "D4");
    sc.act({ kind: "attack", card: 0, cell: at("C3") });
    expect(sc.state.state).toMatchObject({ kind: "FeintDeclare", seat: 1, on: "attack" });
    sc.act({ kind: "feintDeclare" });
    expect(sc.life("C3")).toBe(2);
    expect(sc.state.players[0].attacks).toBe(1);
    expect(sc.card(2).layer).toBe("Grave");
    expect(sc.isLegal({ kind: "attack", card: 0, cell: at("C3") })).toBe(false); // one attack per rubric per turn

    const far = scenario().withUnit(0, "Agnis", "C2").withUnit(1, "Est", "C3").withFeint(1, "Mirage", "E5");
    far.act({ kind: "attack", card: 0, cell: at("C3") });
    expect(far.state.state.kind).toBe("Main");
    expect(far.unitAt("C3")).toBe(-1);
  });

  it("Venom Mist: the entering rubric is poisoned and takes 1 damage at the end of its owner's turn", () => {
    const sc = scenario().withUnit(0, "Agnis", "C2").withFeint(1, "Venom Mist", "C3");
    sc.act({ kind: "moveDeclare", card: 0, cell: at("C3") })
      .act({ kind: "reactNone" })
      .act({ kind: "feintDeclare" });
    expect(sc.card(0).ailment).toBe("poison");
    sc.act({ kind: "turnFinish" });
    expect(sc.life("C3")).toBe(2);
  });
});
