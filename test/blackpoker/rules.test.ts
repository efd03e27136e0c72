import { describe, expect, it } from "vitest";
import { blackpoker, type BlackpokerState } from "../../engine/blackpoker/index.ts";
import {
  c,
  config,
  cs,
  declarable,
  declare,
  expectCards,
  isLegal,
  key,
  PASS,
  payB,
  payD,
  play,
  scenario,
  stageNames,
  target,
  unitOf,
  type ScenarioSpec,
} from "./scenario.ts";

// A common board: seat 0 has the turn; each side a charged bulwark and a soldier from setup.
const base = (extra: Partial<ScenarioSpec> = {}): BlackpokerState =>
  scenario({
    p0: {
      hand: ["H7", "SA", "HK", "S2", "C6"],
      field: [
        { uid: 0, cards: ["D10"], bulwark: true },
        { uid: 1, cards: ["C9"] },
      ],
      ...extra.p0,
    },
    p1: {
      hand: ["C3", "H4", "S3", "D5"],
      field: [
        { uid: 2, cards: ["SQ"], bulwark: true },
        { uid: 3, cards: ["D8"] },
      ],
      ...extra.p1,
    },
    config: extra.config,
    turn: extra.turn,
  });

describe("setup", () => {
  it("deals 7, presets a bulwark and a soldier, reveals for first player, first player draws 1", () => {
    for (let seed = 1; seed <= 50; seed++) {
      const s = blackpoker.setup(config(), seed);
      if (s.result !== null) continue;
      const first = s.flow.turnPlayer;
      expect(s.flow.chancePlayer).toBe(first);
      expect(s.turn).toBe(1);
      for (let p = 0; p < 2; p++) {
        const z = s.players[p]!;
        expect(z.hand.length).toBe(p === first ? 8 : 7);
        expect(z.field.map((u) => [u.bulwark, u.charged])).toEqual([
          [true, true],
          [false, true],
        ]);
        const all = [...z.life, ...z.hand, ...z.grave, ...z.field.flatMap((u) => u.cards)];
        expect(all.length).toBe(16);
        expect(new Set(all).size).toBe(16);
        expect(z.grave.length).toBeGreaterThanOrEqual(1); // revealed cards
      }
      // the last revealed pair decided: the first player's value is higher
      const g0 = s.players[first]!.grave;
      const g1 = s.players[1 - first]!.grave;
      expect((g0[g0.length - 1]! % 13) + 1).toBeGreaterThan((g1[g1.length - 1]! % 13) + 1);
      // earlier reveals were ties
      for (let i = 0; i < g0.length - 1; i++) expect(g0[i]! % 13).toBe(g1[i]! % 13);
    }
  });
});

