import { describe, expect, it } from "vitest";
import { unwrap } from "../../engine/core/index.ts";
import { sevens, standings, rankReward, DEAD, PLACED } from "../../engine/sevens/index.ts";
import { card, pass, play, scenario, step } from "./scenario.ts";

const plays = (s: ReturnType<typeof scenario>) => sevens.legal(s).map((d) => (d.kind === "play" ? d.card : "pass"));

describe("playable cards: 8-neighbourhood", () => {
  // Only 5♥ is on the table. Seat 0 holds 4♠ and 6♦ (diagonal), 5♠ (above), 6♥ (right),
  // 3♥ (two cells away) and 7♣ (far).
  const board = ["1110011111111", "1101#01111111", "1111101111111", "1111110111111"];

  it("lists orthogonal and diagonal neighbours of a placed card, nothing further, and no pass", () => {
    const s = scenario({ board });
    expect(plays(s)).toEqual([card("4s"), card("5s"), card("6h"), card("6d")]);
  });

  it("counts a Dead cell as on the table", () => {
    const s = scenario({ board: ["1110011111111", "1101b01111111", "1111101111111", "1111110111111"] });
    expect(plays(s)).toEqual([card("4s"), card("5s"), card("6h"), card("6d")]);
  });

  it("refuses a card that touches nothing, and a card the seat does not hold", () => {
    const s = scenario({ board });
    expect(sevens.apply(s, play("3h"))).toMatchObject({ ok: false, error: { code: "illegal_decision" } });
    expect(sevens.apply(s, play("7c"))).toMatchObject({ ok: false, error: { code: "illegal_decision" } });
    expect(sevens.apply(s, play("4h"))).toMatchObject({ ok: false, error: { code: "illegal_decision" } });
    expect(sevens.apply(s, { kind: "play", card: 99 })).toMatchObject({ ok: false });
  });

  it("places a played card as Placed by the mover and passes the turn", () => {
    const s = step(scenario({ board }), play("4s"));
    expect(s.cells[card("4s")]).toBe(PLACED + 0);
    expect(s.handSize[0]).toBe(5);
    expect(s.current).toBe(1);
  });
});

describe("killing", () => {
  it("kills a single cell enclosed by walls and cards, credited to its holder", () => {
    // A♠ (seat 1) sits in the corner: wall above and left, A♥ below; seat 0 closes it with 2♠.
    const s0 = scenario({ board: ["10###########", "#############", "###########02", "#########2222"] });
    const s = step(s0, play("2s"));
    expect(s.cells[card("As")]).toBe(DEAD + 1);
    expect(s.handSize).toEqual([1, 0, 5]);
    expect(s.killed).toEqual([0, 1, 0]);
    expect(s.kills).toEqual([1, 0, 0]);
    // Seat 1's hand emptied by the kill: it went out, and the turn skips it.
    expect(s.finishOrder).toEqual([1]);
    expect(s.current).toBe(2);
    expect(s0.cells[card("As")]).toBe(1); // input untouched
  });

  it("kills a whole rectangular region when it becomes enclosed", () => {
    // 4♥ 5♥ / 4♦ 5♦ (seats 1 and 2) are enclosed except for 6♥, which seat 0 plays.
    const s = step(scenario({ board: ["#############", "###120#######", "###12#######0", "##########012"] }), play("6h"));
    for (const c of ["4h", "4d"]) expect(s.cells[card(c)]).toBe(DEAD + 1);
    for (const c of ["5h", "5d"]) expect(s.cells[card(c)]).toBe(DEAD + 2);
    expect(s.killed).toEqual([0, 2, 2]);
    expect(s.kills).toEqual([4, 0, 0]);
    expect(s.handSize).toEqual([2, 1, 1]);
    // The L-shaped region J♣..K♣ + K♦ elsewhere is untouched.
    expect(s.cells[card("Kd")]).toBe(0);
  });

  it("does not kill an enclosed region that is not a rectangle, and kills it once it becomes one", () => {
    // After 6♥ the region {4♥, 5♥, 4♦} is enclosed but L-shaped: nobody dies.
    const s1 = step(scenario({ board: ["#############", "###120#######", "###1########0", "##########012"] }), play("6h"));
    expect(s1.killed).toEqual([0, 0, 0]);
    expect(s1.cells[card("4h")]).toBe(1);
    expect(s1.cells[card("5h")]).toBe(2);
    // Seat 1 fills 4♦: {4♥, 5♥} is now a 1x2 rectangle and dies.
    expect(s1.current).toBe(1);
    const s2 = step(s1, play("4d"));
    expect(s2.cells[card("4h")]).toBe(DEAD + 1);
    expect(s2.cells[card("5h")]).toBe(DEAD + 2);
    expect(s2.killed).toEqual([0, 1, 1]);
    expect(s2.kills).toEqual([0, 1, 0]); // killing one's own card is not an opponent kill
  });

  it("the mover can kill its own card", () => {
    const s = step(scenario({ board: ["00###########", "#############", "###########12", "#########1222"] }), play("2s"));
    expect(s.cells[card("As")]).toBe(DEAD + 0);
    expect(s.killed).toEqual([1, 0, 0]);
    expect(s.kills).toEqual([0, 0, 0]);
    expect(s.finishOrder).toEqual([0]);
  });

  it("completing column 6 encloses the 4x5 block A..5 and kills all of it", () => {
    const s = step(scenario({ board: ["12121##121212", "21212##212121", "12121##121212", "212120#212121"] }), play("6c"));
    expect(s.killed).toEqual([0, 10, 10]);
    expect(s.kills).toEqual([20, 0, 0]);
    for (let suit = 0; suit < 4; suit++) for (let r = 1; r <= 5; r++) expect(s.cells[suit * 13 + r - 1]).toBeGreaterThanOrEqual(DEAD);
    // The right block (8..K) is a rectangle too, but not next to the card: it stays.
    expect(s.cells[card("8s")]).toBe(1);
  });

  it("the opening position's two 6-column blocks are not killed at setup", () => {
    const s = sevens.setup(unwrap(sevens.parseConfig({})), 1);
    expect(s.killed).toEqual([0, 0, 0, 0, 0]);
    expect(s.cells.filter((v) => v >= DEAD)).toEqual([]);
  });
});

