import { Card, STEP_KIND, type StepKind } from "./cards.ts";
import { firstOfEach, pendingOf } from "./piles.ts";
import type { ShephyDecision, ShephyPending, ShephyState } from "./state.ts";
import { InvariantError } from "../core/errors.ts";

/** What the player is asked now: a card to play, a sub-decision of a pending effect, or nothing. */
export type DecisionKind = "play" | StepKind | "none";

export function decisionKind(s: Pick<ShephyState, "result" | "pending">): DecisionKind {
  if (s.result !== null) return "none";
  if (s.pending === null) return "play";
  const kind = STEP_KIND[s.pending.card];
  if (kind === undefined || kind === null) throw new InvariantError(`shephy: card ${s.pending.card} has no sub-decision to pend`);
  return kind;
}

/**
 * The legal decisions in a stable order. Equal cards are interchangeable (sheep of one rank, event
 * cards of one type), so each choice is offered once per distinct value, at its first index.
 */
export function legalDecisions(s: ShephyState): ShephyDecision[] {
  const kind = decisionKind(s);
  switch (kind) {
    case "none":
      return [];
    case "play":
      return firstOfEach(s.hand).map((index) => ({ kind: "play", index }));
    case "chooseField":
      return firstOfEach(s.field).map((index) => ({ kind: "chooseField", index }));
    case "select": {
      const out: ShephyDecision[] = selectable(s.field, pendingOf(s)).map((index) => ({ kind: "select", index }));
      out.push({ kind: "confirm" });
      return out;
    }
    case "gainOrStop":
      return [{ kind: "gainOne" }, { kind: "stop" }];
    case "chooseHand":
      return firstOfEach(s.hand).map((index) => ({ kind: "chooseHand", index }));
    case "chooseDeck":
      return firstOfEach(s.deck).map((index) => ({ kind: "chooseDeck", index }));
  }
}

/**
 * Field indices that may be selected next: for each eligible rank, its first unselected card (so the
 * selected cards of a rank are always a prefix of that rank's run). Golden Hooves excludes the
 * highest rank; Dominion takes any card.
 */
export function selectable(field: readonly number[], p: ShephyPending): number[] {
  const out: number[] = [];
  const max = field.at(-1);
  let last = -1; // the rank of the last index taken
  field.forEach((r, i) => {
    if (p.card === Card.GoldenHooves && max !== undefined && r >= max) return;
    if (p.selected.includes(i) || (out.length > 0 && last === r)) return;
    out.push(i);
    last = r;
  });
  return out;
}
