import { InvariantError, must, Rng, type RngState } from "../../engine/core/index.ts";
import { CARD_COUNT, sevens, type SevensConfig, type SevensDecision, type SevensState } from "../../engine/sevens/index.ts";
import { agentStreamSeed } from "../spec.ts";
import { dealGameSeed, FILLER, fixtureAgentBase, schedule } from "./tournament.ts";
import { playout, playoutScore, SEARCH_EXPLORATION } from "../evaluators/sevens-plan.ts";
import { mostVisited, searchRoot } from "../evaluators/sevens-search.ts";

/**
 * The most any agent can score against `random` on the arena's own sevens deals.
 *
 * The arena seats a pairing (agent a = `random`, agent b = the hero) at two adjacent seats with
 * `random` fillers elsewhere, and scores the pair on their own ranks. Every `random` seat draws
 * from its own seeded stream (`agents/random.ts`: one `rng.int(legal.length)` per decision, forced
 * ones included), so given the deal and the streams, the whole game is a function of the hero's
 * choices alone. A **clairvoyant** hero that knows every hand and every stream is then a
 * one-player search: it tries its own choices exhaustively (depth first, a transposition table,
 * a cut-off as soon as a win is found, and a cut-off once the rival has gone out with no more
 * killed cards than the hero). Its result on a deal bounds what any agent, however it decides,
 * can score there.
 *
 * A second, tighter bound (`expectiHero`) lets the hero know every hand but not the random seats'
 * future choices: expectimax over their uniform choices. Its tree is far larger, so it is solved
 * exactly only from positions with few cards left in hands.
 */

/** One arena game, seen from the hero: the deal, who is who, and every random seat's stream. */
export interface CeilingGame {
  /** Index of the game in the arena's schedule. */
  readonly index: number;
  readonly deal: number;
  readonly state: SevensState;
  /** The seat the hero (agent b of the pairing) plays. */
  readonly hero: number;
  /** The seat of the pairing's own `random` (agent a): the one the hero is scored against. */
  readonly rival: number;
  /** Each seat's stream, as RandomAgent would hold it before its first decision; null for the hero. */
  readonly streams: readonly (RngState | null)[];
}

/** The stream of a `random` agent the arena seats at `seat` in game `index` (agents/spec.ts). */
export function randomStream(seed: number, index: number, seat: number): RngState {
  return Rng.seeded(agentStreamSeed(fixtureAgentBase(seed, index), seat, "random")).save();
}

/**
 * The games of `npm run arena -- --game sevens --agents random,HERO --games N --seed S` (with the
 * config given), in schedule order, as the arena plays them (agents/arena/tournament.ts).
 */
export function arenaGames(config: SevensConfig, games: number, seed: number): CeilingGame[] {
  return schedule(2, config.seats, games).map((f) => {
    const hero = f.seats.indexOf(1);
    const rival = f.seats.indexOf(0);
    const streams = f.seats.map((agent, seat) => (agent === 1 ? null : randomStream(seed, f.index, seat)));
    if (hero < 0 || rival < 0 || f.seats.some((a) => a !== 0 && a !== 1 && a !== FILLER)) throw new Error(`arena game ${f.index}: unexpected seating`);
    const state = sevens.setup(config, dealGameSeed(seed, f.deal));
    return { index: f.index, deal: f.deal, state, hero, rival, streams };
  });
}

/** A position of the one-player game: the table and where each random stream stands. */
export interface Position {
  readonly state: SevensState;
  readonly streams: readonly (RngState | null)[];
}

/** The hero's result against the rival at the end: 1 win, 0.5 equal returns (never in sevens), 0 loss. */
export function heroScore(s: SevensState, hero: number, rival: number): number {
  const r = sevens.returns(s);
  const d = must(r[hero], "sevens ceiling: the hero's return") - must(r[rival], "sevens ceiling: the rival's return");
  return Math.abs(d) < 1e-9 ? 0.5 : d > 0 ? 1 : 0;
}

