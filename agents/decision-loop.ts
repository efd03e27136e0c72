import type { AnyGame, GameEvent, Outcome, Seat } from "../engine/core/index.ts";
import type { Clock } from "./clock.ts";
import type { DecisionRequest, Facilitatee } from "./facilitatee.ts";
import { isPassive } from "./passive.ts";

/**
 * The one decision loop (docs/architecture.md): every game that is played, in the arena, at a live
 * table or in a learning session, goes through it. It asks the seat that must act through that
 * seat's driver, enforces the pending decision's deadline and default on an injected clock,
 * records the decisions and tells who listens what each one did. It owns no wall clock: without a
 * clock nothing has a deadline.
 */

/**
 * Who decides at a seat, as the loop sees it.
 * - `agent`: pull style. The loop asks `decide` and awaits it when it answers with a promise.
 * - `remote`: a person elsewhere. The loop waits for `answer`; the deadline fires on the clock.
 * - `trainer`: step style (an external trainer). The loop stops until `answer`; nothing fires
 *   while it waits (the trainer already holds the observation), and an answer that comes after
 *   the deadline is replaced by the default.
 * - `concede`: the seat was resigned and the game has a conceding decision for it: applied at
 *   once (cause "resign"), whatever was asked before.
 * A seat's driver may change while its decision is pending (a person leaves, comes back or joins
 * an agent's seat): the loop asks the driver again each time it is driven.
 */
export type SeatDriver =
  | { readonly kind: "agent"; readonly agent: Facilitatee }
  | { readonly kind: "remote" }
  | { readonly kind: "trainer" }
  | { readonly kind: "concede"; readonly decision: unknown };

/** Why a decision was applied: a seat's answer, an agent's, the deadline's default, or a resignation. */
export type DecisionCause = "answer" | "agent" | "timeout" | "resign";

/** Where the loop stands. `waiting`: a remote or trainer seat must answer. */
export type LoopStatus = "running" | "waiting" | "over" | "truncated" | "closed";

/** A rule or an agent failed: `game` when the game's own functions threw or refused, `agent` when an agent did. */
export class DecisionLoopFault extends Error {
  constructor(
    readonly kind: "game" | "agent",
    message: string,
    readonly seat: Seat | null,
    options?: { cause?: unknown },
  ) {
    super(message, options);
    this.name = "DecisionLoopFault";
  }
}

/** The decision that is pending: whose it is, since when and until when (clock times; null without a clock or deadline). */
export interface PendingDecision {
  readonly step: number;
  readonly seat: Seat;
  readonly since: number | null;
  readonly deadline: number | null;
}

/** The pending decision as the loop keeps it: its time, whether or not its seat is timed now. */
interface OpenDecision {
  readonly step: number;
  readonly seat: Seat;
  readonly since: number | null;
  readonly ms: number | null;
}

/** One applied decision. Its events and label are worked out on first read (a learning session rarely reads them). */
export class AppliedDecision {
  private cachedEvents: readonly GameEvent[] | null = null;

  constructor(
    readonly game: AnyGame,
    readonly step: number,
    readonly seat: Seat,
    readonly decision: unknown,
    readonly cause: DecisionCause,
    readonly before: unknown,
    readonly after: unknown,
  ) {}

  /** True when the deadline passed and the default was applied. */
  get timedOut(): boolean {
    return this.cause === "timeout";
  }

  /** What the decision did, per viewer (the game's `events`). */
  get events(): readonly GameEvent[] {
    return (this.cachedEvents ??= this.game.events(this.before, this.decision, this.after));
  }

  /** The acting seat's own label of the decision. */
  get label(): string {
    return this.game.describe(this.before, this.decision);
  }
}

