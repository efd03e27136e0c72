import { readFileSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { Ajv2020 } from "ajv/dist/2020.js";
import { describe, expect, it } from "vitest";
import { tempDir } from "../fixtures/temp-dir.ts";
import { SHIPPED_CARDS } from "../../engine/dcg/cards.ts";
import { dcg } from "../../engine/dcg/index.ts";
import { buildCardSchema } from "../../engine/dcg/schema.ts";
import { checkCardFiles } from "../../scripts/cards/check-card-files.ts";
import { repoRoot, runScript } from "./run-script.ts";

/** The published JSON Schema and `npm run validate-cards`, from a card author's side. */
const tmp = () => tempDir("cardgym-validate-");

describe("docs/card-schema.json", () => {
  it("is the schema generated from the handler registries (run npx tsx scripts/card-schema.ts after a vocabulary change)", () => {
    const published = JSON.parse(readFileSync(join(repoRoot, "docs/card-schema.json"), "utf8"));
    expect(published).toEqual(buildCardSchema());
  });

  it("accepts every shipped card and refuses what the loader refuses", () => {
    const ajv = new Ajv2020({ allErrors: true, discriminator: true, strict: true, strictRequired: false, strictTuples: false });
    const validate = ajv.compile(buildCardSchema());
    expect(validate({ cards: SHIPPED_CARDS }), JSON.stringify(validate.errors)).toBe(true);
    const card = { id: "x", name: "X", kind: "rubric", cost: 1, attack: 1, life: 1 };
    expect(validate({ cards: [{ ...card, __proto__: 1 }] })).toBe(true); // an object literal's __proto__ is not a key...
    expect(validate(JSON.parse(`{"cards": [{"id": "x", "name": "X", "kind": "rubric", "cost": 1, "attack": 1, "life": 1, "__proto__": {}}]}`))).toBe(false); // ...a JSON one is
    expect(
      validate({
        cards: [
          {
            ...card,
            abilities: [
              {
                type: "TriggerAbility",
                conditions: [[{ kind: "Count", cmp: "Equal", value: 1 }]],
                effect: { kind: "PlayerHand", amount: 1, target: [{ kind: "MapPlayer" }] },
              },
            ],
          },
        ],
      }),
    ).toBe(false);
    expect(validate({ cards: [{ ...card, kind: "feint", feint: { on: "enter" }, attack: 0, life: 0 }] })).toBe(true);
    expect(validate({ cards: [{ ...card, feint: { on: "enter" } }] })).toBe(false);
  });
});

describe("npm run validate-cards", () => {
  it("passes the shipped cards and books and the test fixtures", () => {
    const r = runScript("validate-cards.ts", ["engine/dcg/cards", "test/fixtures/cards"]);
    expect(r.stderr).toBe("");
    expect(r.stdout.trim()).toBe("5 file(s), 37 card(s), 6 book(s): ok");
    expect(r.code).toBe(0);
  });

  it("reads a file saved with a byte-order mark (as some editors write UTF-8) like the same file without one", () => {
    const dir = tmp();
    writeFileSync(join(dir, "storm-set.json"), "\uFEFF" + readFileSync(join(repoRoot, "test/fixtures/cards/storm-set.json"), "utf8"));
    const r = runScript("validate-cards.ts", [dir]);
    expect(r.stderr).toBe("");
    expect(r.stdout.trim()).toMatch(/^1 file\(s\), \d+ card\(s\), \d+ book\(s\): ok$/);
    expect(r.code).toBe(0);
  });

  it("reports every problem with the file, card id and JSON path, and exits 1", () => {
    const dir = tmp();
    const bad = join(dir, "bad.json");
    writeFileSync(
      bad,
      JSON.stringify({
        cards: [
          { id: "fine", name: "Fine", kind: "rubric", cost: 1, attack: 1, life: 2 },
          {
            id: "bad-one",
            name: "Bad",
            kind: "rubric",
            cost: 5,
            attack: 1,
            life: 2,
            colour: "red",
            abilities: [
              {
                type: "TriggerAbility",
                conditions: [[{ kind: "FilterCardKind", cardKind: "rubric" }]],
                effect: { kind: "Teleport", target: [{ kind: "Any" }] },
              },
            ],
          },
          {
            id: "bad-two",
            name: "Two",
            kind: "feint",
            cost: 1,
            feint: { on: "enter", effect: { kind: "CardDamage", amount: "3", target: [{ kind: "MapCard" }, { kind: "Take", count: 1, mode: "best" }] } },
          },
          {
            id: "ref-bad",
            name: "Ref",
            kind: "rubric",
            cost: 1,
            attack: 1,
            life: 1,
            abilities: [
              {
                type: "TriggerAbility",
                conditions: [[{ kind: "Any" }, { kind: "FilterTriggerKind", triggers: ["Summoned"] }]],
                effect: { kind: "AttachAbility", ability: { ref: 3 }, target: [{ kind: "Any" }] },
              },
            ],
          },
          { id: "agnis", name: "Agnis 2", kind: "rubric", cost: 1, attack: 9, life: 9 },
          { id: "fine", name: "Fine again", kind: "rubric", cost: 1, attack: 1, life: 2 },
        ],
        books: [
          { id: "b", name: "B", strategy: ["fine", "fine", "fine", "fine", "fine", "fine"], cards: [] },
          { id: "c", name: "C", strategy: ["fine", "fine", "fine", "fine", "agnis"], cards: ["nope"] },
        ],
      }),
    );
    const { problems } = checkCardFiles([bad]);
    expect(problems.map((p) => `${p.path}: ${p.message}`)).toEqual([
      "cards[1] (bad-one).colour: unknown field",
      "cards[1] (bad-one).cost: must be <= 3",
      'cards[1] (bad-one).abilities[0].conditions[0][0].kind: "FilterCardKind" is not a head: a targeting starts with one of Any, MapCard, MapPlayer, MapCell, MapActorCard, MapTargetCard, MapFollowCell, MapAbility',
      "cards[1] (bad-one).abilities[0].conditions: a TriggerAbility needs a FilterTriggerKind in one of its conditions",
      'cards[1] (bad-one).abilities[0].effect.kind: unknown kind "Teleport"',
      "cards[2] (bad-two).feint.effect.amount: must be integer",
      'cards[2] (bad-two).feint.effect.target[1].mode: must be one of "first", "random"',
      "books[0] (b).strategy: must NOT have more than 5 items",
      "cards[3] (ref-bad).abilities[0].effect.ability.ref: must name an earlier ability of this card",
      "cards[4] (agnis).id: agnis is a shipped card id; choose another id",
      `cards[5] (fine).id: duplicate card id fine (also ${bad}: cards[0] (fine))`,
      'books[1] (c).cards[0]: unknown card "nope"',
    ]);
    const r = runScript("validate-cards.ts", [bad]);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain(`${bad}: cards[1] (bad-one).cost: must be <= 3`);
    expect(r.stderr.trim().split("\n").at(-1)).toBe("1 file(s), 4 card(s), 1 book(s): 12 problem(s)");
  });

  it("says ok exactly when a session accepts the set: shipped repeats, pool size and book size", () => {
    const dir = tmp();
    const session = (cardSet: unknown, bookSize = 20) => dcg.parseConfig({ cardSet, bookSize }).ok;
    const check = (set: unknown, bookSize = 20) => {
      const file = join(dir, `set-${Math.random().toString(36).slice(2)}.json`);
      writeFileSync(file, JSON.stringify(set));
      return checkCardFiles([file], { bookSize }).problems.length === 0;
    };
    // A shipped card and a preset book repeated unchanged: both say yes (the session used to refuse).
    const repeat = { cards: [SHIPPED_CARDS[0]], books: [dcg.presets[0]] };
    expect([check(repeat), session(repeat)]).toEqual([true, true]);
    // Changed, they are clashing ids: both say no.
    const changed = { cards: [{ ...(SHIPPED_CARDS[0] as object), name: "Other" }] };
    expect([check(changed), session(changed)]).toEqual([false, false]);
    // More cards than the pool can take next to the shipped ones: both say no (validate said ok).
    const many = (n: number) => ({ cards: Array.from({ length: n }, (_, i) => ({ id: `c${i}`, name: `C${i}`, kind: "object", cost: 1, life: 1 })) });
    const room = 1000 - SHIPPED_CARDS.length;
    expect([check(many(room)), session(many(room))]).toEqual([true, true]);
    expect([check(many(room + 1)), session(many(room + 1))]).toEqual([false, false]);
    // A preset book under another book size: the session refuses it, and so does the validator.
    expect([check(repeat, 21), session(repeat, 21)]).toEqual([false, false]);
  });

  it("says clearly when a file is unreadable or not JSON, and checks lists of cards or books too", () => {
    const dir = tmp();
    writeFileSync(join(dir, "broken.json"), '{ "cards": [');
    writeFileSync(join(dir, "cards.json"), JSON.stringify([{ id: "solo", name: "Solo", kind: "object", cost: 1, life: 2 }]));
    writeFileSync(
      join(dir, "books.json"),
      JSON.stringify([
        {
          id: "solo-book",
          name: "Solo",
          strategy: ["est", "est", "est", "agnis", "agnis"],
          cards: Array(15)
            .fill("solo")
            .slice(0, 3)
            .concat(Array(12).fill("agnis").slice(0, 3), ["est", "est", "bubble", "bubble", "bubble", "mirage", "mirage", "mirage", "pitfall"]),
        },
      ]),
    );
    const r = runScript("validate-cards.ts", [dir, join(dir, "missing.json")]);
    expect(r.code).toBe(1);
    const lines = r.stderr.trim().split("\n");
    expect(lines).toContain(`${join(dir, "missing.json")}: cannot read: ENOENT`);
    expect(lines.some((l) => l.startsWith(`${join(dir, "broken.json")}: not JSON: `))).toBe(true);
    expect(lines.at(-1)).toBe("3 file(s), 1 card(s), 1 book(s): 2 problem(s)");
    expect(runScript("validate-cards.ts", []).code).not.toBe(0);
    // A directory with nothing to check (the wrong folder) is not a pass; a broken link in it is skipped.
    const empty = tmp();
    symlinkSync(join(empty, "nowhere"), join(empty, "dangling"));
    const none = runScript("validate-cards.ts", [empty]);
    expect(none.code).toBe(1);
    expect(none.stderr.trim().split("\n")).toEqual([`${empty}: no .json file in this directory`, "0 file(s), 0 card(s), 0 book(s): 1 problem(s)"]);
  });
});
