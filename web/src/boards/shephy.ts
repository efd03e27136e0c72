import { CARD_NAMES, RANKS } from "../../../engine/shephy/cards.ts";
import type { ShephyView } from "../../../engine/shephy/view.ts";
import { h } from "../dom.ts";
import { matching, spot, stat, type BoardCtx } from "./common.ts";

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
    return spot("card hand-card", opts, ctx, { "data-hand": i }, CARD_NAMES[c]);
  });
  const deck =
    v.deck?.map((c, i) =>
      spot(
        "card",
        matching(ctx, (d) => d.kind === "chooseDeck" && d.index === i),
        ctx,
        {},
        CARD_NAMES[c],
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
