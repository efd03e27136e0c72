import { describe, expect, it } from "vitest";
import { Card, CARD_COPIES, CARD_NAMES, shephy } from "../../engine/shephy/index.ts";
import {
  chooseDeck,
  chooseHand,
  chooseSheep,
  confirm,
  expectResolved,
  gainOne,
  kinds,
  play,
  scenario,
  selectSheep,
  stockOf,
  stop,
  values,
} from "./scenario.ts";

/** One scenario per event card (rules table 3.3), with the edge cases each card's text raises. */

describe("Multiply", () => {
  it("gains a 3 with no decision", () => {
    const s = play(scenario({ field: [1], hand: [Card.Multiply] }), Card.Multiply);
    expect(values(s)).toEqual([1, 3]);
    expect(stockOf(s, 3)).toBe(6);
    expect(s.discard).toEqual([Card.Multiply]);
    expectResolved(s);
  });
  it("does nothing when the 3 stock is empty", () => {
    const s = play(scenario({ field: [1], stock: { 3: 0 }, hand: [Card.Multiply] }), Card.Multiply);
    expect(values(s)).toEqual([1]);
  });
  it("does nothing on a full field", () => {
    const s = play(scenario({ field: [1, 1, 1, 1, 1, 1, 1], hand: [Card.Multiply] }), Card.Multiply);
    expect(values(s)).toEqual([1, 1, 1, 1, 1, 1, 1]);
    expect(stockOf(s, 3)).toBe(7);
  });
});

describe("Fill the Earth", () => {
  it("gains 1s one at a time until the player stops", () => {
    let s = play(scenario({ field: [10], hand: [Card.FillTheEarth] }), Card.FillTheEarth);
    expect(kinds(s)).toEqual(["gainOne", "stop"]);
    s = gainOne(s);
    s = gainOne(s);
    expect(values(s)).toEqual([1, 1, 10]);
    s = stop(s);
    expect(values(s)).toEqual([1, 1, 10]);
    expect(stockOf(s, 1)).toBe(5);
    expectResolved(s);
  });
  it("ends by itself when the field reaches 7", () => {
    let s = play(scenario({ field: [3, 3, 3, 3, 3], hand: [Card.FillTheEarth] }), Card.FillTheEarth);
    s = gainOne(s);
    expect(s.pending).not.toBeNull();
    s = gainOne(s);
    expect(values(s)).toEqual([1, 1, 3, 3, 3, 3, 3]);
    expectResolved(s);
  });
  it("ends by itself when the 1 stock runs out", () => {
    let s = play(scenario({ field: [3], stock: { 1: 1 }, hand: [Card.FillTheEarth] }), Card.FillTheEarth);
    s = gainOne(s);
    expect(values(s)).toEqual([1, 3]);
    expectResolved(s);
  });
  it("asks nothing when no 1 can be gained (full field or empty stock)", () => {
    const full = play(scenario({ field: [3, 3, 3, 3, 3, 3, 3], hand: [Card.FillTheEarth] }), Card.FillTheEarth);
    expectResolved(full);
    const empty = play(scenario({ field: [3], stock: { 1: 0 }, hand: [Card.FillTheEarth] }), Card.FillTheEarth);
    expectResolved(empty);
    expect(values(empty)).toEqual([3]);
  });
});

describe("Be Fruitful", () => {
  it("copies the chosen sheep; one choice per distinct rank", () => {
    let s = play(scenario({ field: [1, 1, 30], hand: [Card.BeFruitful] }), Card.BeFruitful);
    expect(shephy.legal(s)).toEqual([
      { kind: "chooseField", index: 0 },
      { kind: "chooseField", index: 2 },
    ]);
    s = chooseSheep(s, 30);
    expect(values(s)).toEqual([1, 1, 30, 30]);
    expect(stockOf(s, 30)).toBe(5);
    expectResolved(s);
  });
  it("on a full field is played and does nothing", () => {
    const before = scenario({ field: [1, 3, 3, 10, 10, 30, 100], hand: [Card.BeFruitful, Card.Storm] });
    const s = play(before, Card.BeFruitful);
    expect(values(s)).toEqual([1, 3, 3, 10, 10, 30, 100]);
    expect(s.stock).toEqual(before.stock);
    expect(s.discard).toEqual([Card.BeFruitful]);
    expectResolved(s);
  });
  it("gains nothing when that rank's stock is empty", () => {
    let s = play(scenario({ field: [100], stock: { 100: 0 }, hand: [Card.BeFruitful] }), Card.BeFruitful);
    s = chooseSheep(s, 100);
    expect(values(s)).toEqual([100]);
  });
});

