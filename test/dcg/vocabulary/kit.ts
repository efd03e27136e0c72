import type { Card } from "../../../engine/dcg/battle-data.ts";
import { Draft, type Trace } from "../../../engine/dcg/draft.ts";
import { evaluate, type Items, type Scope, type Targeting } from "../../../engine/dcg/targeting.ts";
import { trigger as makeTrigger, type Trigger, type TriggerKind, type TriggerType } from "../../../engine/dcg/trigger.ts";
import { at, scenario, type Scenario } from "../scenario.ts";

/** Test kit for the vocabulary: run one Targeting or Effect on a scenario board, outside any ability. */
export { at, scenario };

export function scope(patch: Partial<Scope> = {}): Scope {
  return { consumer: 0, producer: 0, owner: 0, ability: -1, trigger: null, ...patch };
}

export function trig(kind: TriggerKind, patch: Partial<Omit<Trigger, "kind">> & { type?: TriggerType } = {}): Trigger {
  return makeTrigger(kind, patch.type ?? "Effect", patch.actor ?? -1, patch.target ?? -1, patch.player ?? -1, patch.amount ?? 0);
}

/** Evaluates a sentence on the (settled) scenario board. */
export function query(sc: Scenario, sentence: Targeting, s: Partial<Scope> = {}): Items {
  sc.expect(() => undefined);
  return evaluate(new Draft(sc.state, sc.pool), scope(s), sentence);
}

/** The ids a sentence yields. */
export const ids = (sc: Scenario, sentence: Targeting, s: Partial<Scope> = {}): number[] => query(sc, sentence, s).ids;

/** Runs `body` on a traced draft of the scenario state and keeps the result as the new state. */
export function mutate(sc: Scenario, body: (d: Draft) => void): Trace {
  sc.expect(() => undefined);
  const trace: Trace = { commands: [], triggers: [] };
  const d = new Draft(sc.state, sc.pool, trace);
  d.sink = { triggers: [], nos: [] };
  body(d);
  sc.state = d.finish();
  return trace;
}

export const cardOf = (sc: Scenario, id: number): Card => sc.state.cards[id]!;
