/**
 * The terminal client's dcg menu: the passive decisions first (confirm the placement, end the
 * turn, do not react), then one line per card that can act, with the cells it can go to, instead
 * of one numbered line per card and cell (strategy placement alone offers about 70). A line with
 * several cells asks for the cell next (or takes it on the same line: "3 B2"). `?` prints the
 * rules text of the viewer's cards and the units on the board.
 */
import { cellName } from "../engine/dcg/board.ts";
import { cardStats, cardText, dcg, type DcgView } from "../engine/dcg/index.ts";
import type { Decision } from "../engine/dcg/decision.ts";
import type { Pool } from "../engine/dcg/pool.ts";
import { whoActs } from "../engine/dcg/render.ts";

export interface MenuOption {
  readonly id: number;
  readonly label: string;
  readonly decision: unknown;
}

/** One numbered line: a single decision, or a card with the cells to choose from. */
export interface MenuEntry {
  readonly text: string;
  readonly options: readonly MenuOption[];
  /** Cell name (upper case) -> its decision, when the entry needs a cell. */
  readonly cells: ReadonlyMap<string, MenuOption> | null;
}

/** The passive decisions, in the order a person looks for them. */
const PRIMARY: readonly string[] = ["strategyConfirm", "turnFinish", "reactNone", "feintPass", "cancel", "drawOrCharge", "feintDeclare"];
const PRIMARY_TEXT: Readonly<Record<string, string>> = {
  strategyConfirm: "Confirm placement",
  turnFinish: "End turn",
  reactNone: "Pass: do not react (the move goes ahead)",
  feintPass: "Pass: let the feint stay hidden",
  cancel: "Cancel the move",
};
const WITH_CELL: Readonly<Record<string, string>> = {
  strategyMove: "place",
  summon: "summon",
  feint: "set feint",
  reactSummon: "react: summon",
  reactFeint: "react: set feint",
  moveDeclare: "move",
  attack: "attack with",
};

const kindOf = (o: MenuOption): string => {
  const d = o.decision as Decision;
  return d.kind === "moveRetry" && d.cell < 0 ? "cancel" : d.kind;
};

/** The menu for one decision point: numbered entries, primary ones first, the leave option last. */
export function dcgMenu(view: DcgView, options: readonly MenuOption[]): MenuEntry[] {
  const pool = dcg.poolFor(view.cfg);
  const name = (id: number) => {
    const c = view.cards[id];
    return c ? pool.cards[c.def]!.name : `card ${id}`;
  };
  const primary: MenuEntry[] = [];
  const groups = new Map<string, MenuOption[]>();
  const other: MenuEntry[] = [];
  let leave: MenuEntry | null = null;
  for (const o of options) {
    const d = o.decision as Decision;
    const kind = kindOf(o);
    if (d.kind === "forceFinish") leave = { text: `${o.label} (you lose)`, options: [o], cells: null };
    else if (PRIMARY.includes(kind)) primary.push({ text: PRIMARY_TEXT[kind] ?? o.label, options: [o], cells: null });
    else if ("card" in d && "cell" in d && WITH_CELL[d.kind] !== undefined) {
      const key = `${d.kind}:${d.card}`;
      groups.set(key, [...(groups.get(key) ?? []), o]);
    } else if (d.kind === "moveRetry") {
      const key = "moveRetry";
      groups.set(key, [...(groups.get(key) ?? []), o]);
    } else other.push({ text: o.label, options: [o], cells: null });
  }
  primary.sort((a, b) => PRIMARY.indexOf(kindOf(a.options[0]!)) - PRIMARY.indexOf(kindOf(b.options[0]!)));
  const grouped: MenuEntry[] = [...groups.values()].map((opts) => {
    const d = opts[0]!.decision as Decision & { card?: number };
    const cells = new Map(opts.map((o) => [cellName((o.decision as { cell: number }).cell), o]));
    if (opts.length === 1) return { text: opts[0]!.label, options: opts, cells: null };
    const where =
      d.kind === "attack"
        ? opts.map((o) => `${cellName((o.decision as { cell: number }).cell)} (${name(view.cells[(o.decision as { cell: number }).cell]!)})`).join(", ")
        : [...cells.keys()].join(" ");
    const card = d.card === undefined ? "" : ` ${name(d.card)}${from(view, d.card)}`;
    const verb = d.kind === "moveRetry" ? "move to another cell" : WITH_CELL[d.kind]!;
    return { text: `${verb}${card} -> ${where}`, options: opts, cells };
  });
  return [...primary, ...grouped, ...other, ...(leave ? [leave] : [])];
}

