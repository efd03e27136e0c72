import { describe, expect, it } from "vitest";
import { makeDcg, STARTER_POOL } from "../../engine/dcg/index.ts";
import { loadPool } from "../../engine/dcg/pool.ts";
import { MAX_CHAIN_DEPTH, MAX_RESOLUTIONS } from "../../engine/dcg/resolve.ts";
import { SHIPPED_CARDS as starters } from "../../engine/dcg/cards.ts";
import { at, scenario } from "./scenario.ts";

/** One scenario per rule of rules/dcg.md (cards have theirs in cards.test.ts). */
describe("board and zones", () => {
  it("a rubric is summoned onto an empty cell of Home(P) only; an object onto Placement(P)", () => {
    const sc = scenario().withHand(0, "Agnis", "Bubble");
    const cells = (card: number) =>
      sc
        .legal()
        .filter((d) => d.kind === "summon" && d.card === card)
        .map((d) => (d as { cell: number }).cell);
    expect(cells(0)).toEqual(Array.from({ length: 15 }, (_, i) => i));
    expect(cells(1)).toEqual(Array.from({ length: 20 }, (_, i) => i));
    const guest = scenario().withTurn(3, 1).withHand(1, "Agnis");
    expect(
      guest
        .legal()
        .filter((d) => d.kind === "summon")
        .map((d) => (d as { cell: number }).cell),
    ).toEqual(Array.from({ length: 15 }, (_, i) => 20 + i));
  });

  it("a cell holds one unit; a feint blocks placement but not movement", () => {
    const sc = scenario().withHand(0, "Est", "Mirage").withUnit(0, "Agnis", "C1").withFeint(1, "Pitfall", "C3");
    sc.act({ kind: "feint", card: 1, cell: at("B1") });
    expect(sc.isLegal({ kind: "summon", card: 0, cell: at("C1") })).toBe(false); // unit
    expect(sc.isLegal({ kind: "summon", card: 0, cell: at("B1") })).toBe(false); // own feint
    expect(sc.isLegal({ kind: "moveDeclare", card: 2, cell: at("B1") })).toBe(true);
    sc.act({ kind: "moveDeclare", card: 2, cell: at("C2") }).act({ kind: "reactNone" });
    expect(sc.isLegal({ kind: "moveDeclare", card: 2, cell: at("C3") })).toBe(true); // enemy feint does not block
  });

  it("at most one cost-3 rubric per player on the field", () => {
    const sc = scenario().withHand(0, "Vogaros", "Abilma Esthasha");
    sc.act({ kind: "summon", card: 0, cell: at("A0") });
    expect(sc.legal().some((d) => d.kind === "summon" && d.card === 1)).toBe(false);
    const other = scenario().withHand(0, "Vogaros").withUnit(1, "Abilma Esthasha", "A6");
    expect(other.legal().some((d) => d.kind === "summon")).toBe(true);
  });

  it("a feint is placed for free in Placement(P); at most one own feint on the field", () => {
    const sc = scenario().withHand(0, "Mirage", "Pitfall").withPlayer(0, { mp: 0 });
    expect(sc.legal().filter((d) => d.kind === "feint" && d.card === 0)).toHaveLength(20);
    sc.act({ kind: "feint", card: 0, cell: at("C3") });
    expect(sc.state.players[0].mp).toBe(0);
    expect(sc.legal().some((d) => d.kind === "feint")).toBe(false);
  });
});

