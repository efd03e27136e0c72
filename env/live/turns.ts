/**
 * A live table's clock work: when the pending decision became due, its deadline (the default
 * decision applied at it, docs/live.md "Deadlines") and the agents that play seats nobody is
 * present at. Every decision it makes goes back through the table's apply, which checks the seq,
 * so a deadline, an agent and an answer racing for one decision apply it once.
 */
import { deriveSeed, type AnyGame, type Seat } from "../../engine/core/index.ts";
import type { Facilitatee } from "../../agents/facilitatee.ts";
import { defaultDecision } from "../../agents/decision-loop.ts";
import type { SeatState } from "./seats.ts";
import type { ResolvedDeadlines, TableDeps } from "./table-common.ts";

/** What the turns need from their table. */
export interface TurnHost {
  readonly id: string;
  readonly game: AnyGame;
  readonly seed: number;
  readonly deadlines: ResolvedDeadlines;
  readonly deps: TableDeps;
  seq(): number;
  state(): unknown;
  closed(): boolean;
  finished(): boolean;
  /** The table's only way to apply a decision (refused unless `seq` is still current). */
  apply(seq: number, seat: Seat, decision: unknown, cause: "agent" | "timeout"): boolean;
  /** See again who must act (an agent retries when the runner was full). */
  drive(): void;
}

export class Turns {
  /** When the current decision became pending (its deadline counts from here). */
  pendingSince: number;
  private cancelDeadline: (() => void) | null = null;
  private deadlineSeq = -1;
  private agentSeq = -1;
  private readonly onnxAgents = new Map<string, Promise<Facilitatee>>();

  constructor(
    private readonly host: TurnHost,
    since: number,
  ) {
    this.pendingSince = since;
  }

  /** A decision was committed: the next one's deadline counts from now. */
  committed(): void {
    this.pendingSince = this.host.deps.clock.now();
    this.cancelDeadline?.();
    this.cancelDeadline = null;
  }

  /** The turn time of the pending decision for this seat: none for an agent seat. */
  deadlineMs(seat: SeatState): number | null {
    if (seat.kind === "agent") return null;
    const e = this.host.game.expectation(this.host.state());
    return e?.timeoutMs ?? this.host.deadlines.turnMs;
  }

  /** The absolute deadline of the pending decision for this seat, or null. */
  deadlineOf(seat: SeatState | undefined): number | null {
    const ms = seat ? this.deadlineMs(seat) : null;
    return ms === null ? null : this.pendingSince + ms;
  }

  /**
   * `actor` must decide now: arms its deadline (once per seq) and, when an agent plays the seat
   * (`byAgent`), asks the agent (once per seq).
   */
  schedule(actor: Seat, s: SeatState, byAgent: boolean): void {
    const h = this.host;
    const ms = this.deadlineMs(s);
    if (ms !== null && this.deadlineSeq !== h.seq()) {
      const seq = h.seq();
      this.deadlineSeq = seq;
      this.cancelDeadline?.();
      this.cancelDeadline = h.deps.clock.setTimer(Math.max(0, this.pendingSince + ms - h.deps.clock.now()), () => {
        if (h.seq() === seq && !h.finished()) h.apply(seq, actor, defaultDecision(h.game, h.state()), "timeout");
      });
    }
    if (byAgent && this.agentSeq !== h.seq()) this.runAgent(actor, s);
  }

  cancel(): void {
    this.cancelDeadline?.();
    this.cancelDeadline = null;
  }

  private agentFor(s: SeatState, spec: string): Promise<Facilitatee> {
    // Agents are rebuilt per decision from a seed derived from the table's seed and the seq, so a
    // table recovered after a crash plays on exactly as it would have; ONNX sessions are kept.
    const h = this.host;
    if (spec.startsWith("onnx")) {
      const key = `${s.index}:${spec}`;
      let p = this.onnxAgents.get(key);
      if (!p) {
        p = h.deps.makeAgent(spec, s.index, deriveSeed(h.seed, `live-agent:${s.index}`));
        this.onnxAgents.set(key, p);
      }
      return p;
    }
    return h.deps.makeAgent(spec, s.index, deriveSeed(h.seed, `live-agent:${s.index}:${h.seq()}`));
  }

  /** The index of the legal decision the seat's agent chooses (on the worker pool when there is one). */
  private choose(seat: Seat, s: SeatState, spec: string, seq: number, state: unknown, legal: readonly unknown[]): Promise<number> {
    const h = this.host;
    const stale = () => h.closed() || h.seq() !== seq;
    const pool = h.deps.decide;
    if (pool !== undefined) {
      return h.deps.runner.run(() => {
        if (stale()) return -1;
        const seed = deriveSeed(h.seed, `live-agent:${s.index}:${seq}`);
        return pool({ kind: "decide", game: h.game.info.id, agent: spec, seed, seat, view: h.game.view(state, seat), legal, step: seq }, h.id);
      });
    }
    return this.agentFor(s, spec).then((agent) =>
      h.deps.runner.run(() => (stale() ? -1 : agent.decide({ game: h.game, seat, view: h.game.view(state, seat), legal, step: seq }))),
    );
  }

  private runAgent(seat: Seat, s: SeatState): void {
    const h = this.host;
    const seq = h.seq();
    this.agentSeq = seq;
    const spec = s.kind === "human" ? h.deadlines.takeover : (s.agentSpec ?? h.deadlines.takeover);
    const started = h.deps.clock.now();
    const state = h.state();
    const legal = h.game.legal(state);
    const fallback = () => h.apply(seq, seat, defaultDecision(h.game, state), "agent");
    this.choose(seat, s, spec, seq, state, legal).then(
      (index) => {
        if (h.closed() || h.seq() !== seq) return;
        const decision = Number.isInteger(index) && index >= 0 && index < legal.length ? legal[index] : undefined;
        if (decision === undefined) {
          h.deps.log(`table ${h.id}: agent ${spec} at seat ${seat} chose index ${index} of ${legal.length}; default applied`);
          return void fallback();
        }
        const wait = h.deadlines.botDelayMs - (h.deps.clock.now() - started);
        if (wait > 0) h.deps.clock.setTimer(wait, () => void h.apply(seq, seat, decision, "agent"));
        else h.apply(seq, seat, decision, "agent");
      },
      (e: unknown) => {
        if (h.closed() || h.seq() !== seq) return;
        h.deps.log(`table ${h.id}: agent ${spec} at seat ${seat} failed (${(e as Error).message}); default applied`);
        // Retry later rather than spin when the runner is full.
        if ((e as Error).name === "AgentBusy") {
          this.agentSeq = -1;
          h.deps.clock.setTimer(100, () => h.drive());
          return;
        }
        fallback();
      },
    );
  }
}
