import type { Seat } from "../core/index.ts";
import type { BattleData } from "./battle-data.ts";
import { CELLS, HOME, inEnemyHome, NEIGHBOUR, PLACEMENT } from "./board.ts";
import type { Decision } from "./decision.ts";
import { HAND_CAP } from "./ops.ts";
import { moveCost } from "./params.ts";
import type { Pool } from "./pool.ts";

/** StrategyMoves of an already placed rubric, per player (placing an unplaced one is always allowed). */
export const STRATEGY_REMOVES = 10;

/**
 * Seed 000's Operations: what the actor may do now, each with its cells. THE single source of
 * legality. Stable order: by operation (the order below), then hand order / instance id, then cell.
 */
export function legal(s: BattleData, pool: Pool): Decision[] {
  const st = s.state;
  switch (st.kind) {
    case "Strategy":
      return strategyOps(s, st.seat);
    case "Draw": {
      const seat = s.turnPlayer;
      const out: Decision[] = [];
      if (s.books[seat].length > 0 && s.hands[seat].length < HAND_CAP) out.push({ kind: "drawOrCharge", charge: false });
      out.push({ kind: "drawOrCharge", charge: true });
      return out;
    }
    case "Main":
      return mainOps(s, pool, s.turnPlayer);
    case "MoveDeclare":
      return reactOps(s, pool, (1 - s.turnPlayer) as Seat);
    case "MoveRetry": {
      const out: Decision[] = [];
      if (s.players[s.turnPlayer].mp >= st.cost) {
        for (let dir = 0; dir < 4; dir++) {
          const to = NEIGHBOUR[st.from * 4 + dir]!;
          if (to >= 0 && s.cells[to]! < 0) out.push({ kind: "moveRetry", cell: to });
        }
      }
      out.push({ kind: "moveRetry", cell: -1 });
      return out;
    }
    case "FeintDeclare": {
      const f = s.cards[st.feint]!;
      const def = pool.cards[f.def]!;
      const out: Decision[] = [];
      if (def.feint?.on === st.on && s.players[st.seat].mp >= def.cost) out.push({ kind: "feintDeclare" });
      out.push({ kind: "feintPass" });
      return out;
    }
    case "BattleFinish":
      return [];
    default:
      return [];
  }
}

function strategyOps(s: BattleData, seat: Seat): Decision[] {
  const out: Decision[] = [];
  const home = HOME[seat];
  let unplaced = 0;
  const occupied: number[] = [];
  for (let id = 0; id < s.cards.length; id++) {
    const c = s.cards[id]!;
    if (c.owner === seat && c.layer === "Strategy" && c.cell >= 0) occupied.push(c.cell);
  }
  const movesLeft = s.players[seat].strategyMoves < STRATEGY_REMOVES;
  for (let id = 0; id < s.cards.length; id++) {
    const c = s.cards[id]!;
    if (c.owner !== seat || c.layer !== "Strategy") continue;
    if (c.cell < 0) {
      unplaced++;
      for (const cell of home) if (!occupied.includes(cell)) out.push({ kind: "strategyMove", card: id, cell });
    } else if (movesLeft) {
      for (const cell of home) if (cell !== c.cell) out.push({ kind: "strategyMove", card: id, cell });
    }
  }
  if (unplaced === 0) out.push({ kind: "strategyConfirm" });
  return out;
}

function hasCost3Rubric(s: BattleData, pool: Pool, seat: Seat): boolean {
  for (let cell = 0; cell < CELLS; cell++) {
    const id = s.cells[cell]!;
    if (id < 0) continue;
    const c = s.cards[id]!;
    if (c.owner !== seat) continue;
    const def = pool.cards[c.def]!;
    if (def.kind === "rubric" && def.cost === 3) return true;
  }
  return false;
}

