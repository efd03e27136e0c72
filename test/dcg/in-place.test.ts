import { describe, expect, it } from "vitest";
import { Rng, stateHash } from "../../engine/core/index.ts";
import { makeDcg, type BattleData } from "../../engine/dcg/index.ts";
import { configOf, FIVE_POOLS } from "./pools.ts";

/**
 * applyInPlace (for search playouts) writes its result into a state the caller owns instead of
 * copying what it changes. It must give applyTrusted's states decision by decision; it must never
 * reach a state it was not handed (ownedCopy shares nothing it writes), and applyTrusted still
 * never changes its input; and a state changed in place by one game instance must not be taken
 * by another instance's memos for the state they last saw under that object.
 */
const game = makeDcg();

const json = (s: BattleData): string => JSON.stringify(s);

describe("dcg applyInPlace", () => {
  it("gives applyTrusted's state and legal list at every decision of random games of five pools, leaving applyTrusted's inputs as they were", () => {
    let decisions = 0;
    for (const raw of FIVE_POOLS) {
      const cfg = configOf(game, raw);
      for (let seed = 1; seed <= 3; seed++) {
        // Each side with its own instance, so that neither reads the other's memos.
        const trusted = game.instance();
        const inPlace = game.instance();
        const rng = Rng.seeded(seed);
        let s = trusted.setup(cfg, seed);
        const owned = inPlace.ownedCopy(inPlace.setup(cfg, seed));
        while (trusted.actor(s) !== "terminal") {
          const legal = trusted.legal(s);
          expect(inPlace.legal(owned)).toEqual(legal);
          const decision = legal[rng.int(legal.length)]!;
          const before = json(s);
          const next = trusted.applyTrusted(s, decision);
          expect(json(s)).toBe(before);
          const result = inPlace.applyInPlace(owned, decision);
          expect(result).toBe(owned);
          expect(stateHash(owned)).toBe(stateHash(next));
          s = next;
          decisions++;
        }
        expect(inPlace.actor(owned)).toBe("terminal");
      }
    }
    expect(decisions).toBeGreaterThan(2000);
  });

  it("changes nothing but the owned copy: the state it was copied from and every state before it stay as they were", () => {
    for (const raw of FIVE_POOLS) {
      const cfg = configOf(game, raw);
      const g = game.instance();
      const rng = Rng.seeded(7);
      const history: { s: BattleData; text: string }[] = [];
      let s = g.setup(cfg, 7);
      for (let k = 0; k < 60 && g.actor(s) !== "terminal"; k++) {
        history.push({ s, text: json(s) });
        const legal = g.legal(s);
        s = g.applyTrusted(s, legal[rng.int(legal.length)]!);
      }
      history.push({ s, text: json(s) });
      // Play the copy of the last state to its end in place, with the same instance.
      let owned = g.ownedCopy(s);
      expect(json(owned)).toBe(json(s));
      while (g.actor(owned) !== "terminal") {
        const legal = g.legal(owned);
        owned = g.applyInPlace(owned, legal[rng.int(legal.length)]!);
      }
      for (const h of history) expect(json(h.s)).toBe(h.text);
    }
  });

  it("a state changed in place by one instance is not read with another instance's memo of it", () => {
    const cfg = configOf(game, {});
    for (let seed = 1; seed <= 6; seed++) {
      const a = game.instance();
      const b = game.instance();
      const rng = Rng.seeded(seed);
      let owned = a.ownedCopy(a.setup(cfg, seed));
      for (let k = 0; g(owned) && k < 400; k++) {
        // Alternate instances at random: each one's memo of its last result is about this very object.
        const by = rng.int(2) === 0 ? a : b;
        const legal = by.legal(owned);
        // What a fresh instance, with no memo at all, says about a copy of the same content.
        const fresh = game.instance();
        expect(legal).toEqual(fresh.legal(structuredClone(owned)));
        owned = by.applyInPlace(owned, legal[rng.int(legal.length)]!);
      }
    }
    function g(s: BattleData): boolean {
      return game.actor(s) !== "terminal";
    }
  });
});
