import { privateEvent, publicEvent, type EventFace, type GameEvent } from "../core/index.ts";
import type { BattleData, Seat } from "./battle-data.ts";
import { cellName } from "./board.ts";
import type { Decision } from "./decision.ts";
import type { Trace } from "./draft.ts";
import type { Pool } from "./pool.ts";
import { describeDecision, SEAT_NAME } from "./render.ts";

/**
 * dcg events: what one decision did, each tagged with who may read it (docs/events.md).
 *
 * The decision event (kind `decision`) comes first. Its full face is the actor's own label
 * (`describe`); what the others read follows the view (docs/rules/dcg.md, "What a seat sees"):
 * - a strategy placement or move is the placer's alone until both confirm: the others read
 *   "Guest places or moves a strategy card" (not even which of the two: the view hides the
 *   opponent's StrategyMove count), with no card and no cell;
 * - a feint set face down (`feint`, `reactFeint`) shows its cell (the view shows a face-down
 *   feint's cell and owner) but not the card: "Guest sets a feint face down at C4".
 * Every other decision is public.
 *
 * Data keys of the decision event (all optional): `cell` (a cell name such as "C4").
 */

export const who = (seat: Seat): string => SEAT_NAME[seat];

/** The decision event: the actor's label to the actor, the public part of it to everyone else. */
export function decisionEvent(s: BattleData, pool: Pool, d: Decision, seat: Seat): GameEvent {
  const text = describeDecision(s, pool, d, seat);
  const hidden = othersFace(d, seat);
  if (hidden === null) return publicEvent("decision", seat, text);
  return privateEvent("decision", seat, [seat], { text }, hidden);
}

/** What the others read of a decision whose label says more than they may know; null when it is public. */
function othersFace(d: Decision, seat: Seat): EventFace | null {
  switch (d.kind) {
    case "strategyMove":
      return { text: `${who(seat)} places or moves a strategy card` };
    case "feint":
      return { text: `${who(seat)} sets a feint face down at ${cellName(d.cell)}`, data: { cell: cellName(d.cell) } };
    case "reactFeint":
      return { text: `${who(seat)} reacts by setting a feint face down at ${cellName(d.cell)}`, data: { cell: cellName(d.cell) } };
    default:
      return null;
  }
}

/**
 * Every event of `decision` applied to `before`, given the trace of that apply (applyTraced).
 * Draws (kind `draw`) name the card to the drawer only; the others read "Host draws a card", or
 * nothing for the draw step's own draw (the decision already says so).
 */
export function dcgEvents(before: BattleData, pool: Pool, decision: Decision, seat: Seat, trace: Trace): GameEvent[] {
  const out: GameEvent[] = [decisionEvent(before, pool, decision, seat)];
  for (const t of trace.triggers) {
    if (t.kind === "Draw" && t.player >= 0) out.push(drawEvent(before, pool, t.player as Seat, t.actor, t.type === "Draw"));
  }
  return out;
}

function drawEvent(s: BattleData, pool: Pool, seat: Seat, card: number, byDecision: boolean): GameEvent {
  const name = pool.cards[s.cards[card]!.def]!.name;
  const face: EventFace = { text: `${who(seat)} draws ${name}`, data: { card: name } };
  return privateEvent("draw", seat, [seat], face, byDecision ? null : { text: `${who(seat)} draws a card` });
}
