import { CARD_NAMES, RANKS } from "./cards.ts";
import type { ShephyDecision, ShephyState } from "./state.ts";

const sheep = (s: ShephyState, i: number): string => String(RANKS[s.field[i]!]);

/** One readable line: "play Be Fruitful", "choose field card 3 (100)". Indices are 0-based, as in render. */
export function describeDecision(s: ShephyState, d: ShephyDecision): string {
  switch (d.kind) {
    case "play":
      return `play ${CARD_NAMES[s.hand[d.index]!]}`;
    case "chooseField":
      return `choose field card ${d.index} (${sheep(s, d.index)})`;
    case "select":
      return `select field card ${d.index} (${sheep(s, d.index)})`;
    case "confirm":
      return s.pending !== null && s.pending.selected.length === 0 ? "confirm (nothing selected)" : "confirm";
    case "gainOne":
      return "gain a 1";
    case "stop":
      return "stop";
    case "chooseHand":
      return `choose hand card ${d.index} (${CARD_NAMES[s.hand[d.index]!]})`;
    case "chooseDeck":
      return `choose deck card ${d.index} (${CARD_NAMES[s.deck[d.index]!]})`;
  }
}
