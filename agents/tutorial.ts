import { depthOf } from "../engine/dcg/board.ts";
import { asSeat } from "../engine/dcg/battle-data.ts";
import type { DecisionRequest, Facilitatee } from "./facilitatee.ts";
import { isPassive } from "./passive.ts";

export type TutorialHook = (request: DecisionRequest) => number;

type Kinded = { readonly kind: string; readonly card?: number; readonly cell?: number };

/**
 * dcg (the dcg design's TutorialOpponent: "moves forward one cell only"): draws rather than charges,
 * moves a unit one row towards the enemy when it can, otherwise summons, and otherwise passes
 * (ends the turn, declines reactions and feints). Never attacks on purpose.
 */
function dcgTutorial(request: DecisionRequest): number {
  const legal = request.legal as readonly Kinded[];
  const view = request.view as { readonly cards: readonly ({ readonly cell: number } | null)[] };
  const find = (pred: (d: Kinded) => boolean) => legal.findIndex(pred);
  const draw = find((d) => d.kind === "drawOrCharge" && (d as { charge?: boolean }).charge === false);
  if (draw >= 0) return draw;
  const forward = find((d) => {
    if (d.kind !== "moveDeclare" || d.card === undefined || d.cell === undefined) return false;
    const from = view.cards[d.card]?.cell ?? -1;
    const seat = asSeat(request.seat);
    return from >= 0 && depthOf(d.cell, seat) === depthOf(from, seat) + 1;
  });
  if (forward >= 0) return forward;
  const summon = find((d) => d.kind === "summon");
  if (summon >= 0) return summon;
  const passive = legal.findIndex(isPassive);
  return passive >= 0 ? passive : 0;
}

const hooks: Readonly<Record<string, TutorialHook>> = Object.assign(Object.create(null), { dcg: dcgTutorial });

/**
 * TutorialOpponent (the dcg design: a scripted, predictable, very weak opponent). Fixed preference
 * order, no randomness and no lookahead, so a learner can predict it: the game's tutorial hook if
 * it has one (dcg: above); otherwise the first decision in the engine's stable order that is not passive, and a
 * passive one (pass, end turn) only when nothing else is legal.
 */
export class TutorialAgent implements Facilitatee {
  readonly name = "tutorial";

  decide(request: DecisionRequest): number {
    const hook = hooks[request.game.info.id];
    if (hook) return hook(request);
    const active = request.legal.findIndex((d) => !isPassive(d));
    return active >= 0 ? active : 0;
  }
}
