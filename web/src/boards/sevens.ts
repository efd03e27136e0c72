import { cardLabel, DEAD, HIDDEN, PLACED, suitOf, type SevensView } from "../../../engine/sevens/index.ts";
import { h } from "../dom.ts";
import { matching, spot, stat, type BoardCtx } from "./common.ts";

const RANKS = ["A", "2", "3", "4", "5", "6", "7", "8", "9", "10", "J", "Q", "K"];
const SUITS = ["♠", "♥", "♦", "♣"];
const red = (card: number) => (suitOf(card) === 1 || suitOf(card) === 2 ? " red" : "");

/** Killing Sevens: the 4x13 table, the seats' counts, and the viewer's hand (a card is a click). */
export function sevensBoard(ctx: BoardCtx): HTMLElement {
  const v = ctx.view as SevensView;
  const plays = (card: number) => matching(ctx, (d) => d.kind === "play" && d.card === card);
  const cells: HTMLElement[] = [h("div", { class: "corner" })];
  for (const r of RANKS) cells.push(h("div", { class: "colhead" }, r));
  for (let suit = 0; suit < 4; suit++) {
    cells.push(h("div", { class: `rowhead${suit === 1 || suit === 2 ? " red" : ""}` }, SUITS[suit]));
    for (let rank = 1; rank <= 13; rank++) {
      const card = suit * 13 + rank - 1;
      const c = v.cells[card] ?? HIDDEN;
      const name = cardLabel(card);
      if (c >= DEAD) {
        cells.push(
          h(
            "div",
            { class: `cell dead${red(card)}`, title: `${name} killed, held by ${ctx.seatName(c - DEAD)}` },
            h("s", null, name),
            h("small", null, `✕${c - DEAD}`),
          ),
        );
      } else if (c >= PLACED) {
        cells.push(h("div", { class: `cell placed${red(card)}`, title: name }, name));
      } else {
        const opts = plays(card);
        cells.push(
          spot(
            `cell empty${opts.length ? " target" : ""}`,
            opts,
            ctx,
            { "data-cell": card, title: opts.length ? `play ${name} here` : `${name}: ${c === HIDDEN ? "in a hidden hand" : "in your hand"}` },
            opts.length ? "◎" : "·",
          ),
        );
      }
    }
  }
  const seats = v.handSize.map((n, seat) => {
    const status: string[] = [];
    const fin = v.finishOrder.indexOf(seat);
    if (fin >= 0) status.push(`out #${fin + 1}`);
    if (v.eliminated.includes(seat)) status.push("eliminated");
    if (v.turn === seat) status.push("▶ to move");
    const limit = v.config.passLimit === null ? "" : `/${v.config.passLimit}`;
    return h(
      "li",
      { class: `seat${v.turn === seat ? " current" : ""}${seat === ctx.viewer ? " me" : ""}`, "data-seat": seat },
      h("b", null, ctx.seatName(seat)),
      " ",
      stat("cards", n),
      stat("killed", v.killed[seat]),
      stat("passes", `${v.passes[seat]}${limit}`),
      status.length ? h("span", { class: "status" }, status.join(", ")) : null,
    );
  });
  const hand = v.hand.map((card) => {
    const opts = plays(card);
    return spot(`card hand-card${red(card)}${opts.length ? " playable" : ""}`, opts, ctx, { "data-card": card }, cardLabel(card));
  });
  const pass = matching(ctx, (d) => d.kind === "pass");
  return h(
    "section",
    { class: "board sevens", "aria-label": "Killing Sevens table" },
    h("div", { class: "sevens-grid", role: "group", "aria-label": "the table: suits by rank" }, cells),
    h("ul", { class: "seats" }, seats),
    ctx.viewer === "spectator"
      ? null
      : h(
          "div",
          { class: "hand", "aria-label": "hand" },
          h("h3", null, `Hand of ${ctx.seatName(v.viewer as number)} (${v.hand.length})`),
          h("div", { class: "cards" }, hand.length ? hand : h("em", null, "empty")),
          pass.length ? spot("pass", pass, ctx, {}, "Pass") : null,
        ),
  );
}
