import { describe, expect, it } from "vitest";
import { fastDecisionKey } from "../../agents/decision-key.ts";
import { decisionKey, Rng } from "../../engine/core/index.ts";
import { dcg } from "../../engine/dcg/index.ts";

/**
 * fastDecisionKey is decisionKey for search loops: it must always give decisionKey's text, also
 * for the frozen decisions whose keys it keeps by object, and must never keep a key for an object
 * that can still change.
 */
describe("fastDecisionKey", () => {
  it("gives decisionKey's text for every decision of random dcg games (shared frozen objects), asked twice", () => {
    const cfg = dcg.parseConfig({});
    if (!cfg.ok) throw new Error(cfg.error.message);
    const rng = Rng.seeded(4);
    let s = dcg.setup(cfg.value, 4);
    let frozen = 0;
    while (dcg.actor(s) !== "terminal") {
      const legal = dcg.legal(s);
      for (const d of legal) {
        if (Object.isFrozen(d)) frozen++;
        expect(fastDecisionKey(d)).toBe(decisionKey(d));
        expect(fastDecisionKey(d)).toBe(decisionKey(d));
      }
      s = dcg.applyTrusted(s, legal[rng.int(legal.length)]!);
    }
    expect(frozen).toBeGreaterThan(1000);
  });

  it("follows an object that can change, and falls back to decisionKey for what is not flat", () => {
    const d: { kind: string; card: number; cell?: number } = { kind: "summon", card: 3 };
    expect(fastDecisionKey(d)).toBe('{"card":3,"kind":"summon"}');
    d.card = 4;
    d.cell = 7;
    expect(fastDecisionKey(d)).toBe(decisionKey(d));
    expect(fastDecisionKey(d)).toBe('{"card":4,"cell":7,"kind":"summon"}');
    const inner = { a: 1 };
    const nested = Object.freeze({ kind: "x", inner });
    expect(fastDecisionKey(nested)).toBe(decisionKey(nested));
    inner.a = 2;
    expect(fastDecisionKey(nested)).toBe(decisionKey(nested));
    expect(fastDecisionKey(Object.freeze({ kind: "y", v: -0, w: null, b: true }))).toBe(decisionKey({ kind: "y", v: -0, w: null, b: true }));
  });
});
