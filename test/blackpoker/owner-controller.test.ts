/**
 * Owner vs controller (docs/rules/blackpoker.md, "Owner and controller"). No Light-format action
 * moves a unit to another seat's field, so these states are built by hand: a unit on seat 1's
 * field (seat 1 controls it) whose card is seat 0's (seat 0 owns it).
 */
import { describe, expect, it } from "vitest";
import { canonicalJson, Rng } from "../../engine/core/index.ts";
import { blackpoker, ENTRY16, type BlackpokerState, type Unit } from "../../engine/blackpoker/index.ts";
import { blackpokerAdapter } from "../../env/games/blackpoker.ts";
import { c, config, cs, declare, isLegal, key, PASS, payB, payD, play, scenario, target, unitOf } from "./scenario.ts";

const sorted = (cards: readonly number[]) => cards.slice().sort((a, b) => a - b);

describe("a unit seat 1 controls and seat 0 owns", () => {
  // Seat 1's turn; its soldier #5 is seat 0's ♣K. Seat 0 blocks with a bigger pair.
  const board = (): BlackpokerState =>
    scenario({
      turnPlayer: 1,
      p0: {
        hand: ["H7"],
        field: [
          { uid: 3, cards: ["DQ"] },
          { uid: 4, cards: ["H4"] },
        ],
      },
      p1: { life: ["S2", "D5", "HJ", "C6", "C9"], field: [{ uid: 5, cards: ["CK"], owners: [0] }] },
    });

  it("its controller attacks with it; destroyed, it goes to its owner's Grave and NextGeneration fires for its controller", () => {
    let s = play(board(), declare("Attack"), PASS);
    // The attack choice is the controller's.
    expect(blackpoker.actor(s)).toBe(1);
    expect(isLegal(s, { kind: "selectAttacker", unit: 5 })).toBe(true);
    s = play(s, { kind: "selectAttacker", unit: 5 }, { kind: "finishAttack" }, PASS, PASS);
    expect(blackpoker.actor(s)).toBe(0); // the defender blocks
    s = play(s, { kind: "assignBlocker", unit: 3, attacker: 5 }, { kind: "assignBlocker", unit: 4, attacker: 5 }, { kind: "finishBlock" }, PASS, PASS);
    // 13 < 16: the ♣K leaves seat 1's field for seat 0's Grave.
    expect(s.players[1]!.field).toEqual([]);
    expect(s.players[0]!.grave).toEqual(cs("CK"));
    // The trigger is the controller's: seat 1 digs its own Life (♠2, ♢5 to its Grave, ♡J to its hand).
    expect(s.players[1]!.grave).toEqual(cs("S2", "D5"));
    expect(s.players[1]!.hand).toEqual([c("HJ")]);
    expect(s.players[0]!.hand).toEqual([c("H7")]);
    expect(s.players[0]!.life.length).toBe(6);
  });

  it("its controller pays B with it and Mounts onto it; each card keeps its owner and goes to that owner's Grave", () => {
    let s = scenario({
      turnPlayer: 1,
      p0: { hand: ["S3", "D5"] },
      p1: {
        life: ["S2", "HJ", "C6", "C9"],
        hand: ["CA"],
        field: [
          { uid: 5, cards: ["C2"], owners: [0] },
          { uid: 6, cards: ["HQ"], bulwark: true, owners: [0] },
        ],
      },
    });
    s = play(s, declare("Mount"), key("CA"), target(5));
    expect(isLegal(s, payB(6))).toBe(true); // seat 1 drives the bulwark it controls
    s = play(s, payB(6), PASS);
    expect(unitOf(s, 1, 6)!.charged).toBe(false);
    expect(unitOf(s, 1, 5)).toMatchObject({ cards: cs("C2", "CA"), owners: [0, 1] });
    // Seat 1 ends its turn; in answer seat 0 Downs the soldier to size 0.
    s = play(s, declare("End"), declare("Down"), key("S3"), target(5), payD("D5"), PASS);
    expect(unitOf(s, 1, 5)).toBeUndefined();
    expect(sorted(s.players[0]!.grave)).toEqual(sorted(cs("C2", "S3", "D5")));
    // The ♣A was seat 1's own (♠2 is Mount's L cost); as an A it gives seat 1, the controller, a
    // NextGeneration that finds the ♡J.
    expect(s.players[1]!.grave).toEqual(cs("S2", "CA"));
    expect(s.players[1]!.hand).toEqual([c("HJ")]);
  });

  it("a soldier gained this way is the controller's Mount target, not the owner's", () => {
    const s = scenario({
      p0: { hand: ["CA"], field: [{ uid: 0, cards: ["H4"], bulwark: true }] },
      p1: { field: [{ uid: 5, cards: ["C2"], owners: [0] }] },
    });
    expect(blackpoker.legal(s).some((d) => d.kind === "declare" && d.action === "Mount")).toBe(false);
  });
});