export interface DecisionLoopOptions {
  readonly game: AnyGame;
  /** Where play starts (a fresh setup, or a recovered game's state). */
  readonly state: unknown;
  /** Decisions already made to reach `state` (a recovered game); they count towards the bounds. */
  readonly decisions?: readonly unknown[];
  /** The driver of a seat, asked each time the seat must act (a live seat's driver changes as people come and go). */
  readonly driver: (seat: Seat) => SeatDriver;
  /** The clock deadlines are measured on. Absent: no decision has a deadline. */
  readonly clock?: Clock | null;
  /** The deadline of a decision whose game gives none (ms); null or absent: none. */
  readonly turnMs?: number | null;
  /**
   * Which seats' decisions have deadlines (default: every seat's). Asked whenever the deadline is
   * read, so a seat that becomes timed while its decision is pending (a person joins an agent's
   * seat) gets the deadline counted from when the decision became pending.
   */
  readonly timed?: (seat: Seat) => boolean;
  /** The game's bound on decisions: passing it is a game fault. Default: the game's maxDecisions. */
  readonly bound?: number;
  /** Stops the game as truncated once this many decisions were made (a learning session's cap). */
  readonly stopAfter?: number | null;
  /** Apply through the game's checked `apply` (default) or trust the decision (hot paths; decisions come from `legal` or the default). */
  readonly checked?: boolean;
  /**
   * Present: an agent that throws or answers out of range is told here and its seat gets the
   * default decision (cause "agent"). Absent: the fault stops the loop.
   */
  readonly onAgentFault?: (fault: DecisionLoopFault) => void;
  /**
   * Present: when an agent fails with an error this gives a time for (a busy agent runner), the
   * seat's driver is asked again after that many ms instead of the default being applied.
   */
  readonly retryAgent?: (error: unknown) => number | null;
  /**
   * An agent's decision counts no sooner than this many ms (by the clock) after it was asked: a
   * live table paces its bots so people can follow. Default 0.
   */
  readonly agentDelayMs?: number;
  /** Told once when the loop stops on a fault (whether or not anybody awaits `drive`). */
  readonly onFault?: (error: unknown) => void;
  /**
   * Makes a decision durable before it counts (a live table's journal). The loop waits for `done`;
   * nothing else is applied meanwhile. An error stops the loop.
   */
  readonly commit?: (applied: AppliedDecision, done: (err: Error | null) => void) => void;
  /** Told after each decision counts. */
  readonly onDecision?: (applied: AppliedDecision) => void;
}

/**
 * The decision applied when a deadline passes: the game's own default where its expectation gives
 * one, else the first passive legal decision (a pass, an end of turn), else the first legal one.
 */
export function defaultDecision(game: AnyGame, state: unknown): unknown {
  const own = game.expectation(state)?.defaultDecision;
  if (own !== undefined) return own;
  const legal = game.legal(state);
  const passive = legal.findIndex(isPassive);
  return legal[passive >= 0 ? passive : 0];
}

/** What a loop keeps of its options: all but the start state and the decisions that led there. */
type LoopSettings = Omit<DecisionLoopOptions, "state" | "decisions">;

/**
 * `options`' settings, every one named (the type makes a new option fail to compile here until it
 * is copied): an object literal has one fixed shape with its fields in the object, which the
 * loop reads on every decision.
 */
function settingsOf(o: DecisionLoopOptions): { readonly [K in keyof Required<LoopSettings>]: LoopSettings[K] } {
  return {
    game: o.game,
    driver: o.driver,
    clock: o.clock,
    turnMs: o.turnMs,
    timed: o.timed,
    bound: o.bound,
    stopAfter: o.stopAfter,
    checked: o.checked,
    onAgentFault: o.onAgentFault,
    retryAgent: o.retryAgent,
    agentDelayMs: o.agentDelayMs,
    onFault: o.onFault,
    commit: o.commit,
    onDecision: o.onDecision,
  };
}

/**
 * Plays one game: call `drive()` to run it until it ends or waits for a remote or trainer seat,
 * and `answer()` to give such a seat's decision. Answers are tied to a step, so an answer, an
 * agent and a deadline racing for the same decision apply it exactly once.
 */
export class DecisionLoop {
  readonly game: AnyGame;
  private current: unknown;
  private readonly made: unknown[];
  /**
   * The options without the start state and its decisions: the loop keeps the state it is at
   * and its own record, and nothing of a state it moved on from (a learning session keeps a loop
   * per env for as long as the session lives; the first episode's start state held there was
   * about a fifth of an env's heap).
   */
  private readonly options: LoopSettings;
  private readonly clock: Clock | null;
  private readonly seats: number;
  private readonly bound: number;
  private open: OpenDecision | null = null;
  /** The step whose driver was asked, and its kind then (an agent is asked once per step). */
  private askedStep = -1;
  private askedKind: SeatDriver["kind"] | null = null;
  private cancelTimer: (() => void) | null = null;
  private cancelRetry: (() => void) | null = null;
  private cancelPace: (() => void) | null = null;
  private inCommit = false;
  private pumping = false;
  private repump = false;
  private stopped: LoopStatus | null = null;
  private failure: unknown = null;
  private waiter: { promise: Promise<void>; resolve: () => void; reject: (e: unknown) => void } | null = null;

