/**
 * Charts of arena results as SVG, from Vega-Lite specs compiled and rendered by vega in Node (no
 * browser, no canvas: vega estimates text widths). Each function returns the SVG text.
 */
import * as vega from "vega";
import * as vl from "vega-lite";
import type { TopLevelSpec } from "vega-lite";
import type { HistoryEntry, RoundRobinEntry, SprtEntry } from "../../agents/arena/history.ts";

export async function renderSvg(spec: TopLevelSpec): Promise<string> {
  const compiled = vl.compile(spec).spec;
  const view = new vega.View(vega.parse(compiled), { renderer: "none" });
  try {
    return await view.toSVG();
  } finally {
    view.finalize();
  }
}

const base = { $schema: "https://vega.github.io/schema/vega-lite/v6.json", background: "white", padding: 8 } as const;

/** A short name for a player: its registry name, else the spec without the onnx prefix. */
export function shortName(p: { spec: string; model?: string | undefined }): string {
  const m = /^onnx:(?:builtin\/)?([^,]*)(?:,(.*))?$/.exec(p.spec);
  const extra = m?.[2] ? ` (${m[2]})` : "";
  const s = p.model ? `${p.model}${extra}` : m ? `${m[1] ?? ""}${extra}` : p.spec;
  return s.length > 48 ? `${s.slice(0, 45)}...` : s;
}

/**
 * Elo over versions: each SPRT in the history as the candidate's Elo against its baseline, with
 * its 95% interval, in history order; one colour per baseline.
 */
export function eloOverVersionsSpec(entries: readonly HistoryEntry[]): TopLevelSpec | null {
  const rows = entries
    .filter((e): e is SprtEntry => e.kind === "sprt")
    .map((e, i) => ({
      n: i + 1,
      version: `${i + 1}. ${shortName(e.candidate)} @${e.commit}`,
      baseline: `vs ${shortName(e.baseline)} (${e.game})`,
      elo: clampElo(e.elo),
      low: clampElo(e.eloLow),
      high: clampElo(e.eloHigh),
      result: e.result,
    }));
  if (rows.length === 0) return null;
  const x = {
    field: "version",
    type: "ordinal",
    sort: rows.map((r) => r.version),
    title: "run (candidate @ commit)",
    axis: { labelAngle: -35, labelLimit: 340 },
  } as const;
  const color = { field: "baseline", type: "nominal", title: "baseline" } as const;
  return {
    ...base,
    title: { text: "Elo of each candidate against its baseline (95% interval)", anchor: "start" },
    width: Math.max(320, 46 * rows.length),
    height: 260,
    layer: [
      { data: { values: [{ zero: 0 }] }, mark: { type: "rule", color: "#999", strokeDash: [4, 3] }, encoding: { y: { field: "zero", type: "quantitative" } } },
      {
        data: { values: rows },
        mark: { type: "rule", strokeWidth: 2 },
        encoding: { x, color, y: { field: "low", type: "quantitative", title: "Elo" }, y2: { field: "high" } },
      },
      {
        data: { values: rows },
        mark: { type: "point", filled: true, size: 80, opacity: 1 },
        encoding: {
          x,
          color,
          y: { field: "elo", type: "quantitative" },
          shape: {
            field: "result",
            type: "nominal",
            title: "SPRT result",
            scale: { domain: ["H1", "H0", "inconclusive"], range: ["circle", "cross", "diamond"] },
          },
        },
      },
    ],
  } as TopLevelSpec;
}

const clampElo = (x: number) => Math.max(-1000, Math.min(1000, x));

