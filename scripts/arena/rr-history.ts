/** The history entry of a round robin (scripts/arena.ts --history), from its arena.json report. */
import type { ArenaReport } from "../../agents/arena/report.ts";
import type { Player, RoundRobinEntry } from "../../agents/arena/history.ts";

export function roundRobinEntry(report: ArenaReport, players: readonly Player[] | null, commit: string): RoundRobinEntry {
  const names = report.agents.map((a) => a.agent);
  const cell = (i: number, j: number) => report.matrix.find((m) => m.agent === names[i] && m.opponent === names[j]);
  return {
    kind: "roundrobin",
    time: new Date().toISOString(),
    commit,
    game: report.game,
    gameVersion: report.gameVersion,
    config: report.config,
    seed: report.seed,
    seconds: report.seconds,
    players: players ? [...players] : names.map((spec) => ({ spec })),
    ratings: report.agents.map((a) => a.rating ?? { elo: 0, low: 0, high: 0 }),
    anchor: report.ratingAnchor,
    wins: names.map((_, i) => names.map((_, j) => (i === j ? 0 : (cell(i, j)?.wins ?? 0) + (cell(i, j)?.draws ?? 0) / 2))),
    games: names.map((_, i) => names.map((_, j) => (i === j ? 0 : (cell(i, j)?.games ?? 0)))),
  };
}
