import { applyChecked, type Game } from "../core/index.ts";
import { parseSevensConfig, sevensMaxDecisions, DEFAULT_SEATS, MAX_SEATS, MIN_SEATS, type SevensConfig } from "./config.ts";
import { setupSevens } from "./setup.ts";
import { sevensActor, sevensExpectation, sevensLegal } from "./legal.ts";
import { applySevens } from "./apply.ts";
import { sevensReturns } from "./ranking.ts";
import { determinizeSevens, sevensView, type SevensView } from "./view.ts";
import { describeSevens, renderSevens } from "./render.ts";
import type { SevensDecision, SevensState } from "./state.ts";
import { explainSevens } from "./explain.ts";
import { sevensEvents } from "./events.ts";

export type { SevensConfig, StartPlayer } from "./config.ts";
export type { SevensDecision, SevensState, PlayDecision, PassDecision } from "./state.ts";
export type { SevensView } from "./view.ts";
export { PASS } from "./state.ts";
export { cardLabel, parseCard, cardOf, suitOf, rankOf, CARD_COUNT } from "./cards.ts";
export { HIDDEN, PLACED, OPENING, DEAD, isEmptyCell, isFilledCell, isDeadCell } from "./board.ts";
export { playableCards } from "./legal.ts";
export { standings, rankReward } from "./ranking.ts";

/** Killing Sevens (殺しの七並べ, the Killing Sevens blog series): docs/rules/sevens.md. */
export const sevens: Game<SevensState, SevensDecision, SevensView, SevensConfig> = {
  info: {
    id: "sevens",
    version: "1",
    title: "Killing Sevens",
    minSeats: MIN_SEATS,
    maxSeats: MAX_SEATS,
    defaultSeats: DEFAULT_SEATS,
    // Every seat ends with a distinct rank 1..N and sum_k (1 - 2(k-1)/(N-1)) = N - N = 0.
    zeroSum: true,
  },
  parseConfig: parseSevensConfig,
  setup: setupSevens,
  config: (s) => s.config,
  actor: sevensActor,
  legal: sevensLegal,
  apply: (s, d) => applyChecked(s, d, sevensActor, sevensLegal, applySevens, sevensExpectation, explainSevens),
  explain: explainSevens,
  applyTrusted: applySevens,
  returns: sevensReturns,
  view: sevensView,
  expectation: sevensExpectation,
  maxDecisions: sevensMaxDecisions,
  determinize: determinizeSevens,
  describe: describeSevens,
  events: sevensEvents,
  render: renderSevens,
};
