import type { AnyGame, Seat } from "../engine/core/index.ts";

/** What a Facilitatee (the dcg design's name for whoever decides at a seat) is given: never the state. */
export interface DecisionRequest<D = any, V = any> {
  readonly game: AnyGame;
  readonly seat: Seat;
  readonly view: V;
  /** The legal decisions, in the engine's stable order. */
  readonly legal: readonly D[];
  /** How many decisions have been made in this game so far. */
  readonly step: number;
}

export interface Facilitatee<D = any, V = any> {
  readonly name: string;
  /** The index into request.legal of the chosen decision. */
  decide(request: DecisionRequest<D, V>): number | Promise<number>;
}
