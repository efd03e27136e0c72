import { decisionKey } from "../core/index.ts";
import type { BattleData, Seat } from "./battle-data.ts";
import { cellName, HOME, inEnemyHome, NEIGHBOUR, PLACEMENT } from "./board.ts";
import type { Decision } from "./decision.ts";
import { actorOf } from "./flow.ts";
import { legal, STRATEGY_REMOVES } from "./operation.ts";
import { HAND_CAP } from "./ops.ts";
import { canAttack, canMove, moveCost } from "./params.ts";
import type { Pool } from "./pool.ts";

/**
 * The dcg design's "why not" (an Operation's IsSuccess / WillSuccessIfSelect): for a decision that is not
 * legal now, a sentence saying why; null when it is legal. Mirrors the conditions of operation.ts,
 * which stays the one source of legality: when this module finds no reason for a decision that
 * legal() refuses, it says so generically rather than inventing one.
 */
export function explainDecision(s: BattleData, pool: Pool, raw: unknown): string | null {
  if (s.finished) return "the battle is over";
  if (raw === null || typeof raw !== "object" || typeof (raw as { kind?: unknown }).kind !== "string") {
    return "a dcg decision is an object with a kind (see docs/rules/dcg.md)";
  }
  const d = raw as Decision;
  const key = decisionKey(d);
  if (legal(s, pool).some((option) => decisionKey(option) === key)) return null;
  if (d.kind === "forceFinish") return null; // the deadline's default: always applicable
  const expected = PHASE_OF[d.kind];
  if (expected === undefined) return `there is no dcg decision of kind ${JSON.stringify(d.kind)}`;
  const st = s.state;
  if (!expected.includes(st.kind)) {
    return `it is the ${st.kind} step now; ${d.kind} is a decision of the ${expected.join(" or ")} step`;
  }
  const seat = actorOf({ s });
  return reason(s, pool, seat, d) ?? `${d.kind} with these arguments is not among the legal decisions now`;
}

const PHASE_OF: Partial<Record<string, readonly string[]>> = {
  strategyMove: ["Strategy"],
  strategyConfirm: ["Strategy"],
  drawOrCharge: ["Draw"],
  summon: ["Main"],
  feint: ["Main"],
  moveDeclare: ["Main"],
  attack: ["Main"],
  direct: ["Main"],
  turnFinish: ["Main"],
  reactNone: ["MoveDeclare"],
  reactSummon: ["MoveDeclare"],
  reactFeint: ["MoveDeclare"],
  moveRetry: ["MoveRetry"],
  feintDeclare: ["FeintDeclare"],
  feintPass: ["FeintDeclare"],
};

const isInt = (v: unknown): v is number => typeof v === "number" && Number.isInteger(v);

/** Whether `cell` is on the board and orthogonally next to `from`. */
const adjacent = (from: number, cell: unknown): cell is number => isInt(cell) && cell >= 0 && [0, 1, 2, 3].some((dir) => NEIGHBOUR[from * 4 + dir] === cell);

