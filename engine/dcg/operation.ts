import type { Seat } from "./battle-data.ts";
import type { BattleData } from "./battle-data.ts";
import type { BattleIndex } from "./battle-index.ts";
import { HOME, inEnemyHome, NEIGHBOUR, PLACEMENT } from "./board.ts";
import type { Decision } from "./decision.ts";
import {
  CHARGE,
  directOf,
  placedOf,
  DRAW,
  FEINT_DECLARE,
  FEINT_PASS,
  moveRetryOf,
  REACT_NONE,
  STRATEGY_CONFIRM,
  TURN_FINISH,
  type DecisionTable,
} from "./decision-table.ts";
import { HAND_CAP } from "./ops.ts";
import { canAttack, canMove, moveCost } from "./params.ts";
import type { Pool } from "./pool.ts";

/** StrategyMoves of an already placed rubric, per player (placing an unplaced one is always allowed). */
export const STRATEGY_REMOVES = 10;

/**
 * The dcg design's Operations: what the actor may do now, each with its cells. THE single source of
 * legality. Stable order: by operation (the order below), then hand order / instance id, then cell.
 * `t` interns the (card, cell) decisions (the caller's DcgCache keeps it).
 */
export function legal(s: BattleData, pool: Pool, t: DecisionTable, index: BattleIndex): Decision[] {
  const st = s.state;
  switch (st.kind) {
    case "Strategy":
      return strategyOps(s, st.seat, t, index);
    case "Draw": {
      const seat = s.turnPlayer;
      const out: Decision[] = [];
      if (s.books[seat].length > 0 && s.hands[seat].length < HAND_CAP) out.push(DRAW);
      out.push(CHARGE);
      return out;
    }
    case "Main":
      return mainOps(s, pool, s.turnPlayer, t, index);
    case "MoveDeclare":
      return reactOps(s, pool, (1 - s.turnPlayer) as Seat, t);
    case "MoveRetry": {
      const out: Decision[] = [];
      if (s.players[s.turnPlayer].mp >= st.cost) {
        for (let dir = 0; dir < 4; dir++) {
          const to = NEIGHBOUR[st.from * 4 + dir]!;
          if (to >= 0 && s.cells[to]! < 0) out.push(moveRetryOf(to));
        }
      }
      out.push(moveRetryOf(-1));
      return out;
    }
    case "FeintDeclare": {
      const f = s.cards[st.feint]!;
      const def = pool.cards[f.def]!;
      const out: Decision[] = [];
      if (def.feint?.on === st.on && s.players[st.seat].mp >= def.cost) out.push(FEINT_DECLARE);
      out.push(FEINT_PASS);
      return out;
    }
    case "BattleFinish":
      return [];
    default:
      return [];
  }
}

/** The cells the placed ones of `own` (strategy rubrics) stand on. */
function placedCells(s: BattleData, own: readonly number[]): number[] {
  const occupied: number[] = [];
  for (let i = 0; i < own.length; i++) {
    const c = s.cards[own[i]!]!;
    if (c.layer === "Strategy" && c.cell >= 0) occupied.push(c.cell);
  }
  return occupied;
}

function strategyOps(s: BattleData, seat: Seat, t: DecisionTable, index: BattleIndex): Decision[] {
  const out: Decision[] = [];
  const home = HOME[seat];
  const cards = s.cards;
  // The seat's strategy rubrics (a handful, from the battle index) and the home cells the placed ones stand on.
  const own = index.strategy[seat];
  const occupied = placedCells(s, own);
  const movesLeft = s.players[seat].strategyMoves < STRATEGY_REMOVES;
  let unplaced = 0;
  for (let i = 0; i < own.length; i++) {
    const id = own[i]!;
    const c = cards[id]!;
    if (c.layer !== "Strategy") continue;
    const cell = c.cell;
    if (cell < 0) {
      unplaced++;
      for (let k = 0; k < home.length; k++) if (!occupied.includes(home[k]!)) out.push(placedOf(t.strategyMove, id, home[k]!));
    } else if (movesLeft) {
      for (let k = 0; k < home.length; k++) if (home[k] !== cell) out.push(placedOf(t.strategyMove, id, home[k]!));
    }
  }
  if (unplaced === 0) out.push(STRATEGY_CONFIRM);
  return out;
}

