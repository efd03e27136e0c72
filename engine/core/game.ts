import type { GameError, Result } from "./errors.ts";
import type { GameEvent } from "./events.ts";
import type { Rng } from "./rng.ts";

/** A seat index, 0-based. */
export type Seat = number;
/** Whose decision it is. Chance is never an actor: it is resolved inside apply with the state's RNG. */
export type Actor = Seat | "terminal";
export type Viewer = Seat | "spectator";

export interface GameInfo {
  readonly id: string;
  /** Bumped on any rules change that alters a playthrough; records carry it. */
  readonly version: string;
  readonly title: string;
  readonly minSeats: number;
  readonly maxSeats: number;
  readonly defaultSeats: number;
  /** Returns sum to zero at every terminal state. */
  readonly zeroSum: boolean;
}

export type Outcome<S> = { readonly ok: true; readonly state: S } | { readonly ok: false; readonly error: GameError };

/**
 * What the game expects next (nextTaskExpectation in the board-game framework of docs/sources.md): who must decide, how long they have
 * (a duration; the engine has no clock, runners measure time), and the decision applied when time
 * runs out. Killing Sevens' forced pass is one.
 */
export interface Expectation<D> {
  readonly seat: Seat;
  readonly timeoutMs?: number;
  readonly defaultDecision?: D;
}

/** Every config carries its seat count; games add their own fields. */
export interface BaseConfig {
  readonly seats: number;
}

/**
 * The kernel contract every game implements. All functions are pure: they never mutate their
 * arguments, read no clock and no global RNG. State is plain JSON data.
 */
export interface Game<S = unknown, D = unknown, V = unknown, C extends BaseConfig = BaseConfig> {
  readonly info: GameInfo;
  /** Validate untrusted config (defaults filled in); errors name the field. */
  parseConfig(raw: unknown): Result<C>;
  setup(config: C, seed: number): S;
  /** The config a state was set up with (records and views need it). */
  config(state: S): C;
  actor(state: S): Actor;
  /** THE single source of legality, in a stable order. Empty exactly when actor is terminal. */
  legal(state: S): readonly D[];
  /**
   * Optional, for random playouts: `legal(state)[pick(legal(state).length)]`, the very same
   * decision object, without building the list where the game can (a playout needs one pick,
   * not the list). `pick` is called exactly once, with the list's length n >= 1, and must return
   * an integer in 0..n-1, so a playout picking `rng.int(n)` here follows the same game, state by
   * state, as one picking from legal(). `state` must not be terminal. Pure, as legal(). A game
   * made by spreading another and replacing legal() must replace or drop this one too.
   */
  sampleLegal?(state: S, pick: (n: number) => number): D;
  /**
   * Checked apply: terminal or illegal input gives an error value and no new state. Accepts every
   * element of legal(state) and, where there is one, expectation(state).defaultDecision.
   */
  apply(state: S, decision: unknown): Outcome<S>;
  /** Unchecked apply for hot paths; `decision` MUST be legal (or the expectation's default). */
  applyTrusted(state: S, decision: D): S;
  /**
   * Optional, for search: applyTrusted that writes its result into `state` itself and returns that
   * same object, instead of copying what it changes. The one exception to "never mutate their
   * arguments", so `state` MUST be the caller's alone: made by ownedCopy, or returned by
   * applyInPlace from such a state, and not given since to applyTrusted, apply or events (their
   * results may share its parts, which this would then change too). What `state` held before is
   * gone; the result has the content applyTrusted would give. If it throws, `state` is garbage.
   * Games that have it have ownedCopy too.
   */
  applyInPlace?(state: S, decision: D): S;
  /** A copy of `state` that shares nothing applyInPlace writes with `state` or any other state: the caller owns it. */
  ownedCopy?(state: S): S;
  /** Cumulative returns per seat; final at a terminal state. */
  returns(state: S): readonly number[];
  view(state: S, viewer: Viewer): V;
  expectation(state: S): Expectation<D> | null;
  /** Upper bound on decisions in one game under this config (conformance checks it holds). */
  maxDecisions(config: C): number;
  /** Sample a full state consistent with what `seat` sees (ISMCTS, leak tests). Fresh RNG from rng. */
  determinize(view: V, seat: Seat, rng: Rng): S;
  /**
   * Why `decision` cannot be applied now, in one sentence (an Operation's "why not"); null when it
   * can. Optional: a game without it gets a generic message. Pure, and never a second source of
   * legality: implementations check legal() first and only explain a refusal.
   */
  explain?(state: S, decision: unknown): string | null;
  /**
   * The decision by which `seat` gives the game up now (it loses), when the game has one and
   * `seat` decides now; null otherwise. Optional: games without a conceding decision leave it out
   * (live tables then hand a resigned seat to an agent). Pure.
   */
  concede?(state: S, seat: Seat): D | null;
  /**
   * One readable line for a decision, for the seat that makes it (its own action labels). Never
   * shown to anyone else: other viewers read the decision's projected event (`events`).
   */
  describe(state: S, decision: D): string;
  /**
   * What applying `decision` to `before` did (`after` is the result), each event tagged with who may
   * read it; the first is always the `decision` event. Pure. The one source of every text a
   * channel, log, replay or client shows about a game; viewers get `projectEvents(events, viewer)`.
   */
  events(before: S, decision: D, after: S): readonly GameEvent[];
  /** A readable multi-line picture of the state, for the play CLI. */
  render(state: S): string;
  /**
   * The same game, computing exactly what this one computes, with memos of its own that carry
   * work from one apply to the next (the last result's derived data). Optional: for a caller
   * that plays many games in turn (a learning session's envs), each through its own instance, so
   * one game's apply does not evict another's memo. Games without such memos leave it out. A
   * game made by spreading another and replacing some of its functions must replace or drop this
   * one too: the inner game's instances compute what the inner game computes.
   */
  instance?(): Game<S, D, V, C>;
}

/** Type-erased game, as stored in the registry. */
export type AnyGame = Game<any, any, any, any>;
