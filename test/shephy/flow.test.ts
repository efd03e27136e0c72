import { describe, expect, it } from "vitest";
import { Card, shephy } from "../../engine/shephy/index.ts";
import { chooseSheep, confirm, play, randomGame, scenario, selectSheep, stockOf, values } from "./scenario.ts";

describe("setup", () => {
  it("starts with one 1 from the stock, 5 cards in hand, 17 in the deck, enemy 1", () => {
    const s = shephy.setup({ seats: 1, mode: "basic" }, 42);
    expect(values(s)).toEqual([1]);
    expect(s.stock).toEqual([6, 7, 7, 7, 7, 7, 7]);
    expect(s.hand).toHaveLength(5);
    expect(s.deck).toHaveLength(17);
    expect(s.enemy).toBe(1);
    expect([...s.hand, ...s.deck].sort((a, b) => a - b)).toEqual([0, 1, 2, 2, 2, 3, 4, 5, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18]);
    expect(shephy.actor(s)).toBe(0);
    expect(shephy.returns(s)).toEqual([0]);
  });
  it("shuffles with the seed", () => {
    const a = shephy.setup({ seats: 1, mode: "basic" }, 1);
    const b = shephy.setup({ seats: 1, mode: "basic" }, 2);
    expect(a.deck).not.toEqual(b.deck);
    expect(shephy.setup({ seats: 1, mode: "basic" }, 1)).toEqual(a);
  });
});

describe("gain", () => {
  it("does nothing with an empty stock", () => {
    let s = play(scenario({ field: [30], stock: { 30: 0 }, hand: [Card.BeFruitful] }), Card.BeFruitful);
    s = chooseSheep(s, 30);
    expect(values(s)).toEqual([30]);
    expect(stockOf(s, 30)).toBe(0);
  });
  it("does nothing on a full field (7 sheep)", () => {
    const s = play(scenario({ field: [1, 1, 1, 1, 1, 1, 1], hand: [Card.Multiply] }), Card.Multiply);
    expect(s.field).toHaveLength(7);
  });
});

describe("drawing", () => {
  it("draws back up to 5 after each play, from the top (end) of the deck", () => {
    const s = play(scenario({ hand: [0, 1, 2, 3, 4], deck: [17, 18] }), 0);
    expect(s.hand).toEqual([1, 2, 3, 4, 18]);
    expect(s.deck).toEqual([17]);
  });
  it("draws only after the effect has resolved", () => {
    const s = play(scenario({ field: [1, 3, 10], hand: [Card.Storm, 0, 1, 2, 3], deck: [17, 18] }), Card.Storm);
    expect(s.hand).toHaveLength(4);
    const half = chooseSheep(s, 3);
    expect(half.hand).toHaveLength(4);
    expect(chooseSheep(half, 1).hand).toHaveLength(5);
  });
  it("the hand never holds more than 5 cards in random games", () => {
    for (let seed = 0; seed < 50; seed++) {
      randomGame(shephy.setup({ seats: 1, mode: "challenge" }, seed), seed, (_b, _d, a) => {
        expect(a.hand.length).toBeLessThanOrEqual(5);
      });
    }
  });
});

