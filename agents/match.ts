import { stateHash, type AnyGame, type GameRecord } from "../engine/core/index.ts";
import type { Facilitatee } from "./facilitatee.ts";

export interface MatchOptions {
  readonly game: AnyGame;
  readonly config: unknown;
  readonly seed: number;
  /** One agent per seat. */
  readonly agents: readonly Facilitatee[];
  /** Called after each decision (logs, progress). */
  readonly onDecision?: (event: DecisionEvent) => void;
  /** Clock for deadlines; injected so tests can drive time. Defaults to none (no deadlines enforced). */
  readonly now?: () => number;
}

export interface DecisionEvent {
  readonly step: number;
  readonly seat: number;
  readonly decision: unknown;
  readonly label: string;
  /** True when the agent missed its deadline and the expectation's default was applied. */
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
 * Plays one game between agents. The runner, not the engine, owns time: when the game's
 * expectation carries a timeout and a default decision and the agent answers too late (or not at
 * all), the default is applied instead (nextTaskExpectation in the board-game framework of docs/sources.md, Killing Sevens' forced pass).
 */
export async function runMatch(options: MatchOptions): Promise<MatchResult> {
  const { game, seed, agents } = options;
  const parsed = game.parseConfig(options.config);
  if (!parsed.ok) throw new MatchError(parsed.error.message);
  const config = parsed.value;
  if (agents.length !== config.seats) {
    throw new MatchError(`${game.info.id} with ${config.seats} seats needs ${config.seats} agents, got ${agents.length}`);
  }
  let state = game.setup(config, seed);
  const decisions: unknown[] = [];
  const limit = game.maxDecisions(config);
  for (;;) {
    const actor = game.actor(state);
    if (actor === "terminal") break;
    if (decisions.length >= limit) throw new MatchError(`${game.info.id} did not end within its bound of ${limit} decisions`);
    const legal = game.legal(state);
    const agent = agents[actor]!;
    const expectation = game.expectation(state);
    const request = { game, seat: actor, view: game.view(state, actor), legal, step: decisions.length };
    let decision: unknown;
    let timedOut = false;
    const deadline = expectation?.timeoutMs;
    if (deadline !== undefined && expectation?.defaultDecision !== undefined && options.now) {
      const start = options.now();
      const answer = await withTimeout(Promise.resolve(agent.decide(request)), deadline);
      if (answer === TIMEOUT || options.now() - start > deadline) {
        decision = expectation.defaultDecision;
        timedOut = true;
      } else {
        decision = pickLegal(agent, legal, answer);
      }
    } else {
      decision = pickLegal(agent, legal, await agent.decide(request));
    }
    const out = game.apply(state, decision);
    if (!out.ok) throw new MatchError(`agent ${agent.name} at seat ${actor}: ${out.error.message}`);
    const before = state;
    state = out.state;
    decisions.push(decision);
    options.onDecision?.({
      step: decisions.length - 1,
      seat: actor,
      decision,
      label: game.describe(before, decision),
      timedOut,
      before,
      after: state,
    });
  }
  const finalHash = stateHash(state);
  return {
    returns: game.returns(state),
    record: { game: game.info.id, version: game.info.version, config, seed, decisions, finalHash },
    finalState: state,
    finalHash,
    decisions: decisions.length,
  };
}

function pickLegal(agent: Facilitatee, legal: readonly unknown[], index: number): unknown {
  if (!Number.isInteger(index) || index < 0 || index >= legal.length) {
    throw new MatchError(`agent ${agent.name} chose index ${index}, but there are ${legal.length} legal decisions`);
  }
  return legal[index];
}

const TIMEOUT = Symbol("timeout");

async function withTimeout<T>(p: Promise<T>, ms: number): Promise<T | typeof TIMEOUT> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const t = new Promise<typeof TIMEOUT>((resolve) => {
    timer = setTimeout(() => resolve(TIMEOUT), ms);
  });
  try {
    return await Promise.race([p, t]);
  } finally {
    clearTimeout(timer);
  }
}
