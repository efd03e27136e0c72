import { decisionKey } from "../core/index.ts";
import { isFilledCell, cellOf, touchesFilled } from "./board.ts";
import { CARD_COUNT, cardLabel } from "./cards.ts";
import { passAllowed, sevensLegal } from "./legal.ts";
import type { SevensState } from "./state.ts";

/** Why a Killing Sevens decision cannot be applied now; null when it can (the game's "why not"). */
export function explainSevens(s: SevensState, raw: unknown): string | null {
  if (s.current < 0) return "the game is over";
  const key = decisionKey(raw);
  if (sevensLegal(s).some((d) => decisionKey(d) === key)) return null;
  const d = raw as { kind?: unknown; card?: unknown };
  const seat = s.current;
  if (d?.kind === "pass") {
    // Only reached when a pass is not legal: the seat holds a playable card.
    if (!s.config.voluntaryPass) return "you hold a playable card, and passing is only allowed without one (voluntaryPass is off)";
    if (!passAllowed(s, seat, true)) return `you have used all ${s.config.passLimit} passes`;
    return null;
  }
  if (d?.kind !== "play") return `a sevens decision is {kind: "play", card} or {kind: "pass"}, got ${key.slice(0, 80)}`;
  const card = d.card;
  if (typeof card !== "number" || !Number.isInteger(card) || card < 0 || card >= CARD_COUNT)
    return `card ${String(card)} is not a card id (0..${CARD_COUNT - 1})`;
  const where = cellOf(s.cells, card);
  if (isFilledCell(where)) return `${cardLabel(card)} is already on the table`;
  if (where !== seat) return `${cardLabel(card)} is not in your hand`;
  if (!touchesFilled(s.cells, card)) {
    return `${cardLabel(card)} must be played next to (one of the 8 cells around it) a card already on the table`;
  }
  return null;
}