describe("timing: main vs quick, chance and passing", () => {
  it("main actions only for the turn player with an empty stage; Pass is not offered then", () => {
    const s = base();
    expect(declarable(s)).toContain("End");
    expect(declarable(s)).toContain("SummonSoldier");
    expect(isLegal(s, PASS)).toBe(false);
    const staged = play(s, declare("End"));
    expect(stageNames(staged)).toEqual(["End"]);
    expect(staged.flow.chancePlayer).toBe(1);
    // the opponent holds the chance with End on the stage: quick actions and Pass only
    expect(declarable(staged)).toEqual(["Up", "Down", "Twist"]); // no Counter: End has no key
    expect(isLegal(staged, PASS)).toBe(true);
  });

  it("a normal request: the requester auto-passes, one pass from the opponent resolves it", () => {
    let s = play(base(), declare("SummonSoldier"), key("H7"), payB(0));
    expect(s.flow.passed).toEqual([0]);
    expect(s.flow.chancePlayer).toBe(1);
    s = play(s, PASS);
    expect(s.flow.stage).toEqual([]);
    expect(s.flow.chancePlayer).toBe(0);
    expect(s.flow.passed).toEqual([]);
  });

  it("chanceAfterRequest=requester (official simulator): the requester keeps the chance and passes itself", () => {
    let s = play(base({ config: { chanceAfterRequest: "requester" } }), declare("SummonSoldier"), key("H7"), payB(0));
    expect(s.flow.chancePlayer).toBe(0);
    expect(stageNames(s)).toEqual(["SummonSoldier"]);
    s = play(s, PASS);
    expect(stageNames(s)).toEqual(["SummonSoldier"]);
    s = play(s, PASS);
    expect(s.flow.stage).toEqual([]);
    expect(s.players[0]!.field.length).toBe(3);
  });

  it("a counter on the stage: LIFO, the counter resolves first and negates a 1-key request of lower or equal value", () => {
    let s = base({
      p1: {
        hand: ["C9", "H4"],
        field: [
          { uid: 2, cards: ["SQ"], bulwark: true },
          { uid: 3, cards: ["D8"] },
        ],
      },
    });
    s = play(s, declare("SummonSoldier"), key("H7"), payB(0));
    expect(declarable(s)).toContain("Counter");
    s = play(s, declare("Counter"), key("C9"), { kind: "targetRequest", request: s.flow.stage[0]!.payload.rid }, payD("H4"));
    expect(stageNames(s)).toEqual(["SummonSoldier", "Counter"]);
    expect(s.flow.chancePlayer).toBe(0);
    s = play(s, PASS); // everyone passed since the Counter: it resolves
    expect(stageNames(s)).toEqual([]); // the summon was negated and left the stage
    expect(s.players[0]!.field.length).toBe(2);
    expect(s.players[0]!.grave).toContain(c("H7")); // the negated key went to its owner's Grave
    expect(s.players[1]!.grave).toEqual(expect.arrayContaining(cs("C9", "H4")));
    expect(s.flow.chancePlayer).toBe(0);
  });

  it("Counter does not negate a single key of higher value, but does negate any 2-key request; keyless requests cannot be targeted", () => {
    let s = base({ p1: { hand: ["C3", "H4"] } });
    s = play(s, declare("SummonSoldier"), key("H7"), payB(0));
    s = play(s, declare("Counter"), key("C3"), { kind: "targetRequest", request: 0 }, payD("H4"));
    s = play(s, PASS);
    expect(stageNames(s)).toEqual(["SummonSoldier"]); // 3 < 7: no effect
    expect(s.players[1]!.grave).toContain(c("C3"));
    s = play(s, PASS, PASS);
    expect(s.players[0]!.field.some((u) => u.cards[0] === c("H7"))).toBe(true);

    // Throwing has 2 keys: any counter negates it
    let t = base({ p0: { hand: ["SK", "CK", "H7"] }, p1: { hand: ["CA", "H4"] } });
    t = play(t, declare("Throwing"), key("SK"), key("CK"));
    t = play(t, declare("Counter"), key("CA"), { kind: "targetRequest", request: 0 }, payD("H4"));
    const life = t.players[1]!.life.length;
    t = play(t, PASS);
    expect(t.flow.stage).toEqual([]);
    expect(t.players[1]!.life.length).toBe(life);
    expect(t.players[0]!.grave).toEqual(expect.arrayContaining(cs("SK", "CK")));

    // End (no key) is not a Counter target: with only End on the stage Counter is not declarable
    let e = base({ p1: { hand: ["CA", "H4"] } });
    e = play(e, declare("End"));
    expect(declarable(e)).not.toContain("Counter");
  });
});

