import { decisionKey } from "../core/index.ts";
import type { BattleData, Seat } from "./battle-data.ts";
import { cellName, HOME, inEnemyHome, NEIGHBOUR, PLACEMENT } from "./board.ts";
import type { Decision } from "./decision.ts";
import type { DcgCache } from "./cache.ts";
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
export function explainDecision(s: BattleData, pool: Pool, raw: unknown, cache: DcgCache): string | null {
  if (s.finished) return "the battle is over";
  if (raw === null || typeof raw !== "object" || typeof (raw as { kind?: unknown }).kind !== "string") {
    return "a dcg decision is an object with a kind (see docs/rules/dcg.md)";
  }
  const d = raw as Decision;
  const key = decisionKey(d);
  if (legal(s, pool, cache.decisions, cache.indexOf(s, pool, false)).some((option) => decisionKey(option) === key)) return null;
  if (d.kind === "forceFinish") return null; // the deadline's default: always applicable
  // An own property only: a kind named like an inherited one (__proto__, constructor) is no dcg kind.
  const expected = Object.hasOwn(PHASE_OF, d.kind) ? PHASE_OF[d.kind] : undefined;
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

type Of<K extends Decision["kind"]> = Extract<Decision, { kind: K }>;

function reason(s: BattleData, pool: Pool, seat: Seat, d: Decision): string | null {
  const why = new WhyNot(s, pool, seat);
  switch (d.kind) {
    case "drawOrCharge":
      return why.draw(d);
    case "summon":
    case "reactSummon":
      return why.summon(d);
    case "feint":
    case "reactFeint":
      return why.feint(d);
    case "moveDeclare":
      return why.move(d);
    case "attack":
    case "direct":
      return why.attack(d);
    case "moveRetry":
      return why.moveRetry(d);
    case "feintDeclare":
      return why.feintDeclare();
    case "strategyMove":
      return why.strategyMove(d);
    case "strategyConfirm":
      return why.strategyConfirm();
    default:
      return null;
  }
}

/** The reasons, one method per kind of decision, over one position seen by the acting seat. */
class WhyNot {
  private readonly p: BattleData["players"][Seat];

  constructor(
    private readonly s: BattleData,
    private readonly pool: Pool,
    private readonly seat: Seat,
  ) {
    this.p = s.players[seat];
  }

  private nameOf(id: number): string {
    const c = this.s.cards[id];
    const def = c === undefined ? undefined : this.pool.cards[c.def];
    return def === undefined ? `card #${id}` : def.name;
  }

  /** The card definition of a card id the caller has checked exists. */
  private defOf(id: number) {
    const c = this.s.cards[id];
    const def = c === undefined ? undefined : this.pool.cards[c.def];
    if (def === undefined) throw new Error(`dcg explain: card #${id} has no definition in the pool`);
    return def;
  }

  private inHand(id: unknown): string | null {
    return isInt(id) && this.s.hands[this.seat].includes(id) ? null : `card #${String(id)} is not in your hand`;
  }

  /** Who stands on a cell (a unit id, or -1). */
  private occupant(cell: number): number {
    return this.s.cells[cell] ?? -1;
  }

  private cellCheck(cell: unknown, where: readonly number[], what: string): string | null {
    const s = this.s;
    if (!isInt(cell) || cell < 0 || cell >= s.cells.length) return `cell ${String(cell)} is not on the board`;
    if (!where.includes(cell)) return `${what}; ${cellName(cell)} is not one of them`;
    if (this.occupant(cell) >= 0) return `${cellName(cell)} is occupied by ${this.nameOf(this.occupant(cell))}`;
    if ((s.feints[cell] ?? -1) >= 0) return `${cellName(cell)} holds a face-down feint`;
    return null;
  }

  private opsLeft(): string | null {
    const limit = this.s.cfg.opsPerTurn;
    return this.p.ops >= limit ? `you have used all ${limit} operations of this turn` : null;
  }

  private ownRubricOnField(id: unknown): string | null {
    const c = isInt(id) ? this.s.cards[id] : undefined;
    if (!isInt(id) || c === undefined) return `card #${String(id)} does not exist`;
    if (c.owner !== this.seat) return `${this.nameOf(id)} is not yours`;
    if (c.layer !== "Field" || c.cell < 0) return `${this.nameOf(id)} is not on the field`;
    if (this.defOf(id).kind !== "rubric") return `${this.nameOf(id)} is an object; only rubrics move and attack`;
    return null;
  }

  draw(d: Of<"drawOrCharge">): string | null {
    if (d.charge) return null;
    if (this.s.books[this.seat].length === 0) return "your book is empty: you can only charge";
    if (this.s.hands[this.seat].length >= HAND_CAP) return `your hand is full (${HAND_CAP} cards): you can only charge`;
    return null;
  }

  /** Whether the seat already has a cost-3 rubric on the field (at most one at a time). */
  private hasCost3Rubric(): boolean {
    return this.s.cells.some((id) => {
      if (id < 0 || this.s.cards[id]?.owner !== this.seat) return false;
      const def = this.defOf(id);
      return def.kind === "rubric" && def.cost === 3;
    });
  }

  summon(d: Of<"summon" | "reactSummon">): string | null {
    const first = (d.kind === "summon" ? this.opsLeft() : null) ?? this.inHand(d.card);
    if (first) return first;
    const def = this.defOf(d.card);
    if (def.kind === "feint") return `${def.name} is a feint: it is set face down (a feint decision), not summoned`;
    if (d.kind === "reactSummon" && def.kind !== "object") return `only objects can be summoned in reaction to a move; ${def.name} is a rubric`;
    if (def.cost > this.p.mp) return `${def.name} costs ${def.cost} MP and you have ${this.p.mp}`;
    if (def.kind === "rubric" && def.cost === 3 && this.hasCost3Rubric()) return "you already have a cost-3 rubric on the field (at most one at a time)";
    const rubric = def.kind === "rubric";
    return this.cellCheck(
      d.cell,
      rubric ? HOME[this.seat] : PLACEMENT[this.seat],
      rubric
        ? "a rubric is summoned onto an empty cell of your home rows (your first three rows)"
        : "an object is placed onto an empty cell of your first four rows",
    );
  }

  feint(d: Of<"feint" | "reactFeint">): string | null {
    const first = (d.kind === "feint" ? this.opsLeft() : null) ?? this.inHand(d.card);
    if (first) return first;
    const def = this.defOf(d.card);
    if (def.kind !== "feint") return `${def.name} is not a feint card`;
    if (this.p.feint >= 0) return "you already have a face-down feint on the field (at most one)";
    return this.cellCheck(d.cell, PLACEMENT[this.seat], "a feint is set onto an empty cell of your first four rows");
  }

  move(d: Of<"moveDeclare">): string | null {
    const { s, pool, p } = this;
    const first = this.opsLeft() ?? this.ownRubricOnField(d.card);
    if (first) return first;
    if (!canMove(s, pool, d.card)) return `${this.nameOf(d.card)} cannot move (an ability sets its CanMove to false)`;
    const from = s.cards[d.card]?.cell ?? -1;
    const cost = moveCost(s, pool, d.card);
    if (cost > p.mp) return `moving ${this.nameOf(d.card)} costs ${cost} MP and you have ${p.mp}`;
    if (!adjacent(from, d.cell)) {
      return `${this.nameOf(d.card)} moves one cell up, down, left or right; ${isInt(d.cell) && d.cell >= 0 && d.cell < s.cells.length ? cellName(d.cell) : String(d.cell)} is not next to ${cellName(from)}`;
    }
    if (this.occupant(d.cell) >= 0) return `${cellName(d.cell)} is occupied by ${this.nameOf(this.occupant(d.cell))}`;
    return null;
  }

  attack(d: Of<"attack" | "direct">): string | null {
    const { s, pool, seat } = this;
    const first = this.opsLeft() ?? (this.p.attacks < 1 ? "you have no attacks left this turn" : null) ?? this.ownRubricOnField(d.card);
    if (first) return first;
    const c = s.cards[d.card];
    if (c === undefined) return `card #${d.card} does not exist`;
    const name = this.nameOf(d.card);
    if (c.summoned === s.turn) return `${name} was summoned this turn and cannot attack yet`;
    if (c.attacked === s.turn) return `${name} has already attacked this turn`;
    if (!canAttack(s, pool, d.card)) return `${name} cannot attack (an ability sets its CanAttack to false)`;
    if (d.kind === "direct") return inEnemyHome(c.cell, seat) ? null : `a direct attack is made from the enemy's home rows; ${name} is at ${cellName(c.cell)}`;
    if (!adjacent(c.cell, d.cell)) return `${name} attacks a cell next to ${cellName(c.cell)} (up, down, left or right)`;
    const target = this.occupant(d.cell);
    if (target < 0) return `there is no unit at ${cellName(d.cell)} to attack`;
    if (s.cards[target]?.owner === seat) return `${this.nameOf(target)} at ${cellName(d.cell)} is your own unit`;
    return null;
  }

  moveRetry(d: Of<"moveRetry">): string | null {
    const st = this.s.state;
    if (st.kind !== "MoveRetry" || d.cell === -1) return null;
    if (this.p.mp < st.cost) return `retrying the move costs ${st.cost} MP and you have ${this.p.mp}`;
    if (!adjacent(st.from, d.cell)) return `the move is retried onto a cell next to ${cellName(st.from)}`;
    if (this.occupant(d.cell) >= 0) return `${cellName(d.cell)} is occupied by ${this.nameOf(this.occupant(d.cell))}`;
    return null;
  }

  feintDeclare(): string | null {
    const st = this.s.state;
    if (st.kind !== "FeintDeclare") return null;
    const def = this.defOf(st.feint);
    if (def.feint?.on !== st.on)
      return `${def.name} answers ${def.feint?.on === "enter" ? "a summon" : "an attack"}, and this window opened on ${st.on === "enter" ? "a summon" : "an attack"}`;
    if (this.p.mp < def.cost) return `revealing ${def.name} costs ${def.cost} MP and you have ${this.p.mp}`;
    return null;
  }

  strategyMove(d: Of<"strategyMove">): string | null {
    const { s, seat } = this;
    const c = isInt(d.card) ? s.cards[d.card] : undefined;
    if (!isInt(d.card) || c === undefined) return `card #${String(d.card)} does not exist`;
    if (c.owner !== seat || c.layer !== "Strategy") return `${this.nameOf(d.card)} is not one of your strategy rubrics`;
    if (!isInt(d.cell) || !HOME[seat].includes(d.cell)) return "strategy rubrics are placed on your home rows (your first three rows)";
    if (c.cell >= 0 && this.p.strategyMoves >= STRATEGY_REMOVES) return `you have used all ${STRATEGY_REMOVES} moves of placed strategy rubrics`;
    if (c.cell === d.cell) return `${this.nameOf(d.card)} is already at ${cellName(d.cell)}`;
    const other = s.cards.findIndex((o) => o.owner === seat && o.layer === "Strategy" && o.cell === d.cell);
    if (other >= 0 && c.cell < 0) return `${cellName(d.cell)} already holds ${this.nameOf(other)}`;
    return null;
  }

  strategyConfirm(): string | null {
    const unplaced = this.s.cards.filter((c) => c.owner === this.seat && c.layer === "Strategy" && c.cell < 0).length;
    return unplaced > 0 ? `place every strategy rubric first (${unplaced} still unplaced)` : null;
  }
}