  constructor(options: DecisionLoopOptions) {
    this.options = settingsOf(options);
    this.game = options.game;
    this.current = options.state;
    this.made = [...(options.decisions ?? [])];
    this.clock = options.clock ?? null;
    const config = this.guard("config", () => this.game.config(this.current) as { seats: number });
    this.seats = config.seats;
    this.bound = options.bound ?? this.game.maxDecisions(config);
    this.openPending();
  }

  /**
   * Starts a new game of the same game and config from `state` with the same drivers and settings
   * (a learning session's next episode), without a new loop.
   */
  restart(state: unknown): void {
    this.cancel();
    const w = this.waiter;
    this.waiter = null;
    w?.reject(new Error("the game was restarted"));
    this.current = state;
    this.made.length = 0;
    this.askedStep = -1;
    this.askedKind = null;
    this.inCommit = false;
    this.stopped = null;
    this.failure = null;
    this.openPending();
  }

  get state(): unknown {
    return this.current;
  }

  /** Decisions made so far (the index of the pending one). */
  get step(): number {
    return this.made.length;
  }

  /** Every decision made, in order (the record's decisions). */
  get decisions(): readonly unknown[] {
    return this.made;
  }

  /** The pending decision, or null when the game is over. */
  get pending(): PendingDecision | null {
    const open = this.open;
    return open === null ? null : { step: open.step, seat: open.seat, since: open.since, deadline: this.deadlineOf(open) };
  }

  /** A decision is being committed (nothing else can be applied until it is). */
  get committing(): boolean {
    return this.inCommit;
  }

  get status(): LoopStatus {
    if (this.stopped !== null) return this.stopped;
    return this.askedStep === this.step && this.askedKind !== "agent" ? "waiting" : "running";
  }

  /** The default decision of the pending one (what its deadline applies). */
  defaultDecision(): unknown {
    return this.guard("default", () => defaultDecision(this.game, this.current));
  }

  /**
   * Plays on until the game ends, is truncated, or waits for a remote or trainer seat. Returns
   * nothing when it got there at once (synchronous agents), else a promise of getting there. A
   * fault throws (or rejects).
   */
  drive(): void | Promise<void> {
    this.pump();
    if (this.failure !== null) throw this.failure;
    if (this.status !== "running") return;
    if (this.waiter === null) {
      let resolve!: () => void;
      let reject!: (e: unknown) => void;
      const promise = new Promise<void>((res, rej) => {
        resolve = res;
        reject = rej;
      });
      this.waiter = { promise, resolve, reject };
    }
    return this.waiter.promise;
  }

  /**
   * A remote or trainer seat's decision (or a resignation's) for `step`. Refused (false) when
   * that step is no longer pending, it is not `seat`'s, or another decision is being committed.
   * After the deadline the default is applied instead. Play then goes on (see `drive`).
   */
  answer(step: number, seat: Seat, decision: unknown, cause: DecisionCause = "answer"): boolean {
    if (this.open === null || this.open.seat !== seat) return false;
    let accepted = false;
    try {
      accepted = this.offer(step, seat, decision, cause);
    } catch (e) {
      this.fail(e);
    }
    this.pump();
    if (this.failure !== null) throw this.failure;
    return accepted;
  }

  /** Stops the loop: no timer fires, nothing more is applied. */
  close(): void {
    this.stop("closed");
    this.cancel();
  }

  // ------------------------------------------------------------ the loop

  /** Runs ticks until nothing more can happen now; re-entrant calls (a decision counted inside a tick) continue the same run. */
  private pump(): void {
    if (this.pumping) {
      this.repump = true;
      return;
    }
    this.pumping = true;
    try {
      do {
        this.repump = false;
      } while (this.tick() || this.repump);
    } catch (e) {
      this.fail(e);
    } finally {
      this.pumping = false;
    }
  }

  /** One move forward: true when a decision counted (look again). */
  private tick(): boolean {
    if (this.stopped !== null || this.failure !== null || this.inCommit) return false;
    const open = this.open;
    if (open === null) return this.stop("over");
    if (this.options.stopAfter != null && this.step >= this.options.stopAfter) return this.stop("truncated");
    if (this.step >= this.bound)
      throw new DecisionLoopFault("game", `${this.game.info.id} did not end within its declared bound of ${this.bound} decisions`, null);
    const driver = this.options.driver(open.seat);
    if (driver.kind === "concede") return this.offer(open.step, open.seat, driver.decision, "resign");
    if (driver.kind !== "trainer") this.arm(open);
    if (this.askedStep === this.step && (this.askedKind === "agent" || driver.kind !== "agent")) return false;
    this.askedStep = this.step;
    this.askedKind = driver.kind;
    if (driver.kind !== "agent") return this.settle();
    return this.ask(open, driver.agent);
  }