describe("costs B / L / D and the summons", () => {
  it("SummonSoldier (2-10, BL): drives a bulwark, takes 1 damage, the key becomes a charged soldier", () => {
    const s0 = base();
    const lifeTop = s0.players[0]!.life[s0.players[0]!.life.length - 1]!;
    let s = play(s0, declare("SummonSoldier"));
    expect(blackpoker.legal(s)).toEqual([key("H7"), key("S2"), key("C6")].sort((a, b) => (a as { card: number }).card - (b as { card: number }).card));
    s = play(s, key("H7"), payB(0));
    expect(unitOf(s, 0, 0)!.charged).toBe(false);
    expect(s.players[0]!.life.length).toBe(s0.players[0]!.life.length - 1);
    expect(s.players[0]!.grave).toEqual([lifeTop]);
    expect(s.players[0]!.hand).not.toContain(c("H7"));
    s = play(s, PASS);
    const soldier = s.players[0]!.field[2]!;
    expect(soldier).toMatchObject({ bulwark: false, cards: [c("H7")], charged: true, entered: 2 });
  });

  it("B needs a charged bulwark of your own; SummonHero needs two", () => {
    const noBulwark = base({
      p0: {
        hand: ["H7", "HK"],
        field: [
          { uid: 0, cards: ["D10"], bulwark: true, charged: false },
          { uid: 1, cards: ["C9"] },
        ],
      },
    });
    expect(declarable(noBulwark)).not.toContain("SummonSoldier");
    expect(declarable(base())).not.toContain("SummonHero"); // one bulwark only
    let s = base({
      p0: {
        hand: ["HK"],
        field: [
          { uid: 0, cards: ["D10"], bulwark: true },
          { uid: 1, cards: ["C9"] },
          { uid: 5, cards: ["S3"], bulwark: true },
        ],
      },
    });
    s = play(s, declare("SummonHero"), key("HK"));
    expect(blackpoker.legal(s)).toEqual([payB(0)]); // ascending: the pair is paid one way only
    s = play(s, payB(0), payB(5), PASS);
    expect(s.players[0]!.field.map((u) => u.charged)).toEqual([false, true, false, true]);
  });

  it("D needs another hand card than the key", () => {
    const s = base({ p0: { hand: ["H7"] } });
    expect(declarable(s)).not.toContain("Up");
    const t = base({ p0: { hand: ["H7", "SA"] } });
    expect(declarable(t)).toContain("Up");
  });

  it("SetBulwark is immediate (chance kept), costs L, once per turn; the card lies face down", () => {
    const s0 = base();
    const s = play(s0, declare("SetBulwark"), key("S2"));
    expect(s.flow.stage).toEqual([]);
    expect(s.flow.chancePlayer).toBe(0);
    expect(s.players[0]!.life.length).toBe(s0.players[0]!.life.length - 1);
    expect(s.players[0]!.field[2]).toMatchObject({ bulwark: true, cards: [c("S2")], charged: true });
    expect(declarable(s)).not.toContain("SetBulwark");
    expect(blackpoker.view(s, 1).players[0]!.field[2]!.cards).toEqual([]);
  });

  it("SummonAce (A, L) has <速攻> and may attack the turn it enters; a new 一般兵 may not", () => {
    let s = play(base(), declare("SummonAce"), key("SA"), PASS);
    s = play(s, declare("SummonSoldier"), key("H7"), payB(0), PASS);
    s = play(s, declare("Attack"), PASS);
    expect(s.pending?.kind).toBe("attackers");
    const options = blackpoker.legal(s).flatMap((d) => (d.kind === "selectAttacker" ? [d.unit] : []));
    const ace = s.players[0]!.field.find((u) => u.cards[0] === c("SA"))!.uid;
    const seven = s.players[0]!.field.find((u) => u.cards[0] === c("H7"))!.uid;
    expect(options).toContain(ace);
    expect(options).toContain(1);
    expect(options).not.toContain(seven);
  });
});

