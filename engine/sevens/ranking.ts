import type { SevensState } from "./state.ts";
import { must } from "../core/index.ts";

/**
 * Final standing, best first: seats that went out sorted by (killed asc, finish order asc), then
 * eliminated seats, the latest elimination best. Meaningful once the game is over.
 */
export function standings(s: SevensState): number[] {
  const finished = s.finishOrder.slice();
  // Stable sort keeps finish order among equal killed counts.
  const killed = (seat: number): number => must(s.killed[seat], "sevens: the killed count of a finished seat");
  finished.sort((a, b) => killed(a) - killed(b));
  return finished.concat(s.eliminated.slice().reverse());
}

/**
 * Reward of rank k (1 = best) among n seats: 1 - 2(k-1)/(n-1), computed as (n+1-2k)/(n-1) so that
 * ranks k and n+1-k get exactly opposite floats (the n rewards sum to zero up to rounding).
 */
export function rankReward(k: number, n: number): number {
  return (n + 1 - 2 * k) / (n - 1);
}

/**
 * 0s (or the dense shaping when configured) until the end, then each seat's rank reward. The
 * shaping, -1 per own killed card and +0.1 per opponent card killed by one's own move, is a running
 * tally only: the final returns replace it, so the summed per-step rewards always equal the rank
 * reward and the training objective is unchanged.
 */
export function sevensReturns(s: SevensState): number[] {
  const n = s.config.seats;
  const out = new Array<number>(n).fill(0);
  if (s.current >= 0) {
    if (s.config.shaping) for (let seat = 0; seat < n; seat++) out[seat] = -(s.killed[seat] ?? 0) + 0.1 * (s.kills[seat] ?? 0);
    return out;
  }
  const order = standings(s);
  order.forEach((seat, i) => (out[seat] = rankReward(i + 1, n)));

  return out;
}
