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
  return new DcgBoard(ctx).render();
}

type Pool = ReturnType<typeof dcg.poolFor>;

/** One drawing of the dcg board for one view: each part of the screen is one method. */
class DcgBoard {
  private readonly v: DcgView;
  private readonly pool: Pool;
  private readonly me: 0 | 1;
  private readonly foe: 0 | 1;
  /** The decisions that name a card (and most often a cell): they start with a click on the card. */
  private readonly withCard: readonly DecisionOption[];
  private readonly selected: number | undefined;
  /** The detail panel: the card last hovered, focused or clicked (else the selected one). */
  private readonly detail = h("div", { class: "card-detail", "aria-live": "polite" });
  /** Marked cells: the decisions each one offers. */
  private readonly targets = new Map<number, DecisionOption[]>();

  constructor(private readonly ctx: BoardCtx) {
    const v = ctx.view as DcgView;
    this.v = v;
    this.pool = dcg.poolFor(v.cfg);
    this.me = v.viewer === "spectator" ? 0 : (v.viewer as 0 | 1);
    this.foe = this.me === 0 ? 1 : 0;
    this.withCard = ctx.decisions.filter((o) => {
      const d = o.decision as { kind: string; card?: number };
      return ATTACK_KINDS.has(d.kind) && typeof d.card === "number";
    });
    const selected = ctx.memo.get("dcg.card") as number | undefined;
    this.selected = selected !== undefined && this.forCard(selected).length > 0 ? selected : undefined;
    this.collectTargets();
  }

  /** Whose a unit or feint is, in words: "your" / "enemy" for a seat, the side's name for a spectator (who has no side). */
  private whose(owner: number, mine: string, theirs: string): string {
    if (this.v.viewer === "spectator") return `${SIDE[owner as 0 | 1]}'s`;
    return owner === this.me ? mine : theirs;
  }

  private select(card: number | undefined): void {
    const { memo } = this.ctx;
    if (card === undefined) memo.delete("dcg.card");
    else memo.set("dcg.card", card);
    if (card !== undefined) memo.set("dcg.detail", card);
    this.ctx.redraw();
  }

  private def(id: number) {
    const card = this.v.cards[id];
    const def = card ? this.pool.cards[card.def] : undefined;
    if (!def) throw new Error(`dcg view: card ${id} is not in the view or names no card of the pool`);
    return def;
  }