describe("passing", () => {
  it("Pass is the only option without a playable card, and is refused with one", () => {
    // Seat 1 holds 2♠, which touches 3♠ and the ♥ row.
    const playable = scenario({ board: ["01###########", "#############", "###########22", "#########2222"], current: 1 });
    // Seat 0's four cards in the top-left corner touch no filled cell.
    const s = scenario({ board: ["0011111111111", "0011111111111", "1111112111111", "111111#111111"], current: 0 });
    expect(sevens.legal(s)).toEqual([pass]);
    const after = step(s, pass);
    expect(after.passes).toEqual([1, 0, 0]);
    expect(after.current).toBe(1);
    expect(plays(playable)).toEqual([card("2s")]);
    expect(sevens.apply(playable, pass)).toMatchObject({ ok: false, error: { code: "illegal_decision" } });
  });

  it("voluntaryPass allows a pass with a playable card while passes remain, never the eliminating one", () => {
    const board = ["10###########", "#############", "###########02", "#########2222"];
    const config = { passLimit: 3, voluntaryPass: true };
    expect(sevens.legal(scenario({ board, config, passes: [2, 0, 0] })).at(-1)).toEqual(pass);
    expect(sevens.legal(scenario({ board, config, passes: [3, 0, 0] }))).not.toContainEqual(pass);
    expect(sevens.legal(scenario({ board, passes: [0, 0, 0] }))).not.toContainEqual(pass);
  });

  it("passLimit: the pass beyond the limit eliminates, puts the cards on the table, and runs a global kill check", () => {
    // Seat 0 holds 2♠, A♥, 2♥, none touching a filled cell. Its 4th pass (limit 3) eliminates it:
    // its cards become Placed, which encloses A♠ (seat 1); the global check also finds the untouched
    // 8..K block (seats 1 and 2), a 4x6 rectangle, and kills it.
    const s0 = scenario({
      board: ["1022 2## 121212", "0022 2## 212121", "2222 2## 121212", "2222 2## 212121"],
      config: { passLimit: 3 },
      passes: [3, 0, 0],
    });
    expect(sevens.legal(s0)).toEqual([pass]);
    const s = step(s0, pass);
    expect(s.eliminated).toEqual([0]);
    expect(s.passes).toEqual([4, 0, 0]);
    for (const c of ["2s", "Ah", "2h"]) expect(s.cells[card(c)]).toBe(PLACED + 0);
    expect(s.cells[card("As")]).toBe(DEAD + 1);
    expect(s.cells[card("8s")]).toBe(DEAD + 1);
    expect(s.cells[card("9s")]).toBe(DEAD + 2);
    expect(s.killed).toEqual([0, 13, 12]);
    expect(s.kills).toEqual([25, 0, 0]);
    expect(s.handSize).toEqual([0, 0, 16]);
    // Seat 1 lost every card to kills: it went out; seat 0 was eliminated, not "out".
    expect(s.finishOrder).toEqual([1]);
    expect(s.current).toBe(2);
    // The rest of the left block is not a rectangle and lives.
    expect(s.cells[card("3s")]).toBe(2);
  });

  it("a pass within the limit eliminates nobody; passLimit 0 eliminates on the first pass", () => {
    const board = ["0011111111111", "0011111111111", "1111112111111", "111111#111111"];
    expect(step(scenario({ board, config: { passLimit: 1 } }), pass).eliminated).toEqual([]);
    const s = step(scenario({ board, config: { passLimit: 0 } }), pass);
    expect(s.eliminated).toEqual([0]);
    expect(s.handSize[0]).toBe(0);
  });
});

