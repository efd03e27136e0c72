import { stateHash, type AnyGame, type GameRecord, must } from "../engine/core/index.ts";
import type { Clock } from "./clock.ts";
import { DecisionLoop, DecisionLoopFault, type AppliedDecision } from "./decision-loop.ts";
import type { Facilitatee } from "./facilitatee.ts";

export interface MatchOptions {
  readonly game: AnyGame;
  readonly config: unknown;
  readonly seed: number;
  /** One agent per seat. */
  readonly agents: readonly Facilitatee[];
  /** Called after each decision (logs, progress). */
  readonly onDecision?: (event: DecisionEvent) => void;
  /** The clock deadlines are measured on (systemClock, or a ManualClock in tests). Absent: no deadlines. */
  readonly clock?: Clock;
  /** The deadline of a decision whose game gives none (ms); absent: only the game's own deadlines. */
  readonly turnMs?: number | null;
}

export interface DecisionEvent {
  readonly step: number;
  readonly seat: number;
  readonly decision: unknown;
  readonly label: string;
  /** True when the agent missed its deadline and the default decision was applied. */
  readonly timedOut: boolean;
  readonly before: unknown;
  readonly after: unknown;
}

export interface MatchResult {
  readonly returns: readonly number[];
  readonly record: GameRecord;
  readonly finalState: unknown;
  readonly finalHash: string;
  readonly decisions: number;
}

export class MatchError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "MatchError";
  }
}

/**
 * Plays one game between agents: the decision loop (decision-loop.ts) with an agent at every seat.
 * Given a clock, each decision has the deadline the loop gives it and an agent that answers too
 * late (or not at all) gets the default decision instead.
 */
export async function runMatch(options: MatchOptions): Promise<MatchResult> {
  const { game, seed, agents } = options;
  const parsed = game.parseConfig(options.config);
  if (!parsed.ok) throw new MatchError(parsed.error.message);
  const config = parsed.value;
  if (agents.length !== config.seats) {
    throw new MatchError(`${game.info.id} with ${config.seats} seats needs ${config.seats} agents, got ${agents.length}`);
  }
  const onDecision = options.onDecision;
  const loop = new DecisionLoop({
    game,
    state: game.setup(config, seed),
    driver: (seat) => ({ kind: "agent", agent: must(agents[seat], "runMatch: the agent of a seat") }),
    clock: options.clock ?? null,
    turnMs: options.turnMs ?? null,
    ...(onDecision ? { onDecision: (d: AppliedDecision) => onDecision(decisionEvent(d)) } : {}),
  });
  try {
    await loop.drive();
  } catch (e) {
    throw e instanceof DecisionLoopFault ? new MatchError(e.message) : e;
  }
  const state = loop.state;
  const finalHash = stateHash(state);
  const decisions = [...loop.decisions];
  return {
    returns: game.returns(state),
    record: { game: game.info.id, version: game.info.version, config, seed, decisions, finalHash },
    finalState: state,
    finalHash,
    decisions: decisions.length,
  };
}

function decisionEvent(d: AppliedDecision): DecisionEvent {
  return { step: d.step, seat: d.seat, decision: d.decision, label: d.label, timedOut: d.timedOut, before: d.before, after: d.after };
}
