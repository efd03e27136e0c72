import { describe, expect, it } from "vitest";
import { SHIPPED_CARDS } from "../../../engine/dcg/cards.ts";
import { makeDcg } from "../../../engine/dcg/index.ts";
import { loadPool } from "../../../engine/dcg/pool.ts";
import { STATE_KINDS } from "../../../engine/dcg/state.ts";
import { at, scenario } from "./kit.ts";

/**
 * The markers and events of the dcg design that no shipped card answers yet: SummonFinishCommand
 * (SummonFinished), EffectFinishCommand (EffectFinished), AbilityOblivionChanged and StateChanged.
 * Each test plays test-only cards that answer them, so each fails on an engine without them (the
 * loader refuses the unknown trigger kind) and shows the moment it fires.
 */
function gameWith(...cards: unknown[]) {
  const pool = loadPool([...SHIPPED_CARDS, ...cards]);
  if (!pool.ok) throw new Error(pool.error.message);
  return makeDcg(pool.value);
}
const card = (id: string, kind: "rubric" | "object", abilities: unknown[], stats: { cost?: number; attack?: number; life?: number } = {}) =>
  kind === "rubric"
    ? { id, name: id, kind, cost: stats.cost ?? 1, attack: stats.attack ?? 1, life: stats.life ?? 3, abilities }
    : { id, name: id, kind, cost: stats.cost ?? 1, life: stats.life ?? 3, abilities };
const when = (...triggers: string[]) => [{ kind: "Any" }, { kind: "FilterTriggerKind", triggers }];
const SELF = [{ kind: "MapActorCard" }, { kind: "FilterAbilityConsumer" }];
const ME = [{ kind: "MapCard" }, { kind: "FilterAbilityConsumer" }];
const ENEMY_PLAYER = [{ kind: "MapPlayer" }, { kind: "FilterCardOwner", opponent: true }];
const hitEnemy = (amount: number) => ({ kind: "PlayerDamage", amount, target: ENEMY_PLAYER });

describe("SummonFinishCommand: SummonFinished once the summon's whole chain is over", () => {
  // "After its summon completes, 1 damage to the enemy player" vs the same on Summoned.
  const game = gameWith(
    card("herald", "rubric", [{ type: "TriggerAbility", conditions: [when("SummonFinished"), SELF], effect: hitEnemy(1) }], { life: 1 }),
    card("tough-herald", "rubric", [{ type: "TriggerAbility", conditions: [when("SummonFinished"), SELF], effect: hitEnemy(1) }], { life: 3 }),
    card("eager", "rubric", [{ type: "TriggerAbility", conditions: [when("Summoned"), SELF], effect: hitEnemy(1) }], { life: 1 }),
    // The enemy's sentry hits every unit its opponent summons for 1.
    card("sentry", "object", [
      {
        type: "TriggerAbility",
        conditions: [when("Summoned"), [{ kind: "MapActorCard" }, { kind: "FilterCardOwner", opponent: true }]],
        effect: { kind: "CardDamage", amount: 1, target: [{ kind: "MapActorCard" }] },
      },
    ]),
    card("guard", "object", [{ type: "TriggerAbility", conditions: [when("SummonFinished"), SELF], effect: hitEnemy(1) }], { life: 2 }),
  );

  it("does not fire for a unit its summon's chain destroyed; Summoned did", () => {
    const sc = scenario(game).withUnit(1, "sentry", "C4").withHand(0, "herald", "eager");
    sc.act({ kind: "summon", card: 1, cell: at("A0") });
    expect(sc.card(1).layer).toBe("Grave");
    expect(sc.state.players[1].hp).toBe(15);
    // The sentry's answer and the sweep come first; the marker closes the summon.
    expect(sc.commands()).toEqual(["SummonDeclareCommand", "EffectDeclareCommand", "EffectFinishCommand", "DestroyCommand", "SummonFinishCommand"]);
    expect(sc.trace.triggers.filter((t) => t.kind === "SummonFinished")).toEqual([
      { kind: "SummonFinished", type: "Summon", actor: 1, target: -1, player: 0, amount: 0 },
    ]);
    // An ability on Summoned fires before the sentry's answer, so even a unit that dies of it.
    sc.act({ kind: "summon", card: 2, cell: at("B0") });
    expect(sc.card(2).layer).toBe("Grave");
    expect(sc.state.players[1].hp).toBe(14);
  });

  it("fires after the chain for a unit that survived it", () => {
    const sc = scenario(game).withUnit(1, "sentry", "C4").withHand(0, "tough-herald");
    sc.act({ kind: "summon", card: 1, cell: at("A0") });
    expect(sc.card(1).life).toBe(2);
    expect(sc.state.players[1].hp).toBe(14);
    expect(sc.commands()).toEqual([
      "SummonDeclareCommand",
      "EffectDeclareCommand", // the sentry
      "EffectFinishCommand",
      "SummonFinishCommand",
      "EffectDeclareCommand", // the herald
      "EffectFinishCommand",
    ]);
    expect(sc.states()).toEqual(["SummonDeclare", "SummonFinish", "Main"]);
  });

  it("closes a reactSummon too, before the mover's MoveRetry", () => {
    const sc = scenario(game).withUnit(0, "Agnis", "C2").withHand(1, "guard");
    sc.act({ kind: "moveDeclare", card: 0, cell: at("C3") }).act({ kind: "reactSummon", card: 1, cell: at("A4") });
    expect(sc.state.players[0].hp).toBe(14);
    expect(sc.commands()).toEqual(["SummonDeclareCommand", "SummonFinishCommand", "EffectDeclareCommand", "EffectFinishCommand"]);
    expect(sc.state.state.kind).toBe("MoveRetry");
    expect(sc.states()).toEqual(["SummonFinish", "MoveRetry"]);
  });
});