describe("turn timeout: the forced pass", () => {
  const board = ["10###########", "#############", "###########02", "#########2222"];

  it("expectation names the seat, the timeout and the forced pass", () => {
    const s = scenario({ board, config: { turnTimeoutSec: 30 } });
    expect(sevens.expectation(s)).toEqual({ seat: 0, timeoutMs: 30_000, defaultDecision: pass });
    expect(sevens.expectation(scenario({ board }))).toBeNull();
  });

  it("apply accepts the forced pass with a playable card in hand, though legal() does not list it", () => {
    const s = scenario({ board, config: { turnTimeoutSec: 30 } });
    expect(sevens.legal(s)).not.toContainEqual(pass);
    const after = step(s, pass);
    expect(after.passes).toEqual([1, 0, 0]);
    expect(after.current).toBe(1);
    expect(after.cells).toEqual(s.cells);
    // Without a turn timer the same pass is refused.
    expect(sevens.apply(scenario({ board }), pass)).toMatchObject({ ok: false, error: { code: "illegal_decision" } });
  });

  it("a forced pass beyond passLimit eliminates like any pass", () => {
    const s = step(scenario({ board, config: { turnTimeoutSec: 10, passLimit: 0 } }), pass);
    expect(s.eliminated).toEqual([0]);
  });
});

describe("finishing, turn order and the end", () => {
  it("several hands empty at once: the mover first, then seat order after the mover", () => {
    // Seat 2 plays its last card 2♠, which kills A♠ (seat 3) and A♥ (seat 1), their last cards.
    const s = step(scenario({ board: ["32###########", "1############", "############0", "##########000"], current: 2 }), play("2s"));
    expect(s.finishOrder).toEqual([2, 3, 1]);
    expect(s.current).toBe(0);
  });

  it("hands emptied by a kill while the mover keeps cards join in seat order after the mover", () => {
    // Seat 2 plays 2♠ and keeps K♣; A♠ (seat 0) and A♥ (seat 3) die.
    const s = step(scenario({ board: ["02###########", "3############", "###########11", "#########1112"], current: 2 }), play("2s"));
    expect(s.finishOrder).toEqual([3, 0]);
    expect(s.current).toBe(1);
  });

  it("the turn skips finished and eliminated seats", () => {
    const board = ["0#2##3#######", "#############", "#############", "#############"];
    // Seat 1 went out, seat 4 was eliminated earlier (both hold nothing).
    const s = scenario({ board, config: { seats: 5 }, finishOrder: [1], eliminated: [4], current: 0 });
    const a = step(s, play("As"));
    expect(a.finishOrder).toEqual([1, 0]);
    expect(a.current).toBe(2);
    const b = step(a, play("3s"));
    expect(b.current).toBe(3);
    const c = step(b, play("6s"));
    expect(c.current).toBe(-1);
    expect(sevens.actor(c)).toBe("terminal");
    expect(sevens.legal(c)).toEqual([]);
    expect(c.cells.every((v) => v >= PLACED)).toBe(true);
    expect(sevens.apply(c, pass)).toMatchObject({ ok: false, error: { code: "game_over" } });
  });

  it("the last active seat keeps moving alone", () => {
    const s = step(scenario({ board: ["2#2##########", "#############", "#############", "#############"], finishOrder: [0, 1], current: 2 }), play("As"));
    expect(s.current).toBe(2);
  });
});

