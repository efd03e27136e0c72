import { dcg, type DcgView } from "../../../engine/dcg/index.ts";
import { cellName, COLS, ROWS } from "../../../engine/dcg/board.ts";
import { effectiveAttack } from "../../../engine/dcg/params.ts";
import { h, type Child } from "../dom.ts";
import { matching, spot, stat, type BoardCtx, type DecisionOption } from "./common.ts";

const SIDE = ["Host", "Guest"] as const;
const ATTACK_KINDS = new Set(["summon", "feint", "moveDeclare", "attack", "strategyMove", "reactSummon", "reactFeint", "direct"]);

/**
 * dcg: the 5x7 grid, the viewer's side at the bottom. A decision that names a card and a cell
 * (summon, move, attack, strategy placement, reactions) is two clicks: the card (in the hand, the
 * strategy row or on the board), then one of the marked cells. A move's retry is one click on a cell.
 */
export function dcgBoard(ctx: BoardCtx): HTMLElement {
  const v = ctx.view as DcgView;
  const pool = dcg.poolFor(v.cfg);
  const me = v.viewer === "spectator" ? 0 : v.viewer;
  const foe = me === 0 ? 1 : 0;
  const withCard = ctx.decisions.filter((o) => {
    const d = o.decision as { kind: string; card?: number };
    return ATTACK_KINDS.has(d.kind) && typeof d.card === "number";
  });
  let selected = ctx.memo.get("dcg.card") as number | undefined;
  if (selected !== undefined && !withCard.some((o) => (o.decision as { card: number }).card === selected)) selected = undefined;
  const select = (card: number | undefined) => {
    if (card === undefined) ctx.memo.delete("dcg.card");
    else ctx.memo.set("dcg.card", card);
    ctx.redraw();
  };
  const forCard = (card: number) => withCard.filter((o) => (o.decision as { card: number }).card === card);
  /** A card is a button when it can act: a click selects it (or acts at once when it has one cell-less option). */
  const cardSpot = (id: number, cls: string, body: Child, extra: Record<string, string | number> = {}): HTMLElement => {
    const opts = forCard(id);
    if (opts.length === 0 || v.viewer === "spectator") return h("div", { class: cls, "data-card": id, ...extra }, body);
    const on = selected === id;
    return h(
      "button",
      {
        type: "button",
        class: `${cls} can${on ? " selected" : ""}`,
        "data-card": id,
        "aria-pressed": on ? "true" : "false",
        title: on ? "selected: now choose a marked cell" : "select, then choose a cell",
        onclick: () => select(on ? undefined : id),
        ...extra,
      },
      on ? "✔ " : null,
      body,
    );
  };
  const def = (id: number) => pool.cards[v.cards[id]!.def]!;
  const cardBody = (id: number): Child => {
    const c = v.cards[id]!;
    const d = def(id);
    const stats = d.kind === "rubric" ? `${effectiveAttack(v, pool, id)}/${c.life}` : d.kind === "object" ? `-/${c.life}` : "feint";
    return [
      h("span", { class: "name" }, d.name),
      h("span", { class: "cost" }, `${d.cost}MP`),
      c.layer === "Field" || c.layer === "Strategy"
        ? h("span", { class: "al" }, stats, c.ailment === "poison" ? " ☠" : "")
        : h("span", { class: "al" }, d.kind === "rubric" ? `${d.attack}/${d.life}` : d.kind),
    ];
  };

  // Cells: the viewer's home rows at the bottom.
  const targets = new Map<number, DecisionOption[]>();
  const addTarget = (cell: number, o: DecisionOption) => targets.set(cell, [...(targets.get(cell) ?? []), o]);
  if (selected !== undefined)
    for (const o of forCard(selected)) {
      const d = o.decision as { cell?: number };
      if (typeof d.cell === "number") addTarget(d.cell, o);
    }
  for (const o of matching(ctx, (d) => d.kind === "moveRetry" && typeof d.cell === "number" && (d.cell as number) >= 0))
    addTarget((o.decision as { cell: number }).cell, o);
  const placedStrategy = new Map<number, number>();
  v.cards.forEach((c, id) => {
    if (c && c.layer === "Strategy" && c.cell >= 0) placedStrategy.set(c.cell, id);
  });
  const rows: HTMLElement[] = [];
  const order = me === 0 ? [...Array(ROWS).keys()].reverse() : [...Array(ROWS).keys()];
  for (const y of order) {
    const row: HTMLElement[] = [h("div", { class: "rowhead" }, String(y))];
    for (let x = 0; x < COLS; x++) {
      const cell = y * COLS + x;
      const unit = v.cells[cell]!;
      const strat = placedStrategy.get(cell);
      const feintOwner = v.feintOwners[cell]!;
      const home = y <= 2 ? 0 : y >= 4 ? 1 : -1;
      const content: Child[] = [];
      let owner = -1;
      if (unit >= 0 && v.cards[unit]) {
        owner = v.cards[unit]!.owner;
        content.push(cardSpot(unit, `unit ${owner === me ? "mine" : "theirs"}`, [h("span", { class: "side" }, owner === me ? "▲" : "▼"), cardBody(unit)]));
      } else if (strat !== undefined) {
        owner = me;
        content.push(cardSpot(strat, "unit mine strategy", [h("span", { class: "side" }, "▲"), cardBody(strat)]));
      }
      if (feintOwner >= 0) {
        const fid = v.cards.findIndex((c) => c !== null && c.layer === "Field" && c.cell === cell && pool.cards[c.def]!.kind === "feint");
        content.push(
          h(
            "div",
            { class: `feint ${feintOwner === me ? "mine" : "theirs"}` },
            `${feintOwner === me ? "your" : "enemy"} feint${fid >= 0 && feintOwner === me ? `: ${def(fid).name}` : ""}`,
          ),
        );
      }
      const opts = targets.get(cell) ?? [];
      const cls = `cell${home === me ? " home-mine" : home === foe ? " home-theirs" : " centre"}${opts.length ? " target" : ""}`;
      const label = `${cellName(cell)}${owner >= 0 ? ` (${owner === me ? "yours" : "enemy"})` : ""}`;
      if (opts.length) {
        row.push(
          h(
            "div",
            { class: cls, "data-cell": cell },
            spot("cellbtn", opts, ctx, { "data-target": cell, "aria-label": `${label}: ${opts.map((o) => o.label).join("; ")}` }, "◎ ", cellName(cell)),
            content,
          ),
        );
      } else {
        row.push(h("div", { class: cls, "data-cell": cell, title: label }, content.length ? content : h("span", { class: "coord" }, cellName(cell))));
      }
    }
    rows.push(h("div", { class: "dcg-row" }, row));
  }

  const player = (seat: 0 | 1) => {
    const p = v.players[seat];
    return h(
      "div",
      { class: `player${seat === v.actor ? " current" : ""}`, "data-seat": seat },
      h("b", null, `${ctx.seatName(seat)} (${SIDE[seat]})`, seat === v.actor ? " ▶" : ""),
      " ",
      stat("HP", p.hp, { "data-hp": seat }),
      stat("MP", p.mp),
      stat("attacks", p.attacks),
      stat("hand", p.handSize),
      stat("book", p.bookSize),
      stat("grave", v.graves[seat].length),
      p.feintCell >= 0 ? stat("feint at", cellName(p.feintCell)) : null,
      v.state.kind === "Strategy" ? stat("placement", p.confirmed ? "confirmed" : "open") : null,
    );
  };

  const unplaced: HTMLElement[] = [];
  v.cards.forEach((c, id) => {
    if (c && c.layer === "Strategy" && c.cell < 0 && c.owner === me && v.viewer !== "spectator")
      unplaced.push(cardSpot(id, "card strategy-card", cardBody(id)));
  });
  const hand = v.hand.map((id) => cardSpot(id, "card hand-card", cardBody(id)));
  const direct = selected === undefined ? [] : forCard(selected).filter((o) => (o.decision as { kind: string }).kind === "direct");
  const phase = v.finished
    ? `battle over: ${v.winner === -1 ? "draw" : `${ctx.seatName(v.winner)} wins`}`
    : `turn ${v.turn}/${v.cfg.turnLimit} · ${v.state.kind === "Strategy" ? "strategy time" : `${ctx.seatName(v.turnPlayer)}'s turn`} · ${v.state.kind}`;
  return h(
    "section",
    { class: "board dcg", "aria-label": "dcg battle" },
    h(
      "p",
      { class: "phase" },
      phase,
      v.viewer !== "spectator" && v.strategyMoves >= 0 && v.state.kind === "Strategy" ? ` · strategy moves used ${v.strategyMoves}` : "",
    ),
    player(foe),
    h(
      "div",
      { class: "dcg-grid", role: "group", "aria-label": "the 5x7 board, your side at the bottom" },
      rows,
      h(
        "div",
        { class: "dcg-row cols" },
        h("div", { class: "rowhead" }),
        ["A", "B", "C", "D", "E"].map((c) => h("div", { class: "colhead" }, c)),
      ),
    ),
    player(me as 0 | 1),
    selected !== undefined
      ? h(
          "p",
          { class: "hint" },
          `Selected ${def(selected).name}: choose a cell marked ◎`,
          direct.length ? [" or ", spot("direct", direct, ctx, {}, "attack directly")] : null,
          " ",
          h("button", { type: "button", onclick: () => select(undefined) }, "cancel"),
        )
      : null,
    unplaced.length ? h("div", { class: "hand" }, h("h3", null, "Strategy rubrics to place"), h("div", { class: "cards" }, unplaced)) : null,
    v.viewer === "spectator"
      ? null
      : h("div", { class: "hand" }, h("h3", null, `Your hand (${v.hand.length})`), h("div", { class: "cards" }, hand.length ? hand : h("em", null, "empty"))),
  );
}
