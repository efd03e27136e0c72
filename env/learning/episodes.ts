import { DecisionLoop, DecisionLoopFault, type SeatDriver } from "../../agents/decision-loop.ts";
import type { Facilitatee } from "../../agents/facilitatee.ts";
import { deriveSeed, type Result, type Seat, must, InvariantError } from "../../engine/core/index.ts";
import { decisionPoint, SeenIds, type DecisionPoint } from "../decision-point.ts";
import { EnvFault, EnvRequestError, describeThrown } from "../errors.ts";
import type { SeatRole } from "../seats.ts";
import { Done, returnsOf, type EnvSlot, pointOf, loopOf } from "./env-slot.ts";
import type { SessionSettings } from "./settings.ts";

/** How many consecutive episodes may end before any client seat decides before we call it a fault. */
const MAX_EMPTY_EPISODES = 1000;

/**
 * Runs a learning session's episodes: seats the agents (self-play opponents, rotated when the
 * learner's seat changes), starts episodes, applies the client's decisions and plays agent seats
 * until a client seat must decide, the game ends or the truncation cap is reached.
 */
export class EpisodeRunner {
  /** The distinct-ids check's scratch, shared by every env's decision points (built one at a time). */
  private readonly seen: SeenIds;

  constructor(private readonly settings: SessionSettings) {
    this.seen = new SeenIds(settings.adapter.actions.size);
  }

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
      env.state = env.game.setup(s.config, seed);
    } catch (e) {
      throw new EnvFault("game_fault", `${s.game.info.id}.setup threw: ${describeThrown(e)}`, env.index, e);
    }
    env.drivers = env.agents.map((agent) => (agent ? { kind: "agent", agent } : TRAINER));
    try {
      if (env.loop) env.loop.restart(env.state);
      else env.loop = this.newLoop(env, env.state);
    } catch (e) {
      throw envFault(e, env.index);
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
    const point = pointOf(env);
    try {
      loopOf(env).answer(env.decisions, point.seat, decision);
    } catch (e) {
      throw envFault(e, env.index);
    }
    return this.advance(env);
  }

  /**
   * The roles of the seating where the learner sits at `learner` (single mode): the opponents keep
   * their seat order around it. Multi mode: the configured roles.
   */
  private seating(learner: Seat): readonly SeatRole[] {
    const s = this.settings;
    if (s.mode !== "single" || learner === s.learnerSeat) return s.roles;
    const learnerRole = must(s.roles[s.learnerSeat], "session settings: the learner seat's role");
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

  /**
   * Plays agent seats until a client seat must decide, the game ends or the cap truncates it: the
   * decision loop with agents pulled and client seats as trainer seats (step style). Synchronous
   * while agents answer synchronously; a promise from the first agent that returns one.
   */
  private advance(env: EnvSlot): void | Promise<void> {
    const loop = loopOf(env);
    let p: void | Promise<void>;
    try {
      p = loop.drive();
    } catch (e) {
      throw envFault(e, env.index);
    }
    if (p)
      return p.then(
        () => this.stopped(env),
        (e: unknown) => Promise.reject(envFault(e, env.index)),
      );
    this.stopped(env);
  }

  /** The loop stopped: the episode ended, was truncated, or a client seat must decide. */
  private stopped(env: EnvSlot): void {
    const loop = loopOf(env);
    env.state = loop.state;
    env.decisions = loop.step;
    const status = loop.status;
    if (status === "over" || status === "truncated") {
      env.done = status === "over" ? Done.Terminated : Done.Truncated;
      env.point = null;
      return;
    }
    if (loop.pending === null) throw new InvariantError(`env ${env.index}: the decision loop stopped with no seat to ask`);
    env.point = this.point(env, loop.pending.seat);
  }

  /** The decision loop of env's new episode, from `state`. */
  private newLoop(env: EnvSlot, state: unknown): DecisionLoop {
    const { maxDecisions, bound, deadlines } = this.settings;
    return new DecisionLoop({
      game: env.game,
      state,
      driver: (seat) => {
        const driver = env.drivers[seat];
        if (driver === undefined) throw new InvariantError(`env ${env.index}: no driver for seat ${seat}`);
        return driver;
      },
      clock: deadlines?.clock ?? null,
      turnMs: deadlines?.turnMs ?? null,
      bound,
      stopAfter: maxDecisions,
      checked: false,
    });
  }

  private point(env: EnvSlot, seat: Seat): DecisionPoint {
    const { adapter } = this.settings;
    const game = env.game;
    try {
      return decisionPoint(adapter, env.state, seat, { env: env.index, game, seen: this.seen });
    } catch (e) {
      if (e instanceof EnvFault) throw e;
      throw new EnvFault("game_fault", `${game.info.id} rules threw listing decisions: ${describeThrown(e)}`, env.index, e);
    }
  }
}

const TRAINER: SeatDriver = { kind: "trainer" };

/** A loop's fault as the session reports it: the agent's or the game's, naming the env. */
function envFault(e: unknown, env: number): unknown {
  if (!(e instanceof DecisionLoopFault)) return e;
  if (e.cause instanceof EnvFault) return e.cause;
  return new EnvFault(e.kind === "agent" ? "agent_fault" : "game_fault", e.message, env, e.cause ?? e);
}
