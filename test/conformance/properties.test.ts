/**
 * Property-based tests (fast-check) of the Game contract for every registered game: arbitrary
 * configs and arbitrary decisions, shrunk to the smallest failing case when a property breaks.
 */
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { canonicalJson, stateHash, type AnyGame } from "../../engine/core/index.ts";
import { registry } from "../../engine/games.ts";
import { variantConfigs } from "../../scripts/golden-format.ts";

const RUNS = 60;
const ERROR_CODES = ["illegal_decision", "malformed_decision", "game_over"];

/** Configs near the valid ones: every known field, with a valid value or arbitrary JSON, plus junk keys. */
function configArb(game: AnyGame): fc.Arbitrary<unknown> {
  const base = game.parseConfig({});
  if (!base.ok) throw new Error(base.error.message);
  const valid = [{}, ...(variantConfigs[game.info.id] ?? [])];
  const fields = Object.keys(base.value);
  const value = fc.oneof(
    fc.jsonValue({ maxDepth: 2 }),
    fc.integer({ min: -3, max: 40 }),
    fc.boolean(),
    fc.constant(null),
    fc.constantFrom(...valid.flatMap((c) => Object.values(c)), ...Object.values(base.value as object)),
  );
  const mixed = fc.dictionary(fc.constantFrom(...fields, "noSuchField", "__proto__", "constructor"), value, { maxKeys: 4 });
  return fc.oneof(fc.constantFrom(...valid), mixed, fc.jsonValue({ maxDepth: 2 }));
}

/** Names an object inherits: a lookup by an untrusted key must not find them. */
const INHERITED = ["__proto__", "constructor", "toString", "hasOwnProperty", "valueOf", "isPrototypeOf"];

/**
 * Junk near a legal decision: a legal one (when `d` is given) with its kind or one field replaced
 * by an inherited name or arbitrary JSON, as a record file or a client may send.
 */
const nearJunk = fc.record({ field: fc.nat(), value: fc.oneof(fc.constantFrom(...INHERITED), fc.jsonValue({ maxDepth: 1 })), kind: fc.boolean() });
function nearLegal(d: unknown, j: { field: number; value: unknown; kind: boolean }): unknown {
  if (d === null || typeof d !== "object") return j.value;
  const keys = Object.keys(d);
  const key = j.kind || keys.length === 0 ? "kind" : (keys[j.field % keys.length] ?? "kind");
  return { ...d, [key]: j.value };
}

/** A config the game accepts, from its variants with a field or two changed to legal values. */
function validConfigArb(game: AnyGame): fc.Arbitrary<unknown> {
  return configArb(game).filter((c) => game.parseConfig(c).ok);
}

for (const game of registry.all()) {
  describe(`properties: ${game.info.id}`, () => {
    it("parseConfig never throws; refusals name the field; accepted configs are canonical and set up", () => {
      fc.assert(
        fc.property(configArb(game), fc.nat(), (raw, seed) => {
          const parsed = game.parseConfig(raw);
          if (!parsed.ok) {
            expect(parsed.error.code).toBe("invalid_config");
            expect(parsed.error.message.length).toBeGreaterThan(0);
            return;
          }
          // Parsing what parseConfig returned gives it back: the value is the canonical config.
          const again = game.parseConfig(JSON.parse(JSON.stringify(parsed.value)));
          expect(again.ok && canonicalJson(again.value)).toBe(canonicalJson(parsed.value));
          const s = game.setup(parsed.value, seed);
          expect(game.config(s).seats).toBe(parsed.value.seats);
          if (game.actor(s) !== "terminal") expect(game.legal(s).length).toBeGreaterThan(0);
        }),
        { numRuns: RUNS * 3 },
      );
    });

    it("apply: legal decisions apply like applyTrusted, anything else is an error value, the input state never changes", () => {
      fc.assert(
        fc.property(
          validConfigArb(game),
          fc.nat(),
          fc.array(fc.nat(), { maxLength: 40 }),
          fc.array(fc.jsonValue({ maxDepth: 2 }), { maxLength: 3 }),
          fc.array(nearJunk, { maxLength: 3 }),
          (raw, seed, choices, junkFar, junkNear) => {
            const parsed = game.parseConfig(raw);
            if (!parsed.ok) return;
            let s = game.setup(parsed.value, seed);
            for (const choice of choices) {
              if (game.actor(s) === "terminal") break;
              const legal = game.legal(s);
              const before = stateHash(s);
              const legalText = new Set(legal.map((d) => canonicalJson(d)));
              const near = junkNear.map((j) => nearLegal(legal[j.field % legal.length], j));
              for (const j of [...junkFar, ...near]) {
                const out = game.apply(s, j);
                if (out.ok) expect(legalText.has(canonicalJson(j))).toBe(true);
                else expect(ERROR_CODES).toContain(out.error.code);
              }
              const d = legal[choice % legal.length];
              const out = game.apply(s, JSON.parse(JSON.stringify(d)));
              if (!out.ok) throw new Error(`legal decision ${canonicalJson(d)} refused: ${out.error.message}`);
              expect(stateHash(s)).toBe(before);
              const trusted = game.applyTrusted(s, d);
              expect(stateHash(out.state)).toBe(stateHash(trusted));
              s = out.state;
            }
          },
        ),
        { numRuns: RUNS },
      );
    });
  });
}

describe("fast-check shrinks a failure to a minimal case", () => {
  it("a false claim about sevens ('nobody ever passes') is refuted with a short decision list", () => {
    const sevens = registry.get("sevens");
    if (!sevens.ok) throw new Error("no sevens");
    const game = sevens.value;
    const parsed = game.parseConfig({ seats: 3, passLimit: 3, voluntaryPass: true });
    if (!parsed.ok) throw new Error(parsed.error.message);
    const config = parsed.value;
    const passesWithin = (seed: number, choices: number[]) => {
      let s = game.setup(config, seed);
      for (const c of choices) {
        if (game.actor(s) === "terminal") return false;
        const legal = game.legal(s);
        const d = legal[c % legal.length] as { kind: string };
        if (d.kind === "pass") return true;
        s = game.applyTrusted(s, d);
      }
      return false;
    };
    const out = fc.check(
      fc.property(fc.nat(1000), fc.array(fc.nat(60), { maxLength: 40 }), (seed, choices) => !passesWithin(seed, choices)),
      { seed: 42, numRuns: 500 },
    );
    expect(out.failed).toBe(true);
    const [, choices] = out.counterexample as [number, number[]];
    // Shrunk: the counterexample still fails, and a single choice of a pass is as short as it gets.
    expect(passesWithin(...(out.counterexample as [number, number[]]))).toBe(true);
    expect(choices.length).toBeLessThanOrEqual(2);
  });
});
