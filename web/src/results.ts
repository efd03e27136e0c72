import { RANKS } from "../../engine/shephy/cards.ts";
import { button, h } from "./dom.ts";

/** What the results screen is drawn from: the finished frame's view and final scores. */
export interface ResultsInput {
  readonly game: string;
  readonly view: unknown;
  /** The game's final outcome per seat (higher is better). */
  readonly outcome: readonly number[];
  /** This browser's seat, or null when watching. */
  readonly me: number | null;
  readonly seatName: (seat: number) => string;
  readonly rematch: (() => void) | null;
  readonly newTable: () => void;
}

export function ordinal(n: number): string {
  const tens = n % 100;
  const suffix = tens >= 11 && tens <= 13 ? "th" : (["th", "st", "nd", "rd"][n % 10] ?? "th");
  return `${n}${suffix}`;
}

/** Place per seat, best first; seats with equal outcomes share a place (1, 2, 2, 4). */
export function places(outcome: readonly number[]): number[] {
  return outcome.map((x) => 1 + outcome.filter((y) => y > x).length);
}

type View = Record<string, unknown>;
const num = (v: unknown): number => (typeof v === "number" ? v : 0);
const arr = (v: unknown): readonly unknown[] => (Array.isArray(v) ? v : []);

/** The game's ranking rule in one sentence (docs/rules/<game>.md). */
export function rankingRule(game: string, view: unknown): string {
  const v = (view ?? {}) as View;
  switch (game) {
    case "sevens":
      return "Killing Sevens ranks the players who played out all their cards first, by fewest of their own cards killed, then by who went out first; players eliminated for passing too often come last, the last one eliminated best.";
    case "dcg": {
      const limit = num((v.cfg as View | undefined)?.turnLimit);
      return `DCG: a player whose HP falls to 0 loses; after ${limit || "the last"} turns the higher HP wins; resigning or running out of time loses.`;
    }
    case "blackpoker":
      return "BlackPoker: a player whose Life runs out loses (Life 0 at a win check, or drawing from an empty Life).";
    case "shephy":
      return v.mode === "challenge"
        ? "Shephy (challenge): after three rounds the score is the total of the sheep on the field (7000 at most); an empty field scores 0."
        : "Shephy: you win when a 1000-sheep card is on the field; an empty field, or the enemy sheep reaching 1000 first, loses.";
    default:
      return "The best final score wins.";
  }
}

/** Why the game ended the way it did, when the view tells (dcg: HP 0, the turn limit, or a seat gave up; Life out; the field). */
export function whyText(game: string, view: unknown, outcome: readonly number[], seatName: (s: number) => string): string | null {
  const v = (view ?? {}) as View;
  if (game === "blackpoker") return blackpokerWhy(v, outcome, seatName);
  if (game === "shephy") return shephyWhy(v);
  if (game !== "dcg") return null;
  const players = arr(v.players) as readonly View[];
  const hp = players.map((p) => num(p.hp));
  const winner = num(v.winner);
  const limit = num((v.cfg as View | undefined)?.turnLimit);
  const out = hp.map((x, i) => (x <= 0 ? i : -1)).filter((i) => i >= 0);
  if (out.length === 2) return "Both players' HP fell to 0 at once: a draw.";
  const [fell] = out;
  if (out.length === 1 && fell !== undefined) return `${seatName(fell)}'s HP fell to 0.`;
  if (winner < 0 || outcome.every((x) => x === outcome[0])) return `The turn limit (${limit}) was reached with equal HP: a draw.`;
  const loser = 1 - winner;
  if (num(v.turn) >= limit && limit > 0) return `The turn limit (${limit}) was reached: ${seatName(winner)} had more HP (${hp[winner]} to ${hp[loser]}).`;
  return `${seatName(loser)} gave up (resigned or ran out of time), which loses the battle.`;
}

function blackpokerWhy(v: View, outcome: readonly number[], seatName: (s: number) => string): string {
  const out = (arr(v.players) as readonly View[]).map((p, i) => (num(p.life) <= 0 ? i : -1)).filter((i) => i >= 0);
  const draw = outcome.every((x) => x === outcome[0]);
  if (out.length === 2) return draw ? "Both Lives ran out at once: a draw." : "Both Lives ran out at once: the turn player loses.";
  const [emptied] = out;
  if (out.length === 1 && emptied !== undefined) return `${seatName(emptied)}'s Life ran out.`;
  return draw ? "A draw: the turn limit was reached (or the setup ran out of cards to reveal)." : "";
}