describe("ranking and rewards", () => {
  const full = ["#############", "#############", "#############", "#############"];

  it("ranks by fewest killed cards, then by who went out first", () => {
    // Seat 2 goes out last but has the fewest killed cards.
    const s = step(
      scenario({ board: ["#############", "#######2#####", "#############", "#############"], current: 2, finishOrder: [0, 1], killed: [2, 1, 0] }),
      play("8h"),
    );
    expect(standings(s)).toEqual([2, 1, 0]);
    expect(sevens.returns(s)).toEqual([-1, 0, 1]);
    const tie = { ...scenario({ board: full, finishOrder: [1, 2, 0], killed: [1, 1, 1] }), current: -1 };
    expect(standings(tie)).toEqual([1, 2, 0]);
    const mixed = { ...scenario({ board: full, finishOrder: [1, 2, 0], killed: [0, 3, 1] }), current: -1 };
    expect(standings(mixed)).toEqual([0, 2, 1]);
  });

  it("eliminated seats rank after every finisher, the latest elimination best", () => {
    const s = { ...scenario({ board: full, config: { seats: 4, passLimit: 3 }, finishOrder: [2, 0], eliminated: [1, 3], killed: [5, 0, 4, 0] }), current: -1 };
    expect(standings(s)).toEqual([2, 0, 3, 1]);
    expect(sevens.returns(s)).toEqual([1 / 3, -1, 1, -1 / 3]);
  });

  it("r = 1 - 2(k-1)/(N-1): 1 for first, -1 for last, linear between, summing to zero", () => {
    expect([1, 2, 3, 4, 5].map((k) => rankReward(k, 5))).toEqual([1, 0.5, 0, -0.5, -1]);
    for (let n = 3; n <= 6; n++) {
      let sum = 0;
      for (let k = 1; k <= n; k++) sum += rankReward(k, n);
      expect(Math.abs(sum)).toBeLessThan(1e-12);
      for (let k = 1; k <= n; k++) expect(rankReward(k, n) + rankReward(n + 1 - k, n)).toBe(0);
    }
    expect(sevens.info.zeroSum).toBe(true);
  });

  it("returns are 0 before the end; with shaping they tally -1 per own killed card and +0.1 per opponent card killed", () => {
    const board = ["#############", "###120#######", "###12#######0", "##########012"];
    const plain = step(scenario({ board }), play("6h"));
    expect(sevens.returns(plain)).toEqual([0, 0, 0]);
    const shaped = step(scenario({ board, config: { shaping: true } }), play("6h"));
    const r = sevens.returns(shaped);
    expect(r[0]).toBeCloseTo(0.4);
    expect(r[1]).toBe(-2);
    expect(r[2]).toBe(-2);
  });
});

describe("describe and render", () => {
  it("describes plays, kills, going out and passes", () => {
    const s = scenario({ board: ["10###########", "#############", "###########02", "#########2222"] });
    // Whose card dies and who else goes out are not the mover's to know before it plays (its options carry this label).
    expect(sevens.describe(s, play("2s"))).toBe("seat 0 plays 2♠ (kills A♠)");
    const last = scenario({ board: ["10###########", "#############", "###########12", "#########1111"] });
    expect(sevens.describe(last, play("2s"))).toBe("seat 0 plays 2♠ (kills A♠; seat 0 goes out)");
    const stuck = scenario({ board: ["0011111111111", "0011111111111", "1111112111111", "111111#111111"], config: { passLimit: 0 } });
    expect(sevens.describe(stuck, pass)).toBe("seat 0 passes (pass 1 of 0; eliminated)");
  });

  it("renders the 4x13 table with suits as rows, and each seat's hand size and killed count", () => {
    const s = step(scenario({ board: ["10###########", "#############", "###########02", "#########2222"] }), play("2s"));
    const text = sevens.render(s);
    const lines = text.split("\n");
    expect(lines[0]).toContain("A   2   3");
    expect(lines[1]).toMatch(/^ ♠ +x1 +2 +3/);
    expect(lines[3]).toMatch(/^ ♦ .* J +· +·$/);
    expect(text).toContain("seat 1:  0 cards, killed 1, passes 0  [out #1]");
    expect(text).toContain("seat 2:  5 cards, killed 0, passes 0  [to move]");
  });
});
