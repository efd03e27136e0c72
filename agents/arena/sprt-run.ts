import { deriveSeed, type AnyGame } from "../../engine/core/index.ts";
import type { Facilitatee } from "../facilitatee.ts";
import { runMatch } from "../match.ts";
import { createAgentReady, type AgentContext } from "../spec.ts";
import { GroupCounts, sprtState, type SprtParams, type SprtState } from "./sprt.ts";
import { FILLER, pairScore } from "./tournament.ts";

/** Who plays: the candidate and the baseline, and the agent that fills any other seat. */
export interface SprtMatchup {
  readonly candidate: string;
  readonly baseline: string;
  /** Fills the seats of games with more than two seats (default "random"). */
  readonly fill: string;
  readonly seed: number;
}

export const CANDIDATE = 0;
export const BASELINE = 1;

/**
 * The seatings of one group, all on the same deal: 2 seats, [C, B] and [B, C]; N > 2 seats, every
 * rotation of [C, B, F, ...] and of [B, C, F, ...] (2N games), so each side sits at every position,
 * and before and after the other, equally often. Values: CANDIDATE, BASELINE, FILLER.
 */
export function groupSeatings(seats: number): number[][] {
  if (seats < 2) throw new RangeError("an SPRT match needs at least two seats");
  const out: number[][] = [];
  const bases = [
    [CANDIDATE, BASELINE],
    [BASELINE, CANDIDATE],
  ].map((head) => [...head, ...new Array<number>(seats - 2).fill(FILLER)]);
  for (const base of seats === 2 ? bases.slice(0, 1) : bases) {
    for (let r = 0; r < seats; r++) out.push(base.map((_, k) => base[(k - r + seats) % seats] ?? FILLER));
  }
  return out;
}

export type Context = Pick<AgentContext, "adapter" | "actionSpecHash" | "modelRoot">;

/**
 * Plays group g: every seating of groupSeatings on deal g. Returns the candidate's score in each
 * game (1 if its return beat the baseline's, 0.5 equal, 0 below). Deterministic in (matchup, g).
 */
export async function playGroup(game: AnyGame, config: { readonly seats: number }, matchup: SprtMatchup, context: Context, g: number): Promise<number[]> {
  const dealSeed = deriveSeed(matchup.seed, `deal:${g}`);
  const seatings = groupSeatings(config.seats);
  return Promise.all(
    seatings.map(async (seating, i) => {
      const agentBase = deriveSeed(matchup.seed, `sprt:${g}:${i}`);
      const seated: Facilitatee[] = [];
      for (let k = 0; k < seating.length; k++) {
        const who = seating[k];
        const spec = who === CANDIDATE ? matchup.candidate : who === BASELINE ? matchup.baseline : matchup.fill;
        const made = await createAgentReady(spec, { ...context, seed: agentBase, seat: k, game: game.info.id });
        if (!made.ok) throw new Error(`agent ${spec}: ${made.error.message}`);
        seated.push(made.value);
      }
      const result = await runMatch({ game, config, seed: dealSeed, agents: seated });
      return pairScore(seating, result.returns, CANDIDATE);
    }),
  );
}

export interface TrajectoryPoint {
  readonly games: number;
  readonly llr: number;
  readonly elo: number;
}

export interface SprtRun {
  readonly state: SprtState;
  readonly counts: readonly number[];
  readonly gamesPerGroup: number;
  /** LLR after each counted group. */
  readonly trajectory: readonly TrajectoryPoint[];
  /** Games actually played, counted or not (groups in flight when the test stopped are dropped). */
  readonly gamesPlayed: number;
  readonly seconds: number;
  /** True when the run stopped at maxGames without reaching a bound. */
  readonly truncated: boolean;
}

export interface SprtRunOptions {
  readonly params: SprtParams;
  readonly gamesPerGroup: number;
  /** Stop after this many counted games (rounded up to whole groups). */
  readonly maxGames: number;
  /** Plays group g and returns the candidate's per-game scores (in process, or on a worker). */
  readonly play: (g: number) => Promise<readonly number[]>;
  /** Groups in flight at once. The result does not depend on it. */
  readonly inFlight: number;
  readonly onGroup?: (state: SprtState) => void;
}

/**
 * Runs groups until the LLR leaves its bounds or maxGames are counted. Groups finish in any order
 * (parallel workers) but are counted in index order, and the test stops at the first group whose
 * count decides it, so the outcome depends only on the seed, not on how many games ran at once.
 */
export async function runSprt(options: SprtRunOptions): Promise<SprtRun> {
  const { params, gamesPerGroup } = options;
  const maxGroups = Math.max(1, Math.ceil(options.maxGames / gamesPerGroup));
  const counts = new GroupCounts(gamesPerGroup);
  const trajectory: TrajectoryPoint[] = [];
  const done = new Map<number, readonly number[]>();
  const start = performance.now();
  let state = sprtState(counts, params);
  let next = 0;
  let counted = 0;
  let played = 0;
  let stop = false;
  let failure: unknown = null;

  // Resolves as soon as the test is decided: groups still in flight are not waited for (a worker
  // pool is terminated by its owner; in-process games finish in the background and are dropped).
  await new Promise<void>((resolve) => {
    let running = 0;
    const finish = () => {
      stop = true;
      resolve();
    };
    const pump = () => {
      while (!stop && running < options.inFlight && next < maxGroups) {
        const g = next++;
        running++;
        options.play(g).then(
          (scores) => {
            running--;
            if (stop) return;
            played += gamesPerGroup;
            done.set(g, scores);
            for (let ready = done.get(counted); ready !== undefined; ready = done.get(counted)) {
              counts.addGroup(ready);
              done.delete(counted);
              counted++;
              state = sprtState(counts, params);
              trajectory.push({ games: state.games, llr: state.llr, elo: state.elo });
              options.onGroup?.(state);
              if (state.decision !== null || counted >= maxGroups) return finish();
            }
            pump();
          },
          (e: unknown) => {
            running--;
            if (stop) return;
            failure = e;
            finish();
          },
        );
      }
    };
    pump();
  });
  if (failure !== null) throw failure;
  return {
    state,
    counts: [...counts.counts],
    gamesPerGroup,
    trajectory,
    gamesPlayed: played,
    seconds: (performance.now() - start) / 1000,
    truncated: state.decision === null,
  };
}
