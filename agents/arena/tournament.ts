import { deriveSeed, must, type AnyGame } from "../../engine/core/index.ts";
import type { DecisionRequest, Facilitatee } from "../facilitatee.ts";
import { runMatch } from "../match.ts";
import { createAgentReady, seatsModel, type AgentContext } from "../spec.ts";

export interface ArenaOptions {
  readonly game: AnyGame;
  /** The parsed config (seats included). */
  readonly config: { readonly seats: number } & Record<string, unknown>;
  /** Distinct agent spec strings. */
  readonly agents: readonly string[];
  /** Games per pairing (multi-seat) or per agent (solitaire). */
  readonly games: number;
  readonly seed: number;
  /**
   * Matches in flight at once (default: ONNX_LANES when an agent or the filler is an onnx agent,
   * else 1). Games in flight ask their ONNX agents together, and the shared model answers them in
   * one onnxruntime run (PolicyModel's micro-batcher): one run per decision costs ~20 us of fixed
   * overhead, a batch of 16 about the same. Results do not depend on it: agent seeds come from the
   * fixture, and a row's logits do not depend on its batch beyond float rounding (onnx-parity test).
   */
  readonly concurrency?: number;
  /**
   * Games with more than two seats: "pair" seats only the two agents of the pairing, alternately
   * (teams); any other value is an agent spec that fills every seat but the pair's two (default
   * "random"), and the pair's two are compared on their own returns.
   */
  readonly fill?: string;
  /** Extra agent context: adapter and action-spec hash for onnx agents, model root. */
  readonly context?: Pick<AgentContext, "adapter" | "actionSpecHash" | "modelRoot">;
  readonly onProgress?: (done: number, total: number) => void;
  /**
   * Play only the scheduled games [from, to) (part of a run whose other parts are played elsewhere
   * and merged: scripts/arena/shards.ts); results then hold those games in index order.
   */
  readonly range?: readonly [number, number];
  /**
   * Plays a fixture elsewhere (a worker thread) and returns its result with the thinking time it
   * cost each agent. Default: playFixture in this thread. Results do not depend on where.
   */
  readonly runner?: (f: Fixture) => Promise<{ readonly result: GameResult; readonly timing: readonly AgentTiming[] }>;
}

export interface GameResult {
  /** Index into agents of the agent at each seat; FILLER for a filler seat. */
  readonly seats: readonly number[];
  /** The pairing (agent indices a < b), or null in a solitaire. */
  readonly pair: readonly [number, number] | null;
  /** The deal number: both seatings of a pairing share each deal. */
  readonly deal: number;
  readonly seed: number;
  readonly returns: readonly number[];
  readonly decisions: number;
  /** For a pairing: 1 if a's mean return beat b's, 0.5 equal, 0 below. In a solitaire: 1 on a win. */
  readonly score: number;
}

export interface AgentTiming {
  decisions: number;
  seconds: number;
}

export interface ArenaRun {
  readonly results: readonly GameResult[];
  readonly timing: readonly AgentTiming[];
  readonly seconds: number;
}

export const FILLER = -1;

/** Default games in flight when an ONNX agent is seated (see ArenaOptions.concurrency). */
export const ONNX_LANES = 64;

const seatsOnnx = seatsModel;

/** One planned game: who sits where, and on which deal. */
export interface Fixture {
  readonly seats: readonly number[];
  readonly pair: readonly [number, number] | null;
  readonly deal: number;
  readonly index: number;
}

/**
 * The schedule. Solitaire: every agent plays deals 0..games-1 (the same deals for everyone).
 * Otherwise a round robin: for each pair (a, b), game g uses deal floor(g/2), and the two
 * seatings of a deal swap a and b, so luck of the deal cancels.
 * - 2 seats: a at seat 0 on even g, at seat 1 on odd g.
 * - N > 2 seats, fill mode (default): a and b sit at adjacent seats p and p+1 (p = deal mod N, so
 *   the pair visits every position), swapped on odd g; every other seat is a filler agent.
 * - N > 2 seats, "pair" mode: every seat is a or b, alternately (a team of ceil(N/2) against
 *   floor(N/2)), the teams swapping on odd g.
 */
export function schedule(agentCount: number, seats: number, games: number, fill = true): Fixture[] {
  const out: Fixture[] = [];
  if (seats === 1) {
    for (let a = 0; a < agentCount; a++) for (let g = 0; g < games; g++) out.push({ seats: [a], pair: null, deal: g, index: out.length });
    return out;
  }
  for (let a = 0; a < agentCount; a++) {
    for (let b = a + 1; b < agentCount; b++) {
      for (let g = 0; g < games; g++) {
        const deal = Math.floor(g / 2);
        let seating: number[];
        if (seats === 2 || !fill) seating = Array.from({ length: seats }, (_, k) => ((k + g) % 2 === 0 ? a : b));
        else {
          seating = new Array<number>(seats).fill(FILLER);
          const p = deal % seats;
          seating[p] = g % 2 === 0 ? a : b;
          seating[(p + 1) % seats] = g % 2 === 0 ? b : a;
        }
        out.push({ seats: seating, pair: [a, b], deal, index: out.length });
      }
    }
  }
  return out;
}

