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

function strategyOps(s: BattleData, seat: Seat, t: DecisionTable, index: BattleIndex): Decision[] {
  const out: Decision[] = [];
  const home = HOME[seat];
  const cards = s.cards;
  // The seat's strategy rubrics (a handful, from the battle index) and the home cells the placed ones stand on.
  const own = index.strategy[seat];
  const occupied: number[] = [];
  for (let i = 0; i < own.length; i++) {
    const c = cards[own[i]!]!;
    if (c.layer === "Strategy" && c.cell >= 0) occupied.push(c.cell);
  }
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