describe("key cards: Mount, Up, Down, Twist, DestroyBulwark, Throwing, Search", () => {
  it("Mount: same-suit own soldier; the 装備兵 sums its cards and gains <速攻> from an A", () => {
    let s = base({ p0: { hand: ["CA", "H7"] } });
    s = play(s, declare("Mount"));
    expect(blackpoker.legal(s)).toEqual([key("CA")]); // ♡7 has no ♡ soldier to go on
    s = play(s, key("CA"), target(1), payB(0), PASS);
    const u = unitOf(s, 0, 1)!;
    expect(u.cards).toEqual(cs("C9", "CA"));
    expect(blackpoker.view(s, 0).players[0]!.field[1]!.cards).toEqual(cs("C9", "CA"));
    const sized = s.players[0]!.field[1]!;
    expect(sized.cards.reduce((a, x) => a + (x % 13) + 1, 0)).toBe(10);
  });

  it("Up: +value until End, the key in the Fog; End sends the Fog to the Grave and clears modifiers", () => {
    let s = play(base(), declare("Up"), key("H7"), target(3), payD("S2"), PASS);
    expect(unitOf(s, 1, 3)!.mod).toBe(7);
    expect(s.players[0]!.fog).toEqual([c("H7")]);
    s = play(s, declare("End"), PASS);
    expect(unitOf(s, 1, 3)!.mod).toBe(0);
    expect(s.players[0]!.fog).toEqual([]);
    expect(s.players[0]!.grave).toContain(c("H7"));
  });

  it("Down: a soldier reduced to size <= 0 goes to the Grave (key too); otherwise the key waits in the Fog", () => {
    let s = base({ p0: { hand: ["S2", "C6"] } });
    s = play(s, declare("Down"), key("S2"), target(3), payD("C6"), PASS);
    expect(unitOf(s, 1, 3)!.mod).toBe(-2);
    expect(s.players[0]!.fog).toEqual([c("S2")]);
    let t = base({ p0: { hand: ["S3", "C6"] }, p1: { field: [{ uid: 4, cards: ["S3"] }] } });
    t = play(t, declare("Down"), key("S3"), target(4), payD("C6"), PASS);
    expect(unitOf(t, 1, 4)).toBeUndefined();
    expect(t.players[1]!.grave).toContain(c("S3"));
    expect(t.players[0]!.grave).toContain(c("S3"));
    expect(t.players[0]!.fog).toEqual([]);
  });

  it("Twist: at resolution its controller sets the target charged or driven", () => {
    let s = base({ p1: { hand: ["D5", "C3"] } });
    s = play(s, declare("End"));
    s = play(s, declare("Twist"), key("D5"), target(1), payD("C3"), PASS);
    expect(s.pending).toEqual({ kind: "twist", seat: 1, uid: 1 });
    expect(blackpoker.actor(s)).toBe(1);
    s = play(s, { kind: "twist", charged: false });
    expect(unitOf(s, 0, 1)!.charged).toBe(false);
    expect(s.players[1]!.grave).toContain(c("D5"));
    expect(stageNames(s)).toEqual(["End"]);
  });

  it("a vanished target means no effect: the key still goes to the Grave", () => {
    // seat 1 Ups seat 0's soldier, seat 0 answers by Downing it to death first
    let s = base({
      p0: {
        hand: ["S3", "C6"],
        field: [
          { uid: 0, cards: ["D10"], bulwark: true },
          { uid: 1, cards: ["S2"] },
        ],
      },
      p1: { hand: ["H4", "D5"] },
    });
    s = play(s, declare("End"));
    s = play(s, declare("Up"), key("H4"), target(1), payD("D5"));
    s = play(s, declare("Down"), key("S3"), target(1), payD("C6"));
    s = play(s, PASS); // Down resolves: the 2 dies
    expect(unitOf(s, 0, 1)).toBeUndefined();
    s = play(s, PASS, PASS); // Up resolves on nothing
    expect(s.players[1]!.fog).toEqual([]);
    expect(s.players[1]!.grave).toContain(c("H4"));
  });

  it("DestroyBulwark (♡ + ♢ keys): the target bulwark goes to the Grave", () => {
    let s = base({ p0: { hand: ["HK", "D10", "C6"] } });
    s = play(s, declare("DestroyBulwark"), key("HK"), key("D10"));
    expect(blackpoker.legal(s)).toEqual([target(0), target(2)]);
    s = play(s, target(2), PASS);
    expect(unitOf(s, 1, 2)).toBeUndefined();
    expect(s.players[1]!.grave).toContain(c("SQ"));
    expect(s.players[0]!.grave).toEqual(expect.arrayContaining(cs("HK", "D10")));
  });

  it("Throwing (♠ + ♣ keys): the opponent takes damage equal to the ♠ value", () => {
    let s = base({ p0: { hand: ["S3", "CK"] }, p1: { life: ["S2", "H4", "D5", "C6", "C9"] } });
    s = play(s, declare("Throwing"), key("S3"), key("CK"), PASS);
    expect(s.players[1]!.life.length).toBe(2);
    expectCards(s.players[1]!.grave, "S2", "H4", "D5");
  });

  it("Search (Joker key, immediate quick): any card from Life into the hand, then Life is shuffled", () => {
    let s = base({ p0: { hand: ["JK", "C6"] }, p1: {} });
    s = play(s, declare("Search"), key("JK"));
    expect(s.pending).toEqual({ kind: "search", seat: 0 });
    expect(blackpoker.view(s, 0).searchLife).toEqual(cs("S2", "S3", "D5", "D8", "C6", "C9").sort((a, b) => a - b));
    expect(blackpoker.view(s, 1).searchLife).toBeNull();
    s = play(s, { kind: "searchTake", card: c("D8") });
    expect(s.players[0]!.hand).toContain(c("D8"));
    expect(s.players[0]!.life.length).toBe(5);
    expect(s.players[0]!.grave).toContain(c("JK"));
    expect(s.flow.chancePlayer).toBe(0);
  });
});