/** LLR against games for each SPRT given, with its two bounds as dashed rules. */
export function llrTrajectorySpec(entries: readonly SprtEntry[]): TopLevelSpec | null {
  if (entries.length === 0) return null;
  const label = (e: SprtEntry) => `${e.gate ?? `${shortName(e.candidate)} vs ${shortName(e.baseline)}`} (${e.result})`;
  const points = entries.flatMap((e) => [{ test: label(e), games: 0, llr: 0 }, ...e.trajectory.map((p) => ({ test: label(e), games: p.games, llr: p.llr }))]);
  const bounds = [
    { bound: "accept H1", llr: entries[0]!.upper },
    { bound: "accept H0", llr: entries[0]!.lower },
  ];
  return {
    ...base,
    title: { text: `LLR trajectory (bounds ${entries[0]!.lower.toFixed(2)} / ${entries[0]!.upper.toFixed(2)})`, anchor: "start" },
    width: 520,
    height: 260,
    layer: [
      {
        data: { values: bounds },
        mark: { type: "rule", strokeDash: [6, 4], color: "#666" },
        encoding: { y: { field: "llr", type: "quantitative" } },
      },
      {
        data: { values: bounds },
        mark: { type: "text", align: "left", dx: 4, dy: -6, color: "#444" },
        encoding: { y: { field: "llr", type: "quantitative" }, x: { datum: 0, type: "quantitative" }, text: { field: "bound" } },
      },
      {
        data: { values: points },
        mark: { type: "line", interpolate: "step-after", strokeWidth: 2 },
        encoding: {
          x: { field: "games", type: "quantitative", title: "games counted" },
          y: { field: "llr", type: "quantitative", title: "log likelihood ratio" },
          color: { field: "test", type: "nominal", title: "test", legend: { orient: "bottom", columns: 1, labelLimit: 520 } },
        },
      },
    ],
  } as TopLevelSpec;
}

/** Win matrix of a round robin as a heat map: row agent's score against the column agent. */
export function winMatrixSpec(entry: RoundRobinEntry): TopLevelSpec {
  const names = entry.players.map(shortName);
  const cells: { row: string; col: string; score: number | null; text: string }[] = [];
  names.forEach((row, i) =>
    names.forEach((col, j) => {
      const games = entry.games[i]?.[j] ?? 0;
      const wins = entry.wins[i]?.[j] ?? 0;
      if (i === j || games === 0) cells.push({ row, col, score: null, text: "" });
      else cells.push({ row, col, score: wins / games, text: `${(100 * (wins / games)).toFixed(0)}% of ${games}` });
    }),
  );
  return {
    ...base,
    title: { text: `${entry.game} round robin${entry.commit ? ` @${entry.commit}` : ""}: row's score against column`, anchor: "start" },
    width: 90 * names.length,
    height: 44 * names.length,
    data: { values: cells },
    encoding: {
      x: { field: "col", type: "nominal", sort: names, title: "opponent", axis: { labelAngle: -30, labelLimit: 160 } },
      y: { field: "row", type: "nominal", sort: names, title: "agent", axis: { labelLimit: 160 } },
    },
    layer: [
      {
        mark: { type: "rect", stroke: "white" },
        encoding: { color: { field: "score", type: "quantitative", title: "score", scale: { domain: [0, 1], scheme: "redblue" } } },
      },
      {
        mark: { type: "text", fontSize: 11 },
        encoding: {
          text: { field: "text" },
          color: { condition: { test: "datum.score != null && (datum.score < 0.2 || datum.score > 0.8)", value: "white" }, value: "black" },
        },
      },
    ],
  } as TopLevelSpec;
}

/** Ratings of each round robin in the history: Elo with interval per player over the runs. */
export function ratingsOverRunsSpec(entries: readonly HistoryEntry[]): TopLevelSpec | null {
  const rr = entries.filter((e): e is RoundRobinEntry => e.kind === "roundrobin");
  if (rr.length === 0) return null;
  const rows = rr.flatMap((e, i) =>
    e.players.map((p, k) => ({
      n: i + 1,
      run: `${i + 1}. ${e.game} @${e.commit}`,
      player: shortName(p),
      elo: e.ratings[k]?.elo ?? 0,
      low: e.ratings[k]?.low ?? 0,
      high: e.ratings[k]?.high ?? 0,
    })),
  );
  return {
    ...base,
    title: { text: "Round-robin ratings over runs (Bradley-Terry Elo, 95% bootstrap)", anchor: "start" },
    width: Math.max(320, 80 * rr.length),
    height: 260,
    data: { values: rows },
    encoding: {
      x: { field: "run", type: "ordinal", sort: { field: "n" }, title: "run", axis: { labelAngle: -35, labelLimit: 200 } },
      color: { field: "player", type: "nominal" },
    },
    layer: [
      {
        mark: { type: "rule", strokeWidth: 2 },
        encoding: { y: { field: "low", type: "quantitative", title: "Elo" }, y2: { field: "high" }, xOffset: { field: "player" } },
      },
      { mark: { type: "point", filled: true, size: 60 }, encoding: { y: { field: "elo", type: "quantitative" }, xOffset: { field: "player" } } },
    ],
  } as TopLevelSpec;
}
