import { CARD_NAMES, RANKS } from "../../../engine/shephy/cards.ts";
import type { ShephyView } from "../../../engine/shephy/view.ts";
import { h } from "../dom.ts";
import { matching, spot, stat, type BoardCtx } from "./common.ts";

/**
 * What each event card does, in a player's words (docs/rules/shephy.md, "Card effects as
 * implemented"), by card type id: shown on the card, so nobody has to know Shephy to play it.
 */
export const CARD_TEXT: readonly string[] = [
  "Gain a sheep of value 3.",
  "Gain sheep of value 1, one at a time, until you stop.",
  "Choose one of your sheep: gain another of its value.",
  "Choose a sheep: gain up to 3 of the next lower value (nothing for a 1).",
  "Select sheep below your highest value: each moves up one value.",
  "Select sheep: they go, and you gain one sheep of the largest value up to their sum.",
  "Play it as another card of your hand (that card stays in your hand).",
  "Release sheep of your choice until 2 remain.",
  "Release one sheep of your choice.",
  "Take a card of your choice from the deck into your hand; the deck is shuffled.",
  "Release your highest sheep.",
  "Release 3 sheep of your choice (all, if fewer); then this card leaves the game.",
  "Choose a sheep: release every sheep of its value.",
  "Remove a card of your hand from the game.",
  "Discard a card of your hand.",
  "Release every sheep: the game ends (an empty field loses).",
  "Release half of your sheep (rounded down), your choice.",
  "Release 2 sheep of your choice (all, if fewer).",
  "Release your highest sheep and gain one of the next lower value.",
];

/** An event card: its name and what it does. */
const cardFace = (c: number) => [h("span", { class: "name" }, CARD_NAMES[c]), h("small", { class: "effect" }, CARD_TEXT[c])];

/** Shephy: the field of sheep (at most 7), the stock, the enemy sheep, the hand; cards are clicks. */
export function shephyBoard(ctx: BoardCtx): HTMLElement {
  const v = ctx.view as ShephyView;
  const sum = v.field.reduce((a, r) => a + (RANKS[r] ?? 0), 0);
  const sel = v.pending?.selected ?? [];
  const field = v.field.map((r, i) => {
    const opts = matching(ctx, (d) => (d.kind === "chooseField" || d.kind === "select") && d.index === i);
    return spot(
      `card sheep${sel.includes(i) ? " selected" : ""}`,
      opts,
      ctx,
      { "data-field": i },
      sel.includes(i) ? "✔ " : "",
      h("span", { class: "name" }, "sheep"),
      h("b", null, String(RANKS[r])),
    );
  });
  const hand = v.hand.map((c, i) => {
    const opts = matching(ctx, (d) => (d.kind === "play" || d.kind === "chooseHand") && d.index === i);
    return spot("card hand-card", opts, ctx, { "data-hand": i }, cardFace(c));
  });
  const deck =
    v.deck?.map((c, i) =>
      spot(
        "card",
        matching(ctx, (d) => d.kind === "chooseDeck" && d.index === i),
        ctx,
        {},
        cardFace(c),
      ),
    ) ?? [];
  const buttons = matching(ctx, (d) => d.kind === "confirm" || d.kind === "gainOne" || d.kind === "stop").map((o) => spot("act", [o], ctx, {}, o.label));
  const pending =
    v.pending === null
      ? null
      : `${CARD_NAMES[v.pending.card]}${v.pending.source !== v.pending.card ? ` (via ${CARD_NAMES[v.pending.source]})` : ""}${v.pending.left > 0 ? `, ${v.pending.left} sheep to release` : ""}`;
  return h(
    "section",
    { class: "board shephy", "aria-label": "Shephy" },
    h(
      "p",
      { class: "phase" },
      stat("enemy sheep", v.enemy),
      stat("mode", v.mode),
      stat("status", v.result ?? "in play"),
      stat("deck", v.deckSize),
      stat("discard", v.discard.length),
      stat("exile", v.exile.length),
    ),
    h(
      "div",
      { class: "zone" },
      h("h3", null, `Field (${v.field.length}/7, sum ${sum})`),
      h("div", { class: "cards" }, field.length ? field : h("em", null, "no sheep")),
    ),
    h(
      "div",
      { class: "zone" },
      h("h3", null, "Sheep stock"),
      h(
        "div",
        { class: "stock" },
        RANKS.map((r, k) => stat(String(r), `×${v.stock[k]}`)),
      ),
    ),
    pending ? h("p", { class: "hint" }, "Resolving: ", pending) : null,
    deck.length ? h("div", { class: "zone" }, h("h3", null, "Deck (revealed)"), h("div", { class: "cards" }, deck)) : null,
    h(
      "div",
      { class: "hand zone" },
      h("h3", null, `Hand (${v.hand.length}/5)`),
      h("div", { class: "cards" }, hand.length ? hand : h("em", null, "empty")),
      buttons,
    ),
  );
}