/** The cells of `where` (ascending) with neither a unit nor a face-down feint. */
function freeCells(s: BattleData, where: readonly number[]): number[] {
  const out: number[] = [];
  for (let k = 0; k < where.length; k++) {
    const cell = where[k]!;
    if (s.cells[cell]! < 0 && s.feints[cell]! < 0) out.push(cell);
  }
  return out;
}

function mainOps(s: BattleData, pool: Pool, seat: Seat, t: DecisionTable, index: BattleIndex): Decision[] {
  const out: Decision[] = [];
  const p = s.players[seat];
  if (p.ops < s.cfg.opsPerTurn) {
    const hand = s.hands[seat];
    const cells = s.cells;
    const cards = s.cards;
    const defs = pool.cards;
    // Own rubrics in cell order (they move and attack), and whether one of them costs 3 (at most
    // one such rubric on the field at a time), from the battle index: no card record is read.
    const owners = index.owners;
    const mineCells = index.rubricCells[seat];
    const mine: number[] = [];
    let cost3 = false;
    for (let k = 0; k < mineCells.length; k++) {
      const id = cells[mineCells[k]!]!;
      mine.push(id);
      if (index.rubricCost[id] === 3) cost3 = true;
    }
    // Empty cells (no unit, no feint) of Home(P) and Placement(P), found once for every hand card.
    let home: number[] | null = null;
    let placement: number[] | null = null;
    // Summon: a rubric onto an empty cell of Home(P), an object onto an empty cell of Placement(P).
    for (let i = 0; i < hand.length; i++) {
      const id = hand[i]!;
      const def = defs[cards[id]!.def]!;
      if (def.kind === "feint" || def.cost > p.mp) continue;
      if (def.kind === "rubric" && def.cost === 3 && cost3) continue;
      const where = def.kind === "rubric" ? (home ??= freeCells(s, HOME[seat])) : (placement ??= freeCells(s, PLACEMENT[seat]));
      for (let k = 0; k < where.length; k++) out.push(placedOf(t.summon, id, where[k]!));
    }
    // Feint: face down onto an empty cell of Placement(P), at most one own feint on the field.
    if (p.feint < 0) {
      for (let i = 0; i < hand.length; i++) {
        const id = hand[i]!;
        if (defs[cards[id]!.def]!.kind !== "feint") continue;
        const where = (placement ??= freeCells(s, PLACEMENT[seat]));
        for (let k = 0; k < where.length; k++) out.push(placedOf(t.feint, id, where[k]!));
      }
    }
    // MoveDeclare, then Attack, then Direct, each over own rubrics by cell.
    for (let m = 0; m < mine.length; m++) {
      const id = mine[m]!;
      const c = cards[id]!;
      if (moveCost(s, pool, id) > p.mp || !canMove(s, pool, id)) continue;
      const at = c.cell * 4;
      for (let dir = 0; dir < 4; dir++) {
        const to = NEIGHBOUR[at + dir]!;
        if (to >= 0 && cells[to]! < 0) out.push(placedOf(t.moveDeclare, id, to));
      }
    }
    if (p.attacks >= 1) {
      // One pass for both: attacks go out now, directs wait until every attack is out.
      let directs: Decision[] | null = null;
      const turn = s.turn;
      for (let m = 0; m < mine.length; m++) {
        const id = mine[m]!;
        const c = cards[id]!;
        if (c.summoned === turn || c.attacked === turn || !canAttack(s, pool, id)) continue;
        const at = c.cell * 4;
        for (let dir = 0; dir < 4; dir++) {
          const to = NEIGHBOUR[at + dir]!;
          if (to < 0) continue;
          const target = cells[to]!;
          if (target >= 0 && owners[target] !== seat) out.push(placedOf(t.attack, id, to));
        }
        if (inEnemyHome(c.cell, seat)) (directs ??= []).push(directOf(id));
      }
      if (directs !== null) for (let k = 0; k < directs.length; k++) out.push(directs[k]!);
    }
  }
  out.push(TURN_FINISH);
  return out;
}

