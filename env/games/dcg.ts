import { dcg, type DcgView, type Decision } from "../../engine/dcg/index.ts";
import { asSeat, other } from "../../engine/dcg/battle-data.ts";
import { CELLS, dirBetween, NEIGHBOUR, relCell, relDir } from "../../engine/dcg/board.ts";
import { LIFE_MAX, PARAM_MAX } from "../../engine/dcg/ops.ts";
import { canAttack, effectiveAttack, moveCost } from "../../engine/dcg/params.ts";
import { checkLayout, fieldOffsets, type ActionCodec, type GameAdapter, type ObservationEncoder, type ObservationField } from "../codec.ts";

/**
 * Action ids, all seen from the acting seat: cells are relative (relCell: the actor's back row is
 * row 0, columns keep their order), directions too (relDir: 0 = forward).
 */
const HAND_SLOTS = 7;
const PLACEMENT_CELLS = 20; // relative rows 0..3
const PLAY = 0; // hand slot * 20 + relative cell: summon, feint, reactSummon, reactFeint
const MOVE = PLAY + HAND_SLOTS * PLACEMENT_CELLS; // 140: relative source cell * 4 + relative direction
const ATTACK = MOVE + CELLS * 4; // 280: relative source cell * 4 + relative direction
const DIRECT = ATTACK + CELLS * 4; // 420: relative source cell - 20 (enemy home, relative rows 4..6)
const TURN_FINISH = DIRECT + 15; // 435
const DRAW = TURN_FINISH + 1; // 436
const CHARGE = DRAW + 1; // 437
const REACT_NONE = CHARGE + 1; // 438
const RETRY = REACT_NONE + 1; // 439..442 relative direction from the mover's cell
const CANCEL = RETRY + 4; // 443
const FEINT_DECLARE = CANCEL + 1; // 444
const FEINT_PASS = FEINT_DECLARE + 1; // 445
const STRATEGY = FEINT_PASS + 1; // 446: strategy slot (0..4) * 15 + relative home cell
const STRATEGY_CONFIRM = STRATEGY + 5 * 15; // 521
const FORCE_FINISH = STRATEGY_CONFIRM + 1; // 522
const SIZE = FORCE_FINISH + 1;

function actorSeat(view: DcgView): 0 | 1 {
  if (view.viewer === "spectator") throw new Error("dcg codec: actions are encoded from the actor's view, not a spectator's");
  return view.viewer as 0 | 1;
}

function handSlot(view: DcgView, card: number): number {
  const slot = view.hand.indexOf(card);
  if (slot < 0 || slot >= HAND_SLOTS) throw new Error(`dcg codec: card ${card} is not in the actor's hand`);
  return slot;
}

function cellOfCard(view: DcgView, card: number): number {
  const c = view.cards[card];
  if (!c || c.cell < 0) throw new Error(`dcg codec: card ${card} is not visible on the board`);
  return c.cell;
}

export function encodeAction(view: DcgView, d: Decision): number {
  const seat = actorSeat(view);
  switch (d.kind) {
    case "summon":
    case "feint":
    case "reactSummon":
    case "reactFeint":
      return PLAY + handSlot(view, d.card) * PLACEMENT_CELLS + relCell(d.cell, seat);
    case "moveDeclare":
    case "attack": {
      const from = cellOfCard(view, d.card);
      return (d.kind === "moveDeclare" ? MOVE : ATTACK) + relCell(from, seat) * 4 + relDir(dirBetween(from, d.cell), seat);
    }
    case "direct":
      return DIRECT + relCell(cellOfCard(view, d.card), seat) - 20;
    case "turnFinish":
      return TURN_FINISH;
    case "drawOrCharge":
      return d.charge ? CHARGE : DRAW;
    case "reactNone":
      return REACT_NONE;
    case "moveRetry": {
      if (d.cell < 0) return CANCEL;
      if (view.state.kind !== "MoveRetry") throw new Error("dcg codec: moveRetry outside MoveRetry");
      return RETRY + relDir(dirBetween(view.state.from, d.cell), seat);
    }
    case "feintDeclare":
      return FEINT_DECLARE;
    case "feintPass":
      return FEINT_PASS;
    case "strategyMove":
      return STRATEGY + (d.card - seat * view.cfg.bookSize) * 15 + relCell(d.cell, seat);
    case "strategyConfirm":
      return STRATEGY_CONFIRM;
    case "forceFinish":
      return FORCE_FINISH;
  }
}

