import { must, Rng } from "../core/index.ts";
import { startFlow } from "../core/interrupt/index.ts";
import { ENTRY16, valueOf, type Card } from "./cards.ts";
import type { BlackpokerConfig } from "./config.ts";
import { judgeBlackpoker } from "./judge.ts";
import type { BlackpokerState, PlayerZones, Unit } from "./state.ts";

const HAND = 7;

/**
 * Setup (docs/rules/blackpoker.md): shuffle each Entry16 deck into Life; draw 7; preset the top of Life as
 * a charged bulwark and the next card as a charged soldier; both reveal their Life top until the
 * values differ (revealed cards to the Grave), the higher goes first, draws 1, and takes the turn
 * and the chance. A Life exhausted by the reveals ends the game as a draw.
 */
export function setupBlackpoker(config: BlackpokerConfig, seed: number): BlackpokerState {
  const rng = Rng.seeded(seed);
  const seats = [dealSeat(rng, 0), dealSeat(rng, 2)] as const;
  const graves: [Card[], Card[]] = [[], []];
  let first = -1;
  while (first < 0) {
    const a = seats[0].life.at(-1);
    const b = seats[1].life.at(-1);
    if (a === undefined || b === undefined) break;
    seats[0].life.pop();
    seats[1].life.pop();
    graves[0].push(a);
    graves[1].push(b);
    if (valueOf(a) !== valueOf(b)) first = valueOf(a) > valueOf(b) ? 0 : 1;
  }
  const players: [PlayerZones, PlayerZones] = [
    { ...seats[0], grave: graves[0], fog: [] },
    { ...seats[1], grave: graves[1], fog: [] },
  ];
  const base: BlackpokerState = {
    config,
    flow: startFlow(2, first < 0 ? 0 : first),
    players,
    turn: 1,
    attacked: false,
    bulwarkSet: false,
    combat: null,
    pending: null,
    nextUid: 4,
    nextRid: 0,
    result: first < 0 ? [0, 0] : null,
    rng: rng.save(),
  };
  if (first < 0) return base;
  const state = { ...base, players: first === 0 ? [drawOne(players[0]), players[1]] : [players[0], drawOne(players[1])] };
  return judgeBlackpoker(state) ?? state;
}

/** One seat's shuffled deck dealt: 7 to the hand, then a charged bulwark and a charged soldier (uids `uid`, `uid + 1`); the rest is Life. */
function dealSeat(rng: Rng, uid: number): { life: Card[]; hand: Card[]; field: Unit[] } {
  const deck = rng.shuffle(ENTRY16.slice());
  const draw = (): Card => must(deck.pop(), "blackpoker setup: a card of the 16-card deck");
  const hand = Array.from({ length: HAND }, draw);
  const bulwark: Unit = { uid, bulwark: true, cards: [draw()], charged: true, mod: 0, entered: 0 };
  const soldier: Unit = { uid: uid + 1, bulwark: false, cards: [draw()], charged: true, mod: 0, entered: 0 };
  return { life: deck, hand, field: [bulwark, soldier] };
}

/** The first player's draw of 1 from the top of Life (none when the reveals emptied it). */
function drawOne(z: PlayerZones): PlayerZones {
  const top = z.life.at(-1);
  return top === undefined ? z : { ...z, life: z.life.slice(0, -1), hand: z.hand.concat(top) };
}