/**
 * Plays the random seats (each from its own stream) and the hero's forced decisions until the
 * hero has a choice or the game is over.
 */
export function advance(p: Position, hero: number): Position {
  let s = p.state;
  let streams = p.streams;
  while (s.current >= 0) {
    const legal = sevens.legal(s);
    if (s.current === hero) {
      if (legal.length > 1) break;
      const forced = legal[0];
      if (forced === undefined) throw new InvariantError("sevens ceiling: the hero's forced decision is missing");
      s = sevens.applyTrusted(s, forced);
      continue;
    }
    const seat = s.current;
    const stream = streams[seat];
    if (!stream) throw new Error(`seat ${seat} has no random stream`);
    const rng = Rng.load(stream);
    const pick = rng.int(legal.length);
    if (streams === p.streams) streams = streams.slice();
    (streams as (RngState | null)[])[seat] = rng.save();
    const picked = legal[pick];
    if (picked === undefined) throw new InvariantError("sevens ceiling: a random seat's pick is missing");
    s = sevens.applyTrusted(s, picked);
  }
  return { state: s, streams };
}

/**
 * Plays a game to the end with the hero deciding by `policy` (index into the legal list, asked only
 * when it has a choice). The arena's game with a deterministic hero agent, replayed.
 */
export function replay(g: CeilingGame, policy: (s: SevensState, legal: readonly SevensDecision[]) => number): SevensState {
  let p = advance({ state: g.state, streams: g.streams }, g.hero);
  while (p.state.current >= 0) {
    const legal = sevens.legal(p.state);
    const chosen = must(legal[policy(p.state, legal)], "sevens ceiling: the policy's choice among the legal decisions");
    p = advance({ state: sevens.applyTrusted(p.state, chosen), streams: p.streams }, g.hero);
  }
  return p.state;
}

export interface SearchResult {
  /** The best score (1 win, 0 loss), or null when the node budget ran out first. */
  readonly score: number | null;
  /** Hero choice points visited. */
  readonly nodes: number;
}

/** True when the rival has gone out already with no more killed cards than the hero: a sure loss. */
function rivalSafelyOut(s: SevensState, hero: number, rival: number): boolean {
  return s.finishOrder.includes(rival) && !s.finishOrder.includes(hero) && killedOf(s, hero) >= killedOf(s, rival);
}

/** A seat's cards killed so far (hero and rival are seats of the game). */
function killedOf(s: SevensState, seat: number): number {
  return must(s.killed[seat], "sevens ceiling: a seat's killed cards");
}

/** What decides the rest of the game: the table, the finish and elimination order, passes and the turn. */
function stateKey(s: SevensState): string {
  return `${s.cells.join(",")}|${s.finishOrder.join(",")}|${s.eliminated.join(",")}|${s.passes.join(",")}|${s.current}`;
}

function positionKey(p: Position): string {
  return `${stateKey(p.state)}|${p.streams.map((r) => (r ? r.join(".") : "-")).join("/")}`;
}

/**
 * The hero's choices ordered to find a win early: fewest own cards killed at once, then most of
 * the rival's killed, then most of anyone's.
 */
function orderedChoices(s: SevensState, legal: readonly SevensDecision[], hero: number, rival: number): SevensState[] {
  const ownBefore = killedOf(s, hero);
  const theirsBefore = killedOf(s, rival);
  const killsBefore = must(s.kills[hero], "sevens ceiling: the hero's kills");
  const scored = legal.map((d) => {
    const after = sevens.applyTrusted(s, d);
    const own = killedOf(after, hero) - ownBefore;
    const theirs = killedOf(after, rival) - theirsBefore;
    const kills = must(after.kills[hero], "sevens ceiling: the hero's kills") - killsBefore;
    return { after, key: -CARD_COUNT * CARD_COUNT * own + CARD_COUNT * theirs + kills };
  });
  scored.sort((x, y) => y.key - x.key);
  return scored.map((x) => x.after);
}

