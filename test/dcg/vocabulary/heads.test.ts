import { describe, expect, it } from "vitest";
import { headHandlers, type HeadKind } from "../../../engine/dcg/heads.ts";
import { at, ids, query, scenario, trig } from "./kit.ts";

/** One test per Head (docs/cards.md); the table's keys must be exactly the registry's. */
const board = () =>
  scenario()
    .withUnit(0, "Agnis", "C2") // 0
    .withUnit(0, "Est", "C1") // 1
    .withUnit(1, "Vogaros", "C3") // 2
    .withUnit(1, "Stone Wall", "D4") // 3
    .withHand(0, "Blitz") // 4
    .withFeint(1, "Pitfall", "A3"); // 5

const cases: { [K in HeadKind]: () => void } = {
  Any: () => {
    const r = query(board(), [{ kind: "Any" }]);
    expect(r).toEqual({ kind: "any", ids: [0] });
  },
  MapCard: () => {
    const sc = board();
    expect(ids(sc, [{ kind: "MapCard" }])).toEqual([0, 1, 2, 3]);
    expect(ids(sc, [{ kind: "MapCard", layers: ["Hand"] }])).toEqual([4]);
    // A face-down feint is on the Field but never a map result.
    expect(ids(sc, [{ kind: "MapCard", layers: ["Field"] }])).toEqual([0, 1, 2, 3]);
  },
  MapPlayer: () => {
    expect(query(board(), [{ kind: "MapPlayer" }], { owner: 1 })).toEqual({ kind: "player", ids: [1, 0] });
  },
  MapCell: () => {
    const sc = board();
    expect(query(sc, [{ kind: "MapCell" }]).ids).toHaveLength(35);
    const empty = ids(sc, [{ kind: "MapCell", empty: true }]);
    expect(empty).toHaveLength(31);
    expect(empty).not.toContain(at("C2"));
    expect(empty).toContain(at("A3")); // a feint does not fill a cell
  },
  MapActorCard: () => {
    const sc = board();
    expect(ids(sc, [{ kind: "MapActorCard" }], { consumer: 1, trigger: trig("Moved", { actor: 2 }) })).toEqual([2]);
    expect(ids(sc, [{ kind: "MapActorCard" }], { consumer: 1 })).toEqual([1]); // no trigger: the consumer
  },
  MapTargetCard: () => {
    const sc = board();
    expect(ids(sc, [{ kind: "MapTargetCard" }], { trigger: trig("AttackDamaged", { actor: 0, target: 2 }) })).toEqual([2]);
    expect(ids(sc, [{ kind: "MapTargetCard" }])).toEqual([]);
  },
  MapFollowCell: () => {
    const sc = board();
    expect(ids(sc, [{ kind: "MapFollowCell", reach: "D1" }], { consumer: 0 })).toEqual([at("C1"), at("B2"), at("D2"), at("C3")]);
    expect(ids(sc, [{ kind: "MapActorCard" }, { kind: "MapFollowCell", reach: "S1" }], { consumer: 0 })).toHaveLength(8);
    expect(ids(sc, [{ kind: "MapFollowCell", reach: "D2" }], { consumer: 0 })).toHaveLength(12);
    expect(ids(sc, [{ kind: "MapFollowCell", reach: "Row" }], { consumer: 0 })).toEqual([at("A2"), at("B2"), at("D2"), at("E2")]);
    expect(ids(sc, [{ kind: "MapFollowCell", reach: "Column" }], { consumer: 0 })).toHaveLength(6);
    // From several cards: the union of their reaches, the origins themselves excluded.
    const two = ids(sc, [{ kind: "MapCard" }, { kind: "FilterCardOwner", opponent: false }, { kind: "MapFollowCell", reach: "D1" }]);
    expect(two).toEqual([at("C0"), at("B1"), at("D1"), at("B2"), at("D2"), at("C3")]);
  },
  MapAbility: () => {
    const sc = board();
    expect(query(sc, [{ kind: "MapAbility" }], { ability: 3 })).toEqual({ kind: "ability", ids: [3] });
    expect(ids(sc, [{ kind: "MapAbility" }], { ability: -1 })).toEqual([]); // a feint's effect has no ability
  },
};

describe("Targeting Heads", () => {
  it("every Head of the registry has a test here, and only those", () => {
    expect(Object.keys(cases).sort()).toEqual(Object.keys(headHandlers).sort());
  });
  for (const [kind, run] of Object.entries(cases)) it(kind, run);
});
