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

/** A decision with the work it cost (see Facilitatee.decideTimed). */
export interface TimedDecision {
  /** The index into request.legal of the chosen decision. */
  readonly index: number;
  /** Seconds of work for this decision alone: its own computation and its share of any work it shared with other decisions, not time spent waiting for them. */
  readonly seconds: number;
}

export interface Facilitatee<D = any, V = any> {
  readonly name: string;
  /** The index into request.legal of the chosen decision. */
  decide(request: DecisionRequest<D, V>): number | Promise<number>;
  /**
   * Optional, for agents whose decide waits on work shared across decisions (a micro-batched
   * model): the same decision as decide, with the work it cost. The arena's decisions/s uses it
   * when present; otherwise the wall time of decide.
   */
  decideTimed?(request: DecisionRequest<D, V>): Promise<TimedDecision>;
}
