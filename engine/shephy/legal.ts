import { Card, STEP_KIND, type StepKind } from "./cards.ts";
import { firstOfEach } from "./piles.ts";
import type { ShephyDecision, ShephyPending, ShephyState } from "./state.ts";

/** What the player is asked now: a card to play, a sub-decision of a pending effect, or nothing. */
export type DecisionKind = "play" | StepKind | "none";

export function decisionKind(s: Pick<ShephyState, "result" | "pending">): DecisionKind {
  if (s.result !== null) return "none";
  if (s.pending === null) return "play";
  return STEP_KIND[s.pending.card]!;
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
      const out: ShephyDecision[] = selectable(s.field, s.pending!).map((index) => ({ kind: "select", index }));
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
  const max = field[field.length - 1]!;
  for (let i = 0; i < field.length; i++) {
    const r = field[i]!;
    if (p.card === Card.GoldenHooves && r >= max) break;
    if (p.selected.includes(i)) continue;
    if (out.length > 0 && field[out[out.length - 1]!] === r) continue;
    out.push(i);
  }
  return out;
}
