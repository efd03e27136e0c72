import { readFileSync } from "node:fs";
import { Ajv2020 } from "ajv/dist/2020.js";
import { describe, expect, it } from "vitest";
import { buildConfigSchemas } from "../../engine/config-schemas.ts";
import { buildCardSchema } from "../../engine/dcg/schema.ts";
import { registry } from "../../engine/games.ts";

/**
 * Game configs are one TypeBox definition per game: parseConfig checks with it and
 * docs/config-schemas.json is generated from it, so a value one accepts the other accepts.
 */
const schemas = buildConfigSchemas();
const ajv = new Ajv2020({ allErrors: true, discriminator: true, strict: true, strictRequired: false, strictTuples: false });
ajv.addSchema(buildCardSchema());
ajv.addSchema(schemas);
const validate = (game: string) => ajv.getSchema(`https://cardgym.dev/schemas/game-configs.json#/$defs/${game}`)!;

describe("docs/config-schemas.json", () => {
  it("is generated from the games' config fields (run npx tsx scripts/card-schema.ts after a change)", () => {
    expect(JSON.parse(readFileSync(new URL("../../docs/config-schemas.json", import.meta.url), "utf8"))).toEqual(schemas);
  });

  const cases: Record<string, { good: unknown[]; bad: unknown[] }> = {
    dcg: {
      good: [
        {},
        { hp: 30, books: ["tempo", "venom"], timeoutMs: null },
        {
          board: {
            turn: 1,
            turnPlayer: 1,
            players: [
              { hp: 5, mp: 0 },
              { hp: 5, mp: 3, field: [{ card: "est", cell: "C4" }] },
            ],
          },
        },
      ],
      bad: [
        { hp: 0 },
        { hp: 1.5 },
        { colour: 1 },
        { timeoutMs: 0 },
        { books: ["a"] },
        { board: { turn: 1 } },
        { board: { turn: 1, turnPlayer: 0, players: [] } },
      ],
    },
    sevens: {
      good: [{}, { seats: 6, passLimit: 3, voluntaryPass: true, startPlayer: "diamond7" }],
      bad: [{ seats: 9 }, { startPlayer: "north" }, { passLimit: -1 }, { shaping: "yes" }],
    },
    shephy: { good: [{}, { mode: "challenge" }], bad: [{ mode: "hard" }, { seats: 2 }] },
    blackpoker: { good: [{}, { drawRule: "sixth", maxTurns: 5 }], bad: [{ maxTurns: 0 }, { bothLivesZero: "maybe" }, { seats: 3 }] },
  };
  for (const [game, { good, bad }] of Object.entries(cases)) {
    it(`${game}: the schema and parseConfig agree, and what parseConfig returns is valid under the schema`, () => {
      const g = registry.get(game);
      if (!g.ok) throw new Error(g.error.message);
      for (const raw of good) {
        const parsed = g.value.parseConfig(raw);
        expect(parsed.ok, JSON.stringify(raw)).toBe(true);
        expect(validate(game)(raw), JSON.stringify(validate(game).errors)).toBe(true);
        if (parsed.ok) expect(validate(game)(JSON.parse(JSON.stringify(parsed.value))), JSON.stringify(validate(game).errors)).toBe(true);
      }
      for (const raw of bad) {
        expect(g.value.parseConfig(raw).ok, JSON.stringify(raw)).toBe(false);
        expect(validate(game)(raw), JSON.stringify(raw)).toBe(false);
      }
    });
  }
});

describe("a refused config value is quoted, not copied whole", () => {
  const huge = "x".repeat(5000);
  const cases: [string, unknown][] = [
    ["dcg", { books: [huge, "tempo"] }],
    ["dcg", { hp: huge }],
    ["dcg", { [huge]: 1 }],
    ["sevens", { seats: huge }],
    ["sevens", { startPlayer: huge }],
    ["shephy", { [huge]: true }],
    ["blackpoker", { [huge]: true }],
  ];
  it.each(cases)("%s %#: the message stays a line and says how long the value was", (id, raw) => {
    const got = registry.get(id);
    if (!got.ok) throw new Error(got.error.message);
    const parsed = got.value.parseConfig(raw);
    expect(parsed.ok).toBe(false);
    if (parsed.ok) return;
    expect(parsed.error.message.length, parsed.error.message.slice(0, 200)).toBeLessThan(400);
    expect(parsed.error.message).toMatch(/"x{10,}\.\.\. \(500\d characters\)/);
  });
});
