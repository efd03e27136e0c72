import { describe, expect, it } from "vitest";
import { dcg } from "../../engine/dcg/index.ts";
import { at, scenario } from "./scenario.ts";

/**
 * One scenario per shipped card, keyed by card id: the card does what its JSON says, through the
 * real flow (summon, move, attack, feint windows, turn changes). The starters have deeper tests
 * in cards.test.ts (the dcg design's worked examples).
 */
const cases: Record<string, () => void> = {
  // ---------------------------------------------------------------- starters
  est: () => {
    const sc = scenario().withHand(0, "Est").withUnit(0, "Est", "C2").withUnit(1, "Stone Wall", "C3");
    sc.act({ kind: "summon", card: 0, cell: at("A0") }).act({ kind: "attack", card: 1, cell: at("C3") });
    expect([sc.state.players[0].mp, sc.life("C3")]).toEqual([8, 4]);
  },
  agnis: () => {
    const sc = scenario().withHand(0, "Agnis").withUnit(0, "Agnis", "C2").withUnit(1, "Stone Wall", "C3");
    sc.act({ kind: "summon", card: 0, cell: at("A0") }).act({ kind: "attack", card: 1, cell: at("C3") });
    expect([sc.state.players[0].mp, sc.life("C3")]).toEqual([7, 3]);
  },
  blitz: () => {
    const sc = scenario().withUnit(0, "Blitz", "C1").withPlayer(0, { mp: 0 });
    sc.act({ kind: "moveDeclare", card: 0, cell: at("C2") }).act({ kind: "reactNone" });
    expect(sc.unitAt("C2")).toBe(0);
    expect(sc.isLegal({ kind: "moveDeclare", card: 0, cell: at("C3") })).toBe(false); // the next move costs 1
  },
  farhalla: () => {
    const sc = scenario().withUnit(0, "Farhalla", "C1").withUnit(0, "Agnis", "C2").withUnit(0, "Agnis", "D2");
    expect([sc.attack("C2"), sc.attack("D2"), sc.attack("C1")]).toEqual([3, 2, 1]);
  },
  "abilma-esthasha": () => {
    const sc = scenario().withUnit(0, "Abilma Esthasha", "C2").withUnit(1, "Agnis", "C3").withUnit(1, "Est", "A6");
    sc.act({ kind: "attack", card: 0, cell: at("C3") });
    expect([sc.card(1).ailment, sc.card(2).ailment, sc.life("C3")]).toEqual(["poison", "poison", 1]);
  },
  vogaros: () => {
    const sc = scenario().withUnit(0, "Vogaros", "C2").withUnit(1, "Stone Wall", "C3");
    expect(sc.attack("C2")).toBe(3);
    sc.withPlayer(0, { hp: 10 });
    sc.act({ kind: "attack", card: 0, cell: at("C3") });
    expect(sc.unitAt("C3")).toBe(-1); // 5 damage
  },
  bubble: () => {
    const sc = scenario().withUnit(0, "Agnis", "C2").withHand(1, "Bubble").withPlayer(1, { mp: 1 });
    sc.act({ kind: "moveDeclare", card: 0, cell: at("C3") }).act({ kind: "reactSummon", card: 1, cell: at("C3") });
    expect(sc.state.state.kind).toBe("MoveRetry");
    expect([sc.unitAt("C3"), sc.state.players[1].mp]).toEqual([1, 0]);
  },
  "stone-wall": () => {
    const sc = scenario().withHand(0, "Stone Wall").withUnit(1, "Vogaros", "C4");
    sc.act({ kind: "summon", card: 0, cell: at("C3") });
    expect([sc.life("C3"), sc.state.players[0].mp]).toEqual([5, 6]);
  },
  pitfall: () => {
    const sc = scenario().withUnit(0, "Agnis", "C2").withFeint(1, "Pitfall", "C3");
    sc.act({ kind: "moveDeclare", card: 0, cell: at("C3") })
      .act({ kind: "reactNone" })
      .act({ kind: "feintDeclare" });
    expect(sc.life("C3")).toBe(1);
  },
  mirage: () => {
    const sc = scenario().withUnit(0, "Agnis", "C2").withUnit(1, "Est", "C3").withFeint(1, "Mirage", "C4");
    sc.act({ kind: "attack", card: 0, cell: at("C3") }).act({ kind: "feintDeclare" });
    expect(sc.life("C3")).toBe(2);
  },
  "venom-mist": () => {
    const sc = scenario().withUnit(0, "Agnis", "C2").withFeint(1, "Venom Mist", "C3");
    sc.act({ kind: "moveDeclare", card: 0, cell: at("C3") })
      .act({ kind: "reactNone" })
      .act({ kind: "feintDeclare" });
    expect(sc.card(0).ailment).toBe("poison");
  },

  // ---------------------------------------------------------------- expansion
  "ember-imp": () => {
    const sc = scenario().withHand(0, "Ember Imp");
    sc.act({ kind: "summon", card: 0, cell: at("B1") });
    expect(sc.state.players.map((p) => p.hp)).toEqual([15, 14]);
    expect(sc.state.players[0].mp).toBe(7);
  },
  "leech-knight": () => {
    const sc = scenario().withUnit(0, "Leech Knight", "C2").withUnit(1, "Stone Wall", "C3").withPlayer(0, { hp: 10 });
    sc.act({ kind: "attack", card: 0, cell: at("C3") });
    expect([sc.life("C3"), sc.state.players[0].hp]).toEqual([3, 11]);
  },
  wisp: () => {
    const sc = scenario().withUnit(0, "Agnis", "C2").withUnit(1, "Wisp", "C3").withBook(1, "Est");
    sc.act({ kind: "attack", card: 0, cell: at("C3") });
    expect(sc.card(1).layer).toBe("Grave");
    expect(sc.state.hands[1]).toEqual([2]); // its owner drew the Est
    expect(sc.state.players[1].hp).toBe(15); // Wisp costs 0
  },
  charger: () => {
    const sc = scenario().withHand(0, "Charger", "Charger").withUnit(1, "Est", "D3");
    sc.act({ kind: "summon", card: 0, cell: at("C2") });
    expect(sc.card(0).cell).toBe(at("C3")); // stepped forward into the centre row
    sc.act({ kind: "summon", card: 1, cell: at("D2") });
    expect(sc.card(1).cell).toBe(at("D2")); // blocked by the Est
  },
  trickster: () => {
    const sc = scenario().withUnit(0, "Trickster", "C2").withUnit(1, "Stone Wall", "C3");
    sc.act({ kind: "attack", card: 0, cell: at("C3") });
    expect([sc.unitAt("C3"), sc.unitAt("C2")]).toEqual([0, 1]);
    expect(sc.card(1).life).toBe(3);
  },
  headhunter: () => {
    const sc = scenario()
      .withUnit(0, "Headhunter", "C2")
      .withUnit(0, "Headhunter", "A2")
      .withUnit(1, "Agnis", "C3", { life: 2 })
      .withUnit(1, "Est", "A3")
      .withBook(0, "Est", "Est");
    sc.act({ kind: "attack", card: 0, cell: at("C3") });
    expect(sc.state.hands[0]).toHaveLength(1); // killed a cost-1 rubric: draw
    sc.act({ kind: "attack", card: 1, cell: at("A3") });
    expect(sc.card(3).layer).toBe("Grave");
    expect(sc.state.hands[0]).toHaveLength(1); // Est costs 0: no draw
  },
  sapper: () => {
    const sc = scenario().withHand(0, "Sapper").withUnit(0, "Sapper", "E1").withFeint(1, "Pitfall", "B3").withFeint(0, "Mirage", "E3");
    sc.act({ kind: "summon", card: 0, cell: at("C2") });
    expect(sc.card(2).layer).toBe("Grave"); // B3 is diagonal to C2
    expect(sc.card(3).layer).toBe("Field");
    // After a move: every feint around it, its owner's too.
    sc.act({ kind: "moveDeclare", card: 1, cell: at("E2") }).act({ kind: "reactNone" });
    expect(sc.card(3).layer).toBe("Grave");
  },
  berserker: () => {
    const sc = scenario().withTurn(4, 1).withUnit(0, "Berserker", "C2").withUnit(1, "Agnis", "C3").withUnit(1, "Est", "B2").withUnit(1, "Stone Wall", "D2");
    sc.act({ kind: "attack", card: 2, cell: at("C2") }); // Est hits for 1: not enough
    expect(sc.attack("C2")).toBe(2);
    sc.act({ kind: "attack", card: 1, cell: at("C2") }); // Agnis hits for 2: enraged
    expect(sc.attack("C2")).toBe(4);
    sc.withTurn(5, 0);
    sc.act({ kind: "attack", card: 0, cell: at("D2") });
    expect(sc.life("D2")).toBe(1);
    expect(sc.attack("C2")).toBe(2); // only its next attack
  },
  "banner-knight": () => {
    const sc = scenario()
      .withUnit(0, "Banner Knight", "C1")
      .withUnit(0, "Est", "D2")
      .withUnit(0, "Agnis", "B1")
      .withUnit(0, "Est", "A1")
      .withUnit(1, "Est", "C2");
    // S1: attack at least 2 for own rubrics around it; others unchanged.
    expect([sc.attack("D2"), sc.attack("B1"), sc.attack("A1"), sc.attack("C2")]).toEqual([2, 2, 1, 1]);
  },
  hexer: () => {
    const sc = scenario().withUnit(0, "Hexer", "C2").withUnit(1, "Agnis", "C3").withUnit(1, "Agnis", "D3").withUnit(0, "Agnis", "B2");
    expect([sc.attack("C3"), sc.attack("D3"), sc.attack("B2")]).toEqual([1, 2, 2]);
  },
  lancer: () => {
    const sc = scenario().withHand(0, "Lancer").withUnit(1, "Agnis", "C4").withUnit(1, "Stone Wall", "A4").withUnit(1, "Est", "C5").withUnit(0, "Agnis", "E2");
    sc.act({ kind: "summon", card: 0, cell: at("B2") });
    expect([sc.life("C4"), sc.life("A4"), sc.life("C5"), sc.life("E2")]).toEqual([2, 4, 2, 3]);
  },
  raider: () => {
    const sc = scenario().withUnit(0, "Raider", "C3");
    expect(sc.attack("C3")).toBe(1);
    sc.act({ kind: "moveDeclare", card: 0, cell: at("C4") }).act({ kind: "reactNone" });
    expect(sc.attack("C4")).toBe(2); // invading the enemy home
    sc.act({ kind: "direct", card: 0 });
    expect(sc.state.players[1].hp).toBe(14); // 2, minus 1 from the enemy front row
  },
  thornguard: () => {
    const sc = scenario().withTurn(4, 1).withUnit(0, "Thornguard", "A0").withUnit(0, "Stone Wall", "C2").withUnit(1, "Agnis", "C3").withUnit(1, "Agnis", "B2");
    sc.act({ kind: "attack", card: 2, cell: at("C2") });
    expect(sc.life("C3")).toBe(2); // the attacker takes 1
    sc.act({ kind: "attack", card: 3, cell: at("C2") });
    expect(sc.life("B2")).toBe(3); // once per turn
  },
  plaguebearer: () => {
    const sc = scenario()
      .withTurn(4, 1)
      .withUnit(0, "Plaguebearer", "A0")
      .withFeint(0, "Venom Mist", "C3")
      .withUnit(1, "Agnis", "C4")
      .withUnit(1, "Est", "A5", { ailment: "poison" });
    sc.act({ kind: "moveDeclare", card: 2, cell: at("C3") })
      .act({ kind: "reactNone" })
      .act({ kind: "feintDeclare" });
    expect(sc.card(2).ailment).toBe("poison");
    expect([sc.life("C3"), sc.life("A5")]).toEqual([3, 1]); // every other poisoned enemy takes 1
  },
  mentor: () => {
    const sc = scenario().withHand(0, "Mentor").withUnit(0, "Agnis", "C1").withUnit(1, "Agnis", "A1").withUnit(1, "Agnis", "B0");
    sc.act({ kind: "summon", card: 0, cell: at("A0") });
    expect(sc.attack("C1")).toBe(3);
    expect(sc.attack("A0")).toBe(1); // not itself
    sc.withTurn(4, 1)
      .act({ kind: "attack", card: 2, cell: at("A0") })
      .act({ kind: "attack", card: 3, cell: at("A0") });
    expect(sc.card(0).layer).toBe("Grave");
    expect(sc.attack("C1")).toBe(2); // the bond ends with its producer
  },
  "siege-captain": () => {
    const sc = scenario().withUnit(0, "Siege Captain", "B5").withBook(0, "Est").withBook(1, "Est");
    sc.act({ kind: "direct", card: 0 }).act({ kind: "turnFinish" });
    expect(sc.state.players[1].hp).toBe(13);
    expect(sc.state.hands[0]).toEqual([1]);
    const quiet = scenario().withUnit(0, "Siege Captain", "B5").withBook(0, "Est").withBook(1, "Est");
    quiet.act({ kind: "turnFinish" });
    expect(quiet.state.hands[0]).toEqual([]);
  },
  duelist: () => {
    const sc = scenario().withUnit(0, "Duelist", "C2");
    expect(sc.attack("C2")).toBe(2);
    sc.withUnit(1, "Est", "C3");
    expect(sc.attack("C2")).toBe(4); // exactly one enemy next to it
    sc.withUnit(1, "Est", "B2");
    expect(sc.attack("C2")).toBe(2);
  },
  "giant-slayer": () => {
    const sc = scenario().withUnit(0, "Giant Slayer", "C2").withUnit(0, "Giant Slayer", "A2").withUnit(1, "Vogaros", "C3").withUnit(1, "Agnis", "A3");
    sc.act({ kind: "attack", card: 0, cell: at("C3") }).act({ kind: "attack", card: 1, cell: at("A3") });
    expect([sc.life("C3"), sc.life("A3")]).toEqual([3, 2]); // 1 + 2 against attack 3, 1 against attack 2
  },
  finisher: () => {
    const sc = scenario().withHand(0, "Finisher").withUnit(1, "Est", "D3").withUnit(1, "Agnis", "C3", { life: 2 }).withUnit(1, "Agnis", "A3", { life: 1 });
    sc.act({ kind: "summon", card: 0, cell: at("B1") });
    expect(sc.unitAt("C3")).toBe(-1); // the first damaged enemy rubric (lowest id) takes 2
    expect([sc.life("A3"), sc.life("D3"), sc.state.players[1].hp]).toEqual([1, 2, 14]);
  },
  catapult: () => {
    const sc = scenario().withTurn(4, 1).withUnit(0, "Catapult", "A3").withUnit(1, "Agnis", "C4").withUnit(1, "Est", "C6").withBook(0, "Est");
    sc.act({ kind: "turnFinish" });
    expect([sc.life("C4"), sc.life("C6")]).toEqual([2, 2]); // the only enemy unit in the centre or enemy front row
  },
  "frost-snare": () => {
    const sc = scenario().withTurn(4, 1).withPlayer(1, { hp: 10 }).withFeint(0, "Frost Snare", "C3").withUnit(1, "Vogaros", "C4");
    expect(sc.attack("C4")).toBe(5);
    sc.act({ kind: "moveDeclare", card: 1, cell: at("C3") })
      .act({ kind: "reactNone" })
      .act({ kind: "feintDeclare" });
    expect(sc.attack("C3")).toBe(1);
    expect(sc.card(0).layer).toBe("Grave");
  },
  riposte: () => {
    const sc = scenario().withUnit(0, "Agnis", "C2").withUnit(1, "Est", "C3").withFeint(1, "Riposte", "D4");
    sc.act({ kind: "attack", card: 0, cell: at("C3") }).act({ kind: "feintDeclare" });
    expect([sc.life("C3"), sc.life("C2"), sc.state.players[1].mp]).toEqual([2, 2, 7]);
  },
};

describe("every shipped card has a scenario", () => {
  it("the table names every card of the pool", () => {
    expect(Object.keys(cases).sort()).toEqual(dcg.pool.cards.map((c) => c.id).sort());
  });
  for (const [id, run] of Object.entries(cases)) it(id, run);
});
