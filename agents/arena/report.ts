import { InvariantError, must } from "../../engine/core/index.ts";
import { gateVerdict, type GateResult } from "./gates.ts";
import type { ArenaRun, GameResult } from "./tournament.ts";
import { ratingsWithIntervals, wilson, type PairOutcomes } from "./stats.ts";

export interface PairingSummary {
  readonly agent: string;
  readonly opponent: string;
  readonly games: number;
  readonly wins: number;
  readonly draws: number;
  readonly losses: number;
  /** wins / games (draws are not wins). */
  readonly winRate: number;
  readonly wilsonLow: number;
  readonly wilsonHigh: number;
}

export interface SoloSummary {
  readonly agent: string;
  readonly games: number;
  readonly wins: number;
  readonly winRate: number;
  readonly wilsonLow: number;
  readonly wilsonHigh: number;
  readonly meanReturn: number;
}

export interface AgentSummary {
  readonly agent: string;
  readonly decisions: number;
  /** Decisions per second of the agent's own work per decision (a batched model's share of each run; waits for other games' decisions excluded). */
  readonly decisionsPerSec: number;
  /** Bradley-Terry rating on the Elo scale with a 95% bootstrap interval (multi-seat games only). */
  readonly rating: { readonly elo: number; readonly low: number; readonly high: number } | null;
}

export interface ArenaReport {
  readonly game: string;
  readonly gameVersion: string;
  readonly config: unknown;
  readonly seats: number;
  readonly seed: number;
  readonly gamesPer: number;
  readonly totalGames: number;
  readonly seconds: number;
  readonly agents: readonly AgentSummary[];
  /** Every ordered (agent, opponent) pair; empty in a solitaire. */
  readonly matrix: readonly PairingSummary[];
  /** Per-agent results in a solitaire; empty otherwise. */
  readonly solo: readonly SoloSummary[];
  readonly ratingAnchor: string | null;
}

export interface ReportInput {
  readonly game: string;
  readonly gameVersion: string;
  readonly config: unknown;
  readonly seats: number;
  readonly seed: number;
  readonly games: number;
  readonly agents: readonly string[];
  readonly run: ArenaRun;
}

export function summarise(input: ReportInput): ArenaReport {
  const { agents, run } = input;
  const matrix: PairingSummary[] = [];
  const solo: SoloSummary[] = [];
  const pairs: PairOutcomes[] = [];
  if (input.seats === 1) {
    agents.forEach((agent, i) => {
      const mine = run.results.filter((r) => r.seats[0] === i);
      const wins = mine.filter((r) => r.score === 1).length;
      const ci = wilson(wins, mine.length);
      const mean = mine.reduce((s, r) => s + must(r.returns[0], "arena report: the return of a solitaire"), 0) / Math.max(1, mine.length);
      solo.push({ agent, games: mine.length, wins, winRate: wins / Math.max(1, mine.length), wilsonLow: ci.low, wilsonHigh: ci.high, meanReturn: mean });
    });
  } else {
    agents.forEach((first, a) =>
      agents.forEach((second, b) => {
        if (b <= a) return;
        const games = run.results.filter((r) => r.pair !== null && r.pair[0] === a && r.pair[1] === b);
        pairs.push({ a, b, outcomes: games.map((g) => g.score) });
        matrix.push(pairing(first, second, games, (g) => g.score));
        matrix.push(pairing(second, first, games, (g) => 1 - g.score));
      }),
    );
  }
  const anchor = agents.findIndex((a) => a === "random");
  const ratings =
    input.seats === 1
      ? null
      : ratingsWithIntervals(
          agents.length,
          pairs.filter((p) => p.outcomes.length > 0),
          anchor,
          input.seed,
        );
  return {
    game: input.game,
    gameVersion: input.gameVersion,
    config: input.config,
    seats: input.seats,
    seed: input.seed,
    gamesPer: input.games,
    totalGames: run.results.length,
    seconds: run.seconds,
    agents: agents.map((agent, i) => {
      const { decisions, seconds } = must(run.timing[i], "arena report: the timing of an agent");
      return {
        agent,
        decisions,
        decisionsPerSec: seconds > 0 ? decisions / seconds : 0,
        rating: ratings ? must(ratings[i], "arena report: the rating of an agent") : null,
      };
    }),
    matrix,
    solo,
    ratingAnchor: ratings ? (anchor >= 0 ? "random" : "mean") : null,
  };
}

function pairing(agent: string, opponent: string, games: readonly GameResult[], score: (g: GameResult) => number): PairingSummary {
  let wins = 0;
  let draws = 0;
  for (const g of games) {
    const s = score(g);
    if (s === 1) wins++;
    else if (s === 0.5) draws++;
  }
  const ci = wilson(wins, games.length);
  return {
    agent,
    opponent,
    games: games.length,
    wins,
    draws,
    losses: games.length - wins - draws,
    winRate: games.length === 0 ? 0 : wins / games.length,
    wilsonLow: ci.low,
    wilsonHigh: ci.high,
  };
}