  /** Asks an agent; true when it answered at once and the decision counted. */
  private ask(open: OpenDecision, agent: Facilitatee): boolean {
    const { step, seat } = open;
    let legal: readonly unknown[];
    try {
      legal = this.game.legal(this.current);
    } catch (e) {
      throw this.gameFault("legal", e);
    }
    const asked = this.clock?.now() ?? 0;
    let answer: number | Promise<number>;
    try {
      answer = agent.decide(new LazyRequest(this.game, this.current, seat, legal, step));
    } catch (e) {
      return this.agentFailed(step, seat, agentFault(agent, seat, e));
    }
    if (typeof answer === "number") return this.agentAnswered(step, seat, agent, legal, answer, asked);
    Promise.resolve(answer).then(
      (index) => this.later(() => this.agentAnswered(step, seat, agent, legal, index, asked)),
      (e: unknown) => this.later(() => this.agentFailed(step, seat, agentFault(agent, seat, e))),
    );
    return false;
  }

  private agentAnswered(step: number, seat: Seat, agent: Facilitatee, legal: readonly unknown[], index: unknown, asked: number): boolean {
    if (step !== this.step || this.stopped !== null) return false;
    if (typeof index !== "number" || !Number.isInteger(index) || index < 0 || index >= legal.length) {
      const fault = new DecisionLoopFault("agent", `agent ${agent.name} at seat ${seat} chose index ${String(index)} of ${legal.length} legal decisions`, seat);
      return this.agentFailed(step, seat, fault);
    }
    const clock = this.clock;
    const wait = clock === null ? 0 : (this.options.agentDelayMs ?? 0) - (clock.now() - asked);
    if (clock === null || wait <= 0) return this.offer(step, seat, legal[index], "agent");
    this.cancelPace?.();
    this.cancelPace = clock.setTimer(wait, () => {
      this.cancelPace = null;
      this.later(() => this.offer(step, seat, legal[index], "agent"));
    });
    return false;
  }

  private agentFailed(step: number, seat: Seat, fault: DecisionLoopFault): boolean {
    if (step !== this.step || this.stopped !== null) return false;
    const retryMs = this.options.retryAgent?.(fault.cause) ?? null;
    if (retryMs !== null && this.clock !== null) return this.askAgain(this.clock, step, retryMs);
    if (!this.options.onAgentFault) throw fault;
    this.options.onAgentFault(fault);
    return this.offer(step, seat, this.defaultDecision(), "agent");
  }

  /** The agent could not take the decision now: after `ms` its seat's driver is asked again (it may be a person by then). */
  private askAgain(clock: Clock, step: number, ms: number): false {
    this.cancelRetry?.();
    this.cancelRetry = clock.setTimer(ms, () => {
      this.cancelRetry = null;
      if (this.step !== step || this.stopped !== null) return;
      this.askedStep = -1;
      this.askedKind = null;
      this.pump();
    });
    return false;
  }

  /** Continues after an agent's promise settled: runs `fn`, then the loop; a fault goes to whoever awaits `drive`. */
  private later(fn: () => boolean): void {
    try {
      if (fn()) this.pump();
    } catch (e) {
      this.fail(e);
    }
  }

  /**
   * The only way a decision counts: for the pending step only, one at a time. An answer after the
   * deadline becomes the default. Applied, committed (when a commit is configured), then recorded.
   */
  private offer(step: number, seat: Seat, decision: unknown, cause: DecisionCause): boolean {
    const open = this.open;
    if (this.stopped !== null || this.failure !== null || this.inCommit || open === null || step !== open.step || seat !== open.seat) return false;
    if (cause !== "timeout" && cause !== "resign" && this.isLate(open)) {
      decision = this.defaultDecision();
      cause = "timeout";
    }
    const before = this.current;
    const after = this.apply(before, decision);
    const { commit, onDecision } = this.options;
    const applied = commit || onDecision ? new AppliedDecision(this.game, step, seat, decision, cause, before, after) : null;
    if (!commit || !applied) {
      this.count(decision, after, applied);
      return true;
    }
    this.inCommit = true;
    commit(applied, (err) => {
      this.inCommit = false;
      if (err) this.fail(err);
      else this.count(decision, after, applied);
    });
    return true;
  }

  /** The decision counts: recorded, the next one opened, the listener told, play goes on. */
  private count(decision: unknown, after: unknown, applied: AppliedDecision | null): void {
    this.cancel();
    this.current = after;
    this.made.push(decision);
    try {
      this.openPending();
      if (applied) this.options.onDecision?.(applied);
    } catch (e) {
      return this.fail(e);
    }
    this.pump();
  }

