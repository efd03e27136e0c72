import { Rng } from "../core/index.ts";
import { other, type BattleData, type Card, type Player, type Seat } from "./battle-data.ts";
import { boardCell, boardInstances, type BoardFile } from "./board-file.ts";
import { cellArray } from "./board.ts";
import type { DcgCache } from "./cache.ts";
import { resolveBook, type DcgConfig, type PresetBook } from "./config.ts";
import { Draft, type Trace } from "./draft.ts";
import { advance } from "./flow.ts";
import { effectiveLife } from "./params.ts";
import type { Pool } from "./pool.ts";
import { settle } from "./resolve.ts";
import { defIn, defIndex } from "./pool.ts";

export function freshCard(pool: Pool, def: number, owner: Seat, layer: Card["layer"]): Card {
  return {
    def,
    owner,
    layer,
    cell: -1,
    life: defIn(pool, def).life,
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
export interface CardInstance {
  readonly def: number;
  readonly owner: Seat;
  readonly strategy: boolean;
}

export function instanceDefs(cfg: DcgConfig, pool: Pool, presets: readonly PresetBook[]): CardInstance[] {
  if (cfg.board !== undefined) return boardInstances(cfg.board, pool).map((i) => ({ def: i.def, owner: i.owner, strategy: false }));
  const out: CardInstance[] = [];
  for (const seat of [0, 1] as const) {
    const book = resolveBook(cfg.books[seat], presets);
    book.strategy.forEach((id) => out.push({ def: defIndex(pool, id), owner: seat, strategy: true }));
    book.cards.forEach((id) => out.push({ def: defIndex(pool, id), owner: seat, strategy: false }));
  }
  return out;
}

/**
 * The battle after its automatic setup steps (Initial, Cointoss), waiting for strategy time; `trace`
 * records them. `cache` is the caller's memo across applies (a game passes its own, so a new battle
 * reuses the pool's lookup tables instead of building them again); a fresh one by default.
 */
export function setupBattle(
  cfg: DcgConfig,
  seed: number,
  pool: Pool,
  presets: readonly PresetBook[],
  trace: Trace | null = null,
  cache?: DcgCache,
): BattleData {
  if (cfg.board !== undefined) return boardBattle(cfg, cfg.board, seed, pool, trace, cache);
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
    cells: cellArray(-1),
    feints: cellArray(-1),
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
  const d = new Draft(base, pool, trace, cache);
  advance(d, { kind: "Initial" });
  return d.finish();
}

/**
 * The battle a board file describes (docs/board-file.md), at the turn player's Main phase. Units
 * carry their own ParameterAbilities as a summon gives them; then the board is settled as after
 * any command (NightmareAbility seals, AreaAbility attachments), without resolving the triggers
 * that emits: the position is the given one. The seed drives only what happens from here.
 */
function boardBattle(cfg: DcgConfig, board: BoardFile, seed: number, pool: Pool, trace: Trace | null, cache: DcgCache | undefined): BattleData {
  const cards: Card[] = [];
  const cells = cellArray(-1);
  const feints = cellArray(-1);
  const players: [Player, Player] = [freshPlayer(), freshPlayer()];
  const hands: [number[], number[]] = [[], []];
  const books: [number[], number[]] = [[], []];
  const graves: [number[], number[]] = [[], []];
  for (const inst of boardInstances(board, pool)) {
    const id = cards.length;
    const card = freshCard(pool, inst.def, inst.owner, "Book");
    const e = inst.entry;
    switch (inst.where) {
      case "field": {
        const u = e as Exclude<typeof e, string>;
        const cell = boardCell(u.cell);
        const ailment = "ailment" in u && u.ailment !== undefined ? u.ailment : "none";
        const attached = defIn(pool, inst.def).paramAbilities.map((ability) => ({ ability, producer: id, area: false }));
        // On the field since before the position (summoned at 0, as strategy rubrics): free to act.
        const placed: Card = { ...card, layer: "Field", cell, ailment, summoned: 0, attached };
        cards.push(placed);
        // No life given: its full life (printed life through its own Life abilities), as a summon gives.
        cards[id] = { ...placed, life: "life" in u && u.life !== undefined ? u.life : effectiveLife({ cards }, pool, id) };
        cells[cell] = id;
        break;
      }
      case "feint": {
        const cell = boardCell((e as Exclude<typeof e, string>).cell);
        cards.push({ ...card, layer: "Field", cell });
        feints[cell] = id;
        players[inst.owner] = { ...players[inst.owner], feint: id };
        break;
      }
      case "hand":
        cards.push({ ...card, layer: "Hand" });
        hands[inst.owner].push(id);
        break;
      case "book":
        cards.push(card);
        books[inst.owner].push(id);
        break;
      case "grave":
        cards.push({ ...card, layer: "Grave" });
        graves[inst.owner].push(id);
        break;
    }
  }
  for (const seat of [0, 1] as const) {
    // The board lists the book top first; BattleData draws from the end.
    books[seat].reverse();
    const p = board.players[seat];
    players[seat] = { ...players[seat], hp: p.hp, mp: p.mp, attacks: cfg.attackCount, confirmed: true };
  }
  const turnPlayer = board.turnPlayer;
  const base: BattleData = {
    cfg,
    rng: Rng.seeded(seed).save(),
    state: { kind: "Main" },
    cards,
    cells,
    feints,
    players,
    hands,
    books,
    graves,
    turn: board.turn,
    turnPlayer,
    // The first player plays the odd turns.
    first: board.turn % 2 === 1 ? turnPlayer : other(turnPlayer),
    finished: false,
    winner: -1,
  };
  const d = new Draft(base, pool, trace, cache);
  settle(d);
  return d.finish();
}