describe("Flourish", () => {
  it("gains three sheep one rank below the chosen one", () => {
    let s = play(scenario({ field: [1, 30], hand: [Card.Flourish] }), Card.Flourish);
    s = chooseSheep(s, 30);
    expect(values(s)).toEqual([1, 10, 10, 10, 30]);
    expect(stockOf(s, 10)).toBe(4);
    expectResolved(s);
  });
  it("gains only as many as the field has room for", () => {
    let s = play(scenario({ field: [1, 1, 1, 1, 300], hand: [Card.Flourish] }), Card.Flourish);
    s = chooseSheep(s, 300);
    expect(values(s)).toEqual([1, 1, 1, 1, 100, 100, 300]);
  });
  it("on rank 1 gains nothing", () => {
    let s = play(scenario({ field: [1, 3], hand: [Card.Flourish] }), Card.Flourish);
    s = chooseSheep(s, 1);
    expect(values(s)).toEqual([1, 3]);
    expectResolved(s);
  });
  it("is limited by the stock of the lower rank", () => {
    let s = play(scenario({ field: [10], stock: { 3: 2 }, hand: [Card.Flourish] }), Card.Flourish);
    s = chooseSheep(s, 10);
    expect(values(s)).toEqual([3, 3, 10]);
    expect(stockOf(s, 3)).toBe(0);
  });
  it("on a full field asks nothing", () => {
    const s = play(scenario({ field: [3, 3, 3, 3, 3, 3, 3], hand: [Card.Flourish] }), Card.Flourish);
    expect(values(s)).toEqual([3, 3, 3, 3, 3, 3, 3]);
    expectResolved(s);
  });
});

describe("Golden Hooves", () => {
  it("raises the selected sheep below the highest rank, excluding the max", () => {
    let s = play(scenario({ field: [1, 3, 3, 30, 30], hand: [Card.GoldenHooves] }), Card.GoldenHooves);
    // Only the 1 and the first 3 are selectable: the 30s are the highest rank.
    expect(shephy.legal(s)).toEqual([{ kind: "select", index: 0 }, { kind: "select", index: 1 }, { kind: "confirm" }]);
    s = selectSheep(s, 3);
    expect(shephy.legal(s)).toEqual([{ kind: "select", index: 0 }, { kind: "select", index: 2 }, { kind: "confirm" }]);
    s = selectSheep(s, 3);
    s = selectSheep(s, 1);
    expect(shephy.legal(s)).toEqual([{ kind: "confirm" }]);
    s = confirm(s);
    expect(values(s)).toEqual([3, 10, 10, 30, 30]);
    expect(stockOf(s, 1)).toBe(7);
    expect(stockOf(s, 3)).toBe(6);
    expectResolved(s);
  });
  it("a raised sheep is lost when the next rank's stock is empty", () => {
    let s = play(scenario({ field: [10, 100], stock: { 30: 0 }, hand: [Card.GoldenHooves] }), Card.GoldenHooves);
    s = selectSheep(s, 10);
    s = confirm(s);
    expect(values(s)).toEqual([100]);
    expect(stockOf(s, 10)).toBe(7);
  });
  it("a higher sheep raised frees its stock for a lower one (descending order)", () => {
    let s = play(scenario({ field: [1, 3, 10], stock: { 3: 0 }, hand: [Card.GoldenHooves] }), Card.GoldenHooves);
    s = selectSheep(s, 1);
    s = selectSheep(s, 3);
    s = confirm(s);
    expect(values(s)).toEqual([3, 10, 10]);
  });
  it("confirm with nothing selected does nothing", () => {
    let s = play(scenario({ field: [1, 3], hand: [Card.GoldenHooves] }), Card.GoldenHooves);
    s = confirm(s);
    expect(values(s)).toEqual([1, 3]);
    expectResolved(s);
  });
  it("asks nothing when every sheep has the highest rank", () => {
    const s = play(scenario({ field: [3, 3], hand: [Card.GoldenHooves] }), Card.GoldenHooves);
    expect(values(s)).toEqual([3, 3]);
    expectResolved(s);
  });
  it("two 300s are both the max: nothing to raise; in challenge a 300 below a 1000 becomes a 1000", () => {
    expectResolved(play(scenario({ field: [300, 300], hand: [Card.GoldenHooves] }), Card.GoldenHooves));
    let s = play(scenario({ mode: "challenge", field: [300, 1000], hand: [Card.GoldenHooves] }), Card.GoldenHooves);
    s = selectSheep(s, 300);
    s = confirm(s);
    expect(values(s)).toEqual([1000, 1000]);
  });
});