/**
 * Exhaustive search of the hero's choices against the random seats' fixed streams: the best score
 * the hero can reach from `start`. `maxNodes` bounds the work (the result is then null).
 */
export function clairvoyant(g: CeilingGame, maxNodes = 5_000_000, start: Position = { state: g.state, streams: g.streams }): SearchResult {
  const { hero, rival } = g;
  const memo = new Map<string, number>();
  let nodes = 0;
  const search = (p0: Position): number | null => {
    const p = advance(p0, hero);
    const s = p.state;
    if (s.current < 0) return heroScore(s, hero, rival);
    if (rivalSafelyOut(s, hero, rival)) return 0;
    const key = positionKey(p);
    const known = memo.get(key);
    if (known !== undefined) return known;
    if (++nodes > maxNodes) return null;
    let best = 0;
    for (const after of orderedChoices(s, sevens.legal(s), hero, rival)) {
      const v = search({ state: after, streams: p.streams });
      if (v === null) return null;
      if (v > best) best = v;
      if (best === 1) break;
    }
    memo.set(key, best);
    return best;
  };
  const score = search(start);
  return { score, nodes };
}

/**
 * Plain enumeration of every sequence of hero choices (no table, no cut-offs, no ordering): the
 * reference the search is tested against, on small positions only.
 */
export function bruteForce(g: CeilingGame, start: Position): number {
  const p = advance(start, g.hero);
  if (p.state.current < 0) return heroScore(p.state, g.hero, g.rival);
  let best = 0;
  for (const d of sevens.legal(p.state)) best = Math.max(best, bruteForce(g, { state: sevens.applyTrusted(p.state, d), streams: p.streams }));
  return best;
}

/** Cards still in hands. */
export function cardsInHands(s: SevensState): number {
  return s.handSize.reduce((a, b) => a + b, 0);
}

/**
 * Expectimax for a hero that knows every hand but not the random seats' choices (uniform over
 * their legal decisions): the hero's best expected score from `s`. Exact; the tree grows fast, so
 * use it only with few cards in hands. `memo` may be shared between calls with the same hero and
 * rival.
 */
export function expectiHero(s: SevensState, hero: number, rival: number, memo: Map<string, number> = new Map()): number {
  return expectimax(
    s,
    hero,
    (end) => heroScore(end, hero, rival),
    memo,
    (t) => (rivalSafelyOut(t, hero, rival) ? 0 : null),
    1,
  );
}

/**
 * The same expectimax with the planner's own objective instead of the arena's pair score: the
 * seat's rank reward minus a hundredth per own card killed (what its playouts score), the seat
 * maximizing it, every other seat uniform.
 */
export function expectedReturn(s: SevensState, seat: number, memo: Map<string, number> = new Map()): number {
  return expectimax(s, seat, (end) => playoutScore(end, seat), memo);
}

/**
 * `seat` maximizes, every other seat chooses uniformly; `value` scores the end, `cut` may settle a
 * position early, and `top` (the best value there is) stops the search of a choice once reached.
 */
function expectimax(
  s: SevensState,
  seat: number,
  value: (end: SevensState) => number,
  memo: Map<string, number>,
  cut: (s: SevensState) => number | null = () => null,
  top = Infinity,
): number {
  if (s.current < 0) return value(s);
  const settled = cut(s);
  if (settled !== null) return settled;
  const key = stateKey(s);
  const known = memo.get(key);
  if (known !== undefined) return known;
  const legal = sevens.legal(s);
  let v: number;
  if (s.current === seat) {
    v = -Infinity;
    for (const d of legal) {
      v = Math.max(v, expectimax(sevens.applyTrusted(s, d), seat, value, memo, cut, top));
      if (v >= top) break;
    }
  } else {
    v = 0;
    for (const d of legal) v += expectimax(sevens.applyTrusted(s, d), seat, value, memo, cut, top);
    v /= legal.length;
  }
  memo.set(key, v);
  return v;
}