/**
 * The decision an action id names in the actor's view, legal or not (null where it names nothing:
 * an empty hand slot, no unit on the source cell): what an illegal id meant, so the server can
 * say why it is refused. Inverse of encodeAction on every legal decision.
 */
export function decodeAction(view: DcgView, id: number): Decision | null {
  if (!Number.isInteger(id) || id < 0 || id >= SIZE) return null;
  const seat = actorSeat(view);
  const unitAt = (rel: number): number => view.cells[relCell(rel, seat)] ?? -1;
  if (id < MOVE) {
    const card = view.hand[Math.floor((id - PLAY) / PLACEMENT_CELLS)];
    if (card === undefined) return null;
    const def = view.cards[card]?.def;
    const feint = def !== undefined && dcg.poolFor(view.cfg).cards[def]?.kind === "feint";
    const react = view.state.kind === "MoveDeclare";
    const kind = feint ? (react ? "reactFeint" : "feint") : react ? "reactSummon" : "summon";
    return { kind, card, cell: relCell((id - PLAY) % PLACEMENT_CELLS, seat) };
  }
  if (id < DIRECT) {
    const base = id < ATTACK ? MOVE : ATTACK;
    const rel = Math.floor((id - base) / 4);
    const card = unitAt(rel);
    if (card < 0) return null;
    const to = NEIGHBOUR[relCell(rel, seat) * 4 + relDir((id - base) % 4, seat)] ?? -1;
    return { kind: base === MOVE ? "moveDeclare" : "attack", card, cell: to };
  }
  if (id < TURN_FINISH) {
    const card = unitAt(id - DIRECT + 20);
    return card < 0 ? null : { kind: "direct", card };
  }
  if (id === TURN_FINISH) return { kind: "turnFinish" };
  if (id === DRAW || id === CHARGE) return { kind: "drawOrCharge", charge: id === CHARGE };
  if (id === REACT_NONE) return { kind: "reactNone" };
  if (id < CANCEL) {
    const st = view.state;
    if (st.kind !== "MoveRetry") return { kind: "moveRetry", cell: -2 };
    return { kind: "moveRetry", cell: NEIGHBOUR[st.from * 4 + relDir(id - RETRY, seat)] ?? -2 };
  }
  if (id === CANCEL) return { kind: "moveRetry", cell: -1 };
  if (id === FEINT_DECLARE) return { kind: "feintDeclare" };
  if (id === FEINT_PASS) return { kind: "feintPass" };
  if (id < STRATEGY_CONFIRM) {
    const slot = Math.floor((id - STRATEGY) / 15);
    return { kind: "strategyMove", card: seat * view.cfg.bookSize + slot, cell: relCell((id - STRATEGY) % 15, seat) };
  }
  if (id === STRATEGY_CONFIRM) return { kind: "strategyConfirm" };
  return { kind: "forceFinish" };
}

const actions: ActionCodec<Decision, DcgView> = {
  size: SIZE,
  layout: [
    "cells are relative to the actor (its back row = row 0, columns unchanged), rel = row*5 + column; directions relative (0 forward, 1 back, 2 left, 3 right)",
    `${PLAY}..${MOVE - 1} play hand slot s at relative placement cell c (0..19): s*20 + c (summon, feint, reactSummon, reactFeint)`,
    `${MOVE}..${ATTACK - 1} moveDeclare: ${MOVE} + relSource*4 + relDir`,
    `${ATTACK}..${DIRECT - 1} attack: ${ATTACK} + relSource*4 + relDir`,
    `${DIRECT}..${TURN_FINISH - 1} direct: ${DIRECT} + relSource - 20 (source in the enemy home)`,
    `${TURN_FINISH} turnFinish`,
    `${DRAW} drawOrCharge draw, ${CHARGE} drawOrCharge charge`,
    `${REACT_NONE} reactNone`,
    `${RETRY}..${RETRY + 3} moveRetry to the mover's neighbour in relDir, ${CANCEL} moveRetry cancel`,
    `${FEINT_DECLARE} feintDeclare, ${FEINT_PASS} feintPass`,
    `${STRATEGY}..${STRATEGY_CONFIRM - 1} strategyMove: ${STRATEGY} + strategySlot*15 + relHomeCell (slot = the rubric's place among the book's 5 strategy rubrics)`,
    `${STRATEGY_CONFIRM} strategyConfirm`,
    `${FORCE_FINISH} forceFinish (the timeout default; never in the mask)`,
  ].join("; "),
  encode: encodeAction,
  decode: decodeAction,
};

