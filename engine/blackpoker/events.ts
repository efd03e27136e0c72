import { privateEvent, publicEvent, type GameEvent } from "../core/index.ts";
import { blackpokerActor } from "./legal.ts";
import { describeBlackpoker } from "./render.ts";
import type { BlackpokerDecision, BlackpokerState } from "./state.ts";

/**
 * BlackPoker events (docs/events.md). The decision event's full face is the actor's label; the
 * others read the same except where the label names a card they may not see (docs/rules/blackpoker.md,
 * "What a seat sees"): the card a Search takes from Life goes to a hidden hand, so the others
 * read only that a card was taken. A face-down bulwark's card is never in a label.
 */
export function blackpokerEvents(before: BlackpokerState, decision: BlackpokerDecision): GameEvent[] {
  const actor = blackpokerActor(before);
  const seat = actor === "terminal" ? null : actor;
  const text = describeBlackpoker(before, decision);
  if (decision.kind === "searchTake" && seat !== null) {
    return [privateEvent("decision", seat, [seat], { text }, { text: `seat ${seat} takes a card from Life into the hand` })];
  }
  return [publicEvent("decision", seat, text)];
}