function reactOps(s: BattleData, pool: Pool, seat: Seat, t: DecisionTable): Decision[] {
  const out: Decision[] = [REACT_NONE];
  const p = s.players[seat];
  const hand = s.hands[seat];
  const where = PLACEMENT[seat];
  for (let i = 0; i < hand.length; i++) {
    const id = hand[i]!;
    const def = pool.cards[s.cards[id]!.def]!;
    if (def.kind === "object" && def.cost <= p.mp) {
      for (let k = 0; k < where.length; k++) {
        const cell = where[k]!;
        if (s.cells[cell]! < 0 && s.feints[cell]! < 0) out.push(placedOf(t.reactSummon, id, cell));
      }
    }
  }
  if (p.feint < 0) {
    for (let i = 0; i < hand.length; i++) {
      const id = hand[i]!;
      if (pool.cards[s.cards[id]!.def]!.kind !== "feint") continue;
      for (let k = 0; k < where.length; k++) {
        const cell = where[k]!;
        if (s.cells[cell]! < 0 && s.feints[cell]! < 0) out.push(placedOf(t.reactFeint, id, cell));
      }
    }
  }
  return out;
}

/**
 * `legal(...)[pick(n)]`, n the list's length, without building the list in the phases of nearly
 * every decision (Main: about 15 decisions a list, Strategy: about 60, the reaction to a move
 * declaration and Draw: one or two); the rare others (MoveRetry, FeintDeclare) build theirs. The very decision object legal() would hand out at that index, so a random
 * playout that picks through this follows the same game as one that picks from the list. `pick`
 * is called exactly once, with n >= 1, and must return an integer in 0..n-1. `scratch` is written
 * and read within the call only (the caller's DcgCache keeps it). A mirror of strategyOps and mainOps, block by block
 * in their order: test/dcg/sample-legal.test.ts holds it to legal() at every index of random games.
 */
/** sampleLegal's scratch: the block counts of one Main-phase list (grown when a list has more blocks). */
export class SampleScratch {
  blocks = new Int32Array(64);
}

export function sampleLegal(s: BattleData, pool: Pool, t: DecisionTable, index: BattleIndex, pick: (n: number) => number, scratch: SampleScratch): Decision {
  const st = s.state;
  switch (st.kind) {
    case "Main":
      return sampleMain(s, pool, s.turnPlayer, t, index, pick, scratch);
    case "MoveDeclare":
      return sampleReact(s, pool, (1 - s.turnPlayer) as Seat, t, pick);
    case "Draw": {
      const seat = s.turnPlayer;
      const draw = s.books[seat].length > 0 && s.hands[seat].length < HAND_CAP;
      return pick(draw ? 2 : 1) === 0 && draw ? DRAW : CHARGE;
    }
    case "Strategy":
      return sampleStrategy(s, st.seat, t, index, pick);
    default: {
      const list = legal(s, pool, t, index);
      return list[pick(list.length)]!;
    }
  }
}

/** reactOps' decision at the index `pick` chooses: reactNone, each object's summons, each feint's cells. */
function sampleReact(s: BattleData, pool: Pool, seat: Seat, t: DecisionTable, pick: (n: number) => number): Decision {
  const p = s.players[seat];
  const hand = s.hands[seat];
  const where = PLACEMENT[seat];
  const defs = pool.cards;
  let free = -1;
  let n = 1;
  for (let i = 0; i < hand.length; i++) {
    const def = defs[s.cards[hand[i]!]!.def]!;
    if ((def.kind === "object" && def.cost <= p.mp) || (def.kind === "feint" && p.feint < 0)) n += free < 0 ? (free = freeCount(s, where)) : free;
  }
  let k = pick(n);
  if (k === 0) return REACT_NONE;
  k--;
  for (let i = 0; i < hand.length; i++) {
    const id = hand[i]!;
    const def = defs[s.cards[id]!.def]!;
    if (def.kind !== "object" || def.cost > p.mp) continue;
    if (k < free) return placedOf(t.reactSummon, id, nthFree(s, where, k));
    k -= free;
  }
  for (let i = 0; i < hand.length; i++) {
    const id = hand[i]!;
    if (defs[s.cards[id]!.def]!.kind !== "feint") continue;
    if (k < free) return placedOf(t.reactFeint, id, nthFree(s, where, k));
    k -= free;
  }
  throw new Error("dcg sampleLegal: the chosen index lies past the reactions");
}

