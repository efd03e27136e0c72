/**
 * Vocabulary of BlackPoker's core flow (コアフロー): a game-agnostic model of interruptible,
 * turn-based play. Names follow the seed: turn, chance (チャンス), stage (ステージ), request
 * (リクエスト), pass record (パス記録), trigger buffer (アクションバッファ), immediate vs normal
 * effects (即時効果/通常効果), main vs quick timing (メイン/クイック).
 */

/** 即時効果 resolves at once and the requester keeps the chance; 通常効果 goes onto the stage. */
export type Speed = "immediate" | "normal";
/** メイン: chance holder, own turn, stage empty. クイック: chance holder, any time. */
export type Timing = "main" | "quick";

/** A request sent to the core flow. `payload` is the game's own description of the action. */
export interface CoreRequest<P> {
  /**
   * The request's controller: the player who made it (a direct request) or whom the rules gave it (a
   * triggered one). It holds the request in the trigger order, decides for it at resolution, and its
   * effect acts for it. Who owns the cards involved is the game's business: it may be another player.
   */
  readonly controller: number;
  readonly speed: Speed;
  readonly timing: Timing;
  readonly payload: P;
}

/**
 * Where the trigger check (誘発チェック, steps 6-2..6-12) stands: the group being processed
 * (immediate first, then normal), the player as an offset from the turn player in turn order, and
 * the timing within that player (main before quick).
 */
export interface TriggerCursor {
  readonly group: Speed;
  readonly offset: number;
  readonly timing: Timing;
}

/**
 * What follows once the current trigger check has emptied the buffer:
 * - dispatch:   step [7] for `requested` (resolve it if immediate, else put it on the stage);
 * - afterPush:  a direct normal request is on the stage; the chance moves per the rules' option;
 * - afterStage: a stage request was resolved; the pass record resets and the chance returns to the
 *               turn player (step [2]);
 * - keep:       an immediate request was resolved; its requester keeps the chance (back to [3]).
 */
export type Continuation = "none" | "dispatch" | "afterPush" | "afterStage" | "keep";

/**
 * A suspended trigger check ([6-5-2]/[6-10-2]): `seat` picks which of its triggered requests to take
 * from the buffer next. `options` are buffer indices (ascending), one per distinct request: entries
 * the rules call the same (`sameTrigger`) are one option, the earliest of them standing for all.
 */
export interface TriggerChoice {
  readonly seat: number;
  readonly options: readonly number[];
}

/** The core flow's part of a game state: plain JSON data, never mutated. */
export interface FlowState<P> {
  readonly seats: number;
  readonly turnPlayer: number;
  readonly chancePlayer: number;
  /** LIFO of requests, bottom first: the last element resolves first. */
  readonly stage: readonly CoreRequest<P>[];
  /** Seats that passed since the record was last reset ([11]); each seat appears at most once. */
  readonly passed: readonly number[];
  /** Triggered requests not yet resolved or staged ([6-1]), in the order they triggered. */
  readonly buffer: readonly CoreRequest<P>[];
  /** Non-null while a trigger check is in progress. */
  readonly cursor: TriggerCursor | null;
  /** A request whose effect waits for players' decisions (a suspended step [8]). */
  readonly resolving: CoreRequest<P> | null;
  /** The direct request between steps [5] and [7]: the triggers its costs caused are checked first. */
  readonly requested: CoreRequest<P> | null;
  readonly then: Continuation;
  /**
   * Present only while a trigger check waits for a player's choice of order (with the rules'
   * `chooseTriggerOrder`); absent (not null) otherwise, so states without a choice keep their shape.
   */
  readonly choice?: TriggerChoice;
}

/** A game state that carries the core flow in its `flow` field. */
export interface Flowing<P> {
  readonly flow: FlowState<P>;
}

/** The outcome of a game's step [8]: done (with what it triggered), or waiting for decisions. */
export type Resolution<S, P> =
  { readonly suspended: false; readonly state: S; readonly triggered: readonly CoreRequest<P>[] } | { readonly suspended: true; readonly state: S };

/** What a game plugs into the core flow. Every hook is pure. */
export interface InterruptRules<S extends Flowing<P>, P> {
  /**
   * After a direct normal request goes onto the stage: true = the requester passes at once and the
   * chance moves on (one pass from the others resolves it); false = the requester keeps the chance
   * and must pass explicitly.
   */
  readonly passAfterNormalRequest: boolean;
  /**
   * [6-5-2]/[6-10-2]: when one player has several different triggered requests of the group and
   * timing being processed, that player chooses which to take first (the trigger check suspends
   * with `flow.choice`; answer with `chooseTrigger`). Off (or absent): first-in-first-out.
   */
  readonly chooseTriggerOrder?: boolean;
  /**
   * Whether two buffered requests are the same for the order choice (taking either first is the
   * same game). Default: equal payloads (deep, as JSON). A game whose payloads carry ids says so here.
   */
  sameTrigger?(a: CoreRequest<P>, b: CoreRequest<P>): boolean;
  /** Step [8]: apply the effect. Return `suspended` when a player must decide first; finish later with finishResolution. */
  resolve(state: S, request: CoreRequest<P>): Resolution<S, P>;
  /** [6-10-8]: requests triggered by putting `request` onto the stage (none by default). */
  staged?(state: S, request: CoreRequest<P>): readonly CoreRequest<P>[];
  /** [6-10-6]: a main-timing normal trigger was discarded because the stage was not empty. */
  discarded?(state: S, request: CoreRequest<P>): S;
  /** Step [9]: the decided (terminal) state if the game is over now, else null. */
  judge(state: S): S | null;
}