describe("Dominion", () => {
  it("replaces the selected sheep by their composite (no change given)", () => {
    let s = play(scenario({ field: [1, 3, 3, 3, 30], hand: [Card.Dominion] }), Card.Dominion);
    s = selectSheep(s, 3);
    s = selectSheep(s, 3);
    s = selectSheep(s, 3);
    s = selectSheep(s, 1);
    s = confirm(s);
    // 3 + 3 + 3 + 1 = 10 -> one 10
    expect(values(s)).toEqual([10, 30]);
    expect(stockOf(s, 3)).toBe(7);
    expect(stockOf(s, 1)).toBe(7);
    expect(stockOf(s, 10)).toBe(6);
    expectResolved(s);
  });
  it("rounds down to the largest rank not above the sum", () => {
    let s = play(scenario({ field: [3, 3, 10], hand: [Card.Dominion] }), Card.Dominion);
    s = selectSheep(s, 3);
    s = selectSheep(s, 3);
    s = confirm(s);
    expect(values(s)).toEqual([3, 10]); // 6 -> 3
  });
  it("combining into 1000 wins at once", () => {
    let s = play(scenario({ field: [100, 300, 300, 300], hand: [Card.Dominion] }), Card.Dominion);
    for (const v of [300, 300, 300, 100]) s = selectSheep(s, v);
    s = confirm(s);
    expect(values(s)).toEqual([1000]);
    expect(s.result).toBe("win");
    expect(shephy.actor(s)).toBe("terminal");
    expect(shephy.returns(s)).toEqual([1]);
  });
  it("any sheep may be selected, the highest included; selection only grows", () => {
    let s = play(scenario({ field: [1, 100], hand: [Card.Dominion] }), Card.Dominion);
    expect(kinds(s)).toEqual(["select", "select", "confirm"]);
    s = selectSheep(s, 100);
    expect(shephy.legal(s)).toEqual([{ kind: "select", index: 0 }, { kind: "confirm" }]);
    expect(shephy.apply(s, { kind: "select", index: 1 }).ok).toBe(false);
    s = confirm(s);
    expect(values(s)).toEqual([1, 100]); // a single pick is a no-op
  });
  it("confirm with nothing selected is a cancel", () => {
    let s = play(scenario({ field: [1, 3], hand: [Card.Dominion] }), Card.Dominion);
    s = confirm(s);
    expect(values(s)).toEqual([1, 3]);
    expectResolved(s);
  });
});

describe("All-purpose Sheep", () => {
  it("resolves the chosen hand card's effect; the chosen card stays in hand", () => {
    let s = play(scenario({ field: [10], hand: [Card.AllPurposeSheep, Card.BeFruitful, Card.Storm], deck: [] }), Card.AllPurposeSheep);
    expect(shephy.legal(s)).toEqual([
      { kind: "chooseHand", index: 0 },
      { kind: "chooseHand", index: 1 },
    ]);
    s = chooseHand(s, Card.BeFruitful);
    expect(s.pending).toMatchObject({ card: Card.BeFruitful, source: Card.AllPurposeSheep });
    s = chooseSheep(s, 10);
    expect(values(s)).toEqual([10, 10]);
    expect(s.hand).toEqual([Card.BeFruitful, Card.Storm]);
    expect(s.discard).toEqual([Card.AllPurposeSheep]);
    expectResolved(s);
  });
  it("with an empty hand does nothing", () => {
    // The last card of the round: after it the round ends (deck and hand empty).
    const s = play(scenario({ field: [10], hand: [Card.AllPurposeSheep], deck: [], discard: [Card.Storm] }), Card.AllPurposeSheep);
    expect(values(s)).toEqual([10]);
    expect(s.pending).toBeNull();
    expect(s.enemy).toBe(10); // round ended
  });
  it("as Meteor exiles All-purpose Sheep itself, not the Meteor in hand", () => {
    let s = play(scenario({ field: [1, 3, 10, 30], hand: [Card.AllPurposeSheep, Card.Meteor], deck: [] }), Card.AllPurposeSheep);
    s = chooseHand(s, Card.Meteor);
    s = chooseSheep(s, 1);
    s = chooseSheep(s, 3);
    expect(s.discard).toEqual([Card.AllPurposeSheep]);
    s = chooseSheep(s, 10);
    expect(values(s)).toEqual([30]);
    expect(s.exile).toEqual([Card.AllPurposeSheep]);
    expect(s.discard).toEqual([]);
    expect(s.hand).toEqual([Card.Meteor]);
  });
  it("as an immediate card (Wolves) resolves at once", () => {
    const s = chooseHand(play(scenario({ field: [100], hand: [Card.AllPurposeSheep, Card.Wolves] }), Card.AllPurposeSheep), Card.Wolves);
    expect(values(s)).toEqual([30]);
    expect(s.hand).toContain(Card.Wolves);
  });
});