describe("main-phase operations", () => {
  it("Summon pays the cost; a summoned rubric cannot attack this turn", () => {
    const sc = scenario().withHand(0, "Agnis").withUnit(1, "Est", "C2");
    sc.act({ kind: "summon", card: 0, cell: at("C1") });
    expect(sc.state.players[0].mp).toBe(7);
    expect(sc.legal().some((d) => d.kind === "attack")).toBe(false);
    expect(sc.triggers("Summoned")).toHaveLength(1);
  });

  it("cards costing more than MP cannot be summoned", () => {
    const sc = scenario().withHand(0, "Vogaros", "Est").withPlayer(0, { mp: 2 });
    expect(sc.legal().some((d) => d.kind === "summon" && d.card === 0)).toBe(false);
    expect(sc.legal().some((d) => d.kind === "summon" && d.card === 1)).toBe(true);
  });

  it("MoveDeclare needs MP >= move cost, to an orthogonally adjacent cell with no unit; the cost is paid when the move resolves", () => {
    const sc = scenario().withUnit(0, "Agnis", "A0").withUnit(0, "Est", "B0").withPlayer(0, { mp: 1 });
    expect(
      sc
        .legal()
        .filter((d) => d.kind === "moveDeclare" && d.card === 0)
        .map((d) => (d as { cell: number }).cell),
    ).toEqual([at("A1")]);
    sc.act({ kind: "moveDeclare", card: 0, cell: at("A1") });
    expect(sc.state.players[0].mp).toBe(1);
    expect(sc.state.state.kind).toBe("MoveDeclare");
    sc.act({ kind: "reactNone" });
    expect(sc.state.players[0].mp).toBe(0);
    expect(sc.unitAt("A1")).toBe(0);
    expect(sc.triggers()).toEqual(expect.arrayContaining(["Moved", "MoveFinished"]));
    expect(sc.legal()).toEqual([{ kind: "turnFinish" }]);
  });

  it("the opponent reacts with exactly one of ReactNone / ReactSummon (object) / ReactFeint", () => {
    const sc = scenario().withUnit(0, "Agnis", "C2").withHand(1, "Bubble", "Mirage", "Agnis").withPlayer(1, { mp: 1 });
    sc.act({ kind: "moveDeclare", card: 0, cell: at("C3") });
    const kinds = new Set(sc.legal().map((d) => d.kind));
    expect([...kinds]).toEqual(["reactNone", "reactSummon", "reactFeint"]);
    expect(
      sc
        .legal()
        .filter((d) => d.kind === "reactSummon")
        .every((d) => (d as { card: number }).card === 1),
    ).toBe(true);
    expect(sc.legal().filter((d) => d.kind === "reactSummon")).toHaveLength(20);
  });

  it("ReactSummon blocks the destination; the mover must MoveRetry (new destination or cancel at no cost); one reaction per move", () => {
    const sc = scenario().withUnit(0, "Agnis", "C2").withHand(1, "Bubble").withPlayer(0, { mp: 3 }).withPlayer(1, { mp: 1 });
    sc.act({ kind: "moveDeclare", card: 0, cell: at("C3") }).act({ kind: "reactSummon", card: 1, cell: at("C3") });
    expect(sc.state.players[1].mp).toBe(0);
    expect(sc.state.state.kind).toBe("MoveRetry");
    expect(sc.legal()).toEqual([
      { kind: "moveRetry", cell: at("C1") },
      { kind: "moveRetry", cell: at("B2") },
      { kind: "moveRetry", cell: at("D2") },
      { kind: "moveRetry", cell: -1 },
    ]);
    sc.act({ kind: "moveRetry", cell: at("D2") });
    expect(sc.unitAt("D2")).toBe(0);
    expect(sc.state.players[0].mp).toBe(2);
    expect(sc.state.state.kind).toBe("Main");

    const cancel = scenario().withUnit(0, "Agnis", "C2").withHand(1, "Mirage").withPlayer(0, { mp: 3 });
    cancel
      .act({ kind: "moveDeclare", card: 0, cell: at("C3") })
      .act({ kind: "reactFeint", card: 1, cell: at("C3") })
      .act({ kind: "moveRetry", cell: -1 });
    expect(cancel.unitAt("C2")).toBe(0);
    expect(cancel.state.players[0].mp).toBe(3);
    expect(cancel.state.players[1].feint).toBe(1);
  });

  it("Attack: not summoned this turn, not attacked yet, attack count >= 1; target an orthogonally adjacent enemy unit", () => {
    const sc = scenario()
      .withUnit(0, "Agnis", "B2")
      .withUnit(0, "Agnis", "C2")
      .withUnit(0, "Agnis", "D2")
      .withUnit(1, "Stone Wall", "B3")
      .withUnit(1, "Stone Wall", "C3")
      .withUnit(1, "Stone Wall", "D3")
      .withUnit(1, "Est", "E2");
    expect(sc.legal().filter((d) => d.kind === "attack")).toHaveLength(4);
    sc.act({ kind: "attack", card: 0, cell: at("B3") }).act({ kind: "attack", card: 1, cell: at("C3") });
    expect(sc.legal().some((d) => d.kind === "attack")).toBe(false); // attack count spent
    expect(sc.life("B3")).toBe(3);
  });

  it("Direct: from Enemy(P); the defender loses attack HP, minus 1 from the enemy row nearest the centre", () => {
    const sc = scenario().withUnit(0, "Agnis", "A4").withUnit(0, "Agnis", "E5");
    expect(sc.legal().filter((d) => d.kind === "direct")).toEqual([
      { kind: "direct", card: 0 },
      { kind: "direct", card: 1 },
    ]);
    sc.act({ kind: "direct", card: 0 });
    expect(sc.state.players[1].hp).toBe(14);
    sc.act({ kind: "direct", card: 1 });
    expect(sc.state.players[1].hp).toBe(12);
    expect(sc.triggers("DirectDamaged")).toHaveLength(1);
  });

  it("Direct: an onAttack feint next to the attacker negates it", () => {
    const sc = scenario().withUnit(0, "Agnis", "A5").withFeint(1, "Mirage", "B6");
    sc.act({ kind: "direct", card: 0 }).act({ kind: "feintDeclare" });
    expect(sc.state.players[1].hp).toBe(15);
    expect(sc.state.players[1].mp).toBe(7);
  });

  it("a feint window opens for any feint in range, but only a feint of the matching trigger can be declared, and only with MP for its cost", () => {
    const wrong = scenario().withUnit(0, "Agnis", "C2").withUnit(1, "Est", "C3").withFeint(1, "Pitfall", "D4");
    wrong.act({ kind: "attack", card: 0, cell: at("C3") });
    expect(wrong.legal()).toEqual([{ kind: "feintPass" }]);
    wrong.act({ kind: "feintPass" });
    expect(wrong.card(2).layer).toBe("Field"); // a passed feint of the other trigger stays hidden
    const poor = scenario().withUnit(0, "Agnis", "C2").withUnit(1, "Est", "C3").withFeint(1, "Mirage", "D4").withPlayer(1, { mp: 0 });
    poor.act({ kind: "attack", card: 0, cell: at("C3") });
    expect(poor.legal()).toEqual([{ kind: "feintPass" }]);
  });

  it("a unit at 0 life goes to the Grave; a rubric costs its owner HP equal to its cost, an object nothing", () => {
    const sc = scenario().withUnit(0, "Vogaros", "C2").withUnit(0, "Agnis", "D3").withUnit(1, "Farhalla", "C3", { life: 3 }).withUnit(1, "Bubble", "D4");
    sc.act({ kind: "attack", card: 0, cell: at("C3") }).act({ kind: "attack", card: 1, cell: at("D4") });
    expect(sc.state.graves[1]).toEqual([2, 3]);
    expect(sc.state.players[1].hp).toBe(13);
  });

  it("operations per turn are capped by opsPerTurn (only turnFinish after)", () => {
    const game = makeDcg();
    const sc = scenario(game).withHand(0, "Est", "Est", "Est");
    (sc.state as { cfg: unknown }).cfg = { ...sc.state.cfg, opsPerTurn: 2 };
    sc.act({ kind: "summon", card: 0, cell: at("A0") }).act({ kind: "summon", card: 1, cell: at("B0") });
    expect(sc.legal()).toEqual([{ kind: "turnFinish" }]);
  });
});

