import type { DecisionLoop, SeatDriver } from "../../agents/decision-loop.ts";
import { InvariantError } from "../../engine/core/index.ts";
import type { Facilitatee } from "../../agents/facilitatee.ts";
import type { AnyGame, Seat } from "../../engine/core/index.ts";
import type { DecisionPoint } from "../decision-point.ts";
import { EnvFault, describeThrown } from "../errors.ts";
import type { SessionSettings } from "./settings.ts";

/** How an env's current episode stands. */
export const enum Done {
  Running = 0,
  Terminated = 1,
  Truncated = 2,
}

/** One environment of a learning session: its game state, its agents and its episode counters. */
export interface EnvSlot {
  readonly index: number;
  /**
   * The game this env plays through: an instance of its own where the game has instances (memos
   * carried from one apply to the next stay this env's while other envs step in between).
   */
  readonly game: AnyGame;
  /** Seed of this env's streams (episodes and agents), derived from the session seed. */
  envSeed: number;
  state: unknown;
  /** The agents of the current episode's seating, one per seat (null at client seats). */
  agents: (Facilitatee | null)[];
  /** Agents per learner seat, made on first use (one seating unless learnerSeat rotates). */
  seatings: ((Facilitatee | null)[] | undefined)[];
  /** The learner's seat in the current episode (single mode). */
  learner: Seat;
  /** Episodes started so far (the current one included). */
  episode: number;
  /** Decisions made in the current episode, all seats. */
  decisions: number;
  /** The decision loop playing the episodes (null before the first reset), and who decides at each seat in the current one. */
  loop: DecisionLoop | null;
  drivers: SeatDriver[];
  /** The pending client decision, or null when the episode is over. */
  point: DecisionPoint | null;
  done: Done;
  /** Returns at the previous reply: rewards are the change since then. */
  lastReturns: number[];
}

/** Env `index` before its first reset. */
export function newEnvSlot(settings: SessionSettings, index: number): EnvSlot {
  return {
    index,
    game: settings.game.instance?.() ?? settings.game,
    envSeed: 0,
    state: null,
    agents: [],
    seatings: [],
    learner: settings.learnerSeat,
    episode: 0,
    decisions: 0,
    loop: null,
    drivers: [],
    point: null,
    done: Done.Running,
    lastReturns: new Array<number>(settings.numSeats).fill(0),
  };
}

/** The game's cumulative returns in env's episode, one per seat (checked). */
export function returnsOf(settings: SessionSettings, env: EnvSlot): number[] {
  const { game } = env;
  const { numSeats } = settings;
  let r: readonly number[];
  try {
    r = game.returns(env.state);
  } catch (e) {
    throw new EnvFault("game_fault", `${game.info.id}.returns threw: ${describeThrown(e)}`, env.index, e);
  }
  if (r.length !== numSeats) throw new EnvFault("game_fault", `${game.info.id}.returns gave ${r.length} values for ${numSeats} seats`, env.index);
  return r as number[];
}

/** Writes `seat`'s observation of env into `out` (the pending decision's view when it is that seat's). */
export function encodeSeat(settings: SessionSettings, env: EnvSlot, seat: Seat, out: Float32Array): void {
  const { game } = env;
  const { adapter } = settings;
  const view = env.point && env.point.seat === seat ? env.point.view : game.view(env.state, seat);
  try {
    adapter.observation.encode(view, out);
  } catch (e) {
    throw new EnvFault("codec_fault", `${game.info.id} observation encoder threw: ${describeThrown(e)}`, env.index, e);
  }
}

/** The decision a running env waits for; a running env without one is a bug. */
export function pointOf(env: EnvSlot): DecisionPoint {
  if (env.point === null) throw new InvariantError(`env ${env.index}: no pending decision`);
  return env.point;
}

/** The decision loop of an env that was reset; none is a bug. */
export function loopOf(env: EnvSlot): DecisionLoop {
  if (env.loop === null) throw new InvariantError(`env ${env.index}: no decision loop (never reset)`);
  return env.loop;
}