const pct = (x: number) => `${(100 * x).toFixed(1)}%`;
const rate = (x: number) => (x >= 100 ? x.toFixed(0) : x.toFixed(1));

export function markdownReport(report: ArenaReport, gates?: readonly Pick<GateResult, "line" | "pass" | "skipped">[]): string {
  const lines: string[] = [];
  lines.push(`# Arena: ${report.game} v${report.gameVersion}`);
  lines.push("");
  lines.push(
    `${report.seats} seat${report.seats === 1 ? "" : "s"}, seed ${report.seed}, ${report.gamesPer} games per ${report.seats === 1 ? "agent" : "pairing"} (${report.totalGames} games in ${report.seconds.toFixed(1)} s), config \`${JSON.stringify(report.config)}\``,
  );
  lines.push("");
  if (report.seats === 1) {
    lines.push("| agent | games | wins | win rate | 95% Wilson | mean return | decisions/s |");
    lines.push("|---|---:|---:|---:|---|---:|---:|");
    report.solo.forEach((s, i) => {
      lines.push(
        `| ${s.agent} | ${s.games} | ${s.wins} | ${pct(s.winRate)} | ${pct(s.wilsonLow)}-${pct(s.wilsonHigh)} | ${s.meanReturn.toFixed(3)} | ${rate(must(report.agents[i], "arena report: the summary of a solitaire agent").decisionsPerSec)} |`,
      );
    });
  } else {
    const names = report.agents.map((a) => a.agent);
    lines.push("Row agent's wins-draws-losses against the column agent (win rate).");
    lines.push("");
    lines.push(`| | ${names.join(" | ")} |`);
    lines.push(`|---|${names.map(() => "---").join("|")}|`);
    for (const row of names) {
      const cells = names.map((col) => {
        if (col === row) return "-";
        const m = must(
          report.matrix.find((x) => x.agent === row && x.opponent === col),
          `arena report: the pairing of ${row} against ${col}`,
        );
        return `${m.wins}-${m.draws}-${m.losses} (${pct(m.winRate)})`;
      });
      lines.push(`| **${row}** | ${cells.join(" | ")} |`);
    }
    lines.push("");
    lines.push(...pairingTable(report));
    lines.push("");
    lines.push(`| agent | Elo (Bradley-Terry, ${report.ratingAnchor === "random" ? "random = 0" : "mean = 0"}) | 95% bootstrap | decisions | decisions/s |`);
    lines.push("|---|---:|---|---:|---:|");
    const order = [...report.agents].sort((x, y) => (y.rating?.elo ?? 0) - (x.rating?.elo ?? 0));
    for (const a of order) {
      const r = a.rating;
      if (r === null) throw new InvariantError(`arena report: ${a.agent} has no rating in a multi-seat game`);
      lines.push(`| ${a.agent} | ${r.elo.toFixed(0)} | ${ratingInterval(report, a.agent, r)} | ${a.decisions} | ${rate(a.decisionsPerSec)} |`);
    }
  }
  if (gates && gates.length > 0) {
    lines.push("");
    lines.push("## Gates");
    lines.push("");
    for (const g of gates) lines.push(`- ${gateVerdict(g)}: ${g.line}`);
  }
  lines.push("");
  return lines.join("\n");
}

/**
 * An agent's bootstrap interval as printed. An agent that won (or lost) every game it played has
 * no upper (or lower) bound: resampling its games cannot vary them, so the bootstrap would print
 * the prior-capped point estimate as a bound (4 wins of 4 gave "191 .. 191"). The anchor is 0 by
 * definition.
 */
function ratingInterval(report: ArenaReport, agent: string, r: { readonly low: number; readonly high: number }): string {
  const mine = report.matrix.filter((m) => m.agent === agent && m.games > 0);
  const anchor = report.ratingAnchor === "random" && agent === "random";
  const wonAll = !anchor && mine.length > 0 && mine.every((m) => m.wins === m.games);
  const lostAll = !anchor && mine.length > 0 && mine.every((m) => m.losses === m.games);
  const low = lostAll ? "none (lost every game)" : r.low.toFixed(0);
  const high = wonAll ? "none (won every game)" : r.high.toFixed(0);
  return `${low} .. ${high}`;
}

/** One row per pairing: the first-named agent's win rate (draws are not wins) with its 95% Wilson interval. */
function pairingTable(report: ArenaReport): string[] {
  const order = report.agents.map((a) => a.agent);
  const rows = report.matrix.filter((m) => order.indexOf(m.agent) < order.indexOf(m.opponent));
  return [
    "| agent | opponent | games | wins-draws-losses | win rate | 95% Wilson |",
    "|---|---|---:|---|---:|---|",
    ...rows.map(
      (m) => `| ${m.agent} | ${m.opponent} | ${m.games} | ${m.wins}-${m.draws}-${m.losses} | ${pct(m.winRate)} | ${pct(m.wilsonLow)} .. ${pct(m.wilsonHigh)} |`,
    ),
  ];
}
