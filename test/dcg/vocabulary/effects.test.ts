import { describe, expect, it } from "vitest";
import { dcg } from "../../../engine/dcg/index.ts";
import { effectHandlers, runEffect, type Effect, type EffectKind } from "../../../engine/dcg/effect.ts";
import { effectiveAttack } from "../../../engine/dcg/params.ts";
import { at, cardOf, mutate, scenario, scope, trig } from "./kit.ts";

/** One test per Effect (docs/cards.md), run directly on a draft; the table's keys must be the registry's. */
const board = () =>
  scenario()
    .withUnit(0, "Agnis", "C2") // 0
    .withUnit(0, "Est", "B2", { life: 1 }) // 1
    .withUnit(1, "Agnis", "C3") // 2
    .withUnit(1, "Stone Wall", "D4"); // 3

const ENEMY = [{ kind: "MapCard" }, { kind: "FilterCardOwner", opponent: true }] as const;
const run = (sc: ReturnType<typeof board>, e: Effect, consumer = 0) =>
  mutate(sc, (d) => runEffect(d, e, scope({ consumer, producer: consumer, owner: sc.state.cards[consumer]!.owner })));
const kinds = (t: { triggers: { kind: string }[] }) => t.triggers.map((x) => x.kind);

const cases: { [K in EffectKind]: () => void } & Record<string, () => void> = {
  PlayerDamage: () => {
    const sc = board();
    const t = run(sc, { kind: "PlayerDamage", amount: 2, target: [{ kind: "MapPlayer" }, { kind: "FilterCardOwner", opponent: true }] });
    expect(sc.state.players.map((p) => p.hp)).toEqual([15, 13]);
    expect(kinds(t)).toEqual(["EffectDamagedPlayerHp"]);
    // Card targets stand for their owners, once each.
    run(sc, { kind: "PlayerDamage", amount: 1, target: [...ENEMY] });
    expect(sc.state.players[1].hp).toBe(12);
  },
  PlayerRecoverHp: () => {
    const sc = board().withPlayer(0, { hp: 14 }).withPlayer(1, { hp: 10 });
    run(sc, { kind: "PlayerRecoverHp", amount: 3, target: [{ kind: "MapPlayer" }] });
    expect(sc.state.players.map((p) => p.hp)).toEqual([15, 13]); // capped at the starting HP
  },
  CardDamage: () => {
    const sc = board();
    const t = run(sc, { kind: "CardDamage", amount: 2, target: [...ENEMY] });
    expect([cardOf(sc, 2).life, cardOf(sc, 3).life]).toEqual([1, 3]);
    expect(kinds(t)).toEqual(["EffectDamagedCard", "EffectDamagedCard"]);
  },
  CardRecover: () => {
    const sc = board();
    run(sc, { kind: "CardRecover", amount: 3, target: [{ kind: "MapCard" }, { kind: "FilterCardOwner", opponent: false }] });
    expect([cardOf(sc, 0).life, cardOf(sc, 1).life]).toEqual([6, 4]); // no cap at the printed life
  },
  CardMove: () => {
    const sc = board().withUnit(1, "Est", "A5"); // 4
    const t = run(sc, { kind: "CardMove", direction: "forward", distance: 2, target: [{ kind: "MapCard" }, { kind: "FilterCardKind", cardKind: "rubric" }] });
    // Forward is towards the enemy: the Host's rubrics go up, the Guest's down; a unit in the way stops it.
    expect(cardOf(sc, 1).cell).toBe(at("B4"));
    expect(cardOf(sc, 0).cell).toBe(at("C2")); // C3 is taken
    expect(cardOf(sc, 2).cell).toBe(at("C3")); // C2 is taken
    expect(cardOf(sc, 4).cell).toBe(at("A3"));
    expect(cardOf(sc, 3).cell).toBe(at("D4")); // objects never move
    expect(kinds(t)).toEqual(["Teleported", "Teleported"]);
    run(sc, { kind: "CardMove", direction: "left", distance: 5, target: [{ kind: "MapActorCard" }] }, 0);
    expect(cardOf(sc, 0).cell).toBe(at("A2")); // stops at the edge
    expect(sc.state.cells[at("C2")]).toBe(-1);
  },
  CardSwap: () => {
    const sc = board();
    run(sc, { kind: "CardSwap", target: [{ kind: "MapCard" }, { kind: "FilterCardKind", cardKind: "object" }] }, 0);
    expect([cardOf(sc, 0).cell, cardOf(sc, 3).cell]).toEqual([at("D4"), at("C2")]);
    expect([sc.state.cells[at("D4")], sc.state.cells[at("C2")]]).toEqual([0, 3]);
  },
  CardAilment: () => {
    const sc = board();
    const t = run(sc, { kind: "CardAilment", ailment: "poison", target: [...ENEMY] });
    expect([cardOf(sc, 2).ailment, cardOf(sc, 3).ailment]).toEqual(["poison", "poison"]);
    expect(kinds(t)).toEqual(["CardAilmentChanged", "CardAilmentChanged"]);
    const again = run(sc, { kind: "CardAilment", ailment: "poison", target: [...ENEMY] });
    expect(kinds(again)).toEqual([]); // no change, no trigger
    run(sc, { kind: "CardAilment", ailment: "none", target: [...ENEMY] });
    expect(cardOf(sc, 2).ailment).toBe("none");
  },
  AttachAbility: () => {
    const vogaros = dcg.pool.cards[dcg.pool.byId.get("vogaros")!]!;
    const plus2 = vogaros.paramAbilities[0]!;
    const sc = board();
    run(sc, {
      kind: "AttachAbility",
      ability: plus2,
      target: [{ kind: "MapCard" }, { kind: "FilterCardKind", cardKind: "rubric" }, { kind: "FilterCardOwner", opponent: false }],
    });
    expect(cardOf(sc, 0).attached).toEqual([{ ability: plus2, producer: 0, area: false }]);
    expect(effectiveAttack(sc.state, sc.pool, 0)).toBe(4);
    // The same ability from the same producer never stacks.
    run(sc, { kind: "AttachAbility", ability: plus2, target: [{ kind: "MapActorCard" }] });
    expect(effectiveAttack(sc.state, sc.pool, 0)).toBe(4);
  },
  PlayerHand: () => {
    const sc = board().withBook(0, "Est", "Agnis");
    const t = run(sc, { kind: "PlayerHand", amount: 3, target: [{ kind: "MapPlayer" }, { kind: "FilterCardOwner", opponent: false }] });
    expect(sc.state.hands[0]).toEqual([5, 4]); // the last book card first; a third draw from an empty book does nothing
    expect(kinds(t)).toEqual(["Draw", "Draw"]);
  },
  ConsumeFeint: () => {
    const sc = board().withFeint(1, "Pitfall", "A3"); // 4
    run(sc, { kind: "ConsumeFeint", target: [{ kind: "MapCell" }, { kind: "FilterCardCell", cells: [[1, 3]] }] });
    expect(cardOf(sc, 4).layer).toBe("Field"); // not on the targeted cell
    const t = run(sc, { kind: "ConsumeFeint", target: [{ kind: "MapPlayer" }, { kind: "FilterCardOwner", opponent: true }] });
    expect(cardOf(sc, 4).layer).toBe("Grave");
    expect(sc.state.feints[at("A3")]).toBe(-1);
    expect(sc.state.players[1].feint).toBe(-1);
    expect(kinds(t)).toEqual(["CardGraved"]);
    // Card targets stand for their owners; `amount` caps how many go, first by cell.
    const two = board().withFeint(1, "Pitfall", "A3").withFeint(1, "Pitfall", "E3"); // 4, 5
    run(two, { kind: "ConsumeFeint", amount: 1, target: [{ kind: "MapCard" }, { kind: "FilterCardOwner", opponent: true }] });
    expect([cardOf(two, 4).layer, cardOf(two, 5).layer]).toEqual(["Grave", "Field"]);
  },
  "ConsumeFeint (damage cut)": () => {
    // The design's damage cut: answering a 5-damage hit on its own unit, one feint is spent and the hit undone.
    const cut: Effect = { kind: "ConsumeFeint", amount: 1, cut: true, target: [{ kind: "MapTargetCard" }] };
    const sc = board().withFeint(0, "Pitfall", "A1"); // 4
    mutate(sc, (d) => {
      d.card(0).life -= 5;
      runEffect(d, cut, scope({ consumer: 0, producer: 0, owner: 0, trigger: trig("AttackDamaged", { target: 0, amount: 5 }) }));
    });
    expect(cardOf(sc, 0).life).toBe(3);
    expect(cardOf(sc, 4).layer).toBe("Grave");
    // No feint left: nothing to spend, the damage stays.
    mutate(sc, (d) => {
      d.card(0).life -= 5;
      runEffect(d, cut, scope({ consumer: 0, producer: 0, owner: 0, trigger: trig("AttackDamaged", { target: 0, amount: 5 }) }));
    });
    expect(cardOf(sc, 0).life).toBe(-2);
    // Player damage is cut too.
    const p = board().withFeint(1, "Pitfall", "A3").withPlayer(1, { hp: 10 });
    mutate(p, (d) =>
      runEffect(
        d,
        { ...cut, target: [{ kind: "MapPlayer" }, { kind: "FilterCardOwner", opponent: true }] },
        scope({ trigger: trig("DirectDamaged", { player: 1, amount: 4 }) }),
      ),
    );
    expect(p.state.players[1].hp).toBe(14);
  },
};

describe("Effects", () => {
  it("every Effect of the registry has a test here, and only those", () => {
    expect(
      Object.keys(cases)
        .filter((k) => !k.includes(" "))
        .sort(),
    ).toEqual(Object.keys(effectHandlers).sort());
  });
  for (const [kind, runCase] of Object.entries(cases)) it(kind, runCase);
});
