import { gameTutorial } from "./evaluators/index.ts";
import type { DecisionRequest, Facilitatee } from "./facilitatee.ts";
import { isPassive } from "./passive.ts";

/**
 * TutorialOpponent (the dcg design: a scripted, predictable, very weak opponent). Fixed preference
 * order, no randomness and no lookahead, so a learner can predict it: the game's tutorial hook if
 * it has one (agents/evaluators: dcg moves forward one cell at a time); otherwise the first
 * decision in the engine's stable order that is not passive, and a passive one (pass, end turn)
 * only when nothing else is legal.
 */
export class TutorialAgent implements Facilitatee {
  readonly name = "tutorial";

  decide(request: DecisionRequest): number {
    const hook = gameTutorial(request.game.info.id);
    if (hook) return hook(request);
    const active = request.legal.findIndex((d) => !isPassive(d));
    return active >= 0 ? active : 0;
  }
}
