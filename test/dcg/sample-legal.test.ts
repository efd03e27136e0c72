import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { Rng, stateHash } from "../../engine/core/index.ts";
import { makeDcg, type BattleData, type DcgConfig, type DcgGame } from "../../engine/dcg/index.ts";
import { configOf, FIVE_POOLS } from "./pools.ts";

/**
 * sampleLegal(s, pick) is legal(s)[pick(legal(s).length)] without the list (random playouts).
 * It must be exactly that: the very decision object at every index of every list, pick called
 * once with the list's length, so that a playout picking through it plays the same game, state
 * hash by state hash, as one picking from legal(). Checked at every index of every decision of
 * random games of the five test pools and of arbitrary generated pools.
 */
const game = makeDcg();

/** What the checked games went through: every input phase and every decision kind they offered. */
interface Seen {
  readonly phases: Set<string>;
  readonly kinds: Set<string>;
  decisions: number;
}

/** sampleLegal's answer for index `k`, and the bounds pick was called with. */
function sampleAt(g: DcgGame, s: BattleData, k: number): { decision: unknown; calls: number[] } {
  const calls: number[] = [];
  const decision = g.sampleLegal(s, (n) => {
    calls.push(n);
    return k;
  });
  return { decision, calls };
}

/**
 * Plays one random game of `cfg` twice, each side with its own instance: from legal() with
 * applyTrusted, and through sampleLegal with applyInPlace on an owned copy, both picking with
 * `rng.int(n)` from streams of the same seed. At every decision the two states hash the same, and
 * sampleLegal gives the list's own object at every index. Returns the decisions played.
 */
function checkGame(cfg: DcgConfig, seed: number, pickSeed: number, seen: Seen): number {
  const listed = game.instance();
  const sampled = game.instance();
  const rngA = Rng.seeded(pickSeed);
  const rngB = Rng.seeded(pickSeed);
  const pickB = (n: number): number => rngB.int(n);
  let s = listed.setup(cfg, seed);
  let owned = sampled.ownedCopy(sampled.setup(cfg, seed));
  let played = 0;
  while (listed.actor(s) !== "terminal") {
    expect(sampled.actor(owned)).toBe(listed.actor(s));
    expect(stateHash(owned)).toBe(stateHash(s));
    const legal = listed.legal(s);
    seen.phases.add(s.state.kind);
    for (let k = 0; k < legal.length; k++) {
      const { decision, calls } = sampleAt(listed, s, k);
      if (decision !== legal[k] || calls.length !== 1 || calls[0] !== legal.length) {
        expect({ phase: s.state.kind, k, decision, calls }).toEqual({ phase: s.state.kind, k, decision: legal[k], calls: [legal.length] });
      }
      seen.kinds.add(legal[k]!.kind);
    }
    s = listed.applyTrusted(s, legal[rngA.int(legal.length)]!);
    owned = sampled.applyInPlace(owned, sampled.sampleLegal(owned, pickB));
    played++;
  }
  expect(sampled.actor(owned)).toBe("terminal");
  expect(stateHash(owned)).toBe(stateHash(s));
  expect(() => listed.sampleLegal(s, () => 0)).toThrow(/over/);
  seen.decisions += played;
  return played;
}

describe("dcg sampleLegal", () => {
  const seen: Seen = { phases: new Set(), kinds: new Set(), decisions: 0 };

  it("is legal()'s decision at every index of every decision of random games of the five test pools, and plays the same games", () => {
    for (const raw of FIVE_POOLS) {
      const cfg = configOf(game, raw);
      for (let seed = 1; seed <= 3; seed++) checkGame(cfg, seed, 100 + seed, seen);
    }
    expect(seen.decisions).toBeGreaterThan(3000);
  });

  it("is legal()'s decision at every index for arbitrary generated pools, seeds and picks", () => {
    const poolArb = fc.oneof(
      fc.constantFrom(...FIVE_POOLS),
      fc.record({ cardPool: fc.record({ generate: fc.record({ seed: fc.nat(10_000), cards: fc.integer({ min: 60, max: 160 }) }) }) }),
    );
    fc.assert(
      fc.property(poolArb, fc.nat(1_000_000), fc.nat(1_000_000), (raw, seed, pickSeed) => {
        checkGame(configOf(game, raw), seed, pickSeed, seen);
      }),
      { numRuns: 25 },
    );
  });

  it("the games above went through every input phase and offered every kind of decision", () => {
    expect([...seen.phases].sort()).toEqual(["Draw", "FeintDeclare", "Main", "MoveDeclare", "MoveRetry", "Strategy"]);
    const kinds = ["strategyMove", "strategyConfirm", "drawOrCharge", "summon", "feint", "moveDeclare", "attack", "direct", "turnFinish"];
    const reactions = ["reactNone", "reactSummon", "reactFeint", "moveRetry", "feintDeclare", "feintPass"];
    for (const kind of [...kinds, ...reactions]) expect(seen.kinds, kind).toContain(kind);
  });
});
