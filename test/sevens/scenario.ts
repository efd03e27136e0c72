import { unwrap } from "../../engine/core/index.ts";
import { sevens, parseCard, DEAD, OPENING, type SevensState } from "../../engine/sevens/index.ts";

/** Card id from "8h" / "8♥" / "10s"; throws on a typo so a test cannot silently use card -1. */
export function card(text: string): number {
  const c = parseCard(text);
  if (c < 0) throw new Error(`not a card: ${text}`);
  return c;
}

export interface ScenarioOptions {
  /**
   * The table as 4 rows (♠ ♥ ♦ ♣) of 13 cells (A..K); spaces are ignored.
   *   '#'        Placed (at setup)
   *   '0'..'5'   Empty cell, the card is in that seat's hand
   *   'a'..'f'   Dead, held by seat 0..5
   */
  readonly board: readonly string[];
  /** Raw config (parsed); `seats` defaults to 1 + the highest seat the board mentions, at least 3. */
  readonly config?: Record<string, unknown>;
  readonly current?: number;
  readonly killed?: number[];
  readonly kills?: number[];
  readonly passes?: number[];
  readonly finishOrder?: number[];
  readonly eliminated?: number[];
}

/** A state built directly from a picture of the board, for rule tests. */
export function scenario(o: ScenarioOptions): SevensState {
  if (o.board.length !== 4) throw new Error("board needs 4 rows");
  const cells: number[] = [];
  let highest = 2;
  for (const row of o.board) {
    const chars = row.replace(/ /g, "");
    if (chars.length !== 13) throw new Error(`board row "${row}" needs 13 cells`);
    for (const ch of chars) {
      if (ch === "#") cells.push(OPENING);
      else if (ch >= "0" && ch <= "5") {
        cells.push(Number(ch));
        highest = Math.max(highest, Number(ch));
      } else if (ch >= "a" && ch <= "f") {
        const seat = ch.charCodeAt(0) - 97;
        cells.push(DEAD + seat);
        highest = Math.max(highest, seat);
      } else throw new Error(`bad board cell "${ch}"`);
    }
  }
  const config = unwrap(sevens.parseConfig({ seats: highest + 1, ...o.config }));
  const n = config.seats;
  const handSize = new Array<number>(n).fill(0);
  for (const v of cells) if (v < 8) handSize[v]!++;
  const zeros = () => new Array<number>(n).fill(0);
  const killed = o.killed ?? zeros();
  // Dead cells on the picture are counted as killed unless the test says otherwise.
  if (!o.killed) for (const v of cells) if (v >= DEAD) killed[v - DEAD]!++;
  return {
    config,
    cells,
    handSize,
    killed,
    kills: o.kills ?? zeros(),
    passes: o.passes ?? zeros(),
    finishOrder: o.finishOrder ?? [],
    eliminated: o.eliminated ?? [],
    current: o.current ?? 0,
    rng: [1, 2, 3, 4],
  };
}

export const play = (c: string) => ({ kind: "play" as const, card: card(c) });
export const pass = { kind: "pass" as const };

/** Apply through the checked path; fails the test on an error. */
export function step(s: SevensState, d: unknown): SevensState {
  const out = sevens.apply(s, d);
  if (!out.ok) throw new Error(`${JSON.stringify(d)}: ${out.error.message}`);
  return out.state;
}