function from(view: DcgView, id: number): string {
  const c = view.cards[id];
  if (!c) return "";
  if (c.layer === "Hand") return " (hand)";
  if (c.layer === "Strategy") return c.cell >= 0 ? ` (strategy, at ${cellName(c.cell)})` : " (strategy)";
  return c.cell >= 0 ? ` at ${cellName(c.cell)}` : "";
}

/** The lines the terminal prints before asking: who acts, then the numbered menu. */
export function dcgMenuText(view: DcgView, entries: readonly MenuEntry[]): string[] {
  const pool = dcg.poolFor(view.cfg);
  return [
    `>> ${whoActs(view, pool)}`,
    ...entries.map((e, i) => `  ${String(i + 1).padStart(3)}. ${e.text}`),
    "  (a number; a number and a cell for a card line, e.g. 3 B2; ? for the card texts)",
  ];
}

export type MenuAnswer =
  | { readonly kind: "answer"; readonly option: MenuOption }
  | { readonly kind: "cell"; readonly entry: MenuEntry; readonly prompt: string }
  | { readonly kind: "info" }
  | { readonly kind: "error"; readonly message: string };

/** Reads one typed line against the menu: a number, a number and a cell, or `?`. */
export function readMenuLine(entries: readonly MenuEntry[], line: string): MenuAnswer {
  const text = line.trim();
  if (text === "?" || text === "info") return { kind: "info" };
  const m = /^(\d+)(?:\s+([A-Ea-e][0-6]))?$/.exec(text);
  const entry = m ? entries[Number(m[1]) - 1] : undefined;
  if (!m || entry === undefined) return { kind: "error", message: `"${text}" is not a number from 1 to ${entries.length}` };
  if (entry.cells === null) return { kind: "answer", option: entry.options[0]! };
  if (m[2] !== undefined) return readCell(entry, m[2]);
  return {
    kind: "cell",
    entry,
    prompt: `cell for "${entry.text.split(" -> ")[0]}": ${[...entry.cells.keys()].join(" ")} (a name, or 1 for the first; "back")`,
  };
}

/** The cell typed after choosing a card line: its name (B2), or its place in the list (1 = the first). */
export function readCell(entry: MenuEntry, line: string): MenuAnswer {
  const text = line.trim();
  const list = [...(entry.cells?.values() ?? [])];
  const o = /^\d+$/.test(text) ? list[Number(text) - 1] : entry.cells?.get(text.toUpperCase());
  if (o === undefined) return { kind: "error", message: `"${line.trim()}" is not one of ${[...(entry.cells?.keys() ?? [])].join(" ")}` };
  return { kind: "answer", option: o };
}

/** The rules text of the cards the viewer can see and use: its hand and strategy cards, then the units on the board. */
export function cardInfo(view: DcgView): string[] {
  const pool: Pool = dcg.poolFor(view.cfg);
  const lines: string[] = [];
  const seen = new Set<number>();
  const show = (id: number, where: string) => {
    const c = view.cards[id];
    if (!c || seen.has(c.def)) return;
    seen.add(c.def);
    const def = pool.cards[c.def]!;
    lines.push(`${def.name} (${where}): ${cardStats(def)}`);
    for (const t of cardText(def, pool)) lines.push(`    ${t}`);
  };
  for (const id of view.hand) show(id, "hand");
  view.cards.forEach((c, id) => {
    if (c && c.layer === "Strategy" && c.owner === view.viewer) show(id, "strategy");
  });
  view.cells.forEach((id) => {
    if (id >= 0) show(id, view.cards[id]?.owner === view.viewer ? "your unit" : "enemy unit");
  });
  return lines.length ? lines : ["no cards to describe"];
}