describe("combat: Attack, Block, DamageJudge", () => {
  const fight = (p0Field: ScenarioSpec["p0"], p1Field: ScenarioSpec["p1"]) => scenario({ p0: p0Field, p1: p1Field });

  it("Attack is 1/turn; attackers are driven; Block triggers for the defender", () => {
    let s = play(base(), declare("Attack"), PASS, { kind: "selectAttacker", unit: 1 }, { kind: "finishAttack" });
    expect(unitOf(s, 0, 1)!.charged).toBe(false);
    expect(stageNames(s)).toEqual(["Block"]);
    expect(s.flow.stage[0]!.controller).toBe(1);
    expect(s.flow.chancePlayer).toBe(0);
    expect(declarable(s)).not.toContain("Attack");
    s = play(s, PASS, PASS);
    expect(s.pending?.kind).toBe("blockers");
    expect(blackpoker.actor(s)).toBe(1);
  });

  it("an unblocked attacker deals its size as damage", () => {
    let s = fight({ field: [{ uid: 1, cards: ["C6"] }] }, { life: ["S2", "S3", "D5", "D8", "C6", "C9", "H4", "H7"], field: [] });
    s = play(s, declare("Attack"), PASS, { kind: "selectAttacker", unit: 1 }, { kind: "finishAttack" });
    s = play(s, PASS, PASS); // Block resolves: nobody can block, so no choice
    expect(stageNames(s)).toEqual(["DamageJudge"]);
    s = play(s, PASS, PASS);
    expect(s.players[1]!.life.length).toBe(2);
    expect(s.combat).toBeNull();
  });

  it("block assignment: two soldiers on one attacker; the smaller side goes to the Grave", () => {
    let s = fight(
      { field: [{ uid: 1, cards: ["C9"] }] },
      {
        field: [
          { uid: 3, cards: ["D5"] },
          { uid: 4, cards: ["H7"] },
          { uid: 5, cards: ["SQ"], bulwark: true },
        ],
      },
    );
    s = play(s, declare("Attack"), PASS, { kind: "selectAttacker", unit: 1 }, { kind: "finishAttack" }, PASS, PASS);
    expect(blackpoker.legal(s)).toEqual([
      { kind: "assignBlocker", unit: 3, attacker: 1 },
      { kind: "assignBlocker", unit: 4, attacker: 1 },
      { kind: "assignBlocker", unit: 5, attacker: 1 },
      { kind: "finishBlock" },
    ]);
    s = play(s, { kind: "assignBlocker", unit: 3, attacker: 1 });
    // a bulwark blocks alone: no bulwark on an attacker that soldiers already block
    expect(isLegal(s, { kind: "assignBlocker", unit: 5, attacker: 1 })).toBe(false);
    s = play(s, { kind: "assignBlocker", unit: 4, attacker: 1 }, { kind: "finishBlock" });
    expect(unitOf(s, 1, 3)!.charged).toBe(true); // blocking does not drive
    expect(stageNames(s)).toEqual(["DamageJudge"]);
    s = play(s, PASS, PASS);
    expect(unitOf(s, 0, 1)).toBeUndefined(); // 9 < 5+7
    expect(unitOf(s, 1, 3)).toBeDefined();
    expect(unitOf(s, 1, 4)).toBeDefined();
  });

  it("soldier block: a tie sends both sides; the blockers lose together", () => {
    let s = fight({ field: [{ uid: 1, cards: ["C9"] }] }, { field: [{ uid: 3, cards: ["C9"] }] });
    s = play(s, declare("Attack"), PASS, { kind: "selectAttacker", unit: 1 }, { kind: "finishAttack" }, PASS, PASS);
    s = play(s, { kind: "assignBlocker", unit: 3, attacker: 1 }, { kind: "finishBlock" }, PASS, PASS);
    expect(s.players[0]!.field).toEqual([]);
    expect(s.players[1]!.field).toEqual([]);
    let t = fight(
      { field: [{ uid: 1, cards: ["HK"] }] },
      {
        life: ["S2", "S3", "D5", "D8", "C6", "C9", "SK"],
        field: [
          { uid: 3, cards: ["D5"] },
          { uid: 4, cards: ["H7"] },
        ],
      },
    );
    t = play(t, declare("Attack"), PASS, { kind: "selectAttacker", unit: 1 }, { kind: "finishAttack" }, PASS, PASS);
    t = play(t, { kind: "assignBlocker", unit: 3, attacker: 1 }, { kind: "assignBlocker", unit: 4, attacker: 1 }, { kind: "finishBlock" }, PASS, PASS);
    expect(t.players[1]!.field).toEqual([]); // 13 > 12
    expect(unitOf(t, 0, 1)).toBeDefined();
    expect(t.players[1]!.life.length).toBe(7); // a blocked attacker deals no damage
  });

  it("bulwark block: revealed; its rank among the attacker's cards (or a Joker) kills the attacker; the bulwark always goes", () => {
    let s = fight({ field: [{ uid: 1, cards: ["C9"] }] }, { field: [{ uid: 5, cards: ["H9"], bulwark: true }] });
    s = play(s, declare("Attack"), PASS, { kind: "selectAttacker", unit: 1 }, { kind: "finishAttack" }, PASS, PASS);
    s = play(s, { kind: "assignBlocker", unit: 5, attacker: 1 }, { kind: "finishBlock" }, PASS, PASS);
    expect(s.players[0]!.field).toEqual([]);
    expect(s.players[1]!.field).toEqual([]);
    let t = fight({ field: [{ uid: 1, cards: ["C9"] }] }, { field: [{ uid: 5, cards: ["H2"], bulwark: true }] });
    const life = t.players[1]!.life.length;
    t = play(t, declare("Attack"), PASS, { kind: "selectAttacker", unit: 1 }, { kind: "finishAttack" }, PASS, PASS);
    t = play(t, { kind: "assignBlocker", unit: 5, attacker: 1 }, { kind: "finishBlock" }, PASS, PASS);
    expect(unitOf(t, 0, 1)).toBeDefined();
    expect(t.players[1]!.field).toEqual([]);
    expect(t.players[1]!.life.length).toBe(life); // no player damage
    let j = fight({ field: [{ uid: 1, cards: ["C9"] }] }, { field: [{ uid: 5, cards: ["JK"], bulwark: true }], life: ["S2", "S3", "D5", "D8", "C6", "C9"] });
    j = play(j, declare("Attack"), PASS, { kind: "selectAttacker", unit: 1 }, { kind: "finishAttack" }, PASS, PASS);
    j = play(j, { kind: "assignBlocker", unit: 5, attacker: 1 }, { kind: "finishBlock" }, PASS, PASS);
    expect(j.players[0]!.field).toEqual([]);
  });

  it("NextGeneration: a K leaving the field digs Life to the next Joker/A/J/Q/K, which goes to the hand", () => {
    let s = fight(
      { field: [{ uid: 1, cards: ["CK"] }], life: ["S2", "D5", "HJ", "C6", "C9"] },
      {
        field: [
          { uid: 3, cards: ["DQ"] },
          { uid: 4, cards: ["H4"] },
        ],
      },
    );
    s = play(s, declare("Attack"), PASS, { kind: "selectAttacker", unit: 1 }, { kind: "finishAttack" }, PASS, PASS);
    s = play(s, { kind: "assignBlocker", unit: 3, attacker: 1 }, { kind: "assignBlocker", unit: 4, attacker: 1 }, { kind: "finishBlock" }, PASS, PASS);
    // 13 < 16: the K dies -> seat 0's NextGeneration: S2, D5 to the Grave, HJ to the hand
    expect(s.players[0]!.hand).toEqual([c("HJ")]);
    expect(s.players[0]!.grave).toEqual(cs("CK", "S2", "D5"));
    expect(s.players[0]!.life.length).toBe(2);
    expect(s.flow.chancePlayer).toBe(0);
  });
});