describe("turn flow", () => {
  it("TurnFinish -> PoisonDamage (turn player's poisoned units only) -> TurnStart: turn +1, MP +2 capped, attack count reset", () => {
    const sc = scenario()
      .withUnit(0, "Agnis", "A1", { ailment: "poison" })
      .withUnit(1, "Agnis", "A5", { ailment: "poison" })
      .withPlayer(0, { attacks: 0 })
      .withPlayer(1, { mp: 7, attacks: 0 })
      .withBook(1, "Est");
    sc.act({ kind: "turnFinish" });
    expect(sc.life("A1")).toBe(2);
    expect(sc.life("A5")).toBe(3);
    expect(sc.state.turn).toBe(4);
    expect(sc.state.turnPlayer).toBe(1);
    expect(sc.state.players[1].mp).toBe(8);
    expect(sc.state.players[1].attacks).toBe(2);
    expect(sc.state.state.kind).toBe("Draw");
    expect(sc.commands()).toEqual(["TurnFinishCommand", "PoisonDamageCommand", "PoisonFinishCommand", "TurnStartCommand"]);
  });

  it("poison can kill; the owner pays the cost", () => {
    const sc = scenario().withUnit(0, "Agnis", "A1", { ailment: "poison", life: 1 }).withBook(1, "Est");
    sc.act({ kind: "turnFinish" });
    expect(sc.card(0).layer).toBe("Grave");
    expect(sc.state.players[0].hp).toBe(14);
  });

  it("DrawOrCharge: draw is illegal with an empty book or 7 cards in hand; charge gives +1 MP up to the cap", () => {
    const draw = scenario().withTurn(4, 0, { kind: "Draw" }).withBook(0, "Est", "Agnis").withPlayer(0, { mp: 5 });
    expect(draw.legal()).toEqual([
      { kind: "drawOrCharge", charge: false },
      { kind: "drawOrCharge", charge: true },
    ]);
    draw.act({ kind: "drawOrCharge", charge: false });
    expect(draw.state.hands[0]).toEqual([1]); // the top of the book is its last card
    expect(draw.card(1).layer).toBe("Hand");
    const empty = scenario().withTurn(4, 0, { kind: "Draw" });
    expect(empty.legal()).toEqual([{ kind: "drawOrCharge", charge: true }]);
    const full = scenario().withTurn(4, 0, { kind: "Draw" }).withHand(0, "Est", "Est", "Est", "Est", "Est", "Agnis", "Agnis").withBook(0, "Est");
    expect(full.legal()).toEqual([{ kind: "drawOrCharge", charge: true }]);
    const charge = scenario().withTurn(4, 0, { kind: "Draw" }).withPlayer(0, { mp: 8 });
    charge.act({ kind: "drawOrCharge", charge: true });
    expect(charge.state.players[0].mp).toBe(8);
    const charge2 = scenario().withTurn(4, 0, { kind: "Draw" }).withPlayer(0, { mp: 5 });
    charge2.act({ kind: "drawOrCharge", charge: true });
    expect(charge2.state.players[0].mp).toBe(6);
  });
});