/** strategyOps' decision at the index `pick` chooses: each rubric's cells counted, then the chosen one's found. */
function sampleStrategy(s: BattleData, seat: Seat, t: DecisionTable, index: BattleIndex, pick: (n: number) => number): Decision {
  const home = HOME[seat];
  const cards = s.cards;
  const own = index.strategy[seat];
  const occupied = placedCells(s, own);
  let free = 0;
  for (let k = 0; k < home.length; k++) if (!occupied.includes(home[k]!)) free++;
  const movesLeft = s.players[seat].strategyMoves < STRATEGY_REMOVES;
  let n = 0;
  let unplaced = 0;
  for (let i = 0; i < own.length; i++) {
    const c = cards[own[i]!]!;
    if (c.layer !== "Strategy") continue;
    if (c.cell < 0) {
      unplaced++;
      n += free;
    } else if (movesLeft) n += othersThan(home, c.cell);
  }
  if (unplaced === 0) n++;
  let k = pick(n);
  for (let i = 0; i < own.length; i++) {
    const id = own[i]!;
    const c = cards[id]!;
    if (c.layer !== "Strategy") continue;
    const cell = c.cell;
    if (cell < 0) {
      if (k >= free) {
        k -= free;
        continue;
      }
      for (let j = 0; j < home.length; j++) if (!occupied.includes(home[j]!) && k-- === 0) return placedOf(t.strategyMove, id, home[j]!);
    } else if (movesLeft) {
      const count = othersThan(home, cell);
      if (k >= count) {
        k -= count;
        continue;
      }
      for (let j = 0; j < home.length; j++) if (home[j] !== cell && k-- === 0) return placedOf(t.strategyMove, id, home[j]!);
    }
  }
  return STRATEGY_CONFIRM;
}

/** How many cells of `where` are not `cell`. */
function othersThan(where: readonly number[], cell: number): number {
  let n = 0;
  for (let k = 0; k < where.length; k++) if (where[k] !== cell) n++;
  return n;
}

/** How many cells of `where` hold neither a unit nor a face-down feint (freeCells' length). */
function freeCount(s: BattleData, where: readonly number[]): number {
  let n = 0;
  for (let k = 0; k < where.length; k++) {
    const cell = where[k]!;
    if (s.cells[cell]! < 0 && s.feints[cell]! < 0) n++;
  }
  return n;
}

/** The `k`-th (from 0) cell of freeCells(s, where). */
function nthFree(s: BattleData, where: readonly number[], k: number): number {
  for (let j = 0; j < where.length; j++) {
    const cell = where[j]!;
    if (s.cells[cell]! < 0 && s.feints[cell]! < 0 && k-- === 0) return cell;
  }
  return -1;
}

/**
 * mainOps' decision at the index `pick` chooses. One pass counts each block of the list in
 * `scratch.blocks`, laid out as mainOps makes them: the summons of each hand card (H entries, hand
 * order), the feints of each hand card (H), the moves of each own rubric (M, cell order), its
 * attacks (M) and its direct attack (M, 0 or 1), then turnFinish. The chosen block's decision is
 * then found within that block alone.
 */
