/**
 * The agents of a live table: who plays a seat nobody is present at (its own agent spec, or the
 * takeover agent for a person's seat) and where that agent computes (the server's worker pool, or
 * here through the agent runner). The table's decision loop asks them like any other agent and
 * owns their deadlines, bot pacing and the retry when the runner is full (docs/live.md).
 */
import { deriveSeed, type AnyGame } from "../../engine/core/index.ts";
import type { DecisionRequest, Facilitatee } from "../../agents/facilitatee.ts";
import type { SeatState } from "./seats.ts";
import type { ResolvedDeadlines, TableDeps } from "./table-common.ts";

/** What the agents need from their table. */
export interface AgentHost {
  readonly id: string;
  readonly game: AnyGame;
  readonly seed: number;
  readonly deadlines: ResolvedDeadlines;
  readonly deps: TableDeps;
  /** Whether the decision at `step` is still pending (the table is open and has not moved on). */
  isPending(step: number): boolean;
}

/** The runner's error when too many agent decisions wait: the table asks again a little later. */
export const isAgentBusy = (e: unknown): boolean => e instanceof Error && e.name === "AgentBusy";

export class TableAgents {
  private readonly onnxAgents = new Map<string, Promise<Facilitatee>>();
  private readonly seatAgents = new Map<string, Facilitatee>();

  constructor(private readonly host: AgentHost) {}

  /** The agent that plays seat `s` while nobody is present at it. */
  agentOf(s: SeatState): Facilitatee {
    const spec = s.kind === "human" ? this.host.deadlines.takeover : (s.agentSpec ?? this.host.deadlines.takeover);
    const key = `${s.index}:${spec}`;
    let agent = this.seatAgents.get(key);
    if (!agent) {
      agent = { name: spec, decide: (req) => this.choose(s, spec, req) };
      this.seatAgents.set(key, agent);
    }
    return agent;
  }

  /**
   * The agent that decides at `seq`. Agents are rebuilt per decision from a seed derived from the
   * table's seed and the seq, so a table recovered after a crash plays on exactly as it would
   * have; ONNX sessions are kept.
   */
  private agentFor(s: SeatState, spec: string, seq: number): Promise<Facilitatee> {
    const h = this.host;
    if (!spec.startsWith("onnx")) return h.deps.makeAgent(spec, s.index, deriveSeed(h.seed, `live-agent:${s.index}:${seq}`));
    const key = `${s.index}:${spec}`;
    let p = this.onnxAgents.get(key);
    if (!p) {
      p = h.deps.makeAgent(spec, s.index, deriveSeed(h.seed, `live-agent:${s.index}`));
      this.onnxAgents.set(key, p);
    }
    return p;
  }

  /** The index of the legal decision the seat's agent chooses (on the worker pool when there is one); -1 once stale. */
  private choose(s: SeatState, spec: string, req: DecisionRequest): Promise<number> {
    const h = this.host;
    const { seat, step, legal } = req;
    const pool = h.deps.decide;
    if (pool !== undefined) {
      return h.deps.runner.run(() => {
        if (!h.isPending(step)) return -1;
        const seed = deriveSeed(h.seed, `live-agent:${s.index}:${step}`);
        return pool({ kind: "decide", game: h.game.info.id, agent: spec, seed, seat, view: req.view, legal, step }, h.id);
      });
    }
    return this.agentFor(s, spec, step).then((agent) =>
      h.deps.runner.run(() => (h.isPending(step) ? agent.decide({ game: h.game, seat, view: req.view, legal, step }) : -1)),
    );
  }
}