describe("end of the battle", () => {
  it("a player at HP <= 0 loses", () => {
    const sc = scenario().withUnit(0, "Vogaros", "A5").withPlayer(0, { hp: 5 }).withPlayer(1, { hp: 3 });
    sc.act({ kind: "direct", card: 0 });
    expect(sc.state.finished).toBe(true);
    expect(sc.state.winner).toBe(0);
    expect(sc.game.returns(sc.state)).toEqual([1, -1]);
    expect(sc.legal()).toEqual([]);
    expect(sc.game.actor(sc.state)).toBe("terminal");
  });

  it("both at HP <= 0 at once is a draw", () => {
    // A test-only card whose summon hits both players (PlayerDamage over MapPlayer).
    const doom = {
      id: "doom",
      name: "Doom",
      kind: "rubric",
      cost: 0,
      attack: 0,
      life: 1,
      abilities: [
        {
          type: "TriggerAbility",
          conditions: [
            [{ kind: "Any" }, { kind: "FilterTriggerKind", triggers: ["Summoned"] }],
            [{ kind: "MapActorCard" }, { kind: "FilterAbilityConsumer" }],
          ],
          effect: { kind: "PlayerDamage", amount: 20, target: [{ kind: "MapPlayer" }] },
        },
      ],
    };
    const pool = loadPool([...starters, doom]);
    if (!pool.ok) throw new Error(pool.error.message);
    const sc = scenario(makeDcg(pool.value)).withHand(0, "Doom");
    sc.act({ kind: "summon", card: 0, cell: at("A0") });
    expect(sc.state.finished).toBe(true);
    expect(sc.state.winner).toBe(-1);
    expect(sc.game.returns(sc.state)).toEqual([0, 0]);
    expect(sc.triggers("EffectDamagedPlayerHp")).toHaveLength(2);
  });

  it("after turnLimit turns the higher HP wins; equal HP is a draw", () => {
    const sc = scenario().withTurn(40, 1).withPlayer(0, { hp: 9 }).withPlayer(1, { hp: 7 });
    sc.act({ kind: "turnFinish" });
    expect(sc.state.finished).toBe(true);
    expect(sc.state.winner).toBe(0);
    const draw = scenario().withTurn(40, 1);
    draw.act({ kind: "turnFinish" });
    expect(draw.state.winner).toBe(-1);
    expect(draw.game.returns(draw.state)).toEqual([0, 0]);
  });

  it("a player who leaves or times out loses (forceFinish, the expectation's default)", () => {
    const sc = scenario().withTurn(5, 1);
    const exp = sc.game.expectation(sc.state);
    expect(exp).toEqual({ seat: 1, defaultDecision: { kind: "forceFinish" } });
    const out = sc.game.apply(sc.state, { kind: "forceFinish" });
    expect(out.ok && out.state.winner).toBe(0);
  });
});

