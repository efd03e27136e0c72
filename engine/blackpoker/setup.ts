import { Rng } from "../core/index.ts";
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
  const life: Card[][] = [];
  const hand: Card[][] = [];
  const grave: Card[][] = [[], []];
  const field: Unit[][] = [];
  let uid = 0;
  for (let p = 0; p < 2; p++) {
    const deck = rng.shuffle(ENTRY16.slice());
    const h: Card[] = [];
    for (let i = 0; i < HAND; i++) h.push(deck.pop()!);
    const bulwark: Unit = { uid: uid++, bulwark: true, cards: [deck.pop()!], charged: true, mod: 0, entered: 0 };
    const soldier: Unit = { uid: uid++, bulwark: false, cards: [deck.pop()!], charged: true, mod: 0, entered: 0 };
    life.push(deck);
    hand.push(h);
    field.push([bulwark, soldier]);
  }
  let first = -1;
  while (life[0]!.length > 0 && life[1]!.length > 0) {
    const a = life[0]!.pop()!;
    const b = life[1]!.pop()!;
    grave[0]!.push(a);
    grave[1]!.push(b);
    if (valueOf(a) !== valueOf(b)) {
      first = valueOf(a) > valueOf(b) ? 0 : 1;
      break;
    }
  }
  const players: PlayerZones[] = [0, 1].map((p) => ({ life: life[p]!, hand: hand[p]!, grave: grave[p]!, fog: [], field: field[p]! }));
  const base: BlackpokerState = {
    config,
    flow: startFlow(2, first < 0 ? 0 : first),
    players,
    turn: 1,
    attacked: false,
    bulwarkSet: false,
    combat: null,
    pending: null,
    nextUid: uid,
    nextRid: 0,
    result: first < 0 ? [0, 0] : null,
    rng: rng.save(),
  };
  if (first < 0) return base;
  const z = players[first]!;
  const drawn: PlayerZones = { ...z, life: z.life.slice(0, -1), hand: z.hand.concat(z.life[z.life.length - 1]!) };
  const state = { ...base, players: first === 0 ? [drawn, players[1]!] : [players[0]!, drawn] };
  return judgeBlackpoker(state) ?? state;
}