function shephyWhy(v: View): string {
  const sheep = arr(v.field).length;
  if (v.result === "win") return "A 1000-sheep card reached the field.";
  if (v.result === "over") return sheep === 0 ? "The field emptied: the score is 0." : "Three rounds are over: the field is scored.";
  return sheep === 0 ? "The field emptied." : "The enemy sheep grew to 1000 first.";
}

/** One seat's score in the game's own words. */
export function scoreOf(game: string, view: unknown, seat: number): string {
  const v = (view ?? {}) as View;
  switch (game) {
    case "sevens": {
      const killed = num(arr(v.killed)[seat]);
      const out = arr(v.finishOrder).indexOf(seat);
      const status = out >= 0 ? `went out ${ordinal(out + 1)}` : arr(v.eliminated).includes(seat) ? "eliminated" : "";
      return [`${killed} own card${killed === 1 ? "" : "s"} killed`, status].filter(Boolean).join(" · ");
    }
    case "dcg":
      return `HP ${num((arr(v.players)[seat] as View | undefined)?.hp)}`;
    case "blackpoker":
      return `Life ${num((arr(v.players)[seat] as View | undefined)?.life)}`;
    case "shephy": {
      const total = arr(v.field).reduce<number>((t, r) => t + (RANKS[num(r)] ?? 0), 0);
      return `${total} sheep on the field`;
    }
    default:
      return "";
  }
}

function headline(input: ResultsInput, place: readonly number[]): string {
  const { outcome, me, game, view } = input;
  const n = outcome.length;
  const draw = n > 1 && outcome.every((x) => x === outcome[0]);
  if (n === 1) {
    const v = (view ?? {}) as View;
    if (game === "shephy" && v.mode === "challenge") return `${me === null ? "Score" : "Your score"}: ${scoreOf(game, view, 0)}`;
    const won = (outcome[0] ?? 0) > 0;
    return me === null ? `${input.seatName(0)} ${won ? "won" : "lost"}` : won ? "You won" : "You lost";
  }
  if (draw) return "A draw: every seat shares 1st place";
  if (me === null) {
    const winners = place.map((p, s) => (p === 1 ? s : -1)).filter((s) => s >= 0);
    return `${winners.map(input.seatName).join(" and ")} ${winners.length > 1 ? "share 1st place" : "won"}`;
  }
  const mine = place[me] ?? n;
  const tie = place.filter((p) => p === mine).length > 1 ? " (shared)" : "";
  const verdict = n === 2 ? (mine === 1 ? ": you won" : ": you lost") : "";
  return `You finished ${ordinal(mine)}${tie} of ${n}${verdict}`;
}

/** The results screen: your place, the ranking rule, every seat's place and score, Rematch and New table. */
export function resultsPanel(input: ResultsInput): HTMLElement {
  const place = places(input.outcome);
  const placeOf = (s: number): number => place[s] ?? input.outcome.length;
  const order = input.outcome.map((_, s) => s).sort((a, b) => placeOf(a) - placeOf(b) || a - b);
  const why = whyText(input.game, input.view, input.outcome, input.seatName);
  // Alone at the table (Shephy) there is no place to hold: "1st" beside "You lost" would contradict the headline.
  const ranked = input.outcome.length > 1;
  return h(
    "section",
    { class: "results", "aria-labelledby": "results-title", "data-place": input.me === null ? null : place[input.me] },
    h("h3", { id: "results-title", class: "result", "data-finished": "true" }, headline(input, place)),
    why ? h("p", { class: "why" }, why) : null,
    h("p", { class: "rule" }, rankingRule(input.game, input.view)),
    input.outcome.length > 1 || input.game === "shephy"
      ? h(
          "table",
          { class: "standings" },
          h(
            "thead",
            null,
            h("tr", null, ranked ? h("th", { scope: "col" }, "Place") : null, h("th", { scope: "col" }, "Seat"), h("th", { scope: "col" }, "Score")),
          ),
          h(
            "tbody",
            null,
            order.map((s) =>
              h(
                "tr",
                { "data-seat": s, class: s === input.me ? "me" : "" },
                ranked ? h("td", null, ordinal(placeOf(s))) : null,
                h("td", null, input.seatName(s)),
                h("td", null, scoreOf(input.game, input.view, s)),
              ),
            ),
          ),
        )
      : null,
    h(
      "div",
      { class: "row" },
      input.rematch ? button("Rematch", input.rematch, { class: "primary", "data-act": "rematch" }) : null,
      button("New table", input.newTable, { "data-act": "new-table" }),
    ),
  );
}