describe("EffectFinishCommand: EffectFinished once an effect and its whole chain are over", () => {
  // The watchers answer an own cost-2 card's effect (not each other's) once that card is damaged.
  const damagedOwnCost2Actor = [
    { kind: "MapActorCard" },
    { kind: "FilterCardOwner", opponent: false },
    { kind: "FilterCardCost", cmp: "Equal", value: 2 },
    { kind: "FilterCardDamage" },
  ];
  const game = gameWith(
    card(
      "bomber",
      "rubric",
      [
        {
          type: "TriggerAbility",
          conditions: [when("Summoned"), SELF],
          effect: { kind: "CardDamage", amount: 1, target: [{ kind: "MapCard" }, { kind: "FilterCardOwner", opponent: true }] },
        },
      ],
      { cost: 2, life: 3 },
    ),
    card("early", "rubric", [{ type: "TriggerAbility", conditions: [when("EffectDeclared"), damagedOwnCost2Actor], effect: hitEnemy(1) }]),
    card("late", "rubric", [{ type: "TriggerAbility", conditions: [when("EffectFinished"), damagedOwnCost2Actor], effect: hitEnemy(3) }]),
    // An enemy wall that strikes back at whoever damaged it with an effect.
    card(
      "thorn-wall",
      "object",
      [
        {
          type: "TriggerAbility",
          conditions: [when("EffectDamagedCard"), [{ kind: "MapTargetCard" }, { kind: "FilterAbilityConsumer" }]],
          effect: { kind: "CardDamage", amount: 1, target: [{ kind: "MapActorCard" }] },
        },
      ],
      { life: 5 },
    ),
  );

  it("lets an ability see what the effect's chain did, which EffectDeclared cannot", () => {
    const sc = scenario(game).withUnit(0, "early", "A1").withUnit(0, "late", "B1").withUnit(1, "thorn-wall", "C4").withHand(0, "bomber");
    sc.act({ kind: "summon", card: 3, cell: at("C0") });
    expect(sc.life("C4")).toBe(4);
    expect(sc.card(3).life).toBe(2); // the wall struck back inside the bomber's chain
    expect(sc.state.players[1].hp).toBe(12); // "late" only: 3 damage; "early" saw no damage yet
    const declared = (id: number) => sc.trace.commands.findIndex((c) => c.kind === "EffectDeclareCommand" && c.card === id);
    const finished = (id: number) => sc.trace.commands.findIndex((c) => c.kind === "EffectFinishCommand" && c.card === id);
    // The wall's answer is resolved inside the bomber's effect, before the bomber's marker.
    expect(declared(3)).toBeLessThan(declared(2));
    expect(finished(2)).toBeLessThan(finished(3));
    expect(finished(3)).toBeLessThan(declared(1));
    expect(declared(0)).toBe(-1);
    const bomberDone = sc.trace.triggers.find((t) => t.kind === "EffectFinished" && t.actor === 3);
    expect(bomberDone).toEqual({ kind: "EffectFinished", type: "Effect", actor: 3, target: -1, player: 0, amount: 0 });
  });
});