describe("abilities: resolution order and the chain budget", () => {
  it("abilities answer in a fixed order: the turn player's cards first, then by instance id", () => {
    // Two Abilmas of the Guest (ids 0,1) and one of the Host (id 2) all watch CardGraved; only the Host's attack matters.
    const sc = scenario().withUnit(1, "Abilma Esthasha", "A6").withUnit(0, "Abilma Esthasha", "C2").withUnit(1, "Est", "C3", { ailment: "poison" });
    sc.act({ kind: "attack", card: 1, cell: at("C3") });
    const declared = sc.trace.commands.filter((c) => c.kind === "EffectDeclareCommand").map((c) => (c as { card: number }).card);
    expect(declared).toEqual([1, 1]);
  });

  it("an ability loop ends by the chain budget with a defined, replayable result", () => {
    // A test-only card: whenever any card is damaged by an effect, damage a random rubric by 0 -> an endless chain.
    const loop = {
      id: "echo",
      name: "Echo",
      kind: "rubric",
      cost: 1,
      attack: 1,
      life: 5,
      abilities: [
        {
          type: "TriggerAbility",
          conditions: [[{ kind: "Any" }, { kind: "FilterTriggerKind", triggers: ["EffectDamagedCard", "AttackDamaged"] }]],
          effect: { kind: "CardDamage", amount: 0, target: [{ kind: "MapCard" }, { kind: "Take", count: 1, mode: "random" }] },
        },
      ],
    };
    const pool = loadPool([...starters, loop]);
    expect(pool.ok).toBe(true);
    if (!pool.ok) return;
    const game = makeDcg(pool.value);
    const run = () => {
      const sc = scenario(game).withUnit(0, "Echo", "C2").withUnit(1, "Echo", "C3");
      sc.act({ kind: "attack", card: 0, cell: at("C3") });
      return sc;
    };
    const a = run();
    const b = run();
    expect(a.state).toEqual(b.state);
    const effects = a.trace.commands.filter((c) => c.kind === "EffectDeclareCommand").length;
    expect(effects).toBeGreaterThan(0);
    expect(effects).toBeLessThanOrEqual(MAX_RESOLUTIONS);
    expect(a.state.state.kind).toBe("Main");
    expect(MAX_CHAIN_DEPTH).toBe(16);
  });

  it("Take random draws from the state's seeded RNG (different seeds, different picks; same seed, same pick)", () => {
    const pick = (seed: number) => {
      const sc = scenario(undefined, seed)
        .withUnit(0, "Abilma Esthasha", "C2")
        .withUnit(1, "Agnis", "C3")
        .withUnit(1, "Est", "A6")
        .withUnit(1, "Est", "B6")
        .withUnit(1, "Est", "D6");
      sc.act({ kind: "attack", card: 0, cell: at("C3") });
      return sc.state.cards.map((c) => c.ailment).join();
    };
    expect(pick(5)).toBe(pick(5));
    expect(new Set([1, 2, 3, 4, 5, 6, 7, 8].map(pick)).size).toBeGreaterThan(1);
  });

  it("the starter pool compiles every ability type from JSON", () => {
    const types = new Set(STARTER_POOL.abilities.map((a) => a.type));
    expect([...types].sort()).toEqual(["AreaAbility", "NightmareAbility", "ParameterAbility", "TriggerAbility"]);
  });
});
