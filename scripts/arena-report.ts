/**
 * npm run arena:report -- --history F.jsonl [--run DIR] [--out DIR]
 * Renders the arena history (and one run: a DIR holding sprt.json and/or arena.json written by
 * `npm run arena`) as Markdown with SVG charts: Elo over versions, the LLR trajectory, the win
 * matrix as a heat map, round-robin ratings over runs.
 */
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { parseHistory, SprtEntrySchema, type HistoryEntry, type RoundRobinEntry, type SprtEntry } from "../agents/arena/history.ts";
import { Value } from "typebox/value";
import { eloOverVersionsSpec, llrTrajectorySpec, ratingsOverRunsSpec, renderSvg, shortName, winMatrixSpec } from "./arena/charts.ts";
import { roundRobinEntry } from "./arena/rr-history.ts";
import { main, parseCli, UsageError, printUsage } from "./cli.ts";

const USAGE = "npm run arena:report -- --history F.jsonl [--run DIR] [--out DIR]";

function readRun(dir: string): { sprt: SprtEntry[]; rr: RoundRobinEntry | null } {
  const sprtFile = join(dir, "sprt.json");
  const arenaFile = join(dir, "arena.json");
  if (!existsSync(sprtFile) && !existsSync(arenaFile)) throw new UsageError(`--run ${dir}: no sprt.json or arena.json there`);
  let sprt: SprtEntry[] = [];
  if (existsSync(sprtFile)) {
    const raw: unknown = JSON.parse(readFileSync(sprtFile, "utf8"));
    if (!Array.isArray(raw) || !raw.every((e) => Value.Check(SprtEntrySchema, e))) throw new UsageError(`--run: ${sprtFile} is not an SPRT report`);
    sprt = raw as SprtEntry[];
  }
  let rr: RoundRobinEntry | null = null;
  if (existsSync(arenaFile)) {
    const raw = JSON.parse(readFileSync(arenaFile, "utf8")) as Parameters<typeof roundRobinEntry>[0];
    if (raw.seats > 1) rr = roundRobinEntry(raw, null, "");
  }
  return { sprt, rr };
}

main(async () => {
  const { values, positionals } = parseCli(USAGE, { history: { type: "string" }, run: { type: "string" }, out: { type: "string" } });
  if (values.help) return printUsage(USAGE);
  if (positionals.length > 0) throw new UsageError(`unexpected argument "${positionals[0]}"\nusage: ${USAGE}`);
  if (!values.history && !values.run) throw new UsageError(`give --history and/or --run\nusage: ${USAGE}`);
  let history: HistoryEntry[] = [];
  if (values.history) {
    let text: string;
    try {
      text = readFileSync(values.history, "utf8");
    } catch {
      throw new UsageError(`--history: cannot read ${values.history}`);
    }
    history = parseHistory(text, `--history ${values.history}`);
  }
  // The run: from --run, else the history's last SPRT entries (same commit) and last round robin.
  let run: { sprt: SprtEntry[]; rr: RoundRobinEntry | null };
  if (values.run) run = readRun(values.run);
  else {
    const sprt = history.filter((e): e is SprtEntry => e.kind === "sprt");
    const last = sprt.at(-1);
    const rrs = history.filter((e): e is RoundRobinEntry => e.kind === "roundrobin");
    run = { sprt: last ? sprt.filter((e) => e.commit === last.commit && e.time.slice(0, 13) === last.time.slice(0, 13)) : [], rr: rrs.at(-1) ?? null };
  }
  const out = values.out ?? "arena-out/report";
  mkdirSync(out, { recursive: true });
  const md: string[] = ["# Arena report", ""];
  const chart = async (file: string, spec: Parameters<typeof renderSvg>[0] | null, caption: string) => {
    if (spec === null) return;
    writeFileSync(join(out, file), await renderSvg(spec));
    md.push(`![${caption}](${file})`, "");
  };
  if (history.length > 0) {
    md.push(`## History (${history.length} entries, ${values.history})`, "");
    md.push("| # | time | commit | kind | game | who | result | Elo (95%) | games |", "|---:|---|---|---|---|---|---|---|---:|");
    history.forEach((e, i) => {
      if (e.kind === "sprt") {
        md.push(
          `| ${i + 1} | ${e.time.slice(0, 16)} | ${e.commit} | sprt${e.gate ? `: ${e.gate}` : ""} | ${e.game} | ${shortName(e.candidate)} vs ${shortName(e.baseline)} [${e.elo0}, ${e.elo1}] | ${e.result} (LLR ${e.llr.toFixed(2)}) | ${e.elo.toFixed(1)} [${e.eloLow.toFixed(1)}, ${e.eloHigh.toFixed(1)}] | ${e.games} |`,
        );
      } else {
        const best = e.players.map((p, k) => ({ p, r: e.ratings[k]! })).sort((a, b) => b.r.elo - a.r.elo);
        md.push(
          `| ${i + 1} | ${e.time.slice(0, 16)} | ${e.commit} | round robin | ${e.game} | ${best.map((b) => `${shortName(b.p)} ${b.r.elo.toFixed(0)}`).join(", ")} | | | ${e.games.flat().reduce((a, b) => a + b, 0) / 2} |`,
        );
      }
    });
    md.push("");
    await chart("elo.svg", eloOverVersionsSpec(history), "Elo over versions");
    await chart("ratings.svg", ratingsOverRunsSpec(history), "Round-robin ratings over runs");
  }
  if (run.sprt.length > 0 || run.rr) {
    md.push("## Run", "");
    for (const e of run.sprt) {
      md.push(
        `- ${e.gate ? `gate "${e.gate}": ` : ""}${e.candidate.spec} vs ${e.baseline.spec} on ${e.game}: **${e.result}**, LLR ${e.llr.toFixed(2)} (bounds ${e.lower.toFixed(2)}, ${e.upper.toFixed(2)}), Elo ${e.elo.toFixed(1)} [${e.eloLow.toFixed(1)}, ${e.eloHigh.toFixed(1)}] after ${e.games} games; group counts [${e.counts.join(", ")}]`,
      );
    }
    md.push("");
    await chart("llr.svg", llrTrajectorySpec(run.sprt), "LLR trajectory");
    if (run.rr) await chart("matrix.svg", winMatrixSpec(run.rr), "Win matrix");
  }
  writeFileSync(join(out, "report.md"), md.join("\n"));
  console.log(`report written to ${join(out, "report.md")}`);
  return 0;
});
