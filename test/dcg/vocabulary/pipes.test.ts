import { describe, expect, it } from "vitest";
import { pipeHandlers, type PipeKind } from "../../../engine/dcg/pipes.ts";
import { STATE_KINDS } from "../../../engine/dcg/state.ts";
import type { Targeting } from "../../../engine/dcg/targeting.ts";
import { at, cardOf, ids, query, scenario, trig } from "./kit.ts";

/** One test per Pipe (docs/cards.md); the table's keys must be exactly the registry's. */
const board = () =>
  scenario()
    .withUnit(0, "Agnis", "C2") // 0: own rubric, cost 1, attack 2, life 3
    .withUnit(0, "Est", "C1", { life: 1, ailment: "poison" }) // 1: own, damaged 1, poisoned
    .withUnit(1, "Vogaros", "C3", { life: 2 }) // 2: enemy cost 3, attack 3, damaged 4, in the centre row
    .withUnit(1, "Stone Wall", "D4") // 3: enemy object in its front row
    .withUnit(0, "Agnis", "B5"); // 4: own rubric invading the enemy home (enemy middle row)
const ALL = [{ kind: "MapCard" }] as const;

const cases: { [K in PipeKind]: () => void } = {
  FilterCardOwner: () => {
    const sc = board();
    expect(ids(sc, [...ALL, { kind: "FilterCardOwner", opponent: true }])).toEqual([2, 3]);
    expect(ids(sc, [...ALL, { kind: "FilterCardOwner", opponent: false }], { owner: 1 })).toEqual([2, 3]);
    expect(query(sc, [{ kind: "MapPlayer" }, { kind: "FilterCardOwner", opponent: true }])).toEqual({ kind: "player", ids: [1] });
    // On cells it reads the units standing there.
    expect(ids(sc, [{ kind: "MapCell" }, { kind: "FilterCardOwner", opponent: true }])).toEqual([2, 3]);
  },
  FilterCardKind: () => {
    expect(ids(board(), [...ALL, { kind: "FilterCardKind", cardKind: "object" }])).toEqual([3]);
    expect(ids(board(), [...ALL, { kind: "FilterCardKind", cardKind: "rubric" }])).toEqual([0, 1, 2, 4]);
  },
  FilterCardCost: () => {
    expect(ids(board(), [...ALL, { kind: "FilterCardCost", cmp: "GreaterThanOrEqual", value: 2 }])).toEqual([2, 3]);
    expect(ids(board(), [...ALL, { kind: "FilterCardCost", cmp: "Equal", value: 0 }])).toEqual([1]);
  },
  FilterCardAttack: () => {
    // Effective attack: Vogaros is sealed at 15 HP (3), Stone Wall 0.
    expect(ids(board(), [...ALL, { kind: "FilterCardAttack", cmp: "GreaterThan", value: 1 }])).toEqual([0, 2, 4]);
    const hurt = board().withPlayer(1, { hp: 9 }); // Vogaros unsealed: 5
    expect(ids(hurt, [...ALL, { kind: "FilterCardAttack", cmp: "GreaterThanOrEqual", value: 5 }])).toEqual([2]);
  },
  FilterCardHp: () => {
    // Current life: Agnis 3, Est 1, Vogaros 2, Stone Wall 5, Agnis 3.
    expect(ids(board(), [...ALL, { kind: "FilterCardHp", cmp: "LessThanOrEqual", value: 2 }])).toEqual([1, 2]);
    expect(ids(board(), [...ALL, { kind: "FilterCardHp", cmp: "GreaterThan", value: 3 }])).toEqual([3]);
    expect(ids(board(), [...ALL, { kind: "FilterCardHp", cmp: "Equal", value: 3 }])).toEqual([0, 4]);
  },
  FilterCardDamage: () => {
    expect(ids(board(), [...ALL, { kind: "FilterCardDamage" }])).toEqual([1, 2]); // default: damaged at all
    expect(ids(board(), [...ALL, { kind: "FilterCardDamage", cmp: "GreaterThanOrEqual", value: 3 }])).toEqual([2]);
  },
  FilterCardAilment: () => {
    expect(ids(board(), [...ALL, { kind: "FilterCardAilment", ailment: "poison" }])).toEqual([1]);
    expect(ids(board(), [...ALL, { kind: "FilterCardAilment", ailment: "any" }])).toEqual([1]);
    expect(ids(board(), [...ALL, { kind: "FilterCardAilment", ailment: "none" }])).toEqual([0, 2, 3, 4]);
  },
  FilterLayer: () => {
    const sc = board().withHand(0, "Est"); // 5
    expect(
      ids(sc, [
        { kind: "MapCard", layers: ["Hand", "Field"] },
        { kind: "FilterLayer", layer: "Hand" },
      ]),
    ).toEqual([5]);
    // Rows are relative to each card's owner.
    expect(ids(sc, [...ALL, { kind: "FilterLayer", row: "front" }])).toEqual([0, 3]);
    expect(ids(sc, [...ALL, { kind: "FilterLayer", row: "centre" }])).toEqual([2]);
    expect(ids(sc, [...ALL, { kind: "FilterLayer", row: "enemyMiddle" }])).toEqual([4]);
    expect(ids(sc, [...ALL, { kind: "FilterLayer", layer: "Field", row: "middle" }])).toEqual([1]);
  },
  FilterCardCell: () => {
    const sc = board();
    // [x, y] relative to the asking player: for the Guest, its back row is y = 0.
    expect(
      ids(sc, [
        ...ALL,
        {
          kind: "FilterCardCell",
          cells: [
            [2, 2],
            [3, 4],
          ],
        },
      ]),
    ).toEqual([0, 3]);
    expect(ids(sc, [...ALL, { kind: "FilterCardCell", cells: [[3, 2]] }], { owner: 1 })).toEqual([3]);
    expect(ids(sc, [{ kind: "MapCell" }, { kind: "FilterCardCell", cells: [[0, 0]] }])).toEqual([at("A0")]);
  },
  FilterInvader: () => {
    expect(ids(board(), [...ALL, { kind: "FilterInvader" }])).toEqual([4]);
    expect(ids(board(), [...ALL, { kind: "FilterInvader", invader: false }])).toEqual([0, 1, 2, 3]);
  },
  FilterTriggerType: () => {
    const t = trig("CardGraved", { type: "Attack" });
    expect(ids(board(), [{ kind: "Any" }, { kind: "FilterTriggerType", types: ["Attack", "Direct"] }], { trigger: t })).toEqual([0]);
    expect(ids(board(), [{ kind: "Any" }, { kind: "FilterTriggerType", types: ["Effect"] }], { trigger: t })).toEqual([]);
    expect(ids(board(), [{ kind: "Any" }, { kind: "FilterTriggerType", types: ["Attack"] }])).toEqual([]);
  },
  FilterTriggerKind: () => {
    const t = trig("Summoned");
    expect(ids(board(), [{ kind: "Any" }, { kind: "FilterTriggerKind", triggers: ["Summoned", "Moved"] }], { trigger: t })).toEqual([0]);
    expect(ids(board(), [{ kind: "Any" }, { kind: "FilterTriggerKind", triggers: ["Moved"] }], { trigger: t })).toEqual([]);
  },
  FilterTriggerDamage: () => {
    const t = trig("AttackDamaged", { amount: 3 });
    expect(ids(board(), [{ kind: "Any" }, { kind: "FilterTriggerDamage", cmp: "GreaterThanOrEqual", value: 3 }], { trigger: t })).toEqual([0]);
    expect(ids(board(), [{ kind: "Any" }, { kind: "FilterTriggerDamage", cmp: "GreaterThan", value: 3 }], { trigger: t })).toEqual([]);
  },
  FilterTriggerState: () => {
    // A StateChanged names the State entered by its index in STATE_KINDS; other triggers name none.
    const draw = trig("StateChanged", { type: "Draw", amount: STATE_KINDS.indexOf("Draw") });
    const when = (states: string[]) => [{ kind: "Any" }, { kind: "FilterTriggerState", states }] as Targeting;
    expect(ids(board(), when(["Main", "Draw"]), { trigger: draw })).toEqual([0]);
    expect(ids(board(), when(["Main"]), { trigger: draw })).toEqual([]);
    expect(ids(board(), when(["Draw"]), { trigger: trig("Draw", { amount: STATE_KINDS.indexOf("Draw") }) })).toEqual([]);
    expect(ids(board(), when(["Draw"]))).toEqual([]);
  },
  FilterTargetCard: () => {
    const t = trig("AttackDamaged", { actor: 0, target: 2 });
    expect(ids(board(), [...ALL, { kind: "FilterTargetCard" }], { trigger: t })).toEqual([2]);
    expect(ids(board(), [...ALL, { kind: "FilterTargetCard", except: true }], { trigger: t })).toEqual([0, 1, 3, 4]);
  },
  FilterAbilityConsumer: () => {
    expect(ids(board(), [...ALL, { kind: "FilterAbilityConsumer" }], { consumer: 1 })).toEqual([1]);
    expect(ids(board(), [...ALL, { kind: "FilterAbilityConsumer", except: true }], { consumer: 1 })).toEqual([0, 2, 3, 4]);
  },
  FilterAbilityProducer: () => {
    expect(ids(board(), [...ALL, { kind: "FilterAbilityProducer" }], { consumer: 1, producer: 3 })).toEqual([3]);
    expect(ids(board(), [...ALL, { kind: "FilterAbilityProducer", except: true }], { consumer: 1, producer: 3 })).toEqual([0, 1, 2, 4]);
  },
  FilterActivateCount: () => {
    const sc = board();
    const sentence = [{ kind: "MapAbility" }, { kind: "FilterActivateCount", cmp: "LessThan", value: 1 }] as const;
    expect(ids(sc, sentence, { consumer: 0, ability: 7 })).toEqual([7]);
    // Two activations of ability 7 this turn (turn 3); counts from an earlier turn do not count.
    (sc.state.cards as unknown[])[0] = { ...cardOf(sc, 0), acts: [7, 2], actsTurn: 3 };
    expect(ids(sc, sentence, { consumer: 0, ability: 7 })).toEqual([]);
    expect(ids(sc, [{ kind: "MapAbility" }, { kind: "FilterActivateCount", cmp: "Equal", value: 2 }], { consumer: 0, ability: 7 })).toEqual([7]);
    (sc.state.cards as unknown[])[0] = { ...cardOf(sc, 0), acts: [7, 2], actsTurn: 2 };
    expect(ids(sc, sentence, { consumer: 0, ability: 7 })).toEqual([7]);
  },
  FilterTurnPlayer: () => {
    expect(ids(board(), [{ kind: "Any" }, { kind: "FilterTurnPlayer" }], { owner: 0 })).toEqual([0]);
    expect(ids(board(), [{ kind: "Any" }, { kind: "FilterTurnPlayer" }], { owner: 1 })).toEqual([]);
    expect(ids(board(), [{ kind: "Any" }, { kind: "FilterTurnPlayer", opponent: true }], { owner: 1 })).toEqual([0]);
  },
  FilterPlayerDirectDamageInThisTurn: () => {
    const sc = board().withPlayer(1, { directDamage: 2 });
    expect(ids(sc, [{ kind: "MapPlayer" }, { kind: "FilterPlayerDirectDamageInThisTurn", cmp: "GreaterThan", value: 0 }])).toEqual([1]);
    expect(ids(sc, [{ kind: "MapPlayer" }, { kind: "FilterPlayerDirectDamageInThisTurn", cmp: "Equal", value: 0 }])).toEqual([0]);
  },
  FilterPlayerHp: () => {
    const sc = board().withPlayer(0, { hp: 10 });
    expect(ids(sc, [{ kind: "MapPlayer" }, { kind: "FilterPlayerHp", cmp: "LessThanOrEqual", value: 10 }])).toEqual([0]);
    expect(ids(sc, [{ kind: "MapPlayer" }, { kind: "FilterPlayerHp", cmp: "LessThan", value: 10 }])).toEqual([]);
  },
  Take: () => {
    expect(ids(board(), [...ALL, { kind: "Take", count: 2, mode: "first" }])).toEqual([0, 1]);
    expect(ids(board(), [...ALL, { kind: "Take", count: 9, mode: "first" }])).toEqual([0, 1, 2, 3, 4]);
    // Random picks come from the state's RNG: the same seed, the same pick, sorted.
    const pick = (seed: number) =>
      ids(scenario(undefined, seed).withUnit(0, "Est", "A0").withUnit(0, "Est", "B0").withUnit(0, "Est", "C0").withUnit(0, "Est", "D0"), [
        ...ALL,
        { kind: "Take", count: 2, mode: "random" },
      ]);
    expect(pick(3)).toEqual(pick(3));
    const picks = new Set([1, 2, 3, 4, 5, 6, 7, 8, 9, 10].map((s) => pick(s).join()));
    expect(picks.size).toBeGreaterThan(1);
    for (const p of picks) expect(p.split(",").map(Number)).toEqual([...p.split(",").map(Number)].sort((a, b) => a - b));
  },
  Count: () => {
    expect(ids(board(), [...ALL, { kind: "FilterCardOwner", opponent: true }, { kind: "Count", cmp: "Equal", value: 2 }])).toEqual([2, 3]);
    expect(ids(board(), [...ALL, { kind: "FilterCardOwner", opponent: true }, { kind: "Count", cmp: "GreaterThan", value: 2 }])).toEqual([]);
  },
};

describe("Targeting Pipes", () => {
  it("every Pipe of the registry has a test here, and only those", () => {
    expect(Object.keys(cases).sort()).toEqual(Object.keys(pipeHandlers).sort());
  });
  for (const [kind, run] of Object.entries(cases)) it(kind, run);
});