describe("round end", () => {
  it("when hand and deck run out: discard shuffled into a new deck, exile stays out, enemy x10, draw 5", () => {
    const discard = [0, 1, 2, 2, 2, 3, 4, 5, 5, 6, 7, 8, 9, 10, 12, 13, 14, 15, 16, 17];
    const s = play(
      scenario({ field: [1, 3], hand: [Card.Multiply], deck: [], discard: discard.filter((c) => c !== 0), exile: [Card.Meteor, Card.Wolves] }),
      Card.Multiply,
    );
    expect(s.enemy).toBe(10);
    expect(s.discard).toEqual([]);
    expect(s.exile).toEqual([Card.Meteor, Card.Wolves]);
    expect(s.hand).toHaveLength(5);
    expect(s.deck).toHaveLength(15);
    expect([...s.hand, ...s.deck].sort((a, b) => a - b)).toEqual(discard);
    expect(s.result).toBeNull();
  });
  it("the third exhaustion (enemy reaches 1000) loses a basic game", () => {
    const s = play(scenario({ field: [300, 300], hand: [Card.Multiply], deck: [], discard: [Card.Storm], enemy: 100 }), Card.Multiply);
    expect(s.enemy).toBe(1000);
    expect(s.result).toBe("loss");
    expect(shephy.returns(s)).toEqual([-1]);
    expect(shephy.actor(s)).toBe("terminal");
  });
  it("a round whose discard is empty (all exiled) ends at once too", () => {
    const s = play(scenario({ field: [3], hand: [Card.Multiply], deck: [], discard: [], enemy: 1 }), Card.Multiply);
    // Discard holds only the Multiply just played: it is the whole next deck.
    expect(s.enemy).toBe(10);
    expect(s.hand).toEqual([Card.Multiply]);
  });
  it("with every card exiled, each remaining round ends at once: the enemy reaches 1000", () => {
    let s = play(scenario({ field: [3, 10, 30, 100], hand: [Card.Meteor], deck: [], discard: [], enemy: 1 }), Card.Meteor);
    for (const v of [3, 10, 30]) s = chooseSheep(s, v);
    expect(s.exile).toEqual([Card.Meteor]);
    expect(s.enemy).toBe(1000);
    expect(s.result).toBe("loss");
  });
});

describe("win and loss", () => {
  it("a 1000 on the field wins a basic game at once", () => {
    let s = play(scenario({ field: [300, 300, 300, 300], hand: [Card.Dominion, Card.Storm] }), Card.Dominion);
    for (let i = 0; i < 4; i++) s = selectSheep(s, 300);
    s = confirm(s);
    expect(s.result).toBe("win");
    expect(shephy.returns(s)).toEqual([1]);
    expect(shephy.legal(s)).toEqual([]);
    expect(shephy.apply(s, { kind: "play", index: 0 })).toMatchObject({ ok: false, error: { code: "game_over" } });
  });
  it("Be Fruitful copying a 1000 is not reachable in basic, but a composite is: 100x3+300x3 = 1200 -> 1000", () => {
    let s = play(scenario({ field: [100, 100, 100, 300, 300, 300], hand: [Card.Dominion] }), Card.Dominion);
    for (const v of [100, 100, 100, 300, 300, 300]) s = selectSheep(s, v);
    expect(values(confirm(s))).toEqual([1000]);
  });
  it("an empty field loses", () => {
    const s = play(scenario({ field: [1], hand: [Card.Lightning] }), Card.Lightning);
    expect(s.field).toEqual([]);
    expect(s.result).toBe("loss");
  });
  it("returns are 0 until the end", () => {
    const s = play(scenario({ field: [1, 3], hand: [Card.Storm] }), Card.Storm);
    expect(shephy.returns(s)).toEqual([0]);
  });
});

describe("challenge mode", () => {
  it("does not stop on a 1000", () => {
    let s = play(scenario({ mode: "challenge", field: [300, 300, 300, 300], hand: [Card.Dominion, Card.Storm] }), Card.Dominion);
    for (let i = 0; i < 4; i++) s = selectSheep(s, 300);
    s = confirm(s);
    expect(values(s)).toEqual([1000]);
    expect(s.result).toBeNull();
    expect(shephy.returns(s)).toEqual([0]);
  });
  it("ends when the enemy reaches 1000 and scores the field sum / 7000", () => {
    const s = play(
      scenario({ mode: "challenge", field: [1, 3, 1000, 1000], hand: [Card.Multiply], deck: [], discard: [Card.Storm], enemy: 100 }),
      Card.Multiply,
    );
    expect(s.result).toBe("over");
    expect(shephy.returns(s)).toEqual([(1 + 3 + 3 + 1000 + 1000) / 7000]);
  });
  it("scores 1 with seven 1000s", () => {
    const s = play(
      scenario({ mode: "challenge", field: [1000, 1000, 1000, 1000, 1000, 1000, 1000], hand: [Card.Multiply], deck: [], discard: [], enemy: 100 }),
      Card.Multiply,
    );
    expect(shephy.returns(s)).toEqual([1]);
  });
  it("an empty field ends a challenge game with 0", () => {
    const s = play(scenario({ mode: "challenge", field: [3], hand: [Card.Lightning] }), Card.Lightning);
    expect(s.result).toBe("over");
    expect(shephy.returns(s)).toEqual([0]);
  });
});