describe("Crowding", () => {
  it("releases chosen sheep one at a time until 2 remain", () => {
    let s = play(scenario({ field: [1, 3, 10, 30, 100], hand: [Card.Crowding] }), Card.Crowding);
    expect(s.pending?.left).toBe(3);
    s = chooseSheep(s, 1);
    s = chooseSheep(s, 10);
    expect(s.pending?.left).toBe(1);
    s = chooseSheep(s, 3);
    expect(values(s)).toEqual([30, 100]);
    expect(s.stock).toEqual([7, 7, 7, 6, 6, 7, 7]);
    expectResolved(s);
  });
  it("does nothing with 2 or fewer sheep", () => {
    const s = play(scenario({ field: [1, 3], hand: [Card.Crowding] }), Card.Crowding);
    expect(values(s)).toEqual([1, 3]);
    expectResolved(s);
  });
});

describe("Falling Rock", () => {
  it("releases one chosen sheep", () => {
    let s = play(scenario({ field: [1, 30], hand: [Card.FallingRock] }), Card.FallingRock);
    s = chooseSheep(s, 1);
    expect(values(s)).toEqual([30]);
    expectResolved(s);
  });
  it("on the last sheep loses the game", () => {
    const s = chooseSheep(play(scenario({ field: [30], hand: [Card.FallingRock] }), Card.FallingRock), 30);
    expect(s.result).toBe("loss");
    expect(shephy.returns(s)).toEqual([-1]);
  });
});

describe("Inspiration", () => {
  it("takes a chosen deck card into the hand and reshuffles the deck", () => {
    const deck = [Card.Storm, Card.Wolves, Card.Meteor, Card.BeFruitful, Card.Dominion, Card.Plague];
    let s = play(scenario({ field: [1], hand: [Card.Inspiration, Card.Slump], deck }), Card.Inspiration);
    expect(shephy.view(s, 0).deck).toEqual([Card.BeFruitful, Card.Dominion, Card.Meteor, Card.Plague, Card.Storm, Card.Wolves]);
    expect(kinds(s).every((k) => k === "chooseDeck")).toBe(true);
    expect(shephy.legal(s)).toHaveLength(6);
    s = chooseDeck(s, Card.Meteor);
    // Hand had 1 card + the chosen one, then draws to 5 from the reshuffled deck.
    expect(s.hand).toHaveLength(5);
    expect(s.hand).toContain(Card.Meteor);
    expect(s.deck).toHaveLength(2);
    expect([...s.hand, ...s.deck].sort((a, b) => a - b)).toEqual([Card.Slump, ...deck].sort((a, b) => a - b));
    expect(shephy.view(s, 0).deck).toBeNull();
  });
  it("the reshuffle uses the state rng (the order depends on it)", () => {
    const deck = [0, 1, 2, 3, 4, 7, 8, 9, 10, 12, 13, 14, 16];
    const orders = new Set<string>();
    for (let seed = 1; seed <= 6; seed++) {
      let s = play(scenario({ seed, hand: [Card.Inspiration, Card.Slump, Card.Storm, Card.Wolves, Card.Meteor], deck: deck.slice() }), Card.Inspiration);
      s = chooseDeck(s, Card.Plague);
      orders.add(JSON.stringify(s.deck));
    }
    expect(orders.size).toBeGreaterThan(1);
  });
  it("never exceeds the hand limit of 5", () => {
    let s = play(
      scenario({ hand: [Card.Inspiration, Card.Slump, Card.Storm, Card.Wolves, Card.Meteor], deck: [Card.Plague, Card.Lightning] }),
      Card.Inspiration,
    );
    expect(s.hand).toHaveLength(4);
    s = chooseDeck(s, Card.Lightning);
    expect(s.hand).toHaveLength(5);
    expect(s.deck).toEqual([Card.Plague]);
  });
  it("does nothing when the deck is empty", () => {
    const s = play(scenario({ hand: [Card.Inspiration, Card.Storm], deck: [] }), Card.Inspiration);
    expectResolved(s);
    expect(s.hand).toEqual([Card.Storm]);
  });
});

