import { applyChecked, type Game } from "../core/index.ts";
import { fieldSum } from "./cards.ts";
import { applyDecision, MAX_DECISIONS_PER_PLAY, MAX_PLAYS, setup } from "./apply.ts";
import { parseConfig } from "./config.ts";
import { describeDecision } from "./describe.ts";
import { shephyEvents } from "./events.ts";
import { legalDecisions } from "./legal.ts";
import { renderState } from "./render.ts";
import type { ShephyConfig, ShephyDecision, ShephyState } from "./state.ts";
import { determinize, viewOf, type ShephyView } from "./view.ts";

export * from "./cards.ts";
export type { ShephyConfig, ShephyDecision, ShephyMode, ShephyPending, ShephyResult, ShephyState } from "./state.ts";
export type { ShephyView } from "./view.ts";
export { decisionKind, type DecisionKind } from "./legal.ts";
export { unseenCounts } from "./view.ts";

const actor = (s: ShephyState) => (s.result === null ? 0 : ("terminal" as const));

function returns(s: ShephyState): number[] {
  if (s.result === null) return [0];
  if (s.config.mode === "challenge") {
    return [fieldSum(s.field) / 7000];
  }
  return [s.result === "win" ? 1 : -1];
}

/** Shephy solitaire (the Shephy blog series): raise a [1000] sheep before the enemy sheep reaches 1000. */
export const shephy: Game<ShephyState, ShephyDecision, ShephyView, ShephyConfig> = {
  info: { id: "shephy", version: "1", title: "Shephy (solitaire)", minSeats: 1, maxSeats: 1, defaultSeats: 1, zeroSum: false },
  parseConfig,
  setup,
  config: (s) => s.config,
  actor,
  legal: legalDecisions,
  apply: (s, d) => applyChecked(s, d, actor, legalDecisions, applyDecision, () => null),
  applyTrusted: applyDecision,
  returns,
  view: viewOf,
  expectation: () => null,
  maxDecisions: () => MAX_PLAYS * MAX_DECISIONS_PER_PLAY,
  determinize,
  describe: describeDecision,
  events: shephyEvents,
  render: renderState,
};