  private showDetail(id: number | undefined): void {
    const { v, pool, detail } = this;
    const c = id === undefined ? null : v.cards[id];
    if (id === undefined || !c) {
      mount(detail, h("p", { class: "k" }, "Point at or tap a card to read what it does."));
      return;
    }
    const d = this.def(id);
    const onField = c.layer === "Field" && c.cell >= 0;
    const text = cardText(d, pool);
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
      text.map((t) => h("p", { class: "text" }, t)),
      text.length === 0 ? h("p", { class: "k" }, "No abilities.") : null,
    );
  }

  private focusDetail(id: number): void {
    this.ctx.memo.set("dcg.detail", id);
    this.showDetail(id);
  }

  private describe(id: number): string {
    const d = this.def(id);
    return [`${d.name} (${cardStats(d)})`, ...cardText(d, this.pool)].join("\n");
  }

  private forCard(card: number): DecisionOption[] {
    return this.withCard.filter((o) => (o.decision as { card: number }).card === card);
  }

  /** A card is a button: one that can act selects itself; any other shows its text in the detail panel. */
  private cardSpot(id: number, cls: string, body: Child): HTMLElement {
    const opts = this.v.viewer === "spectator" ? [] : this.forCard(id);
    const hover = { onmouseenter: () => this.focusDetail(id), onfocus: () => this.focusDetail(id) };
    if (opts.length === 0)
      return h(
        "button",
        { type: "button", class: `${cls} info`, "data-card": id, title: this.describe(id), onclick: () => this.focusDetail(id), ...hover },
        body,
      );
    const on = this.selected === id;
    return h(
      "button",
      {
        type: "button",
        class: `${cls} can${on ? " selected" : ""}`,
        "data-card": id,
        "aria-pressed": on ? "true" : "false",
        title: `${on ? "selected: now choose a marked cell" : "select, then choose a cell"}\n${this.describe(id)}`,
        onclick: () => this.select(on ? undefined : id),
        ...hover,
      },
      on ? "✔ " : null,
      body,
    );
  }

  private cardBody(id: number): Child {
    const { v, pool } = this;
    const c = v.cards[id];
    const d = this.def(id);
    if (!c) return h("span", { class: "name" }, d.name);
    const stats = d.kind === "rubric" ? `${effectiveAttack(v, pool, id)}/${c.life}` : d.kind === "object" ? `-/${c.life}` : "feint";
    return [
      h("span", { class: "name" }, d.name),
      h("span", { class: "cost" }, `${d.cost}MP`),
      c.layer === "Field" || c.layer === "Strategy"
        ? h("span", { class: "al" }, stats, c.ailment === "poison" ? " ☠" : "")
        : h("span", { class: "al" }, d.kind === "rubric" ? `${d.attack}/${d.life}` : d.kind),
    ];
  }

  /** The cells the selected card (or a pending move retry) can go to. */
  private collectTargets(): void {
    const add = (cell: number, o: DecisionOption) => this.targets.set(cell, [...(this.targets.get(cell) ?? []), o]);
    if (this.selected !== undefined)
      for (const o of this.forCard(this.selected)) {
        const d = o.decision as { cell?: number };
        if (typeof d.cell === "number") add(d.cell, o);
      }
    for (const o of matching(this.ctx, (d) => d.kind === "moveRetry" && typeof d.cell === "number" && (d.cell as number) >= 0))
      add((o.decision as { cell: number }).cell, o);
  }

  /** The grid's rows, the viewer's home rows at the bottom. */
  private rows(): HTMLElement[] {
    const placedStrategy = new Map<number, number>();
    this.v.cards.forEach((c, id) => {
      if (c && c.layer === "Strategy" && c.cell >= 0) placedStrategy.set(c.cell, id);
    });
    const order = this.me === 0 ? [...Array(ROWS).keys()].reverse() : [...Array(ROWS).keys()];
    return order.map((y) => {
      const row: HTMLElement[] = [h("div", { class: "rowhead" }, String(y))];
      for (let x = 0; x < COLS; x++) row.push(this.cell(y * COLS + x, placedStrategy.get(y * COLS + x)));
      return h("div", { class: "dcg-row" }, row);
    });
  }

  /** What stands on a cell: a unit (or the viewer's placed strategy card) and a feint marker. */
  private cellContent(cell: number, strat: number | undefined): { content: Child[]; owner: number } {
    const { v, me, pool } = this;
    const unit = v.cells[cell] ?? -1;
    const feintOwner = v.feintOwners[cell] ?? -1;
    const content: Child[] = [];
    let owner = -1;
    const unitCard = unit >= 0 ? v.cards[unit] : null;
    if (unitCard) {
      owner = unitCard.owner;
      content.push(
        this.cardSpot(unit, `unit ${owner === me ? "mine" : "theirs"}`, [h("span", { class: "side" }, owner === me ? "▲" : "▼"), this.cardBody(unit)]),
      );
    } else if (strat !== undefined) {
      owner = me;
      content.push(this.cardSpot(strat, "unit mine strategy", [h("span", { class: "side" }, "▲"), this.cardBody(strat)]));
    }
    if (feintOwner >= 0) {
      const fid = v.cards.findIndex((c) => c !== null && c.layer === "Field" && c.cell === cell && pool.cards[c.def]?.kind === "feint");
      content.push(
        h(
          "div",
          { class: `feint ${feintOwner === me ? "mine" : "theirs"}` },
          `${this.whose(feintOwner, "your", "enemy")} feint${fid >= 0 && feintOwner === me ? `: ${this.def(fid).name}` : ""}`,
        ),
      );
    }
    return { content, owner };
  }

  private cell(cell: number, strat: number | undefined): HTMLElement {
    const { me, foe } = this;
    const y = Math.floor(cell / COLS);
    const home = y <= 2 ? 0 : y >= 4 ? 1 : -1;
    const { content, owner } = this.cellContent(cell, strat);
    const opts = this.targets.get(cell) ?? [];
    const first = opts[0];
    const kind = first ? TARGET[(first.decision as { kind: string }).kind] : undefined;
    const cls = `cell${home === me ? " home-mine" : home === foe ? " home-theirs" : " centre"}${opts.length ? ` target ${kind?.cls ?? ""}` : ""}`;
    const label = `${cellName(cell)}${owner >= 0 ? ` (${this.whose(owner, "yours", "enemy")})` : ""}`;
    if (opts.length === 0)
      return h("div", { class: cls, "data-cell": cell, title: label }, content.length ? content : h("span", { class: "coord" }, cellName(cell)));
    return h(
      "div",
      { class: cls, "data-cell": cell },
      spot(
        `cellbtn ${kind?.cls ?? ""}`,
        opts,
        this.ctx,
        { "data-target": cell, "data-kind": kind?.word ?? "", "aria-label": `${label}: ${opts.map((o) => o.label).join("; ")}` },
        `${kind?.mark ?? "◎"} ${kind?.word ?? ""} `,
        cellName(cell),
      ),
      content,
    );
  }

  private player(seat: 0 | 1): HTMLElement {
    const { v } = this;
    const p = v.players[seat];
    return h(
      "div",
      { class: `player${seat === v.actor ? " current" : ""}`, "data-seat": seat },
      h("b", null, `${this.ctx.seatName(seat)} (${SIDE[seat]})`, seat === v.actor ? " ▶ to act" : ""),
      " ",
      stat("HP", p.hp, { "data-hp": seat }),
      stat("MP", p.mp),
      stat("attacks", p.attacks),
      stat("hand", p.handSize),
      stat("book", p.bookSize),
      p.feintCell >= 0 ? stat("feint at", cellName(p.feintCell)) : null,
      v.state.kind === "Strategy" ? stat("placement", p.confirmed ? "confirmed" : "open") : null,
    );
  }

  private grave(seat: 0 | 1): HTMLElement {
    const { v, me } = this;
    const cards = v.graves[seat];
    return h(
      "div",
      { class: "grave", "data-grave": seat },
      h("span", { class: "k" }, `${seat === me && v.viewer !== "spectator" ? "Your" : `${SIDE[seat]}'s`} grave (${cards.length}): `),
      cards.length ? cards.map((id) => this.cardSpot(id, "card grave-card", h("span", { class: "name" }, this.def(id).name))) : "empty",
    );
  }

  /** The grid with its column heads, both players' lines and the marker legend. */
  private field(): HTMLElement {
    const markers = [...this.targets.values()].map((opts) => TARGET[(opts[0]?.decision as { kind: string } | undefined)?.kind ?? ""]?.cls);
    return h(
      "div",
      { class: "dcg-field" },
      this.player(this.foe),
      h(
        "div",
        { class: "dcg-grid", role: "group", "aria-label": "the 5x7 board, your side at the bottom" },
        this.rows(),
        // Not "cols": that is the table screen's two-column layout, one column below 760 px wide.
        h(
          "div",
          { class: "dcg-row colheads" },
          h("div", { class: "rowhead" }),
          ["A", "B", "C", "D", "E"].map((c) => h("div", { class: "colhead" }, c)),
        ),
      ),
      this.player(this.me),
      h(
        "p",
        { class: "legend", "aria-label": "markers" },
        LEGEND.map(([mark, words, cls]) => h("span", { class: `${cls}${markers.includes(cls) ? " shown" : ""}` }, h("b", null, mark), ` ${words}`)),
        h(
          "span",
          null,
          h("b", null, "▲"),
          this.v.viewer === "spectator" ? ` ${SIDE[this.me]} ` : " yours ",
          h("b", null, "▼"),
          this.v.viewer === "spectator" ? ` ${SIDE[this.foe]} ` : " enemy ",
          h("b", null, "☠"),
          " poisoned",
        ),
      ),
    );
  }

  /** Beside the grid: the selection hint, strategy cards to place, the hand, the card detail, the graves. */
  private side(): HTMLElement {
    const { v, me, selected } = this;
    const unplaced: HTMLElement[] = [];
    v.cards.forEach((c, id) => {
      if (c && c.layer === "Strategy" && c.cell < 0 && c.owner === me && v.viewer !== "spectator")
        unplaced.push(this.cardSpot(id, "card strategy-card", this.cardBody(id)));
    });
    const hand = v.hand.map((id) => this.cardSpot(id, "card hand-card", this.cardBody(id)));
    const direct = selected === undefined ? [] : this.forCard(selected).filter((o) => (o.decision as { kind: string }).kind === "direct");
    return h(
      "div",
      { class: "dcg-side" },
      selected !== undefined
        ? h(
            "p",
            { class: "hint" },
            `Selected ${this.def(selected).name}: choose a marked cell`,
            direct.length ? [" or ", spot("direct", direct, this.ctx, {}, "⚔ attack directly")] : null,
            " ",
            h("button", { type: "button", onclick: () => this.select(undefined) }, "cancel"),
          )
        : null,
      unplaced.length ? h("div", { class: "hand" }, h("h3", null, "Strategy rubrics to place"), h("div", { class: "cards" }, unplaced)) : null,
      v.viewer === "spectator"
        ? null
        : h("div", { class: "hand" }, h("h3", null, `Your hand (${v.hand.length})`), h("div", { class: "cards" }, hand.length ? hand : h("em", null, "empty"))),
      h("div", { class: "detail-wrap" }, h("h3", null, "Card"), this.detail),
      h("div", { class: "graves" }, this.grave(me), this.grave(this.foe)),
    );
  }

  render(): HTMLElement {
    const { v, ctx } = this;
    const phase = v.finished
      ? `battle over: ${v.winner === -1 ? "draw" : `${ctx.seatName(v.winner)} wins`}`
      : `turn ${v.turn}/${v.cfg.turnLimit} · ${v.state.kind === "Strategy" ? "strategy time" : `${ctx.seatName(v.turnPlayer)}'s turn`} · ${v.state.kind}`;
    this.showDetail((ctx.memo.get("dcg.detail") as number | undefined) ?? this.selected);
    return h(
      "section",
      { class: "board dcg", "aria-label": "dcg battle" },
      h(
        "p",
        { class: "phase" },
        phase,
        v.viewer !== "spectator" && v.strategyMoves >= 0 && v.state.kind === "Strategy" ? ` · strategy moves used ${v.strategyMoves}` : "",
      ),
      h("div", { class: "dcg-layout" }, this.field(), this.side()),
    );
  }
}