// ---------------------------------------------------------------- observation
// One-hots cover the shipped pool. A config's card set appends its cards after the shipped ones:
// they keep every numeric feature but have no one-hot (the layout does not depend on the config).
const K = dcg.pool.cards.length;
const CELL_FEATURES = [
  "own unit",
  "enemy unit",
  "rubric",
  "object",
  "attack / 5",
  "life / 10",
  "cost / 3",
  "poisoned",
  "own unit able to attack this turn (not summoned this turn, not attacked yet)",
  "sealed (NightmareAbility)",
  "move cost / 2 (own rubrics)",
  "carries an area buff",
  "own face-down feint",
  "enemy face-down feint",
];
const PER_CELL = CELL_FEATURES.length + 2 * K;
const PENDING = ["Strategy", "Draw", "Main", "MoveDeclare", "MoveRetry", "FeintDeclare", "BattleFinish"] as const;
const SCALARS = [
  "own HP / hp",
  "enemy HP / hp",
  "own MP / mpCap",
  "enemy MP / mpCap",
  "own attack count / attackCount",
  "enemy attack count / attackCount",
  "own hand size / 7",
  "enemy hand size / 7",
  "own book size / bookSize",
  "enemy book size / bookSize",
  "turn / turnLimit",
  "1 if it is the viewer's turn",
  "1 if the viewer went first",
  "operations used this turn by the turn player / opsPerTurn",
  "own feint on the field",
  "enemy feint on the field",
  "own strategy confirmed",
  "enemy strategy confirmed",
  "own StrategyMoves / 10",
];
const fields: [string, number, string][] = [
  [
    "cells",
    CELLS * PER_CELL,
    `per relative cell (35, the viewer's back row first): ${CELL_FEATURES.join("; ")}; then the unit's card one-hot (${K}), then the own feint's card one-hot (${K}). Own placed strategy rubrics count as own units.`,
  ],
  ["hand", HAND_SLOTS * (K + 2), `per hand slot (7): present, card one-hot (${K}), affordable now (cost <= MP)`],
  ["strategy", 5 * (K + 1), `per own strategy slot (5): unplaced (still to place), card one-hot (${K})`],
  ["scalars", SCALARS.length, SCALARS.join("; ")],
  ["pending", PENDING.length + 1, `one-hot pending decision kind (${PENDING.join(", ")}), then 1 if the viewer must decide`],
  ["focusA", CELLS, "relative cell one-hot: the mover / attacker of the pending decision"],
  ["focusB", CELLS, "relative cell one-hot: the move destination / attack target / feint cell of the pending decision"],
  ["graves", 2 * K, `own then enemy Grave: count per card / 3`],
];
const layout: ObservationField[] = [];
let obsSize = 0;
// Declared ranges (codec.ts), all finite. Cells: the rules bound attack and move cost to
// 0..PARAM_MAX and life to LIFE_MAX (docs/rules/dcg.md, "Stat bounds"), a card costs at most 8, so
// the largest feature is move cost / 2 <= 49.5; the encoder clips to these bounds as well.
// Scalars: fractions clipped to -1..1 (HP goes below 0 on overkill; -1 means -hp or less).
// Graves count copies / 3, and a book may hold 5 copies of a rubric.
const CELL_HIGH = PARAM_MAX / 2;
const RANGES: Record<string, { low: number; high: number }> = {
  cells: { low: 0, high: CELL_HIGH },
  scalars: { low: -1, high: 1 },
  graves: { low: 0, high: 5 / 3 },
};
const clip = (v: number, low: number, high: number) => (v < low ? low : v > high ? high : v);
for (const [name, length, description] of fields) {
  layout.push({ name, offset: obsSize, length, description, ...(RANGES[name] ?? { low: 0, high: 1 }) });
  obsSize += length;
}
checkLayout(obsSize, layout);
const at = fieldOffsets(layout, ["cells", "focusA", "focusB", "graves", "hand", "pending", "scalars", "strategy"]);

