import type { SeenEvent } from "../../engine/core/index.ts";
import { button, h, type Child } from "./dom.ts";

/**
 * The event log in words: each decision as a line, and under it what it caused (damage with its
 * amount in large type, deaths, stat changes with their cause, triggers, draws, reveals), from the
 * events the viewer may read (a live frame's projected events, or a replay's own projection).
 */

/** One decision as the log shows it: its number, who/why, and the viewer's events (empty: the label alone). */
export interface LogEntry {
  readonly seq: number;
  readonly label: string;
  readonly cause?: string;
  readonly events?: readonly SeenEvent[];
}

/** A marker per event kind (the words carry the meaning; the marker helps the eye). */
const MARK: Readonly<Record<SeenEvent["kind"], string>> = {
  decision: "",
  play: "▸",
  move: "➜",
  attack: "⚔",
  damage: "✸",
  heal: "✚",
  death: "☠",
  stat: "↕",
  trigger: "⚡",
  draw: "🂠",
  reveal: "👁",
  phase: "•",
  result: "★",
  info: "·",
};

/** A number from an event's data, if it has one. */
function amountOf(e: SeenEvent): number | null {
  const a = e.data?.amount;
  return typeof a === "number" ? a : null;
}

/** The prominent figure before a line: −2 for damage, +1 for a heal, the change for a stat. */
function figure(e: SeenEvent): Child {
  const a = amountOf(e);
  if (a === null) return null;
  if (e.kind === "damage") return h("b", { class: "amount dmg", "data-amount": a }, `−${Math.abs(a)}`);
  if (e.kind === "heal") return h("b", { class: "amount heal", "data-amount": a }, `+${Math.abs(a)}`);
  if (e.kind === "stat") return h("b", { class: "amount stat", "data-amount": a }, a > 0 ? `+${a}` : `${a}`);
  return null;
}

/** A log line; with `onHead`, the decision's text is a button (the replay's "go to this decision"). */
export function eventItem(
  e: LogEntry,
  causeWords: (cause: string) => string,
  attrs: Record<string, string | number | null> = {},
  onHead: (() => void) | null = null,
): HTMLElement {
  const events = e.events ?? [];
  const head = events[0]?.kind === "decision" ? events[0].text : e.label;
  const rest = events[0]?.kind === "decision" ? events.slice(1) : events;
  const cause = e.cause === undefined || e.cause === "answer" ? "" : causeWords(e.cause);
  return h(
    "li",
    { "data-seq": e.seq, ...attrs },
    h("span", { class: "seq" }, `${e.seq + 1}.`),
    " ",
    onHead ? button(head, onHead) : head,
    cause ? h("span", { class: "cause" }, ` (${cause})`) : null,
    rest.length
      ? h(
          "ul",
          { class: "events" },
          rest.map((ev) =>
            h(
              "li",
              { class: `ev ev-${ev.kind}`, "data-kind": ev.kind },
              figure(ev) ?? (MARK[ev.kind] ? h("span", { class: "mark", "aria-hidden": "true" }, MARK[ev.kind]) : null),
              " ",
              ev.text,
            ),
          ),
        )
      : null,
  );
}