  private apply(state: unknown, decision: unknown): unknown {
    let out: Outcome<unknown>;
    try {
      if (this.options.checked === false) return this.game.applyTrusted(state, decision);
      out = this.game.apply(state, decision);
    } catch (e) {
      throw this.gameFault(`applying decision ${this.step}`, e);
    }
    if (!out.ok) throw new DecisionLoopFault("game", `${this.game.info.id} refused decision ${this.step}: ${out.error.message}`, this.open?.seat ?? null);
    return out.state;
  }

  // ------------------------------------------------------------ deadlines

  /** Notes who must act now, since when and until when. */
  private openPending(): void {
    let seat: Seat | "terminal";
    try {
      seat = this.game.actor(this.current);
    } catch (e) {
      throw this.gameFault("actor", e);
    }
    if (seat === "terminal") {
      this.open = null;
      return;
    }
    if (!Number.isInteger(seat) || seat < 0 || seat >= this.seats) {
      throw new DecisionLoopFault("game", `${this.game.info.id}.actor returned ${String(seat)}, not a seat of ${this.seats}`, null);
    }
    const since = this.clock === null ? null : this.clock.now();
    this.open = { step: this.step, seat, since, ms: since === null ? null : this.timeoutMs() };
  }

  /** The pending decision's deadline: its time from when it became pending, if its seat is timed now. */
  private deadlineOf(open: OpenDecision): number | null {
    if (open.since === null || open.ms === null || this.options.timed?.(open.seat) === false) return null;
    return open.since + open.ms;
  }

  /** The pending decision's time: the game's, else the configured turn time. */
  private timeoutMs(): number | null {
    const own = this.guard("expectation", () => this.game.expectation(this.current))?.timeoutMs;
    return own ?? this.options.turnMs ?? null;
  }

  private isLate(open: OpenDecision): boolean {
    const deadline = this.deadlineOf(open);
    return deadline !== null && this.clock !== null && this.clock.now() > deadline;
  }

  /** Sets the deadline's timer (once per step, once the seat is timed): when it fires, the default is applied. */
  private arm(open: OpenDecision): void {
    const deadline = this.deadlineOf(open);
    if (deadline === null || this.clock === null || this.cancelTimer !== null) return;
    const { step, seat } = open;
    this.cancelTimer = this.clock.setTimer(deadline - this.clock.now(), () => {
      this.cancelTimer = null;
      this.later(() => this.offer(step, seat, this.defaultDecision(), "timeout"));
    });
  }

  private cancel(): void {
    this.cancelTimer?.();
    this.cancelTimer = null;
    this.cancelRetry?.();
    this.cancelRetry = null;
    this.cancelPace?.();
    this.cancelPace = null;
  }

  // ------------------------------------------------------------ ends

  /** The loop cannot go on now: whoever awaits `drive` hears it. */
  private settle(): false {
    const w = this.waiter;
    this.waiter = null;
    w?.resolve();
    return false;
  }

  private stop(status: LoopStatus): false {
    this.stopped = status;
    return this.settle();
  }

  private fail(e: unknown): void {
    if (this.failure !== null) return;
    this.failure = e;
    this.cancel();
    const w = this.waiter;
    this.waiter = null;
    w?.reject(e);
    this.options.onFault?.(e);
  }

  /** Runs one of the game's functions; a throw becomes a game fault that says which. */
  private guard<T>(what: string, fn: () => T): T {
    try {
      return fn();
    } catch (e) {
      throw this.gameFault(what, e);
    }
  }

  private gameFault(what: string, e: unknown): DecisionLoopFault {
    if (e instanceof DecisionLoopFault) return e;
    return new DecisionLoopFault("game", `${this.game.info.id} rules threw (${what}): ${messageOf(e)}`, this.open?.seat ?? null, { cause: e });
  }
}

function agentFault(agent: Facilitatee, seat: Seat, e: unknown): DecisionLoopFault {
  return new DecisionLoopFault("agent", `agent ${agent.name} at seat ${seat} threw: ${messageOf(e)}`, seat, { cause: e });
}

function messageOf(e: unknown): string {
  if (e instanceof Error) return `${e.name}: ${e.message}`;
  try {
    return String(e);
  } catch {
    return "a non-printable value";
  }
}

const UNSET: unique symbol = Symbol("unset");

/** An agent's request whose view is built on first read: many agents never look at it, and a view costs about a rules step. */
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