type Pool = ReturnType<typeof dcg.poolFor>;
const CELLS_AT = at.cells;
const OWN_FEINT_HOT = CELL_FEATURES.length + K;
const PENDING_INDEX: Readonly<Record<string, number>> = Object.fromEntries(PENDING.map((kind, i) => [kind, i]));

/** Sets out[o + def] when the card is one of the shipped pool's (a card set's own cards have no one-hot). */
function hot(out: Float32Array, o: number, def: number): void {
  if (def < K) out[o + def] = 1;
}

/** One unit's (or placed strategy rubric's) cell features, seen by seat `me`. */
function encodeUnit(out: Float32Array, view: DcgView, pool: Pool, me: 0 | 1, cell: number, id: number, strategy: boolean): void {
  const c = view.cards[id];
  if (!c) return;
  const def = pool.cards[c.def]!;
  const o = CELLS_AT + relCell(cell, me) * PER_CELL;
  const own = c.owner === me;
  const rubric = def.kind === "rubric";
  out[o + (own ? 0 : 1)] = 1;
  out[o + 2] = rubric ? 1 : 0;
  out[o + 3] = def.kind === "object" ? 1 : 0;
  out[o + 4] = clip(effectiveAttack(view, pool, id), 0, PARAM_MAX) / 5;
  out[o + 5] = clip(c.life, 0, LIFE_MAX) / 10;
  out[o + 6] = def.cost / 3;
  out[o + 7] = c.ailment === "poison" ? 1 : 0;
  out[o + 8] = !strategy && own && rubric && c.summoned !== view.turn && c.attacked !== view.turn && canAttack(view, pool, id) ? 1 : 0;
  out[o + 9] = c.sealed ? 1 : 0;
  out[o + 10] = own && rubric ? clip(moveCost(view, pool, id), 0, PARAM_MAX) / 2 : 0;
  out[o + 11] = hasAreaBuff(c.attached) ? 1 : 0;
  hot(out, o + CELL_FEATURES.length, c.def);
}

function hasAreaBuff(attached: readonly { readonly area: unknown }[]): boolean {
  for (let i = 0; i < attached.length; i++) if (attached[i]!.area) return true;
  return false;
}

/** The own face-down feint's card one-hot, on the feint's cell. */
function encodeOwnFeint(out: Float32Array, view: DcgView, pool: Pool, me: 0 | 1, cell: number): void {
  const cards = view.cards;
  for (let id = 0; id < cards.length; id++) {
    const c = cards[id];
    if (c && c.owner === me && c.layer === "Field" && c.cell === cell && pool.cards[c.def]!.kind === "feint") {
      hot(out, CELLS_AT + relCell(cell, me) * PER_CELL + OWN_FEINT_HOT, c.def);
      return;
    }
  }
}

function encodeHand(out: Float32Array, view: DcgView, pool: Pool, me: 0 | 1): void {
  const hand = view.hand;
  const mp = view.players[me].mp;
  for (let slot = 0; slot < hand.length && slot < HAND_SLOTS; slot++) {
    const c = view.cards[hand[slot]!]!;
    const o = at.hand + slot * (K + 2);
    out[o] = 1;
    hot(out, o + 1, c.def);
    out[o + 1 + K] = pool.cards[c.def]!.cost <= mp ? 1 : 0;
  }
}

