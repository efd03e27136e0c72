import { asSeat } from "../../engine/dcg/battle-data.ts";
import { depthOf } from "../../engine/dcg/board.ts";
import type { DecisionRequest } from "../facilitatee.ts";
import { isPassive } from "../passive.ts";

/** dcg's tutorial is always played with the same beginner books: the aggro preset on both sides. */
export const DCG_TUTORIAL_CONFIG: Readonly<Record<string, unknown>> = Object.freeze({ books: Object.freeze(["vanguard", "vanguard"]) });

type Kinded = { readonly kind: string; readonly card?: number; readonly cell?: number };

/**
 * dcg's tutorial opponent (the dcg design's TutorialOpponent: "moves forward one cell only"): draws
 * rather than charges, moves a unit one row towards the enemy when it can, otherwise summons, and
 * otherwise passes (ends the turn, declines reactions and feints). Never attacks on purpose.
 */
export function dcgTutorial(request: DecisionRequest): number {
  const legal = request.legal as readonly Kinded[];
  const view = request.view as { readonly cards: readonly ({ readonly cell: number } | null)[] };
  const find = (pred: (d: Kinded) => boolean) => legal.findIndex(pred);
  const draw = find((d) => d.kind === "drawOrCharge" && (d as { charge?: boolean }).charge === false);
  if (draw >= 0) return draw;
  const seat = asSeat(request.seat);
  const forward = find((d) => {
    if (d.kind !== "moveDeclare" || d.card === undefined || d.cell === undefined) return false;
    const from = view.cards[d.card]?.cell ?? -1;
    return from >= 0 && depthOf(d.cell, seat) === depthOf(from, seat) + 1;
  });
  if (forward >= 0) return forward;
  const summon = find((d) => d.kind === "summon");
  if (summon >= 0) return summon;
  const passive = legal.findIndex(isPassive);
  return passive >= 0 ? passive : 0;
}
