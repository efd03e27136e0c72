import { CARD_COUNT, RANK_LABELS, RANKS, SUITS, SUIT_SYMBOLS, cardLabel } from "./cards.ts";
import { DEAD, OPENING, PLACED, cellOf } from "./board.ts";
import { applySevens } from "./apply.ts";
import { standings } from "./ranking.ts";
import type { SevensDecision, SevensState } from "./state.ts";

/**
 * "seat 2 plays 8♥", with what the play or pass causes that the seat can know before it decides
 * (this is also the label of each of its options): the cards it kills, its own going out or
 * elimination. Whose cards die and who else goes out depend on hands the seat cannot see; once
 * the move is made they are public (a Dead cell shows its holder) and the move's events say so.
 */
export function describeSevens(s: SevensState, d: SevensDecision): string {
  const seat = s.current;
  const head = d.kind === "play" ? `seat ${seat} plays ${cardLabel(d.card)}` : `seat ${seat} passes`;
  if (seat < 0) return head;
  const after = applySevens(s, d);
  const notes: string[] = [];
  if (d.kind === "pass") {
    const limit = s.config.passLimit;
    notes.push(limit === null ? `pass ${after.passes[seat]}` : `pass ${after.passes[seat]} of ${limit}`);
    if (after.eliminated.length > s.eliminated.length) notes.push("eliminated");
  }
  const killed: string[] = [];
  for (let card = 0; card < CARD_COUNT; card++) {
    if (cellOf(after.cells, card) >= DEAD && cellOf(s.cells, card) < DEAD) killed.push(cardLabel(card));
  }
  if (killed.length > 0) notes.push(`kills ${killed.join(", ")}`);
  if (after.finishOrder.slice(s.finishOrder.length).includes(seat)) notes.push(`seat ${seat} goes out`);
  return notes.length > 0 ? `${head} (${notes.join("; ")})` : head;
}

/**
 * The 4x13 table (rows ♠ ♥ ♦ ♣, columns A..K): a placed card shows its rank, a dead cell shows
 * x and its holder's seat, an empty cell a dot. Then one line per seat (hand size, killed, passes,
 * status) and whose turn it is, or the final standings.
 */
export function renderSevens(s: SevensState): string {
  const lines: string[] = [];
  const cell = (text: string) => text.padStart(4);
  lines.push(`   ${RANK_LABELS.map(cell).join("")}`);
  for (let suit = 0; suit < SUITS; suit++) {
    let row = ` ${SUIT_SYMBOLS[suit]} `;
    RANK_LABELS.forEach((label, r) => {
      const v = cellOf(s.cells, suit * RANKS + r);
      if (v >= DEAD) row += cell(`x${v - DEAD}`);
      else if (v >= PLACED) row += cell(label);
      else row += cell("·");
    });

    lines.push(row);
  }
  lines.push("");
  const n = s.config.seats;
  for (let seat = 0; seat < n; seat++) {
    const status: string[] = [];
    const fin = s.finishOrder.indexOf(seat);
    if (fin >= 0) status.push(`out #${fin + 1}`);
    if (s.eliminated.includes(seat)) status.push("eliminated");
    if (seat === s.current) status.push("to move");
    const limit = s.config.passLimit === null ? "" : `/${s.config.passLimit}`;
    lines.push(
      `seat ${seat}: ${String(s.handSize[seat]).padStart(2)} cards, killed ${s.killed[seat]}, passes ${s.passes[seat]}${limit}` +
        (status.length > 0 ? `  [${status.join(", ")}]` : ""),
    );
  }
  if (s.current < 0)
    lines.push(
      `game over; standings: ${standings(s)
        .map((t) => `seat ${t}`)
        .join(" > ")}`,
    );
  return lines.join("\n");
}

/** Who put a Placed cell there (for tools): a seat, or "opening" for the setup sevens. */
export function placedBy(v: number): number | "opening" | null {
  if (v === OPENING) return "opening";
  return v >= PLACED && v < DEAD ? v - PLACED : null;
}
