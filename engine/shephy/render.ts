import { CARD_NAMES, CARD_TYPES, RANKS, cardName, fieldSum } from "./cards.ts";
import { decisionKind } from "./legal.ts";
import type { ShephyState } from "./state.ts";
import { must } from "../core/index.ts";

const ASKS: Record<string, string> = {
  chooseField: "choose a field card",
  select: "select field cards, then confirm",
  gainOrStop: "gain a 1 or stop",
  chooseHand: "choose a hand card",
  chooseDeck: "choose a deck card",
};

function counts(cards: readonly number[]): string {
  const n = new Array<number>(CARD_TYPES).fill(0);
  for (const c of cards) n[c] = must(n[c], "shephy: the count of a card type") + 1;
  const parts: string[] = [];
  n.forEach((count, t) => {
    if (count > 0) parts.push(count > 1 ? `${cardName(t)} x${count}` : cardName(t));
  });
  return parts.length > 0 ? parts.join(", ") : "-";
}

/** The board for the play CLI. */
export function renderState(s: ShephyState): string {
  const sum = fieldSum(s.field);
  const lines: string[] = [];
  const status = s.result === null ? "in play" : s.result;
  lines.push(`Shephy (${s.config.mode})  enemy sheep: ${s.enemy}  status: ${status}`);
  const selected = s.pending?.selected ?? [];
  const field = s.field.map((r, i) => `[${i}]${RANKS[r]}${selected.includes(i) ? "*" : ""}`).join(" ");
  lines.push(`Field (${s.field.length}/7, sum ${sum}): ${field || "-"}`);
  lines.push(`Stock: ${RANKS.map((v, k) => `${v}:${s.stock[k]}`).join("  ")}`);
  lines.push(`Hand: ${s.hand.map((c, i) => `[${i}]${CARD_NAMES[c]}`).join(" ") || "-"}`);
  lines.push(`Deck ${s.deck.length} | Discard ${s.discard.length} | Exile ${s.exile.length}: ${counts(s.exile)}`);
  const kind = decisionKind(s);
  if (s.pending !== null) {
    const p = s.pending;
    const via = p.source !== p.card ? ` (via ${CARD_NAMES[p.source]})` : "";
    const left = p.left > 0 ? `, ${p.left} to release` : "";
    lines.push(`Pending: ${CARD_NAMES[p.card]}${via}${left}: ${ASKS[kind]}`);
    if (kind === "chooseDeck") lines.push(`Deck revealed: ${s.deck.map((c, i) => `[${i}]${CARD_NAMES[c]}`).join(" ")}`);
  } else if (kind === "play") {
    lines.push("Next: play a card from the hand");
  }
  return lines.join("\n");
}
