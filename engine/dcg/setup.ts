import { Rng } from "../core/index.ts";
import type { Seat } from "./battle-data.ts";
import type { BattleData, Card, Player } from "./battle-data.ts";
import { CELLS } from "./board.ts";
import { resolveBook, type DcgConfig, type PresetBook } from "./config.ts";
import { Draft, type Trace } from "./draft.ts";
import { advance } from "./flow.ts";
import type { Pool } from "./pool.ts";

export function freshCard(pool: Pool, def: number, owner: Seat, layer: Card["layer"]): Card {
  return {
    def,
    owner,
    layer,
    cell: -1,
    life: pool.cards[def]!.life,
    ailment: "none",
    summoned: -1,
    attacked: -1,
    attached: [],
    sealed: false,
    acts: [],
    actsTurn: -1,
  };
}

export function freshPlayer(): Player {
  return { hp: 0, mp: 0, attacks: 0, draws: 0, ops: 0, directDamage: 0, strategyMoves: 0, confirmed: false, feint: -1 };
}

/**
 * Instance ids: seat 0's book first, then seat 1's; within a book its 5 strategy rubrics, then
 * its other cards in book order. So an id's card is public (books are in the config); where the
 * card is, is what the layers hide.
 */
export function instanceDefs(cfg: DcgConfig, pool: Pool, presets: readonly PresetBook[]): { def: number; owner: Seat; strategy: boolean }[] {
  const out: { def: number; owner: Seat; strategy: boolean }[] = [];
  for (const seat of [0, 1] as const) {
    const book = resolveBook(cfg.books[seat], presets);
    book.strategy.forEach((id) => out.push({ def: pool.byId.get(id)!, owner: seat, strategy: true }));
    book.cards.forEach((id) => out.push({ def: pool.byId.get(id)!, owner: seat, strategy: false }));
  }
  return out;
}

/** The battle after its automatic setup steps (Initial, Cointoss), waiting for strategy time; `trace` records them. */
export function setupBattle(cfg: DcgConfig, seed: number, pool: Pool, presets: readonly PresetBook[], trace: Trace | null = null): BattleData {
  const cards: Card[] = [];
  const books: [number[], number[]] = [[], []];
  for (const inst of instanceDefs(cfg, pool, presets)) {
    const id = cards.length;
    cards.push(freshCard(pool, inst.def, inst.owner, inst.strategy ? "Strategy" : "Book"));
    if (!inst.strategy) books[inst.owner].push(id);
  }
  const base: BattleData = {
    cfg,
    rng: Rng.seeded(seed).save(),
    state: { kind: "Initial" },
    cards,
    cells: new Array<number>(CELLS).fill(-1),
    feints: new Array<number>(CELLS).fill(-1),
    players: [freshPlayer(), freshPlayer()],
    hands: [[], []],
    books,
    graves: [[], []],
    turn: 0,
    turnPlayer: 0,
    first: 0,
    finished: false,
    winner: -1,
  };
  const d = new Draft(base, pool, trace);
  advance(d, { kind: "Initial" });
  return d.finish();
}