function sampleMain(
  s: BattleData,
  pool: Pool,
  seat: Seat,
  t: DecisionTable,
  index: BattleIndex,
  pick: (n: number) => number,
  scratch: SampleScratch,
): Decision {
  const p = s.players[seat];
  if (p.ops >= s.cfg.opsPerTurn) {
    pick(1);
    return TURN_FINISH;
  }
  const hand = s.hands[seat];
  const cells = s.cells;
  const cards = s.cards;
  const defs = pool.cards;
  const owners = index.owners;
  const mineCells = index.rubricCells[seat];
  const h = hand.length;
  const m = mineCells.length;
  const end = 2 * h + 3 * m;
  let blocks = scratch.blocks;
  if (blocks.length < end) blocks = scratch.blocks = new Int32Array(2 * end);
  let n = 1; // turnFinish
  // Own rubrics first (their blocks come after the hand's; counting order does not matter): each
  // one's moves, attacks and direct attack from one look at its four neighbours, and whether one
  // of them costs 3.
  const attacks = p.attacks >= 1;
  const turn = s.turn;
  let cost3 = false;
  for (let k = 0; k < m; k++) {
    const id = cells[mineCells[k]!]!;
    const c = cards[id]!;
    if (index.rubricCost[id] === 3) cost3 = true;
    const move = moveCost(s, pool, id) <= p.mp && canMove(s, pool, id);
    const attack = attacks && c.summoned !== turn && c.attacked !== turn && canAttack(s, pool, id);
    let empty = 0;
    let enemy = 0;
    if (move || attack) {
      const at = c.cell * 4;
      for (let dir = 0; dir < 4; dir++) {
        const to = NEIGHBOUR[at + dir]!;
        if (to < 0) continue;
        const target = cells[to]!;
        if (target < 0) empty++;
        else if (owners[target] !== seat) enemy++;
      }
    }
    const direct = attack && inEnemyHome(c.cell, seat) ? 1 : 0;
    if (!move) empty = 0;
    if (!attack) enemy = 0;
    blocks[2 * h + k] = empty;
    blocks[2 * h + m + k] = enemy;
    blocks[2 * h + 2 * m + k] = direct;
    n += empty + enemy + direct;
  }
  let home = -1;
  let placement = -1;
  for (let i = 0; i < h; i++) {
    const def = defs[cards[hand[i]!]!.def]!;
    let summon = 0;
    let feint = 0;
    if (def.kind === "feint") {
      if (p.feint < 0) feint = placement < 0 ? (placement = freeCount(s, PLACEMENT[seat])) : placement;
    } else if (def.cost <= p.mp && !(def.kind === "rubric" && def.cost === 3 && cost3)) {
      summon =
        def.kind === "rubric" ? (home < 0 ? (home = freeCount(s, HOME[seat])) : home) : placement < 0 ? (placement = freeCount(s, PLACEMENT[seat])) : placement;
    }
    blocks[i] = summon;
    blocks[h + i] = feint;
    n += summon + feint;
  }
  let k = pick(n);
  let b = 0;
  while (b < end && k >= blocks[b]!) k -= blocks[b++]!;
  if (b === end) return TURN_FINISH;
  if (b < h) {
    const id = hand[b]!;
    const where = defs[cards[id]!.def]!.kind === "rubric" ? HOME[seat] : PLACEMENT[seat];
    return placedOf(t.summon, id, nthFree(s, where, k));
  }
  if (b < 2 * h) return placedOf(t.feint, hand[b - h]!, nthFree(s, PLACEMENT[seat], k));
  if (b >= 2 * h + 2 * m) return directOf(cells[mineCells[b - 2 * h - 2 * m]!]!);
  const attack = b >= 2 * h + m;
  const id = cells[mineCells[attack ? b - 2 * h - m : b - 2 * h]!]!;
  const at = cards[id]!.cell * 4;
  for (let dir = 0; dir < 4; dir++) {
    const to = NEIGHBOUR[at + dir]!;
    if (to < 0) continue;
    const target = cells[to]!;
    if (attack ? target >= 0 && owners[target] !== seat : target < 0) {
      if (k-- === 0) return attack ? placedOf(t.attack, id, to) : placedOf(t.moveDeclare, id, to);
    }
  }
  throw new Error("dcg sampleLegal: the chosen index lies past its block");
}
