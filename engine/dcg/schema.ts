import Type, { type TProperties, type TSchema } from "typebox";
import { ABILITY_FIELDS } from "./ability.ts";
import { BOARD_FILE } from "./board-file.ts";
import { BOOK_FIELDS, MAX_SET_BOOKS } from "./card-set.ts";
import { SHIPPED_CARDS } from "./cards.ts";
import { EFFECT_FIELDS } from "./effect.ts";
import { HEADS } from "./heads.ts";
import { CARD_FIELDS, MAX_CARDS } from "./pool.ts";
import { PHRASE_FIELDS } from "./targeting.ts";
import { MAX_PHRASES } from "./validate.ts";

/**
 * The JSON Schema (draft 2020-12) of card sets, cards, abilities and books, assembled from the
 * TypeBox field definitions the loader checks with (CARD_FIELDS, ABILITY_FIELDS, EFFECT_FIELDS,
 * HEAD_FIELDS, PIPE_FIELDS, BOOK_FIELDS): one definition per shape gives the TypeScript type, this
 * schema and the runtime check, so they cannot drift. docs/card-schema.json is this object (a test
 * keeps them equal; `npx tsx scripts/card-schema.ts` rewrites it). The loader (pool.ts) also
 * checks what a schema cannot say (ability references, at most one NightmareAbility, book rules).
 */
type Schema = Record<string, unknown>;

const ref = (name: string): Schema => ({ $ref: `#/$defs/${name}` });
/** An object with a constant tag and the given fields, nothing else. */
const tagged = (tag: "kind" | "type", value: string, fields: TProperties): TSchema =>
  Type.Object({ [tag]: Type.Literal(value), ...fields }, { additionalProperties: false });
/** A tagged union, in the form Ajv's `discriminator` keyword reports precisely on. */
const byTag = (tag: "kind" | "type", branches: readonly unknown[]): Schema => ({
  type: "object",
  required: [tag],
  discriminator: { propertyName: tag },
  oneOf: branches,
});

export function buildCardSchema(): Schema {
  const phrases = Object.entries(PHRASE_FIELDS).map(([kind, fields]) => tagged("kind", kind, fields));
  const heads = Object.entries(PHRASE_FIELDS)
    .filter(([kind]) => (HEADS as readonly string[]).includes(kind))
    .map(([kind, fields]) => tagged("kind", kind, fields));
  const abilities = Object.fromEntries(
    Object.entries(ABILITY_FIELDS).map(([type, fields]) => [type.charAt(0).toLowerCase() + type.slice(1), tagged("type", type, fields)]),
  );
  const schema = {
    $schema: "https://json-schema.org/draft/2020-12/schema",
    $id: "https://cardgym.dev/schemas/dcg-card-set.json",
    title: "cardgym dcg card set",
    description:
      "A card set: cards and books for the dcg game (docs/cards.md). Generated from engine/dcg/schema.ts; the loader (loadPool, config.cardSet) also checks what a schema cannot: ability references, at most one NightmareAbility, and the book rules.",
    type: "object",
    properties: { cards: ref("cardList"), books: ref("bookList") },
    additionalProperties: false,
    $defs: {
      // The pool's limit counts the shipped cards: a set adds at most MAX_CARDS - shipped.
      cardList: { type: "array", maxItems: MAX_CARDS - SHIPPED_CARDS.length, items: ref("card") },
      bookList: { type: "array", maxItems: MAX_SET_BOOKS, items: ref("book") },
      card: byTag(
        "kind",
        Object.values(CARD_FIELDS).map((fields) => Type.Object(fields, { additionalProperties: false })),
      ),
      ability: byTag("type", Object.keys(abilities).map(ref)),
      ...abilities,
      abilityRef: Type.Object({ ref: Type.Integer({ minimum: 0, maximum: 7 }) }, { additionalProperties: false }),
      effect: byTag(
        "kind",
        Object.entries(EFFECT_FIELDS).map(([kind, fields]) => tagged("kind", kind, fields)),
      ),
      targeting: { type: "array", minItems: 1, maxItems: MAX_PHRASES, prefixItems: [ref("head")], items: ref("phrase") },
      head: byTag("kind", heads),
      phrase: byTag("kind", phrases),
      book: Type.Object(BOOK_FIELDS, { additionalProperties: false }),
    },
  };
  // Plain JSON (TypeBox keeps a few non-enumerable markers on its objects).
  return JSON.parse(JSON.stringify(schema)) as Schema;
}

/**
 * The JSON Schema of a board file (docs/board-file.md), from the same TypeBox object
 * `config.board` is checked with; docs/board-file.schema.json is this object (a test keeps them
 * equal). The config check also needs the pool and the config: cards exist, unit and feint kinds,
 * one unit per cell, hp / mp / turn within the config's hp / mpCap / turnLimit.
 */
export function buildBoardSchema(): Schema {
  return JSON.parse(
    JSON.stringify({
      $schema: "https://json-schema.org/draft/2020-12/schema",
      $id: "https://cardgym.dev/schemas/dcg-board.json",
      title: "cardgym dcg board file",
      description:
        "A dcg position to start a battle from (config.board, docs/board-file.md). Generated from engine/dcg/board-file.ts; the config check also refuses unknown cards, a feint as a unit, two units on one cell, and hp, mp or turn beyond the config's hp, mpCap or turnLimit.",
      ...BOARD_FILE,
    }),
  ) as Schema;
}