describe("AbilityOblivionChanged: a card's abilities were sealed (amount 1) or restored (amount 0)", () => {
  const game = gameWith(
    // Sealed unless the enemy player is at 14 HP or less; restored, it strikes the enemy for 1.
    card("dormant", "rubric", [
      { type: "NightmareAbility", conditions: [[...ENEMY_PLAYER, { kind: "FilterPlayerHp", cmp: "LessThanOrEqual", value: 14 }]] },
      {
        type: "TriggerAbility",
        conditions: [when("AbilityOblivionChanged"), SELF, [{ kind: "Any" }, { kind: "FilterTriggerDamage", cmp: "Equal", value: 0 }]],
        effect: hitEnemy(1),
      },
    ]),
    // When one of its owner's units is sealed, 5 damage to the enemy player.
    card("mourner", "rubric", [
      {
        type: "TriggerAbility",
        conditions: [
          when("AbilityOblivionChanged"),
          [{ kind: "Any" }, { kind: "FilterTriggerDamage", cmp: "Equal", value: 1 }],
          [{ kind: "MapActorCard" }, { kind: "FilterCardOwner", opponent: false }],
        ],
        effect: hitEnemy(5),
      },
    ]),
    // At the start of its owner's turn, its owner recovers 3 HP.
    card("healer", "rubric", [
      {
        type: "TriggerAbility",
        conditions: [[...when("TurnStarted"), { kind: "FilterTurnPlayer" }]],
        effect: { kind: "PlayerRecoverHp", amount: 3, target: [{ kind: "MapPlayer" }, { kind: "FilterCardOwner", opponent: false }] },
      },
    ]),
  );

  it("fires when a Nightmare restores a card's abilities, after NightmareUnsealed", () => {
    // A direct attack from the enemy's middle row: 2 damage, 15 -> 13, and "dormant" wakes up.
    const sc = scenario(game).withUnit(0, "dormant", "A1").withUnit(0, "mourner", "B1").withUnit(0, "Agnis", "C5");
    expect(sc.card(0).sealed).toBe(true);
    sc.act({ kind: "direct", card: 2 });
    expect(sc.card(0).sealed).toBe(false);
    expect(sc.state.players[1].hp).toBe(12); // 2, then 1 from dormant; mourner answers only a seal
    const kinds = sc.triggers().filter((k) => k === "NightmareUnsealed" || k === "AbilityOblivionChanged");
    expect(kinds).toEqual(["NightmareUnsealed", "AbilityOblivionChanged"]);
    expect(sc.trace.triggers.find((t) => t.kind === "AbilityOblivionChanged")).toEqual({
      kind: "AbilityOblivionChanged",
      type: "Direct",
      actor: 0,
      target: 0,
      player: 0,
      amount: 0,
    });
  });

  it("fires when a card's abilities are sealed (amount 1), and again when they come back", () => {
    // The enemy heals 12 -> 15 at its turn start: dormant is sealed, mourner strikes for 5
    // (15 -> 10), dormant wakes again and strikes for 1 (10 -> 9).
    const sc = scenario(game).withPlayer(1, { hp: 12 }).withUnit(0, "dormant", "A1").withUnit(0, "mourner", "B1").withUnit(1, "healer", "E5");
    expect(sc.card(0).sealed).toBe(false);
    sc.act({ kind: "turnFinish" });
    expect(sc.state.players[1].hp).toBe(9);
    expect(sc.trace.triggers.filter((t) => t.kind === "AbilityOblivionChanged").map((t) => t.amount)).toEqual([1, 0]);
    expect(sc.card(0).sealed).toBe(false);
  });
});