describe("turn cycle, win check, version flags", () => {
  it("End: discard down to 7, the turn passes, Charge charges, Draw goes on the stage and draws 2", () => {
    let s = base({
      p0: { hand: ["H7", "SA", "HK", "S2", "C6", "D5", "D8", "C9", "CK"] },
      p1: {
        field: [
          { uid: 2, cards: ["SQ"], bulwark: true, charged: false },
          { uid: 3, cards: ["D8"], charged: false },
        ],
      },
    });
    s = play(s, declare("End"), PASS);
    expect(s.pending).toEqual({ kind: "endDiscard", seat: 0 });
    s = play(s, { kind: "discard", card: c("CK") });
    expect(s.pending?.kind).toBe("endDiscard");
    s = play(s, { kind: "discard", card: c("C9") });
    expect(s.players[0]!.hand.length).toBe(7);
    expect(s.flow.turnPlayer).toBe(1);
    expect(s.turn).toBe(3);
    expect(s.players[1]!.field.every((u) => u.charged)).toBe(true);
    expect(stageNames(s)).toEqual(["Draw"]);
    expect(s.flow.chancePlayer).toBe(1);
    const hand = s.players[1]!.hand.length;
    s = play(s, PASS, PASS);
    expect(s.players[1]!.hand.length).toBe(hand + 2);
  });

  it("Draw takes 1 when Life <= 2", () => {
    let s = base({ p1: { life: ["S2", "S3"] } });
    s = play(s, declare("End"), PASS, PASS, PASS);
    expect(s.players[1]!.life.length).toBe(1);
  });

  it("drawRule=sixth: draw 1, then optionally 1 more", () => {
    let s = base({ config: { drawRule: "sixth" } });
    s = play(s, declare("End"), PASS, PASS, PASS);
    expect(s.pending).toEqual({ kind: "drawMore", seat: 1 });
    const hand = s.players[1]!.hand.length;
    const more = play(s, { kind: "drawMore", more: true });
    const stop = play(s, { kind: "drawMore", more: false });
    expect(more.players[1]!.hand.length).toBe(hand + 1);
    expect(stop.players[1]!.hand.length).toBe(hand);
  });

  it("win check: Life 0 loses; both at 0 -> the turn player loses, or a draw under bothLivesZero=draw", () => {
    let s = base({ p0: { hand: ["S3", "CK"] }, p1: { life: ["S2", "H4"] } });
    s = play(s, declare("Throwing"), key("S3"), key("CK"), PASS);
    expect(blackpoker.actor(s)).toBe("terminal");
    expect(blackpoker.returns(s)).toEqual([1, -1]);
    expect(blackpoker.legal(s)).toEqual([]);
    // paying L from a Life of 1 kills you at once
    let t = base({ p0: { life: ["S2"] } });
    t = play(t, declare("SetBulwark"), key("H7"));
    expect(blackpoker.returns(t)).toEqual([-1, 1]);
  });

  it("both Lives 0 at once: the turn player loses (current) / draw (6th edition)", () => {
    // No Light effect damages both players at once, so seat 0's Life is emptied by hand while its
    // Throwing (which empties seat 1's) waits on the stage: the judge after it sees both at 0.
    const mk = (bothLivesZero: "turnPlayerLoses" | "draw") => {
      let s = scenario({
        config: { bothLivesZero },
        p0: { life: ["S2"], field: [{ uid: 1, cards: ["C9"] }], hand: ["SA", "CK"] },
        p1: { life: ["S2"], field: [] },
      });
      s = play(s, declare("Throwing"), key("SA"), key("CK"));
      const z0 = s.players[0]!;
      s = { ...s, players: [{ ...z0, life: [] }, s.players[1]!] };
      return play(s, PASS);
    };
    expect(blackpoker.returns(mk("turnPlayerLoses"))).toEqual([-1, 1]);
    expect(blackpoker.returns(mk("draw"))).toEqual([0, 0]);
  });

  it("turn cap: an End at turn maxTurns ends the game as a draw", () => {
    let s = base({ config: { maxTurns: 2 }, turn: 2 });
    s = play(s, declare("End"), PASS);
    expect(blackpoker.actor(s)).toBe("terminal");
    expect(blackpoker.returns(s)).toEqual([0, 0]);
  });
});
