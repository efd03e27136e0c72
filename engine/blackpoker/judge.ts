import type { BlackpokerState } from "./state.ts";
import { zonesOf } from "./zones.ts";

/**
 * Step [9], the win check: a player whose Life is 0 loses; both at 0 -> the turn player loses
 * (current rules) or a draw (6th edition, config.bothLivesZero). A state whose result is already
 * set (turn cap) is over as it is.
 */
export function judgeBlackpoker(s: BlackpokerState): BlackpokerState | null {
  if (s.result !== null) return s.pending === null ? s : { ...s, pending: null };
  const dead0 = zonesOf(s, 0).life.length === 0;
  const dead1 = zonesOf(s, 1).life.length === 0;
  if (!dead0 && !dead1) return null;
  let result: number[];
  if (dead0 && dead1) {
    if (s.config.bothLivesZero === "draw") result = [0, 0];
    else result = s.flow.turnPlayer === 0 ? [-1, 1] : [1, -1];
  } else {
    result = dead0 ? [-1, 1] : [1, -1];
  }
  return { ...s, result, pending: null };
}
