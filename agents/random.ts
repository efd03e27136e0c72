import { Rng } from "../engine/core/index.ts";
import type { DecisionRequest, Facilitatee } from "./facilitatee.ts";

/** Uniform over the legal decisions, from its own seeded stream (never the game's). */
export class RandomAgent implements Facilitatee {
  readonly name = "random";
  private readonly rng: Rng;

  constructor(seed: number) {
    this.rng = Rng.seeded(seed);
  }

  decide(request: DecisionRequest): number {
    return this.rng.int(request.legal.length);
  }
}
