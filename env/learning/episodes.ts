import type { DecisionRequest, Facilitatee } from "../../agents/facilitatee.ts";
import { deriveSeed, type AnyGame, type Result, type Seat } from "../../engine/core/index.ts";
import { decisionPoint, type DecisionPoint } from "../decision-point.ts";
import { EnvFault, EnvRequestError, describeThrown } from "../errors.ts";
import type { SeatRole } from "../seats.ts";
import { Done, returnsOf, type EnvSlot } from "./env-slot.ts";
import type { SessionSettings } from "./settings.ts";

/** How many consecutive episodes may end before any client seat decides before we call it a fault. */
const MAX_EMPTY_EPISODES = 1000;

/**
 * Runs a learning session's episodes: seats the agents (self-play opponents, rotated when the
 * learner's seat changes), starts episodes, applies the client's decisions and plays agent seats
 * until a client seat must decide, the game ends or the truncation cap is reached.
 */
export class EpisodeRunner {
  constructor(private readonly settings: SessionSettings) {}

  /** Makes the agents of the seating where the learner sits at `learner` (-1 in multi mode), one per seat, null at client seats. */
  makeAgents(envSeed: number, learner: Seat): (Facilitatee | null)[] {
    const s = this.settings;
    // The configured seating keeps the env's own seed; each other seating gets a stream of its own.
    const seed = learner === s.learnerSeat ? envSeed : deriveSeed(envSeed, `seating:${learner}`);
    return this.seating(learner).map((role, seat) => {
      if (role.kind !== "agent") return null;
      let made: Result<Facilitatee>;
      try {
        made = s.createAgent(role.spec, {
          seed,
          seat,
          game: s.game.info.id,
          adapter: s.adapter,
          actionSpecHash: s.spec.actionSpecHash,
          ...(s.modelRoot === undefined ? {} : { modelRoot: s.modelRoot }),
        });
      } catch (e) {
        throw new EnvFault("agent_fault", `creating agent "${role.spec}" for seat ${seat} threw: ${describeThrown(e)}`, undefined, e);
      }
      if (!made.ok) throw new EnvRequestError("invalid_seats", `seats[${seat}]: ${made.error.message}`);
      return made.value;
    });
  }

  /** Sets up the env's next episode and plays agent seats until a client seat decides. */
  beginEpisode(env: EnvSlot, attempt = 0): void | Promise<void> {
    const s = this.settings;
    if (attempt >= MAX_EMPTY_EPISODES) {
      throw new EnvFault("game_fault", `${MAX_EMPTY_EPISODES} episodes in a row ended before any client seat had to decide`, env.index);
    }
    const seed = deriveSeed(env.envSeed, `episode:${env.episode}`);
    if (s.mode === "single") {
      const learner = this.learnerSeatFor(env, seed);
      env.learner = learner;
      env.agents = env.seatings[learner] ??= this.makeAgents(env.envSeed, learner);
    } else {
      env.agents = env.seatings[0] ??= this.makeAgents(env.envSeed, -1);
    }
    env.episode++;
    env.decisions = 0;
    env.point = null;
    env.done = Done.Running;
    try {
      env.state = s.game.setup(s.config, seed);
    } catch (e) {
      throw new EnvFault("game_fault", `${s.game.info.id}.setup threw: ${describeThrown(e)}`, env.index, e);
    }
    const finish = (): void | Promise<void> => {
      // An episode that ended before any client decision teaches nothing: start the next one.
      if (env.done !== Done.Running) return this.beginEpisode(env, attempt + 1);
      env.lastReturns = returnsOf(s, env);
    };
    const p = this.advance(env);
    return p ? p.then(finish) : finish();
  }

  /** Applies a client seat's decision, then plays agent seats until a client seat decides again. */
  applyClient(env: EnvSlot, decision: unknown): void | Promise<void> {
    this.applyDecision(env, decision);
    return this.advance(env);
  }

  /**
   * The roles of the seating where the learner sits at `learner` (single mode): the opponents keep
   * their seat order around it. Multi mode: the configured roles.
   */
  private seating(learner: Seat): readonly SeatRole[] {
    const s = this.settings;
    if (s.mode !== "single" || learner === s.learnerSeat) return s.roles;
    const learnerRole = s.roles[s.learnerSeat]!;
    return [...s.others.slice(0, learner), learnerRole, ...s.others.slice(learner)];
  }

  /** The learner's seat in the env's next episode (`episode` counts from 0), from its seat mode and seeds. */
  private learnerSeatFor(env: EnvSlot, episodeSeed: number): Seat {
    const s = this.settings;
    if (s.mode !== "single") return -1;
    switch (s.learnerSeatMode) {
      case "fixed":
        return s.learnerSeat;
      case "alternating":
        return (s.learnerSeat + env.episode) % s.numSeats;
      case "random":
        return (deriveSeed(episodeSeed, "learnerSeat") >>> 0) % s.numSeats;
    }
  }