/** Pair score from the returns: compare the mean return of a's seats with b's. */
export function pairScore(seats: readonly number[], returns: readonly number[], a: number): number {
  let sa = 0;
  let na = 0;
  let sb = 0;
  let nb = 0;
  seats.forEach((agent, k) => {
    if (agent === FILLER) return;
    if (agent === a) {
      sa += must(returns[k], "pairScore: the return of a seat");
      na++;
    } else {
      sb += must(returns[k], "pairScore: the return of a seat");
      nb++;
    }
  });
  const ma = sa / na;
  const mb = sb / nb;
  if (Math.abs(ma - mb) < 1e-9) return 0.5;
  return ma > mb ? 1 : 0;
}

export async function runArena(options: ArenaOptions): Promise<ArenaRun> {
  const { config, agents, games } = options;
  const all = schedule(agents.length, config.seats, games, (options.fill ?? "random") !== "pair");
  const [from, to] = options.range ?? [0, all.length];
  const fixtures = all.slice(from, to);
  const timing: AgentTiming[] = agents.map(() => ({ decisions: 0, seconds: 0 }));
  const results: GameResult[] = new Array(fixtures.length);
  const start = performance.now();
  let done = 0;
  let next = 0;
  const worker = async () => {
    for (;;) {
      const f = fixtures[next++];
      if (!f) return;
      if (options.runner) {
        const r = await options.runner(f);
        results[f.index - from] = r.result;
        r.timing.forEach((t, i) => {
          const mine = timing[i];
          if (mine) {
            mine.decisions += t.decisions;
            mine.seconds += t.seconds;
          }
        });
      } else results[f.index - from] = await playFixture(options, f, timing);
      options.onProgress?.(++done, fixtures.length);
    }
  };
  const wanted = options.concurrency ?? ([...agents, options.fill ?? "random"].some(seatsOnnx) ? ONNX_LANES : 1);
  const lanes = Math.max(1, Math.min(wanted, fixtures.length));
  await Promise.all(Array.from({ length: lanes }, worker));
  return { results, timing, seconds: (performance.now() - start) / 1000 };
}

/** The game seed of deal `deal`: both seatings of a pairing, and every pairing, play the same deals. */
export function dealGameSeed(seed: number, deal: number): number {
  return deriveSeed(seed, `deal:${deal}`);
}

/** The base seed the agents of game `index` derive their streams from (with their seat and name). */
export function fixtureAgentBase(seed: number, index: number): number {
  return deriveSeed(seed, `agents:${index}`);
}

/** Plays one fixture in this thread, adding each agent's thinking time to timing. */
export async function playFixture(options: ArenaOptions, f: Fixture, timing: AgentTiming[]): Promise<GameResult> {
  const { game, config, agents, seed } = options;
  const dealSeed = dealGameSeed(seed, f.deal);
  const agentBase = fixtureAgentBase(seed, f.index);
  const seated: Facilitatee[] = [];
  for (const [k, i] of f.seats.entries()) {
    const spec = i === FILLER ? (options.fill ?? "random") : must(agents[i], "arena: the agent of a fixture's seat");
    const made = await createAgentReady(spec, { ...options.context, seed: agentBase, seat: k, game: game.info.id });
    if (!made.ok) throw new Error(`agent ${spec}: ${made.error.message}`);
    seated.push(i === FILLER ? made.value : timed(made.value, must(timing[i], "arena: the timing of a seated agent")));
  }
  let result;
  try {
    result = await runMatch({ game, config, seed: dealSeed, agents: seated });
  } catch (e) {
    throw new Error(
      `game ${f.index} (deal ${f.deal}, seats ${f.seats.map((i) => (i === FILLER ? "filler" : agents[i])).join(" / ")}): ${(e as Error).message}`,
      { cause: e },
    );
  }
  const score = f.pair === null ? (must(result.returns[0], "arena: the return of a solitaire") >= 1 ? 1 : 0) : pairScore(f.seats, result.returns, f.pair[0]);
  return { seats: f.seats, pair: f.pair, deal: f.deal, seed: dealSeed, returns: result.returns, decisions: result.decisions, score };
}

/**
 * Wraps an agent to add its thinking time per decision: the work the agent reports for it
 * (decideTimed: a batched model's share of each run, not the wait for other games' decisions),
 * else the wall time of decide.
 */
export function timed(agent: Facilitatee, t: AgentTiming): Facilitatee {
  const decideTimed = agent.decideTimed?.bind(agent);
  if (decideTimed) {
    return {
      name: agent.name,
      async decide(request: DecisionRequest) {
        const r = await decideTimed(request);
        t.seconds += r.seconds;
        t.decisions++;
        return r.index;
      },
    };
  }
  return {
    name: agent.name,
    decide(request: DecisionRequest) {
      const s = performance.now();
      const r = agent.decide(request);
      if (typeof r === "number") {
        t.seconds += (performance.now() - s) / 1000;
        t.decisions++;
        return r;
      }
      return r.then((x) => {
        t.seconds += (performance.now() - s) / 1000;
        t.decisions++;
        return x;
      });
    },
  };
}
