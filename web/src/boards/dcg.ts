import { cardStats, cardText, dcg, type DcgView } from "../../../engine/dcg/index.ts";
import { cellName, COLS, ROWS } from "../../../engine/dcg/board.ts";
import { effectiveAttack } from "../../../engine/dcg/params.ts";
import { whoActs } from "../../../engine/dcg/render.ts";
import { h, mount, type Child } from "../dom.ts";
import { matching, spot, stat, type BoardCtx, type DecisionOption } from "./common.ts";

const SIDE = ["Host", "Guest"] as const;
const ATTACK_KINDS = new Set(["summon", "feint", "moveDeclare", "attack", "strategyMove", "reactSummon", "reactFeint", "direct"]);

/** What a marked cell does, by decision kind: a marker and a word (colour is never the only signal). */
const TARGET: Readonly<Record<string, { readonly mark: string; readonly word: string; readonly cls: string }>> = {
  strategyMove: { mark: "✚", word: "place", cls: "t-place" },
  summon: { mark: "✚", word: "summon", cls: "t-place" },
  reactSummon: { mark: "✚", word: "summon", cls: "t-place" },
  feint: { mark: "◇", word: "feint", cls: "t-feint" },
  reactFeint: { mark: "◇", word: "feint", cls: "t-feint" },
  moveDeclare: { mark: "➜", word: "move", cls: "t-move" },
  moveRetry: { mark: "➜", word: "move", cls: "t-move" },
  attack: { mark: "⚔", word: "attack", cls: "t-attack" },
};
const LEGEND: readonly (readonly [string, string, string])[] = [
  ["⚔", "attack this unit", "t-attack"],
  ["➜", "move here", "t-move"],
  ["✚", "summon or place here", "t-place"],
  ["◇", "set a feint here", "t-feint"],
];

/** The passive decisions a board click does not offer, with short names: the action bar's buttons. */
const PRIMARY: readonly { readonly test: (d: { kind: string; cell?: number; charge?: boolean }) => boolean; readonly label: string }[] = [
  { test: (d) => d.kind === "strategyConfirm", label: "Confirm placement" },
  { test: (d) => d.kind === "turnFinish", label: "End turn" },
  { test: (d) => d.kind === "reactNone", label: "Pass (no reaction)" },
  { test: (d) => d.kind === "feintDeclare", label: "Declare the feint" },
  { test: (d) => d.kind === "feintPass", label: "Let the feint pass" },
  { test: (d) => d.kind === "moveRetry" && d.cell === -1, label: "Cancel the move" },
  { test: (d) => d.kind === "drawOrCharge" && d.charge === false, label: "Draw a card" },
  { test: (d) => d.kind === "drawOrCharge" && d.charge === true, label: "Charge 1 MP" },
];

/** dcg's action bar: Confirm, End turn, Pass and the other decisions that have no board click. */
export function dcgPrimary(decisions: readonly DecisionOption[]): { label: string; option: DecisionOption }[] {
  const out: { label: string; option: DecisionOption }[] = [];
  for (const p of PRIMARY) {
    const o = decisions.find((x) => p.test(x.decision as { kind: string }));
    if (o) out.push({ label: p.label, option: o });
  }
  return out;
}

/** Who must act now, in words, reaction and feint windows included. */
export function dcgHeadline(view: unknown): string {
  const v = view as DcgView;
  return whoActs(v, dcg.poolFor(v.cfg));
}