  private applyDecision(env: EnvSlot, decision: unknown): void {
    const game = this.settings.game;
    try {
      env.state = game.applyTrusted(env.state, decision);
    } catch (e) {
      throw new EnvFault(
        "game_fault",
        `${game.info.id} rules threw applying decision ${env.decisions} of episode ${env.episode}: ${describeThrown(e)}`,
        env.index,
        e,
      );
    }
    env.decisions++;
  }

  /**
   * Plays agent seats until a client seat must decide, the game ends or the cap truncates it.
   * Synchronous while agents answer synchronously; continues asynchronously from the first agent
   * that returns a promise.
   */
  private advance(env: EnvSlot): void | Promise<void> {
    const { game, maxDecisions, bound, numSeats } = this.settings;
    for (;;) {
      let actor: Seat | "terminal";
      try {
        actor = game.actor(env.state);
      } catch (e) {
        throw new EnvFault("game_fault", `${game.info.id}.actor threw: ${describeThrown(e)}`, env.index, e);
      }
      if (actor === "terminal") {
        env.done = Done.Terminated;
        env.point = null;
        return;
      }
      if (maxDecisions !== null && env.decisions >= maxDecisions) {
        env.done = Done.Truncated;
        env.point = null;
        return;
      }
      if (env.decisions >= bound) {
        throw new EnvFault("game_fault", `${game.info.id} did not end within its declared bound of ${bound} decisions`, env.index);
      }
      if (!Number.isInteger(actor) || actor < 0 || actor >= numSeats) {
        throw new EnvFault("game_fault", `${game.info.id}.actor returned ${String(actor)}, not a seat of ${numSeats}`, env.index);
      }
      const agent = env.agents[actor];
      if (!agent) {
        env.point = this.point(env, actor);
        return;
      }
      let legal: readonly unknown[];
      try {
        legal = game.legal(env.state);
      } catch (e) {
        throw new EnvFault("game_fault", `${game.info.id} rules threw listing decisions: ${describeThrown(e)}`, env.index, e);
      }
      let answer: number | Promise<number>;
      try {
        answer = agent.decide(new LazyRequest(game, env.state, actor, legal, env.decisions));
      } catch (e) {
        throw agentFault(agent, actor, env.index, e);
      }
      if (typeof answer === "number") {
        this.applyAgent(env, agent, actor, legal, answer);
        continue;
      }
      return Promise.resolve(answer).then(
        (index) => {
          this.applyAgent(env, agent, actor as Seat, legal, index);
          return this.advance(env);
        },
        (e: unknown) => {
          throw agentFault(agent, actor as Seat, env.index, e);
        },
      );
    }
  }

  private applyAgent(env: EnvSlot, agent: Facilitatee, seat: Seat, legal: readonly unknown[], index: unknown): void {
    if (typeof index !== "number" || !Number.isInteger(index) || index < 0 || index >= legal.length) {
      throw new EnvFault("agent_fault", `agent ${agent.name} at seat ${seat} chose index ${String(index)} of ${legal.length} legal decisions`, env.index);
    }
    this.applyDecision(env, legal[index]);
  }

  private point(env: EnvSlot, seat: Seat): DecisionPoint {
    const { adapter, game } = this.settings;
    try {
      return decisionPoint(adapter, env.state, seat, env.index);
    } catch (e) {
      if (e instanceof EnvFault) throw e;
      throw new EnvFault("game_fault", `${game.info.id} rules threw listing decisions: ${describeThrown(e)}`, env.index, e);
    }
  }
}

/**
 * An agent's decision request whose view is built on first read: many agents (random, sandbag)
 * never look at it, and a view costs about as much as a rules step.
 */
const UNSET: unique symbol = Symbol("unset");

class LazyRequest implements DecisionRequest {
  private cached: unknown = UNSET;

  constructor(
    readonly game: AnyGame,
    private readonly state: unknown,
    readonly seat: Seat,
    readonly legal: readonly unknown[],
    readonly step: number,
  ) {}

  get view(): unknown {
    if (this.cached === UNSET) this.cached = this.game.view(this.state, this.seat);
    return this.cached;
  }
}

function agentFault(agent: Facilitatee, seat: Seat, env: number, e: unknown): EnvFault {
  if (e instanceof EnvFault) return e;
  return new EnvFault("agent_fault", `agent ${agent.name} at seat ${seat} threw: ${describeThrown(e)}`, env, e);
}
