/**
 * A toy game on the interrupt core, unrelated to BlackPoker: requests are named tokens; resolving
 * one appends its name to a log, may trigger other requests (a table), may wait for a decision
 * (names starting with "ask"), and "end" hands the turn on. A score reaching 3 ends the game.
 */
import {
  finishResolution,
  passTurn,
  startFlow,
  type CoreRequest,
  type FlowState,
  type InterruptRules,
  type Speed,
  type Timing,
} from "../../engine/core/interrupt/index.ts";

export interface Token {
  readonly name: string;
}
export interface ToyState {
  readonly flow: FlowState<Token>;
  readonly log: readonly string[];
  readonly score: number;
  readonly over: boolean;
  readonly waiting: string | null;
}

export const req = (controller: number, name: string, speed: Speed = "normal", timing: Timing = "main"): CoreRequest<Token> => ({
  controller,
  speed,
  timing,
  payload: { name },
});

export function toyState(seats = 2, turnPlayer = 0): ToyState {
  return { flow: startFlow<Token>(seats, turnPlayer), log: [], score: 0, over: false, waiting: null };
}

export interface ToyOptions {
  passAfterNormalRequest?: boolean;
  /** name -> what resolving it triggers */
  triggers?: Record<string, readonly CoreRequest<Token>[]>;
  /** name -> what putting it on the stage triggers */
  stagedTriggers?: Record<string, readonly CoreRequest<Token>[]>;
  /** The player picks the order of its triggered requests (the core's `chooseTriggerOrder`). */
  chooseTriggerOrder?: boolean;
}

export function toyRules(opts: ToyOptions = {}): InterruptRules<ToyState, Token> {
  const rules: InterruptRules<ToyState, Token> = {
    passAfterNormalRequest: opts.passAfterNormalRequest ?? true,
    ...(opts.chooseTriggerOrder === undefined ? {} : { chooseTriggerOrder: opts.chooseTriggerOrder }),
    resolve(s, r) {
      const name = r.payload.name;
      let next: ToyState = { ...s, log: s.log.concat(name) };
      if (name === "point") next = { ...next, score: next.score + 1 };
      if (name === "end") next = passTurn(next, (s.flow.turnPlayer + 1) % s.flow.seats);
      if (name.startsWith("ask")) return { suspended: true, state: { ...next, waiting: name } };
      return { suspended: false, state: next, triggered: opts.triggers?.[name] ?? [] };
    },
    staged: (_s, r) => opts.stagedTriggers?.[r.payload.name] ?? [],
    discarded: (s, r) => ({ ...s, log: s.log.concat(`discarded:${r.payload.name}`) }),
    judge: (s) => (s.score >= 3 && !s.over ? { ...s, over: true } : s.over ? s : null),
  };
  return rules;
}

/** The toy's in-resolution decision: answer the waiting "ask" request, then the flow goes on. */
export function answer(s: ToyState, rules: InterruptRules<ToyState, Token>, triggered: readonly CoreRequest<Token>[] = []): ToyState {
  if (s.waiting === null) throw new Error("nothing to answer");
  return finishResolution({ ...s, waiting: null, log: s.log.concat(`answered:${s.waiting}`) }, triggered, rules);
}