describe("Lightning", () => {
  it("releases the highest sheep with no decision", () => {
    const s = play(scenario({ field: [1, 100, 100], hand: [Card.Lightning] }), Card.Lightning);
    expect(values(s)).toEqual([1, 100]);
    expect(stockOf(s, 100)).toBe(6);
    expectResolved(s);
  });
  it("on a single sheep loses", () => {
    expect(play(scenario({ field: [300], hand: [Card.Lightning] }), Card.Lightning).result).toBe("loss");
  });
});

describe("Meteor", () => {
  it("releases three chosen sheep and exiles itself", () => {
    let s = play(scenario({ field: [1, 3, 10, 30], hand: [Card.Meteor] }), Card.Meteor);
    expect(s.pending?.left).toBe(3);
    s = chooseSheep(s, 30);
    s = chooseSheep(s, 3);
    s = chooseSheep(s, 1);
    expect(values(s)).toEqual([10]);
    expect(s.exile).toEqual([Card.Meteor]);
    expect(s.discard).not.toContain(Card.Meteor);
    expectResolved(s);
  });
  it("with fewer than 3 sheep releases them all and loses", () => {
    let s = play(scenario({ field: [3, 10], hand: [Card.Meteor] }), Card.Meteor);
    expect(s.pending?.left).toBe(2);
    s = chooseSheep(s, 10);
    s = chooseSheep(s, 3);
    expect(s.result).toBe("loss");
    expect(s.exile).toEqual([Card.Meteor]);
  });
});

describe("Plague", () => {
  it("releases every sheep of the chosen rank", () => {
    let s = play(scenario({ field: [1, 3, 3, 3, 10], hand: [Card.Plague] }), Card.Plague);
    expect(shephy.legal(s)).toEqual([
      { kind: "chooseField", index: 0 },
      { kind: "chooseField", index: 1 },
      { kind: "chooseField", index: 4 },
    ]);
    s = chooseSheep(s, 3);
    expect(values(s)).toEqual([1, 10]);
    expect(stockOf(s, 3)).toBe(7);
    expectResolved(s);
  });
  it("on a one-rank field loses", () => {
    expect(chooseSheep(play(scenario({ field: [3, 3], hand: [Card.Plague] }), Card.Plague), 3).result).toBe("loss");
  });
});

describe("Planning Sheep", () => {
  it("exiles the chosen hand card", () => {
    let s = play(scenario({ hand: [Card.PlanningSheep, Card.Shephion, Card.Storm], deck: [] }), Card.PlanningSheep);
    s = chooseHand(s, Card.Shephion);
    expect(s.exile).toEqual([Card.Shephion]);
    expect(s.hand).toEqual([Card.Storm]);
    expect(s.discard).toEqual([Card.PlanningSheep]);
  });
  it("with an empty hand does nothing", () => {
    const s = play(scenario({ hand: [Card.PlanningSheep], deck: [Card.Storm] }), Card.PlanningSheep);
    expect(s.exile).toEqual([]);
    expect(s.hand).toEqual([Card.Storm]);
    expectResolved(s);
  });
});

describe("Sheep Dog", () => {
  it("discards the chosen hand card", () => {
    let s = play(scenario({ hand: [Card.SheepDog, Card.Shephion, Card.Storm], deck: [] }), Card.SheepDog);
    s = chooseHand(s, Card.Shephion);
    expect(s.discard).toEqual([Card.SheepDog, Card.Shephion]);
    expect(s.hand).toEqual([Card.Storm]);
    expect(s.exile).toEqual([]);
  });
  it("with an empty hand does nothing", () => {
    const s = play(scenario({ hand: [Card.SheepDog], deck: [Card.Storm] }), Card.SheepDog);
    expect(s.discard).toEqual([Card.SheepDog]);
    expectResolved(s);
  });
});