describe("StateChanged: the battle entered another State", () => {
  const game = gameWith(
    // At the start of its owner's Draw step, 1 damage to the enemy player.
    card("herald-of-dawn", "rubric", [
      {
        type: "TriggerAbility",
        conditions: [when("StateChanged"), [{ kind: "Any" }, { kind: "FilterTriggerState", states: ["Draw"] }, { kind: "FilterTurnPlayer" }]],
        effect: hitEnemy(1),
      },
    ]),
    // When an attack on it reaches its damage step, it recovers 2 first.
    card(
      "bracer",
      "rubric",
      [
        {
          type: "TriggerAbility",
          conditions: [
            when("StateChanged"),
            [{ kind: "Any" }, { kind: "FilterTriggerState", states: ["AttackDamage"] }],
            [{ kind: "MapTargetCard" }, { kind: "FilterAbilityConsumer" }],
          ],
          effect: { kind: "CardRecover", amount: 2, target: ME },
        },
      ],
      { life: 2 },
    ),
  );

  it("names each State entered, in order, with its flow as the type", () => {
    const sc = scenario(game).withUnit(0, "herald-of-dawn", "A1");
    sc.act({ kind: "turnFinish" });
    expect(sc.states()).toEqual(["TurnFinish", "PoisonDamage", "TurnStart", "Draw"]);
    const draw = sc.trace.triggers.filter((t) => t.kind === "StateChanged").at(-1);
    expect(draw).toEqual({ kind: "StateChanged", type: "Draw", actor: -1, target: -1, player: 1, amount: STATE_KINDS.indexOf("Draw") });
    expect(sc.state.players[1].hp).toBe(15); // the enemy's Draw step: not its owner's
    sc.act({ kind: "drawOrCharge", charge: true }).act({ kind: "turnFinish" });
    expect(sc.state.players[1].hp).toBe(14);
    expect(sc.state.state.kind).toBe("Draw");
  });

  it("is answered before the State's own step runs", () => {
    // Agnis (attack 2) against a 2-life bracer: it recovers to 4 on entering AttackDamage, then survives.
    const sc = scenario(game).withUnit(0, "Agnis", "C2").withUnit(1, "bracer", "C3");
    sc.act({ kind: "attack", card: 0, cell: at("C3") });
    expect(sc.states()).toEqual(["AttackDeclare", "AttackDamage", "AttackDestroy", "AttackFinish", "Main"]);
    expect(sc.life("C3")).toBe(2);
  });

  it("an attack's kill stays the attack's: AttackDestroyed, the attacker as the CardGraved actor", () => {
    // Some card answers StateChanged (herald-of-dawn), so the flow resolves it on entering
    // AttackDestroy; the target at 0 life must wait for that step, not be swept as an Effect death.
    const sc = scenario(game).withUnit(0, "herald-of-dawn", "A1").withUnit(0, "Agnis", "C2").withUnit(1, "Est", "C3");
    sc.act({ kind: "attack", card: 1, cell: at("C3") });
    expect(sc.card(2).layer).toBe("Grave");
    expect(sc.commands()).toContain("AttackDestroyCommand");
    expect(sc.commands()).not.toContain("DestroyCommand");
    expect(sc.trace.triggers.find((t) => t.kind === "CardGraved")).toMatchObject({ type: "Attack", actor: 1, target: 2 });
  });

  it("a step that an answer made impossible does not happen: a filled summon cell, a spent feint", () => {
    const entering = (state: string) => [...when("StateChanged"), { kind: "FilterTriggerState", states: [state] }];
    const g = gameWith(
      // On entering SummonDeclare, it steps back one row (into the summon's cell below it).
      card("usher", "rubric", [
        { type: "TriggerAbility", conditions: [entering("SummonDeclare")], effect: { kind: "CardMove", direction: "back", distance: 1, target: ME } },
      ]),
      // On entering FeintDeclare, the enemy's face-down feints are spent.
      card("sweeper", "rubric", [
        {
          type: "TriggerAbility",
          conditions: [entering("FeintDeclare"), [{ kind: "Any" }, { kind: "FilterTurnPlayer" }]],
          effect: { kind: "ConsumeFeint", target: ENEMY_PLAYER },
        },
      ]),
    );
    const summon = scenario(g).withUnit(0, "usher", "A1").withHand(0, "Agnis");
    summon.act({ kind: "summon", card: 1, cell: at("A0") });
    expect(summon.unitAt("A0")).toBe(0);
    expect(summon.state.hands[0]).toEqual([1]); // not summoned, nothing paid
    expect(summon.state.players[0].mp).toBe(8);
    expect(summon.commands()).not.toContain("SummonDeclareCommand");
    expect(summon.state.state.kind).toBe("Main");

    const move = scenario(g).withUnit(0, "sweeper", "A1").withUnit(0, "Agnis", "C2").withFeint(1, "Pitfall", "C3");
    move.act({ kind: "moveDeclare", card: 1, cell: at("C3") }).act({ kind: "reactNone" });
    expect(move.card(2).layer).toBe("Grave");
    expect(move.card(1).life).toBe(3); // the pitfall never opened
    expect(move.states()).toEqual(["MoveResult", "FeintDeclare", "MoveFinish", "Main"]);
    expect(move.state.state.kind).toBe("Main");
  });

  it("needs a FilterTriggerKind even with a FilterTriggerState, as the schema says", () => {
    const bare = loadPool([
      card("bare", "rubric", [
        { type: "TriggerAbility", conditions: [[{ kind: "Any" }, { kind: "FilterTriggerState", states: ["Draw"] }]], effect: hitEnemy(1) },
      ]),
    ]);
    expect(bare.ok ? "accepted" : bare.error.message).toMatch(/needs a FilterTriggerKind/);
  });

  it("ends the battle before the step when an answer empties a player's HP", () => {
    const sc = scenario(game).withPlayer(1, { hp: 1 }).withUnit(0, "herald-of-dawn", "A1").withTurn(4, 1);
    sc.act({ kind: "turnFinish" });
    expect(sc.state.finished).toBe(true);
    expect(sc.state.winner).toBe(0);
    expect(sc.states()).toEqual(["TurnFinish", "PoisonDamage", "TurnStart", "Draw", "BattleFinish"]);
  });
});
