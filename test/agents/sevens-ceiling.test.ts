import { describe, expect, it } from "vitest";
import { Rng, unwrap } from "../../engine/core/index.ts";
import { sevens, type SevensState } from "../../engine/sevens/index.ts";
import {
  advance,
  arenaGames,
  bruteForce,
  cardsInHands,
  clairvoyant,
  expectedReturn,
  expectiHero,
  foresightBound,
  handsKnownPlanner,
  handsKnownSearch,
  heroScore,
  replay,
  type CeilingGame,
  type Position,
} from "../../agents/arena/sevens-ceiling.ts";
import { playFixture, schedule } from "../../agents/arena/tournament.ts";
import { carefulPlay, playoutScore } from "../../agents/evaluators/sevens-plan.ts";
import { TutorialAgent } from "../../agents/tutorial.ts";

const config = unwrap(sevens.parseConfig({}));
const SEED = 5;
const games = arenaGames(config, 80, SEED);

/** A position of game g late in the game: the hero plays carefully until `cards` are left in hands. */
function endgame(g: CeilingGame, cards: number): Position {
  const rng = Rng.seeded(g.index + 100);
  let p = advance({ state: g.state, streams: g.streams }, g.hero);
  while (p.state.current >= 0 && cardsInHands(p.state) > cards) {
    const legal = sevens.legal(p.state);
    p = advance({ state: sevens.applyTrusted(p.state, legal[carefulPlay(p.state, legal, rng)]!), streams: p.streams }, g.hero);
  }
  return p;
}

/** Expectimax without a table or cut-offs: every line of the random seats, every choice of the hero. */
function plainExpectimax(s: SevensState, hero: number, score: (end: SevensState) => number): number {
  if (s.current < 0) return score(s);
  const values = sevens.legal(s).map((d) => plainExpectimax(sevens.applyTrusted(s, d), hero, score));
  return s.current === hero ? Math.max(...values) : values.reduce((a, b) => a + b, 0) / values.length;
}

describe("sevens ceiling (the most any agent can score against random on the arena's games)", () => {
  it("replays the arena's own games: random seats from their streams, the same seats and deals", async () => {
    const fixtures = schedule(2, config.seats, games.length);
    const tutorial = new TutorialAgent();
    for (const g of games.slice(0, 8)) {
      const f = fixtures[g.index]!;
      const timing = [
        { decisions: 0, seconds: 0 },
        { decisions: 0, seconds: 0 },
      ];
      const arena = await playFixture({ game: sevens, config, agents: ["random", "tutorial"], games: games.length, seed: SEED }, f, timing);
      const mine = replay(g, (s, legal) => tutorial.decide({ game: sevens, seat: s.current, view: sevens.view(s, s.current), legal, step: 0 }));
      expect(sevens.returns(mine)).toEqual(arena.returns);
      // The arena's score is the random agent's (agent a); the hero's is its complement.
      expect(heroScore(mine, g.hero, g.rival)).toBe(1 - arena.score);
    }
  });

  it("matches a plain enumeration of the hero's choices on endgame positions", () => {
    const seen = new Set<number>();
    let compared = 0;
    for (const g of games) {
      for (const cards of [20, 14, 8]) {
        const p = endgame(g, cards);
        if (p.state.current < 0 || p.state.handSize[g.hero]! > 5) continue;
        const exact = bruteForce(g, p);
        expect(clairvoyant(g, 1_000_000, p).score, `game ${g.index} at ${cards} cards`).toBe(exact);
        seen.add(exact);
        compared++;
      }
    }
    expect(compared).toBeGreaterThan(30);
    expect([...seen].sort()).toEqual([0, 1]);
  });

  it("the clairvoyant hero does at least as well as any fixed way of playing (here: careful play)", () => {
    for (const g of games.slice(0, 12)) {
      const rng = Rng.seeded(g.index);
      const careful = heroScore(
        replay(g, (s, legal) => carefulPlay(s, legal, rng)),
        g.hero,
        g.rival,
      );
      expect(clairvoyant(g).score).toBeGreaterThanOrEqual(careful);
    }
  });

  it("expectimax (hands known, random choices unknown) matches a plain expectimax on small endgames", () => {
    let compared = 0;
    const values = new Set<number>();
    for (const g of games) {
      const p = endgame(g, 11);
      if (p.state.current < 0) continue;
      const v = expectiHero(p.state, g.hero, g.rival);
      expect(v).toBeCloseTo(
        plainExpectimax(p.state, g.hero, (end) => heroScore(end, g.hero, g.rival)),
        12,
      );
      // The planner's objective (rank reward, a hundredth less per own card killed) from the same place.
      expect(expectedReturn(p.state, g.hero)).toBeCloseTo(
        plainExpectimax(p.state, g.hero, (end) => playoutScore(end, g.hero)),
        12,
      );
      values.add(Math.round(v * 1000));
      compared++;
    }
    expect(compared).toBeGreaterThan(5);
    // Not only sure wins and sure losses.
    expect([...values].some((v) => v > 0 && v < 1000)).toBe(true);
  });

  it("the foresight bound: with no endgame it is the clairvoyant score; it never exceeds it", () => {
    for (const g of games.slice(0, 10)) {
      const full = clairvoyant(g).score;
      expect(foresightBound(g, 0)).toBe(full);
      expect(foresightBound(g, 10)).toBeLessThanOrEqual(full!);
    }
  });

  it("the hands-known heroes (lower bounds: the planner, the deeper search for either objective): the same seed plays the same game, never beating the clairvoyant", () => {
    const heroes = [
      (g: CeilingGame) => handsKnownPlanner(8, 12, Rng.seeded(g.index)),
      (g: CeilingGame) => handsKnownSearch(g, 60, "rank", Rng.seeded(g.index)),
      (g: CeilingGame) => handsKnownSearch(g, 60, "pair", Rng.seeded(g.index)),
    ];
    for (const hero of heroes) {
      let won = 0;
      for (const g of games.slice(0, 12)) {
        const play = () => replay(g, hero(g));
        const end = play();
        expect(play().cells).toEqual(end.cells);
        const score = heroScore(end, g.hero, g.rival);
        expect(score).toBeLessThanOrEqual(clairvoyant(g).score!);
        won += score;
      }
      // A real player: it wins more than half of these games (random would win about half).
      expect(won).toBeGreaterThan(6);
    }
  });
});
