import { CARD_NAMES, RANKS } from "./cards.ts";
import type { ShephyDecision, ShephyState } from "./state.ts";

// A decision is described before it is checked, so an index may point past its pile: "?" then.
const sheep = (s: ShephyState, i: number): string => String(RANKS[s.field[i] ?? -1] ?? "?");
const nameAt = (pile: readonly number[], i: number): string => CARD_NAMES[pile[i] ?? -1] ?? "?";

/** One readable line: "play Be Fruitful", "choose field card 3 (100)". Indices are 0-based, as in render. */
export function describeDecision(s: ShephyState, d: ShephyDecision): string {
  switch (d.kind) {
    case "play":
      return `play ${nameAt(s.hand, d.index)}`;
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
      return `choose hand card ${d.index} (${nameAt(s.hand, d.index)})`;
    case "chooseDeck":
      return `choose deck card ${d.index} (${nameAt(s.deck, d.index)})`;
  }
}
