import { must, type AnyGame } from "../../engine/core/index.ts";
import { Card, compositeRank, FIELD_LIMIT, fieldSum, sheepValue, TOP_RANK } from "../../engine/shephy/index.ts";
import type { ShephyDecision, ShephyState } from "../../engine/shephy/index.ts";
import type { Evaluator, EvaluatorOptions } from "./evaluator.ts";

/**
 * Shephy's evaluator. Random playouts of the solitaire almost never win (Shephion ends the game
 * at every round end unless it was countered), so they give no signal. Instead the candidate's
 * pending effect is finished with its best completion (its sub-decisions are few and, apart from
 * Inspiration's reshuffle, deterministic), and the state is scored by a heuristic in the spirit of
 * kana's minimax (rules 3.4, "Optional shaping") adapted to what wins a basic game:
 * - the flock: the printed values' sum (what Dominion turns into a [1000]), a bonus per rank of
 *   the top card, a little for keeping at least three sheep (Storm, Meteor) and for free field
 *   slots while the top card is worth copying (Be Fruitful, Flourish);
 * - Shephion: exiled is worth a lot; still to come this round with no counter left (Planning
 *   Sheep, Sheep Dog, All-purpose Sheep) is close to a loss; holding a counter while it is live
 *   is worth keeping;
 * - disasters in hand must be played some day: the flock left after all of them (the chooser
 *   keeping its best sheep) is compared with the flock now, and a flock they would wipe out costs
 *   extra; so the agent grows fodder and plays disasters while the flock is cheap. Exiling one
 *   earns kana's bonus;
 * - Dominion in hand is worth what it would make of the flock now (a [1000] when the sum allows).
 * A won game scores WIN, a lost one -WIN.
 */
export const WIN = 10_000;
/** A live Shephion with no counter left this round loses unless the flock reaches 1000 first. */
const DOOMED = 0.6 * WIN;
const EXILE_BONUS: readonly number[] = (() => {
  const b = new Array<number>(19).fill(-10); // exiling a helpful card shortens nothing we fear
  b[Card.Shephion] = 400;
  b[Card.Meteor] = 50;
  b[Card.Lightning] = 30;
  b[Card.Wolves] = 20;
  b[Card.Storm] = 15;
  for (const c of [Card.Plague, Card.Crowding, Card.Slump, Card.FallingRock]) b[c] = 10;
  return b;
})();
// All-purpose Sheep only copies a counter held with it, so it does not count on its own.
/** MCTS leaf values: tanh(score / VALUE_SCALE); a few ranks of flock growth must show. */
export const VALUE_SCALE = 300;
const COUNTERS = [Card.PlanningSheep, Card.SheepDog];
/** Above this many states, a completion search stops exploring (it cannot be reached in practice). */
const COMPLETION_BUDGET = 4000;

/**
 * The field left after `card` is played on it, the chooser keeping the best cards (rank indices,
 * ascending; a new array). Disasters must all be played some day, so the flock has to absorb them.
 */
function strike(card: number, field: number[]): number[] {
  const n = field.length;
  if (n === 0) return field;
  switch (card) {
    case Card.Lightning:
      return field.slice(0, n - 1);
    case Card.Wolves: {
      const top = must(field[n - 1], "shephy evaluator: the top sheep of a field");
      const rest = field.slice(0, n - 1);
      if (top > 0) {
        // The top sheep steps down one rank, after the last sheep of a lower or equal rank (the
        // field is ascending). Reads stay inside the array: a negative index is a slow lookup.
        let at = rest.length;
        while (at > 0 && must(rest[at - 1], "shephy evaluator: a sheep of a field") > top - 1) at--;
        rest.splice(at, 0, top - 1);
      }
      return rest;
    }
    case Card.FallingRock:
      return field.slice(1);
    case Card.Storm:
      return field.slice(Math.min(2, n));
    case Card.Meteor:
      return field.slice(Math.min(3, n));
    case Card.Slump:
      return field.slice(Math.floor(n / 2));
    case Card.Crowding:
      return field.slice(Math.max(0, n - 2));
    case Card.Plague: {
      let i = 0;
      while (i < n && field[i] === field[0]) i++;
      return field.slice(i);
    }
    case Card.Shephion:
      return [];
    default:
      return field;
  }
}

