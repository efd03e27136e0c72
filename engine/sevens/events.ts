import { decisionEvent, publicEvent, type GameEvent, must } from "../core/index.ts";
import { DEAD, PLACED, cellOf } from "./board.ts";
import { cardLabel, CARD_COUNT } from "./cards.ts";
import { standings } from "./ranking.ts";
import { describeSevens } from "./render.ts";
import type { SevensDecision, SevensState } from "./state.ts";

/**
 * Killing Sevens events (docs/events.md). Everything a decision does happens on the table in
 * front of everyone: a play, a pass, a walled-in card dying (a Dead cell shows its holder), an
 * eliminated seat's cards going on the table, a seat going out, the final standings. So every
 * event is public. Kinds and data:
 * - `decision`: the label.
 * - `play` {card}: the card placed (its label, such as "8♥").
 * - `info` {passes, limit}: a pass counted (limit null when unlimited).
 * - `death` {card, holder, by}: a walled-in card dies; `holder` held it, `by` made the move.
 * - `reveal` {cards}: an eliminated seat's cards go on the table (labels joined by ", ").
 * - `result` {status, place?}: a seat is `out` (its hand is empty; `place` in the finish order)
 *   or `eliminated`; then, at the end, {standings} (seats best first, joined by " > ", as text)
 *   with `winner` the best seat.
 */
export function sevensEvents(before: SevensState, decision: SevensDecision, after: SevensState): GameEvent[] {
  const seat = before.current;
  const out: GameEvent[] = [decisionEvent(seat < 0 ? null : seat, describeSevens(before, decision))];
  if (seat < 0) return out;
  if (decision.kind === "play") out.push(publicEvent("play", seat, `seat ${seat} places ${cardLabel(decision.card)}`, { card: cardLabel(decision.card) }));
  else {
    const limit = before.config.passLimit;
    const passes = must(after.passes[seat], "sevens: the pass count of the seat that passed");
    out.push(
      publicEvent("info", seat, `seat ${seat} has passed ${passes} time${passes === 1 ? "" : "s"}${limit === null ? "" : ` of ${limit}`}`, { passes, limit }),
    );
  }
  if (after.eliminated.length > before.eliminated.length) {
    const shown: string[] = [];
    for (let card = 0; card < CARD_COUNT; card++) if (before.cells[card] === seat) shown.push(cardLabel(card));
    out.push(publicEvent("result", seat, `seat ${seat} is eliminated for passing too often`, { status: "eliminated" }));
    if (shown.length > 0) out.push(publicEvent("reveal", seat, `seat ${seat}'s cards go on the table: ${shown.join(", ")}`, { cards: shown.join(", ") }));
  }
  for (let card = 0; card < CARD_COUNT; card++) {
    const v = cellOf(after.cells, card);
    if (v < DEAD || cellOf(before.cells, card) >= PLACED) continue;
    const holder = v - DEAD;
    out.push(publicEvent("death", holder, `${cardLabel(card)} of seat ${holder} is walled in and dies`, { card: cardLabel(card), holder, by: seat }));
  }
  after.finishOrder.slice(before.finishOrder.length).forEach((t, k) => {
    const place = before.finishOrder.length + k + 1;
    out.push(publicEvent("result", t, `seat ${t} goes out (${ordinal(place)})`, { status: "out", place }));
  });

  if (after.current < 0) {
    const order = standings(after);
    const text = order.map((t) => `seat ${t}`).join(" > ");
    out.push(publicEvent("result", null, `Final standings: ${text}`, { standings: text, winner: order[0] ?? null }));
  }
  return out;
}

function ordinal(n: number): string {
  const suffix = n % 100 >= 11 && n % 100 <= 13 ? "th" : (["th", "st", "nd", "rd"][n % 10] ?? "th");
  return `${n}${suffix}`;
}