/**
 * A hero that sees every hand (not the random seats' choices): the sevens planner's one-ply search
 * run on the real state instead of sampled deals (`playouts` careful playouts per candidate, the
 * same seeds for every candidate), and exact `expectedReturn` once `endgame` or fewer cards are
 * left in hands. It only ever uses the real hands and its own stream, so its score is a lower
 * bound for the best hands-known hero, as `foresightBound` is an upper one.
 */
export function handsKnownPlanner(playouts: number, endgame: number, rng: Rng): (s: SevensState, legal: readonly SevensDecision[]) => number {
  const memo = new Map<string, number>();
  return (s, legal) => {
    const seat = s.current;
    const seeds = Array.from({ length: playouts }, () => rng.nextU32());
    let best = 0;
    let bestValue = -Infinity;
    legal.forEach((d, i) => {
      const after = sevens.applyTrusted(s, d);
      let v = 0;
      if (cardsInHands(after) <= endgame) v = expectedReturn(after, seat, memo);
      else for (const seed of seeds) v += playout(after, seat, Rng.seeded(seed), 0) / playouts;
      if (v > bestValue) {
        bestValue = v;
        best = i;
      }
    });
    return best;
  };
}

/**
 * An upper bound for a hero that knows every hand but not the random seats' future choices: the
 * hero also foresees the random seats' choices until at most `endgame` cards are left in hands,
 * and from there plays the exact expectimax (`expectiHero`). Knowing more never hurts, so this is
 * at least the hands-known hero's expected score; `endgame` 0 gives the clairvoyant bound, and the
 * bound tightens as `endgame` grows (the expectimax costs about ten times more per four cards).
 */
export function foresightBound(g: CeilingGame, endgame: number, memo: Map<string, number> = new Map()): number {
  const { hero, rival } = g;
  const search = (p: Position): number => {
    const s = p.state;
    if (s.current < 0 || cardsInHands(s) <= endgame) return expectiHero(s, hero, rival, memo);
    if (rivalSafelyOut(s, hero, rival)) return 0;
    const legal = sevens.legal(s);
    if (s.current !== hero) {
      const stream = p.streams[s.current];
      if (!stream) throw new Error(`seat ${s.current} has no random stream`);
      const rng = Rng.load(stream);
      const pick = rng.int(legal.length);
      const streams = p.streams.slice();
      streams[s.current] = rng.save();
      return search({ state: sevens.applyTrusted(s, must(legal[pick], "sevens ceiling: a random seat's pick")), streams });
    }
    let best = 0;
    for (const after of orderedChoices(s, legal, hero, rival)) {
      const next = { state: after, streams: p.streams };
      // The clairvoyant hero knows more still: where it cannot win, nothing can.
      if (clairvoyant(g, 1_000_000, next).score === 0) continue;
      best = Math.max(best, search(next));
      if (best === 1) break;
    }
    return best;
  };
  return search({ state: g.state, streams: g.streams });
}

/** What a hands-known search hero maximizes: its rank reward (as the agents do), or its result against the rival alone. */
export type SearchObjective = "rank" | "pair";

/**
 * A hero that sees every hand (not the random seats' choices) and runs the agents' deeper search
 * (`sevens-search.ts`: open-loop UCT over its own moves, the random seats as uniform chance) on
 * the real state: `iterations` per decision. With objective "pair" it also knows which seat it is
 * scored against and maximizes its chance of finishing above that seat. Like `handsKnownPlanner`,
 * a lower bound for the best hero that knows the hands (and, with "pair", the rival).
 */
export function handsKnownSearch(
  g: CeilingGame,
  iterations: number,
  objective: SearchObjective,
  rng: Rng,
): (s: SevensState, legal: readonly SevensDecision[]) => number {
  const score = objective === "pair" ? (end: SevensState) => heroScore(end, g.hero, g.rival) : undefined;
  return (s, legal) => mostVisited(searchRoot(() => s, s.current, legal, { iterations, exploration: SEARCH_EXPLORATION, score }, rng));
}
