import { decisionEvent, publicEvent, type GameEvent } from "../core/index.ts";
import { sheepValue, cardName, fieldSum } from "./cards.ts";
import { describeDecision } from "./describe.ts";
import type { ShephyDecision, ShephyState } from "./state.ts";
import { cardAt } from "./piles.ts";

/**
 * Shephy events (docs/events.md). Shephy is a solitaire watched over the player's shoulder: the
 * field, the hand, the discard and the exile are open, only the deck's order is hidden, so every
 * event is public. Derived from the states before and after the decision. Kinds and data:
 * - `decision`: the label.
 * - `play` {sheep}: a sheep card joins the field (its printed value).
 * - `death` {sheep}: a sheep card leaves the field.
 * - `draw` {count, cards}: event cards drawn into the hand (names joined by ", ").
 * - `info` {card}: an event card removed from the game (exiled) or discarded from the hand.
 * - `stat` {stat: "enemy", from, to}: the enemy sheep grows at a round's end.
 * - `result` {result, score}: the game is over ("win", "loss" or "over"); `score` the field's sum.
 */
export function shephyEvents(before: ShephyState, decision: ShephyDecision, after: ShephyState): GameEvent[] {
  const out: GameEvent[] = [decisionEvent(0, describeDecision(before, decision))];
  const [gained, lost] = multisetDiff(before.field, after.field);
  for (const r of lost) out.push(publicEvent("death", 0, `A [${sheepValue(r)}] sheep leaves the field`, { sheep: sheepValue(r) }));
  for (const r of gained) out.push(publicEvent("play", 0, `A [${sheepValue(r)}] sheep joins the field`, { sheep: sheepValue(r) }));
  const [drawn, left] = multisetDiff(before.hand, after.hand);
  // The played card left the hand by the decision itself; only other departures are news.
  if (decision.kind === "play") left.splice(left.indexOf(cardAt(before.hand, decision.index, "hand")), 1);
  const [exiled] = multisetDiff(before.exile, after.exile);
  for (const c of exiled) out.push(publicEvent("info", 0, `${cardName(c)} is removed from the game`, { card: cardName(c) }));
  for (const c of left.filter((c) => !exiled.includes(c))) out.push(publicEvent("info", 0, `${cardName(c)} is discarded from the hand`, { card: cardName(c) }));
  if (after.enemy !== before.enemy) {
    out.push(
      publicEvent("stat", null, `The deck ran out: the enemy sheep grows from [${before.enemy}] to [${after.enemy}]`, {
        stat: "enemy",
        from: before.enemy,
        to: after.enemy,
      }),
    );
  }
  if (drawn.length > 0) {
    const cards = drawn.map(cardName).join(", ");
    out.push(publicEvent("draw", 0, `draws ${cards}`, { count: drawn.length, cards }));
  }
  if (after.result !== null && before.result === null) {
    const score = fieldSum(after.field);
    const text =
      after.result === "win"
        ? "A [1000] sheep: the game is won"
        : after.result === "loss"
          ? "The game is lost"
          : `The game is over: the field is worth ${score}`;
    out.push(publicEvent("result", null, text, { result: after.result, score }));
  }
  return out;
}

/** What `after` has more of than `before`, and what it has less of (multisets of small integers). */
function multisetDiff(before: readonly number[], after: readonly number[]): [number[], number[]] {
  const rest = before.slice();
  const added: number[] = [];
  for (const x of after) {
    const i = rest.indexOf(x);
    if (i >= 0) rest.splice(i, 1);
    else added.push(x);
  }
  return [added, rest];
}