function encodeScalars(out: Float32Array, view: DcgView, me: 0 | 1, foe: 0 | 1): void {
  const P = view.players;
  const cfg = view.cfg;
  const o = at.scalars;
  out[o] = clip(P[me].hp / cfg.hp, -1, 1);
  out[o + 1] = clip(P[foe].hp / cfg.hp, -1, 1);
  out[o + 2] = clip(P[me].mp / Math.max(1, cfg.mpCap), -1, 1);
  out[o + 3] = clip(P[foe].mp / Math.max(1, cfg.mpCap), -1, 1);
  out[o + 4] = clip(P[me].attacks / Math.max(1, cfg.attackCount), -1, 1);
  out[o + 5] = clip(P[foe].attacks / Math.max(1, cfg.attackCount), -1, 1);
  out[o + 6] = clip(P[me].handSize / 7, -1, 1);
  out[o + 7] = clip(P[foe].handSize / 7, -1, 1);
  out[o + 8] = clip(P[me].bookSize / cfg.bookSize, -1, 1);
  out[o + 9] = clip(P[foe].bookSize / cfg.bookSize, -1, 1);
  out[o + 10] = clip(view.turn / cfg.turnLimit, -1, 1);
  out[o + 11] = view.turnPlayer === me && view.turn > 0 ? 1 : 0;
  out[o + 12] = view.first === me && view.turn > 0 ? 1 : 0;
  out[o + 13] = clip(P[view.turnPlayer].ops / cfg.opsPerTurn, -1, 1);
  out[o + 14] = P[me].feintCell >= 0 ? 1 : 0;
  out[o + 15] = P[foe].feintCell >= 0 ? 1 : 0;
  out[o + 16] = P[me].confirmed ? 1 : 0;
  out[o + 17] = P[foe].confirmed ? 1 : 0;
  out[o + 18] = clip(Math.max(0, view.strategyMoves) / 10, -1, 1);
}

function focus(out: Float32Array, base: number, cell: number, me: 0 | 1): void {
  if (cell >= 0) out[base + relCell(cell, me)] = 1;
}

function encodePending(out: Float32Array, view: DcgView, me: 0 | 1): void {
  const st = view.state;
  out[at.pending + (PENDING_INDEX[st.kind] ?? -1)] = 1;
  out[at.pending + PENDING.length] = view.actor === view.viewer ? 1 : 0;
  if (st.kind === "MoveDeclare") {
    focus(out, at.focusA, st.from, me);
    focus(out, at.focusB, st.to, me);
  } else if (st.kind === "MoveRetry") focus(out, at.focusA, st.from, me);
  else if (st.kind === "FeintDeclare") {
    const c = view.cards[st.card];
    if (c) focus(out, at.focusA, c.cell, me);
    focus(out, at.focusB, st.cell, me);
  }
}

function encodeGraves(out: Float32Array, view: DcgView, k: number, seat: 0 | 1): void {
  const grave = view.graves[seat];
  for (let i = 0; i < grave.length; i++) {
    const c = view.cards[grave[i]!];
    if (c && c.def < K) out[at.graves + k * K + c.def]! += 1 / 3;
  }
}

const observation: ObservationEncoder<DcgView> = {
  version: "dcg-obs-v2",
  size: obsSize,
  layout,
  encode(view, out) {
    out.fill(0, 0, obsSize);
    const pool = dcg.poolFor(view.cfg);
    const me = view.viewer === "spectator" ? 0 : asSeat(view.viewer);
    const foe = other(me);
    const cells = view.cells;
    for (let cell = 0; cell < CELLS; cell++) {
      const id = cells[cell]!;
      if (id >= 0) encodeUnit(out, view, pool, me, cell, id, false);
      const fo = view.feintOwners[cell]!;
      if (fo >= 0) out[CELLS_AT + relCell(cell, me) * PER_CELL + (fo === me ? 12 : 13)] = 1;
    }
    const stratBase = me * view.cfg.bookSize;
    for (let slot = 0; slot < 5; slot++) {
      const c = view.cards[stratBase + slot];
      if (!c || c.layer !== "Strategy") continue;
      if (c.cell >= 0) encodeUnit(out, view, pool, me, c.cell, stratBase + slot, true);
      out[at.strategy + slot * (K + 1)] = c.cell < 0 ? 1 : 0;
      hot(out, at.strategy + slot * (K + 1) + 1, c.def);
    }
    if (view.viewer !== "spectator") {
      const myFeint = view.players[me].feintCell;
      if (myFeint >= 0) encodeOwnFeint(out, view, pool, me, myFeint);
      encodeHand(out, view, pool, me);
    }
    encodeScalars(out, view, me, foe);
    encodePending(out, view, me);
    encodeGraves(out, view, 0, me);
    encodeGraves(out, view, 1, foe);
  },
};

export const dcgAdapter: GameAdapter<Decision, DcgView> = { game: dcg, actions, observation };