/** Setup's board, with seat 0's preset bulwark and soldier handed to seat 1's control. */
function handedOver(seed: number): BlackpokerState {
  const s = blackpoker.setup(config(), seed);
  const given: Unit[] = s.players[0]!.field.map((u) => ({ ...u, owners: u.cards.map(() => 0) }));
  return {
    ...s,
    players: [
      { ...s.players[0]!, field: [] },
      { ...s.players[1]!, field: s.players[1]!.field.concat(given) },
    ],
  };
}

/** Every card of each deck, by owner, wherever it is. */
function decks(s: BlackpokerState): number[][] {
  const out: number[][] = [[], []];
  s.players.forEach((z, p) => {
    out[p]!.push(...z.life, ...z.hand, ...z.grave, ...z.fog);
    for (const u of z.field) u.cards.forEach((card, i) => out[u.owners?.[i] ?? p]!.push(card));
  });
  return out.map(sorted);
}

describe("views of units whose owner is not their controller", () => {
  it("a face-down bulwark is seen by its controller only; ownership is public", () => {
    const s = handedOver(3);
    const bulwark = s.players[1]!.field.find((u) => u.bulwark && u.owners !== undefined)!;
    const mine = blackpoker.view(s, 1).players[1]!.field.find((u) => u.uid === bulwark.uid)!;
    const theirs = blackpoker.view(s, 0).players[1]!.field.find((u) => u.uid === bulwark.uid)!;
    expect(mine).toMatchObject({ cards: bulwark.cards, owners: [0] });
    expect(theirs).toMatchObject({ cards: [], owners: [0] });
    expect(blackpoker.view(s, "spectator").players[1]!.field.find((u) => u.uid === bulwark.uid)!.cards).toEqual([]);
  });

  it("determinize refills a hidden card from its owner's deck; every deck stays whole", () => {
    for (let seed = 1; seed <= 10; seed++) {
      const s = handedOver(seed);
      if (s.result !== null) continue;
      expect(decks(s)).toEqual([sorted(ENTRY16), sorted(ENTRY16)]);
      for (const seat of [0, 1]) {
        const v = blackpoker.view(s, seat);
        const d = blackpoker.determinize(v, seat, Rng.seeded(seed));
        expect(canonicalJson(blackpoker.view(d, seat))).toBe(canonicalJson(v));
        expect(decks(d)).toEqual([sorted(ENTRY16), sorted(ENTRY16)]);
      }
    }
  });

  it("the observation files field cards under their owner's deck", () => {
    const s = handedOver(3);
    const soldier = s.players[1]!.field.find((u) => !u.bulwark && u.owners !== undefined)!.cards[0]!;
    const at = (name: string) => blackpokerAdapter.observation.layout.find((f) => f.name === name)!.offset;
    const obs = (seat: number) => {
      const out = new Float32Array(blackpokerAdapter.observation.size);
      blackpokerAdapter.observation.encode(blackpoker.view(s, seat), out);
      return out;
    };
    expect(obs(0)[at("myFieldCards") + soldier]).toBe(1);
    expect(obs(0)[at("myUnseen") + soldier]).toBe(0);
    expect(obs(1)[at("oppFieldCards") + soldier]).toBe(1);
  });
});