describe("Shephion", () => {
  it("releases the whole field: an instant loss", () => {
    const s = play(scenario({ field: [1, 3, 10, 30, 100, 300, 300], hand: [Card.Shephion] }), Card.Shephion);
    expect(values(s)).toEqual([]);
    expect(s.stock).toEqual([7, 7, 7, 7, 7, 7, 7]);
    expect(s.result).toBe("loss");
    expect(shephy.returns(s)).toEqual([-1]);
    expect(shephy.legal(s)).toEqual([]);
  });
  it("in challenge mode ends the game with a score of 0", () => {
    const s = play(scenario({ mode: "challenge", field: [1000, 1000], hand: [Card.Shephion] }), Card.Shephion);
    expect(s.result).toBe("over");
    expect(shephy.returns(s)).toEqual([0]);
  });
});

describe("Slump", () => {
  it("releases half the field, rounded down, chosen one at a time", () => {
    let s = play(scenario({ field: [1, 3, 10, 30, 100, 300, 300], hand: [Card.Slump] }), Card.Slump);
    expect(s.pending?.left).toBe(3);
    s = chooseSheep(s, 1);
    s = chooseSheep(s, 3);
    s = chooseSheep(s, 10);
    expect(values(s)).toEqual([30, 100, 300, 300]);
    expectResolved(s);
  });
  it("rounds down: 5 sheep release 2, 2 release 1, 1 releases none", () => {
    expect(play(scenario({ field: [1, 1, 1, 1, 1], hand: [Card.Slump] }), Card.Slump).pending?.left).toBe(2);
    const two = play(scenario({ field: [1, 3], hand: [Card.Slump] }), Card.Slump);
    expect(two.pending?.left).toBe(1);
    expect(values(chooseSheep(two, 1))).toEqual([3]);
    const one = play(scenario({ field: [3], hand: [Card.Slump] }), Card.Slump);
    expect(values(one)).toEqual([3]);
    expectResolved(one);
  });
});

describe("Storm", () => {
  it("releases two chosen sheep", () => {
    let s = play(scenario({ field: [1, 3, 10], hand: [Card.Storm] }), Card.Storm);
    s = chooseSheep(s, 3);
    s = chooseSheep(s, 10);
    expect(values(s)).toEqual([1]);
    expectResolved(s);
  });
  it("on a single sheep releases it and loses", () => {
    let s = play(scenario({ field: [10], hand: [Card.Storm] }), Card.Storm);
    expect(s.pending?.left).toBe(1);
    s = chooseSheep(s, 10);
    expect(s.result).toBe("loss");
  });
});

describe("Wolves", () => {
  it("lowers the highest sheep by one rank", () => {
    const s = play(scenario({ field: [1, 100, 100], hand: [Card.Wolves] }), Card.Wolves);
    expect(values(s)).toEqual([1, 30, 100]);
    expect(stockOf(s, 100)).toBe(6);
    expect(stockOf(s, 30)).toBe(6);
    expectResolved(s);
  });
  it("at 1 releases the sheep (an only 1 loses)", () => {
    const two = play(scenario({ field: [1, 1], hand: [Card.Wolves] }), Card.Wolves);
    expect(values(two)).toEqual([1]);
    const one = play(scenario({ field: [1], hand: [Card.Wolves] }), Card.Wolves);
    expect(one.result).toBe("loss");
  });
  it("the lowered sheep is lost when the lower stock is empty", () => {
    const s = play(scenario({ field: [3, 1000], stock: { 300: 0 }, hand: [Card.Wolves], mode: "challenge" }), Card.Wolves);
    expect(values(s)).toEqual([3]);
  });
});

it("the card table: 19 types, 22 cards (Be Fruitful x3, Dominion x2)", () => {
  expect(CARD_NAMES).toEqual([
    "Multiply",
    "Fill the Earth",
    "Be Fruitful",
    "Flourish",
    "Golden Hooves",
    "Dominion",
    "All-purpose Sheep",
    "Crowding",
    "Falling Rock",
    "Inspiration",
    "Lightning",
    "Meteor",
    "Plague",
    "Planning Sheep",
    "Sheep Dog",
    "Shephion",
    "Slump",
    "Storm",
    "Wolves",
  ]);
  expect(CARD_COPIES.reduce((a, b) => a + b, 0)).toBe(22);
  expect(CARD_COPIES[Card.BeFruitful]).toBe(3);
  expect(CARD_COPIES[Card.Dominion]).toBe(2);
});