/**
 * dcg: the 5x7 grid, the viewer's side at the bottom, with the hand, the card detail and the graves
 * beside it (so board and hand fit one screen). A decision that names a card and a cell (summon,
 * move, attack, strategy placement, reactions) is two clicks: the card (in the hand, the strategy
 * row or on the board), then one of the marked cells; each kind of target has its own marker. Any
 * card shows its rules text in the detail panel on hover, focus or click.
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
    if (card !== undefined) ctx.memo.set("dcg.detail", card);
    ctx.redraw();
  };
  const def = (id: number) => pool.cards[v.cards[id]!.def]!;

  // The detail panel: the card last hovered, focused or clicked (else the selected one).
  const detail = h("div", { class: "card-detail", "aria-live": "polite" });
  const showDetail = (id: number | undefined) => {
    const c = id === undefined ? null : v.cards[id];
    if (id === undefined || !c) {
      mount(detail, h("p", { class: "k" }, "Point at or tap a card to read what it does."));
      return;
    }
    const d = def(id);
    const onField = c.layer === "Field" && c.cell >= 0;
    mount(
      detail,
      h("h4", null, d.name),
      h("p", { class: "k" }, cardStats(d)),
      onField && d.kind !== "feint"
        ? h(
            "p",
            null,
            `Now: ${d.kind === "rubric" ? `attack ${effectiveAttack(v, pool, id)}, ` : ""}life ${c.life}${c.ailment === "poison" ? ", poisoned (1 damage at the end of its owner's turn)" : ""} · at ${cellName(c.cell)}`,
          )
        : null,
      cardText(d, pool).map((t) => h("p", { class: "text" }, t)),
      cardText(d, pool).length === 0 ? h("p", { class: "k" }, "No abilities.") : null,
    );
  };
  const focusDetail = (id: number) => {
    ctx.memo.set("dcg.detail", id);
    showDetail(id);
  };
  const describe = (id: number) => {
    const d = def(id);
    return [`${d.name} (${cardStats(d)})`, ...cardText(d, pool)].join("\n");
  };

  const forCard = (card: number) => withCard.filter((o) => (o.decision as { card: number }).card === card);
  /** A card is a button: one that can act selects itself; any other shows its text in the detail panel. */
  const cardSpot = (id: number, cls: string, body: Child, extra: Record<string, string | number> = {}): HTMLElement => {
    const opts = v.viewer === "spectator" ? [] : forCard(id);
    const hover = { onmouseenter: () => focusDetail(id), onfocus: () => focusDetail(id) };
    if (opts.length === 0)
      return h(
        "button",
        { type: "button", class: `${cls} info`, "data-card": id, title: describe(id), onclick: () => focusDetail(id), ...hover, ...extra },
        body,
      );
    const on = selected === id;
    return h(
      "button",
      {
        type: "button",
        class: `${cls} can${on ? " selected" : ""}`,
        "data-card": id,
        "aria-pressed": on ? "true" : "false",
        title: `${on ? "selected: now choose a marked cell" : "select, then choose a cell"}\n${describe(id)}`,
        onclick: () => select(on ? undefined : id),
        ...hover,
        ...extra,
      },
      on ? "✔ " : null,
      body,
    );
  };
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
      const kind = opts.length ? TARGET[(opts[0]!.decision as { kind: string }).kind] : undefined;
      const cls = `cell${home === me ? " home-mine" : home === foe ? " home-theirs" : " centre"}${opts.length ? ` target ${kind?.cls ?? ""}` : ""}`;
      const label = `${cellName(cell)}${owner >= 0 ? ` (${owner === me ? "yours" : "enemy"})` : ""}`;
      if (opts.length) {
        row.push(
          h(
            "div",
            { class: cls, "data-cell": cell },
            spot(
              `cellbtn ${kind?.cls ?? ""}`,
              opts,
              ctx,
              { "data-target": cell, "data-kind": kind?.word ?? "", "aria-label": `${label}: ${opts.map((o) => o.label).join("; ")}` },
              `${kind?.mark ?? "◎"} ${kind?.word ?? ""} `,
              cellName(cell),
            ),
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
      h("b", null, `${ctx.seatName(seat)} (${SIDE[seat]})`, seat === v.actor ? " ▶ to act" : ""),
      " ",
      stat("HP", p.hp, { "data-hp": seat }),
      stat("MP", p.mp),
      stat("attacks", p.attacks),
      stat("hand", p.handSize),
      stat("book", p.bookSize),
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
  const grave = (seat: 0 | 1) =>
    h(
      "div",
      { class: "grave", "data-grave": seat },
      h("span", { class: "k" }, `${seat === me && v.viewer !== "spectator" ? "Your" : `${SIDE[seat]}'s`} grave (${v.graves[seat].length}): `),
      v.graves[seat].length ? v.graves[seat].map((id) => cardSpot(id, "card grave-card", h("span", { class: "name" }, def(id).name))) : "empty",
    );
  const phase = v.finished
    ? `battle over: ${v.winner === -1 ? "draw" : `${ctx.seatName(v.winner)} wins`}`
    : `turn ${v.turn}/${v.cfg.turnLimit} · ${v.state.kind === "Strategy" ? "strategy time" : `${ctx.seatName(v.turnPlayer)}'s turn`} · ${v.state.kind}`;
  showDetail((ctx.memo.get("dcg.detail") as number | undefined) ?? selected);
  const markers = [...new Set([...targets.values()].map((opts) => (opts[0]!.decision as { kind: string }).kind))].map((k) => TARGET[k]?.cls);
  return h(
    "section",
    { class: "board dcg", "aria-label": "dcg battle" },
    h(
      "p",
      { class: "phase" },
      phase,
      v.viewer !== "spectator" && v.strategyMoves >= 0 && v.state.kind === "Strategy" ? ` · strategy moves used ${v.strategyMoves}` : "",
    ),
    h(
      "div",
      { class: "dcg-layout" },
      h(
        "div",
        { class: "dcg-field" },
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
        h(
          "p",
          { class: "legend", "aria-label": "markers" },
          LEGEND.map(([mark, words, cls]) => h("span", { class: `${cls}${markers.includes(cls) ? " shown" : ""}` }, h("b", null, mark), ` ${words}`)),
          h("span", null, h("b", null, "▲"), " yours ", h("b", null, "▼"), " enemy ", h("b", null, "☠"), " poisoned"),
        ),
      ),
      h(
        "div",
        { class: "dcg-side" },
        selected !== undefined
          ? h(
              "p",
              { class: "hint" },
              `Selected ${def(selected).name}: choose a marked cell`,
              direct.length ? [" or ", spot("direct", direct, ctx, {}, "⚔ attack directly")] : null,
              " ",
              h("button", { type: "button", onclick: () => select(undefined) }, "cancel"),
            )
          : null,
        unplaced.length ? h("div", { class: "hand" }, h("h3", null, "Strategy rubrics to place"), h("div", { class: "cards" }, unplaced)) : null,
        v.viewer === "spectator"
          ? null
          : h(
              "div",
              { class: "hand" },
              h("h3", null, `Your hand (${v.hand.length})`),
              h("div", { class: "cards" }, hand.length ? hand : h("em", null, "empty")),
            ),
        h("div", { class: "detail-wrap" }, h("h3", null, "Card"), detail),
        h("div", { class: "graves" }, grave(me as 0 | 1), grave(foe)),
      ),
    ),
  );
}
