import type { Rng } from "../core/index.ts";
import type { Seat } from "./battle-data.ts";
import type { BattleData, Card, Player } from "./battle-data.ts";
import { cellArray, HOME } from "./board.ts";
import type { Pool } from "./pool.ts";
import { freshCard, type CardInstance } from "./setup.ts";
import type { DcgView } from "./view.ts";
import { defIn } from "./pool.ts";
import { must } from "../core/index.ts";
import { cardIn } from "./battle-data.ts";

/**
 * A full state consistent with what `seat` sees: the cards it cannot see (its own book, the
 * opponent's hand, book and face-down feint, an unrevealed strategy placement) are re-dealt at
 * random among the unseen instances, respecting card kinds (the feint cell gets a feint). The
 * RNG state comes from `rng`, so a searcher cannot predict the real future. `insts`: the card
 * instances of the view's config (setup.ts's instanceDefs).
 */
export function determinizeView(view: DcgView, seat: Seat, rng: Rng, pool: Pool, insts: readonly CardInstance[]): BattleData {
  const enemy = (1 - seat) as Seat;
  const cards: Card[] = [];
  const hidden: [number[], number[]] = [[], []];
  const hiddenStrategy: number[] = [];
  for (let id = 0; id < insts.length; id++) {
    const inst = must(insts[id], "dcg determinize: a card instance");
    const known = view.cards[id];
    if (known) {
      cards.push(known);
      continue;
    }
    if (inst.strategy && inst.owner === enemy && view.turn === 0) {
      cards.push(freshCard(pool, inst.def, inst.owner, "Strategy"));
      hiddenStrategy.push(id);
      continue;
    }
    cards.push(freshCard(pool, inst.def, inst.owner, "Book"));
    hidden[inst.owner].push(id);
  }
  // An enemy that has confirmed its strategy placement has its 5 rubrics on distinct home cells.
  if (hiddenStrategy.length > 0 && view.players[enemy].confirmed) {
    const spots = rng.sample(HOME[enemy], hiddenStrategy.length);
    hiddenStrategy.forEach(
      (id, i) => (cards[id] = { ...cardIn({ cards }, id), cell: must(spots[i], "dcg determinize: a home cell for a hidden strategy rubric") }),
    );
  }
  const feints = cellArray(-1, view.feintOwners.length);
  const players = [null, null] as unknown as [Player, Player];
  const hands: [number[], number[]] = [[], []];
  const books: [number[], number[]] = [[], []];
  for (const who of [0, 1] as const) {
    const pv = view.players[who];
    const pool2 = rng.shuffle(hidden[who].slice());
    let feint = -1;
    if (pv.feintCell >= 0) {
      if (who === seat) {
        feint = view.cards.findIndex(
          (c) => c !== null && c.owner === who && c.layer === "Field" && c.cell === pv.feintCell && defIn(pool, c.def).kind === "feint",
        );
      } else {
        const k = pool2.findIndex((id) => defIn(pool, cardIn({ cards }, id).def).kind === "feint");
        if (k < 0) throw new Error(`determinize: seat ${who} has a face-down feint at cell ${pv.feintCell} but no hidden feint card`);
        feint = pool2.splice(k, 1)[0] ?? -1;
        cards[feint] = { ...cardIn({ cards }, feint), layer: "Field", cell: pv.feintCell };
      }
      feints[pv.feintCell] = feint;
    }
    if (who === seat) hands[who] = view.hand.slice();
    else {
      hands[who] = pool2.splice(0, pv.handSize);
      for (const id of hands[who]) cards[id] = { ...cardIn({ cards }, id), layer: "Hand" };
    }
    books[who] = pool2;
    players[who] = {
      hp: pv.hp,
      mp: pv.mp,
      attacks: pv.attacks,
      draws: pv.draws,
      ops: pv.ops,
      directDamage: pv.directDamage,
      strategyMoves: who === seat ? view.strategyMoves : 0,
      confirmed: pv.confirmed,
      feint,
    };
  }
  let state = view.state;
  if (state.kind === "FeintDeclare" && state.feint < 0) state = { ...state, feint: feints[state.cell] ?? -1 };
  const r = rng.nextU32();
  return {
    cfg: view.cfg,
    rng: [rng.nextU32(), rng.nextU32(), rng.nextU32(), (r | 1) >>> 0],
    state,
    cards,
    cells: view.cells.slice(),
    feints,
    players,
    hands,
    books,
    graves: [view.graves[0].slice(), view.graves[1].slice()],
    turn: view.turn,
    turnPlayer: view.turnPlayer,
    first: view.first,
    finished: view.finished,
    winner: view.winner,
  };
}
