import type { Seat } from "../../engine/core/index.ts";
import { depthOf } from "../../engine/dcg/board.ts";
import type { BattleData } from "../../engine/dcg/index.ts";
import type { EvalInput, Evaluator, EvaluatorOptions } from "./evaluator.ts";
import { cardIn } from "../../engine/dcg/battle-data.ts";

/**
 * The dcg BattleEvaluator (Score = Σ(rewards - costs)). Rewards: damage to the
 * enemy player, enemy units destroyed (their life gone), own units on the field and their advance
 * towards the enemy; costs: damage taken, own units lost, MP spent, and units left far from the
 * enemy (the seed's movement-distance term, turned into distance still to go). A won battle
 * scores WIN, a lost one -WIN (the seed's early stop above 10000).
 *
 * One ply sees nothing of an attack if the opponent's reaction is still pending, so the candidate's
 * state is first settled: while the opponent only has a reaction to make, it is assumed to pass
 * (reactNone, feintPass), a few steps at most.
 */
export const WIN = 100_000;
const W = { hp: 12, unit: 6, life: 1, advance: 0.75, mp: 1, hand: 0.5 };
const PASSIVE_REACTIONS = new Set(["reactNone", "feintPass"]);
const SETTLE_STEPS = 6;

/** Material and position of `seat` minus its opponent's, in score points. */
export function dcgValue(s: BattleData, seat: Seat): number {
  if (s.finished) return s.winner === seat ? WIN : s.winner < 0 ? 0 : -WIN;
  if (seat !== 0 && seat !== 1) throw new Error(`dcg evaluator: no seat ${seat} (a battle has seats 0 and 1)`);
  const other = seat === 0 ? 1 : 0;
  const me = s.players[seat];
  const foe = s.players[other];
  let v = W.hp * (me.hp - foe.hp) + W.mp * (me.mp - foe.mp) + W.hand * (s.hands[seat].length - s.hands[other].length);
  for (const [cell, id] of s.cells.entries()) {
    if (id < 0) continue;
    const c = cardIn(s, id);
    const sign = c.owner === seat ? 1 : -1;
    v += sign * (W.unit + W.life * Math.max(0, c.life) + W.advance * depthOf(cell, c.owner));
  }
  return v;
}

function settle(game: EvalInput["game"], state: unknown, seat: Seat): unknown {
  let s = state;
  for (let i = 0; i < SETTLE_STEPS; i++) {
    const actor = game.actor(s);
    if (actor === "terminal" || actor === seat) break;
    const pass = (game.legal(s) as { kind: string }[]).find((d) => PASSIVE_REACTIONS.has(d.kind));
    if (!pass) break;
    s = game.applyTrusted(s, pass);
  }
  return s;
}

/** A battle's value for `seat` in [-1, 1]: its return when finished, else the squashed material score. */
function squashedValue(s: BattleData, seat: Seat): number {
  if (s.finished) return s.winner === seat ? 1 : s.winner < 0 ? 0 : -1;
  // Squash the material score into (-1, 1): about one unit with 3 life is worth 0.24.
  return Math.tanh(dcgValue(s, seat) / 60);
}

export function dcgEvaluator(_options: EvaluatorOptions): Evaluator {
  return {
    name: "dcg",
    evaluate({ game, before, after, seat }) {
      const settled = settle(game, after, seat) as BattleData;
      return dcgValue(settled, seat) - dcgValue(before as BattleData, seat);
    },
    value(_game, state, seat) {
      return squashedValue(state as BattleData, seat);
    },
    settledValue(game, state, seat) {
      return squashedValue(settle(game, state, seat) as BattleData, seat);
    },
  };
}
