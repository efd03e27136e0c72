import { cardLabel, suitOf } from "../../../engine/blackpoker/cards.ts";
import type { BlackpokerView, UnitView } from "../../../engine/blackpoker/view.ts";
import type { CoreRequest } from "../../../engine/core/interrupt/index.ts";
import type { BpPayload } from "../../../engine/blackpoker/state.ts";
import { h } from "../dom.ts";
import { matching, spot, stat, type BoardCtx } from "./common.ts";

const red = (c: number) => (suitOf(c) === 1 || suitOf(c) === 2 ? " red" : "");
const CARD_KINDS = new Set(["chooseCard", "payDiscard", "discard", "searchTake"]);
const UNIT_KINDS = new Set(["targetUnit", "payBulwark", "selectAttacker", "assignBlocker"]);

/** BlackPoker: both players' zones (Life, hand, field, grave, fog), the stage top first, the combat. */
export function blackpokerBoard(ctx: BoardCtx): HTMLElement {
  const v = ctx.view as BlackpokerView;
  const me = v.viewer === "spectator" ? 0 : v.viewer;
  const unit = (u: UnitView) => {
    const opts = matching(ctx, (d) => UNIT_KINDS.has(String(d.kind)) && d.unit === u.uid);
    const face = u.cards.length ? u.cards.map((c) => h("span", { class: `pip${red(c)}` }, cardLabel(c))) : h("span", { class: "pip" }, "face down");
    return spot(
      `card unit${u.charged ? "" : " driven"}`,
      opts,
      ctx,
      { "data-unit": u.uid },
      h("span", { class: "name" }, `#${u.uid} ${u.bulwark ? "bulwark" : "soldier"}`),
      face,
      h("small", null, `${u.charged ? "charged" : "driven ⤵"}${u.mod ? ` ${u.mod > 0 ? "+" : ""}${u.mod}` : ""}`),
    );
  };
  const side = (p: number) => {
    const z = v.players[p];
    if (z === undefined) return h("div", { class: "side" }, `seat ${p} is not in this view`);
    const hand = z.hand
      ? z.hand.map((c) =>
          spot(
            `card hand-card${red(c)}`,
            matching(ctx, (d) => CARD_KINDS.has(String(d.kind)) && d.card === c),
            ctx,
            { "data-card": c },
            cardLabel(c),
          ),
        )
      : [h("span", { class: "k" }, `${z.handSize} cards, hidden`)];
    return h(
      "div",
      { class: `player zone${v.actor === p ? " current" : ""}`, "data-seat": p },
      h("h3", null, `${ctx.seatName(p)}${v.actor === p ? " ▶" : ""}`),
      h("p", null, stat("Life", z.life), stat("hand", z.handSize), stat("grave", z.grave.length), stat("fog", z.fog.map(cardLabel).join(" ") || "-")),
      h("div", { class: "cards field" }, z.field.length ? z.field.map((u) => unit(u)) : h("em", null, "no characters")),
      h("div", { class: "cards" }, hand),
    );
  };
  const req = (r: CoreRequest<BpPayload>, top: boolean) => {
    const opts = matching(ctx, (d) => d.kind === "targetRequest" && d.request === r.payload.rid);
    return spot(
      "request",
      opts,
      ctx,
      {},
      top ? "top ▸ " : "",
      `r${r.payload.rid} ${r.payload.action} by ${ctx.seatName(r.controller)}`,
      r.payload.keys.length ? ` [${r.payload.keys.map(cardLabel).join(" ")}]` : "",
      r.payload.target >= 0 ? ` → ${r.payload.target}` : "",
    );
  };
  const stage = v.flow.stage.map((r, i) => req(r, i === v.flow.stage.length - 1)).reverse();
  const others = [0, 1].filter((p) => p !== me);
  return h(
    "section",
    { class: "board blackpoker", "aria-label": "BlackPoker" },
    h(
      "p",
      { class: "phase" },
      stat("turn", v.turn),
      stat("turn player", ctx.seatName(v.flow.turnPlayer)),
      stat("chance", ctx.seatName(v.flow.chancePlayer)),
      stat("deciding", v.pendingKind ?? "-"),
      v.result ? stat("result", v.result.join(" / ")) : null,
    ),
    others.map(side),
    h(
      "div",
      { class: "zone stage" },
      h("h3", null, `Stage (${v.flow.stage.length})`),
      stage.length ? stage : h("em", null, "empty"),
      v.combat
        ? h(
            "p",
            null,
            `combat: attackers ${v.combat.attackers.map((a) => `#${a}`).join(" ")}${v.combat.blockers.length ? `, blocks ${v.combat.blockers.map((b, i) => `#${b}→#${v.combat?.blocked[i]}`).join(" ")}` : ""}`,
          )
        : null,
    ),
    side(me),
  );
}
