import { applyChecked, type Game } from "../core/index.ts";
import { applyBlackpoker } from "./apply.ts";
import { blackpokerEvents } from "./events.ts";
import { blackpokerMaxDecisions, parseBlackpokerConfig, SEATS, type BlackpokerConfig } from "./config.ts";
import { blackpokerActor, blackpokerExpectation, blackpokerLegal } from "./legal.ts";
import { describeBlackpoker, renderBlackpoker } from "./render.ts";
import { setupBlackpoker } from "./setup.ts";
import type { BlackpokerDecision, BlackpokerState } from "./state.ts";
import { blackpokerView, determinizeBlackpoker, type BlackpokerView } from "./view.ts";

export type { BlackpokerConfig, BothLivesZero, DrawRule, ChanceAfterRequest } from "./config.ts";
export type { BlackpokerDecision, BlackpokerState, BpPayload, Combat, Pending, PendingKind, PlayerZones, Unit, DecisionKind } from "./state.ts";
export type { BlackpokerView, PlayerView, UnitView } from "./view.ts";
export { DECISION_KINDS } from "./state.ts";
export { ACTIONS, ACTION_INDEX, DECLARABLE, SPECS, type ActionName, type ActionSpec } from "./actions.ts";
export { CARD_CODES, ENTRY16, cardLabel, cardOf, valueOf, suitOf, isJoker, JOKER_A, JOKER_B } from "./cards.ts";
export { MAX_UNITS } from "./config.ts";
export { sizeOf, hasHaste } from "./zones.ts";

/** BlackPoker, Light format with the Entry16 deck, on BlackPoker's interrupt core: docs/rules/blackpoker.md. */
export const blackpoker: Game<BlackpokerState, BlackpokerDecision, BlackpokerView, BlackpokerConfig> = {
  info: { id: "blackpoker", version: "1", title: "BlackPoker (Light, Entry16)", minSeats: SEATS, maxSeats: SEATS, defaultSeats: SEATS, zeroSum: true },
  parseConfig: parseBlackpokerConfig,
  setup: setupBlackpoker,
  config: (s) => s.config,
  actor: blackpokerActor,
  legal: blackpokerLegal,
  apply: (s, d) => applyChecked(s, d, blackpokerActor, blackpokerLegal, applyBlackpoker, blackpokerExpectation),
  applyTrusted: applyBlackpoker,
  returns: (s) => (s.result === null ? [0, 0] : s.result.slice()),
  view: blackpokerView,
  expectation: blackpokerExpectation,
  maxDecisions: blackpokerMaxDecisions,
  determinize: determinizeBlackpoker,
  describe: describeBlackpoker,
  events: blackpokerEvents,
  render: renderBlackpoker,
};