function reason(s: BattleData, pool: Pool, seat: Seat, d: Decision): string | null {
  const p = s.players[seat];
  const nameOf = (id: number): string => {
    const c = s.cards[id];
    const def = c === undefined ? undefined : pool.cards[c.def];
    return def === undefined ? `card #${id}` : def.name;
  };
  const inHand = (id: unknown): string | null => (isInt(id) && s.hands[seat].includes(id) ? null : `card #${String(id)} is not in your hand`);
  const cellCheck = (cell: unknown, where: readonly number[], what: string): string | null => {
    if (!isInt(cell) || cell < 0 || cell >= s.cells.length) return `cell ${String(cell)} is not on the board`;
    if (!where.includes(cell)) return `${what}; ${cellName(cell)} is not one of them`;
    if (s.cells[cell]! >= 0) return `${cellName(cell)} is occupied by ${nameOf(s.cells[cell]!)}`;
    if (s.feints[cell]! >= 0) return `${cellName(cell)} holds a face-down feint`;
    return null;
  };
  const opsLeft = (): string | null => (p.ops >= s.cfg.opsPerTurn ? `you have used all ${s.cfg.opsPerTurn} operations of this turn` : null);
  const ownRubricOnField = (id: unknown): string | null => {
    if (!isInt(id) || s.cards[id] === undefined) return `card #${String(id)} does not exist`;
    const c = s.cards[id]!;
    if (c.owner !== seat) return `${nameOf(id)} is not yours`;
    if (c.layer !== "Field" || c.cell < 0) return `${nameOf(id)} is not on the field`;
    if (pool.cards[c.def]!.kind !== "rubric") return `${nameOf(id)} is an object; only rubrics move and attack`;
    return null;
  };
  switch (d.kind) {
    case "drawOrCharge":
      if (d.charge) return null;
      if (s.books[seat].length === 0) return "your book is empty: you can only charge";
      if (s.hands[seat].length >= HAND_CAP) return `your hand is full (${HAND_CAP} cards): you can only charge`;
      return null;
    case "summon":
    case "reactSummon": {
      if (d.kind === "summon") {
        const ops = opsLeft();
        if (ops) return ops;
      }
      const notHeld = inHand(d.card);
      if (notHeld) return notHeld;
      const def = pool.cards[s.cards[d.card]!.def]!;
      if (def.kind === "feint") return `${def.name} is a feint: it is set face down (a feint decision), not summoned`;
      if (d.kind === "reactSummon" && def.kind !== "object") return `only objects can be summoned in reaction to a move; ${def.name} is a rubric`;
      if (def.cost > p.mp) return `${def.name} costs ${def.cost} MP and you have ${p.mp}`;
      if (
        def.kind === "rubric" &&
        def.cost === 3 &&
        s.cells.some(
          (id) => id >= 0 && s.cards[id]!.owner === seat && pool.cards[s.cards[id]!.def]!.kind === "rubric" && pool.cards[s.cards[id]!.def]!.cost === 3,
        )
      ) {
        return "you already have a cost-3 rubric on the field (at most one at a time)";
      }
      const rubric = def.kind === "rubric";
      return cellCheck(
        d.cell,
        rubric ? HOME[seat] : PLACEMENT[seat],
        rubric
          ? "a rubric is summoned onto an empty cell of your home rows (your first three rows)"
          : "an object is placed onto an empty cell of your first four rows",
      );
    }
    case "feint":
    case "reactFeint": {
      if (d.kind === "feint") {
        const ops = opsLeft();
        if (ops) return ops;
      }
      const notHeld = inHand(d.card);
      if (notHeld) return notHeld;
      const def = pool.cards[s.cards[d.card]!.def]!;
      if (def.kind !== "feint") return `${def.name} is not a feint card`;
      if (p.feint >= 0) return "you already have a face-down feint on the field (at most one)";
      return cellCheck(d.cell, PLACEMENT[seat], "a feint is set onto an empty cell of your first four rows");
    }
    case "moveDeclare": {
      const ops = opsLeft();
      if (ops) return ops;
      const bad = ownRubricOnField(d.card);
      if (bad) return bad;
      if (!canMove(s, pool, d.card)) return `${nameOf(d.card)} cannot move (an ability sets its CanMove to false)`;
      const from = s.cards[d.card]!.cell;
      const cost = moveCost(s, pool, d.card);
      if (cost > p.mp) return `moving ${nameOf(d.card)} costs ${cost} MP and you have ${p.mp}`;
      if (!adjacent(from, d.cell)) {
        return `${nameOf(d.card)} moves one cell up, down, left or right; ${isInt(d.cell) && d.cell >= 0 && d.cell < s.cells.length ? cellName(d.cell) : String(d.cell)} is not next to ${cellName(from)}`;
      }
      if (s.cells[d.cell]! >= 0) return `${cellName(d.cell)} is occupied by ${nameOf(s.cells[d.cell]!)}`;
      return null;
    }
    case "attack":
    case "direct": {
      const ops = opsLeft();
      if (ops) return ops;
      if (p.attacks < 1) return "you have no attacks left this turn";
      const bad = ownRubricOnField(d.card);
      if (bad) return bad;
      const c = s.cards[d.card]!;
      if (c.summoned === s.turn) return `${nameOf(d.card)} was summoned this turn and cannot attack yet`;
      if (c.attacked === s.turn) return `${nameOf(d.card)} has already attacked this turn`;
      if (!canAttack(s, pool, d.card)) return `${nameOf(d.card)} cannot attack (an ability sets its CanAttack to false)`;
      if (d.kind === "direct") {
        return inEnemyHome(c.cell, seat) ? null : `a direct attack is made from the enemy's home rows; ${nameOf(d.card)} is at ${cellName(c.cell)}`;
      }
      if (!adjacent(c.cell, d.cell)) {
        return `${nameOf(d.card)} attacks a cell next to ${cellName(c.cell)} (up, down, left or right)`;
      }
      const target = s.cells[d.cell]!;
      if (target < 0) return `there is no unit at ${cellName(d.cell)} to attack`;
      if (s.cards[target]!.owner === seat) return `${nameOf(target)} at ${cellName(d.cell)} is your own unit`;
      return null;
    }
    case "moveRetry": {
      const st = s.state;
      if (st.kind !== "MoveRetry") return null;
      if (d.cell === -1) return null;
      if (p.mp < st.cost) return `retrying the move costs ${st.cost} MP and you have ${p.mp}`;
      if (!adjacent(st.from, d.cell)) return `the move is retried onto a cell next to ${cellName(st.from)}`;
      if (s.cells[d.cell]! >= 0) return `${cellName(d.cell)} is occupied by ${nameOf(s.cells[d.cell]!)}`;
      return null;
    }
    case "feintDeclare": {
      const st = s.state;
      if (st.kind !== "FeintDeclare") return null;
      const def = pool.cards[s.cards[st.feint]!.def]!;
      if (def.feint?.on !== st.on)
        return `${def.name} answers ${def.feint?.on === "enter" ? "a summon" : "an attack"}, and this window opened on ${st.on === "enter" ? "a summon" : "an attack"}`;
      if (p.mp < def.cost) return `revealing ${def.name} costs ${def.cost} MP and you have ${p.mp}`;
      return null;
    }
    case "strategyMove": {
      if (!isInt(d.card) || s.cards[d.card] === undefined) return `card #${String(d.card)} does not exist`;
      const c = s.cards[d.card]!;
      if (c.owner !== seat || c.layer !== "Strategy") return `${nameOf(d.card)} is not one of your strategy rubrics`;
      if (!isInt(d.cell) || !HOME[seat].includes(d.cell)) return "strategy rubrics are placed on your home rows (your first three rows)";
      if (c.cell >= 0 && p.strategyMoves >= STRATEGY_REMOVES) return `you have used all ${STRATEGY_REMOVES} moves of placed strategy rubrics`;
      if (c.cell === d.cell) return `${nameOf(d.card)} is already at ${cellName(d.cell)}`;
      const other = s.cards.findIndex((o) => o.owner === seat && o.layer === "Strategy" && o.cell === d.cell);
      if (other >= 0 && c.cell < 0) return `${cellName(d.cell)} already holds ${nameOf(other)}`;
      return null;
    }
    case "strategyConfirm": {
      const unplaced = s.cards.filter((c) => c.owner === seat && c.layer === "Strategy" && c.cell < 0).length;
      return unplaced > 0 ? `place every strategy rubric first (${unplaced} still unplaced)` : null;
    }
    default:
      return null;
  }
}