function mainOps(s: BattleData, pool: Pool, seat: Seat): Decision[] {
  const out: Decision[] = [];
  const p = s.players[seat];
  if (p.ops < s.cfg.opsPerTurn) {
    const hand = s.hands[seat];
    const cells = s.cells;
    const feints = s.feints;
    let cost3: boolean | null = null;
    // Summon: a rubric onto an empty cell of Home(P), an object onto an empty cell of Placement(P).
    for (let i = 0; i < hand.length; i++) {
      const id = hand[i]!;
      const def = pool.cards[s.cards[id]!.def]!;
      if (def.kind === "feint" || def.cost > p.mp) continue;
      if (def.kind === "rubric" && def.cost === 3 && (cost3 ??= hasCost3Rubric(s, pool, seat))) continue;
      const where = def.kind === "rubric" ? HOME[seat] : PLACEMENT[seat];
      for (let k = 0; k < where.length; k++) {
        const cell = where[k]!;
        if (cells[cell]! < 0 && feints[cell]! < 0) out.push({ kind: "summon", card: id, cell });
      }
    }
    // Feint: face down onto an empty cell of Placement(P), at most one own feint on the field.
    if (p.feint < 0) {
      for (let i = 0; i < hand.length; i++) {
        const id = hand[i]!;
        if (pool.cards[s.cards[id]!.def]!.kind !== "feint") continue;
        const where = PLACEMENT[seat];
        for (let k = 0; k < where.length; k++) {
          const cell = where[k]!;
          if (cells[cell]! < 0 && feints[cell]! < 0) out.push({ kind: "feint", card: id, cell });
        }
      }
    }
    // MoveDeclare, then Attack, then Direct, each over own rubrics by cell.
    const mine: number[] = [];
    for (let cell = 0; cell < CELLS; cell++) {
      const id = cells[cell]!;
      if (id >= 0 && s.cards[id]!.owner === seat && pool.cards[s.cards[id]!.def]!.kind === "rubric") mine.push(id);
    }
    for (const id of mine) {
      if (moveCost(s, pool, id) > p.mp) continue;
      const from = s.cards[id]!.cell;
      for (let dir = 0; dir < 4; dir++) {
        const to = NEIGHBOUR[from * 4 + dir]!;
        if (to >= 0 && cells[to]! < 0) out.push({ kind: "moveDeclare", card: id, cell: to });
      }
    }
    if (p.attacks >= 1) {
      for (const id of mine) {
        const c = s.cards[id]!;
        if (c.summoned === s.turn || c.attacked === s.turn) continue;
        for (let dir = 0; dir < 4; dir++) {
          const to = NEIGHBOUR[c.cell * 4 + dir]!;
          if (to >= 0 && cells[to]! >= 0 && s.cards[cells[to]!]!.owner !== seat) out.push({ kind: "attack", card: id, cell: to });
        }
      }
      for (const id of mine) {
        const c = s.cards[id]!;
        if (c.summoned === s.turn || c.attacked === s.turn) continue;
        if (inEnemyHome(c.cell, seat)) out.push({ kind: "direct", card: id });
      }
    }
  }
  out.push({ kind: "turnFinish" });
  return out;
}

function reactOps(s: BattleData, pool: Pool, seat: Seat): Decision[] {
  const out: Decision[] = [{ kind: "reactNone" }];
  const p = s.players[seat];
  const hand = s.hands[seat];
  const where = PLACEMENT[seat];
  for (let i = 0; i < hand.length; i++) {
    const id = hand[i]!;
    const def = pool.cards[s.cards[id]!.def]!;
    if (def.kind === "object" && def.cost <= p.mp) {
      for (const cell of where) if (s.cells[cell]! < 0 && s.feints[cell]! < 0) out.push({ kind: "reactSummon", card: id, cell });
    }
  }
  if (p.feint < 0) {
    for (let i = 0; i < hand.length; i++) {
      const id = hand[i]!;
      if (pool.cards[s.cards[id]!.def]!.kind !== "feint") continue;
      for (const cell of where) if (s.cells[cell]! < 0 && s.feints[cell]! < 0) out.push({ kind: "reactFeint", card: id, cell });
    }
  }
  return out;
}

