import type { DecisionOption } from "../../../env/live/protocol.ts";
import { h, type Attrs, type Child } from "../dom.ts";

export type { DecisionOption };

/** What a board is drawn from: one viewer's view, and the legal decisions when that viewer must decide. */
export interface BoardCtx {
  readonly view: unknown;
  readonly viewer: number | "spectator";
  /** Non-empty only when this viewer must decide now. */
  readonly decisions: readonly DecisionOption[];
  /** Apply these options: one is sent at once, several are offered as a short list. */
  choose(options: readonly DecisionOption[]): void;
  seatName(seat: number): string;
  /** Board-local UI state that survives redraws (dcg's selected card). */
  readonly memo: Map<string, unknown>;
  redraw(): void;
}

export type Board = (ctx: BoardCtx) => HTMLElement;

/** The decisions whose engine data match `pred`. */
export function matching(ctx: BoardCtx, pred: (d: Record<string, unknown>) => boolean): DecisionOption[] {
  return ctx.decisions.filter((o) => o.decision !== null && typeof o.decision === "object" && pred(o.decision as Record<string, unknown>));
}

/**
 * A board element: a button when some decisions apply to it (it shows a marker, not just a colour),
 * a plain box otherwise.
 */
export function spot(cls: string, options: readonly DecisionOption[], ctx: BoardCtx, attrs: Attrs, ...children: Child[]): HTMLElement {
  if (options.length === 0) return h("div", { class: cls, ...attrs }, ...children);
  const only = options.length === 1 ? options[0] : undefined;
  const label = only ? only.label : `${options.length} choices: ${options.map((o) => o.label).join("; ")}`;
  return h("button", { type: "button", class: `${cls} can`, title: label, "aria-label": label, onclick: () => ctx.choose(options), ...attrs }, ...children);
}

export function stat(label: string, value: Child, attrs: Attrs = {}): HTMLElement {
  return h("span", { class: "stat", ...attrs }, h("span", { class: "k" }, label), " ", h("b", null, value));
}