/** The heuristic's weights (exported for experiments; the defaults are what was measured). */
export const SHEPHY_WEIGHTS = {
  /** Per rank index of the top card. */
  top: 20,
  /** Per free field slot: a floor, plus this share of the top card (what Be Fruitful would copy). */
  slotFloor: 1,
  slotShare: 0.5,
  /** Per sheep, for the first three (Storm, Meteor, Plague cannot empty a bigger flock at once). */
  safety: 10,
  /** The disasters in hand cost this many times the value they would destroy now, ... */
  harm: 1.1,
  /** ... or this much when together they would empty the field. */
  wiped: 400,
  /** Dominion in hand: a base plus this share of what it would make of the flock now. */
  dominionBase: 20,
  dominionShare: 0.3,
  /** Each Planning Sheep or Sheep Dog held while Shephion is still to come this round. */
  counterHeld: 60,
  /** Shephion in the discard: it comes back next round. */
  shephionBack: 100,
};

/** Heuristic value of a state whose pending effect is finished, for the solitaire player. */
export function shephyValue(s: ShephyState): number {
  if (s.result === "win") return WIN;
  if (s.result === "loss") return -WIN;
  const W = SHEPHY_WEIGHTS;
  const field = s.field;
  const n = field.length;
  if (n === 0) return -WIN;
  const top = must(field[n - 1], "shephy evaluator: the top sheep of a field");
  const sum = fieldSum(field);
  let v = sum + W.top * top + (FIELD_LIMIT - n) * (W.slotFloor + W.slotShare * sheepValue(top)) + W.safety * Math.min(n, 3);

  // Shephion: exiled, or to be countered every round it comes back.
  const exiled = s.exile.includes(Card.Shephion);
  for (const c of s.exile) v += must(EXILE_BONUS[c], "shephy evaluator: the exile bonus of a card type");
  if (!exiled) {
    const thisRound = s.hand.includes(Card.Shephion) || s.deck.includes(Card.Shephion);
    let counters = 0;
    for (const c of COUNTERS) {
      for (const h of s.hand) if (h === c) counters++;
      for (const d of s.deck) if (d === c) counters++;
    }
    if (thisRound && counters === 0) v -= DOOMED;
    else if (thisRound) for (const h of s.hand) if (COUNTERS.includes(h as never)) v += W.counterHeld;
    if (!thisRound) v -= W.shephionBack;
  }

  // The flock after the disasters held in hand (Shephion is judged above).
  let struck = field.slice();
  for (const h of s.hand) if (h !== Card.Shephion) struck = strike(h, struck);
  if (struck.length === 0) v -= W.wiped;
  else v -= W.harm * (sum - fieldSum(struck));
  for (const h of s.hand) {
    if (h === Card.Dominion) {
      // What Dominion would make of the whole flock now (a [1000] wins).
      const k = compositeRank(sum);
      v += k === TOP_RANK ? 0.5 * WIN : W.dominionBase + W.dominionShare * sheepValue(k);
    }
  }
  return v;
}

type Search = { game: AnyGame; seen: Map<string, number>; budget: number };

/**
 * The best value reachable by finishing the pending effect (all its sub-decisions), searched
 * exhaustively with memoisation. Selections (Golden Hooves, Dominion) are explored in increasing
 * field order only, which reaches every subset once.
 */
function complete(search: Search, s: ShephyState): number {
  if (s.pending === null || s.result !== null) return shephyValue(s);
  const key = `${s.pending.card}|${s.pending.left}|${s.pending.selected.join(".")}|${s.field.join(".")}|${s.hand.join(".")}`;
  const memo = search.seen.get(key);
  if (memo !== undefined) return memo;
  const legal = search.game.legal(s) as ShephyDecision[];
  const last = s.pending.selected.length > 0 ? Math.max(...s.pending.selected) : -1;
  let best = -Infinity;
  for (const d of legal) {
    if (d.kind === "select" && d.index < last) continue;
    if (--search.budget < 0 && best > -Infinity) break;
    const v = complete(search, search.game.applyTrusted(s, d) as ShephyState);
    if (v > best) best = v;
  }
  search.seen.set(key, best);
  return best;
}

export function shephyEvaluator(_options: EvaluatorOptions): Evaluator {
  const evaluate = (game: AnyGame, state: unknown) => complete({ game, seen: new Map(), budget: COMPLETION_BUDGET }, state as ShephyState);
  return {
    name: "shephy",
    evaluate({ game, after }) {
      return evaluate(game, after);
    },
    value(game, state) {
      const s = state as ShephyState;
      if (s.result !== null) return must(game.returns(s)[0], "shephy evaluator: the solitaire's return");
      return Math.tanh(evaluate(game, s) / VALUE_SCALE);
    },
  };
}
