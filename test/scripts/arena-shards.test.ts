/**
 * A run split into parts (--fixtures A:B, --groups A:B) and merged (--from-results, --from-scores)
 * reports exactly what the run played in one process reports: what docs/scale.md's distributed
 * arena and SPRT rely on.
 */
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { tempDir } from "../fixtures/temp-dir.ts";
import { runScript } from "./run-script.ts";

const dir = tempDir("arena-shards-");
const json = (file: string) => JSON.parse(readFileSync(file, "utf8"));
/** A report without what depends on the clock (wall time, decisions per second, time of day). */
const timeless = (report: Record<string, unknown>) => {
  const { seconds: _s, time: _t, agents, ...rest } = report;
  return { ...rest, agents: Array.isArray(agents) ? agents.map(({ decisionsPerSec: _d, ...a }: Record<string, unknown>) => a) : agents };
};

/** Runs the merge and the one-process run, each with its own --out and --history under dir. */
function mergeAndWhole(name: string, merge: readonly string[], whole: readonly string[]): { merged: string; whole: string } {
  const where = (name: string) => ["--out", join(dir, name), "--history", join(dir, `${name}.jsonl`)];
  const m = runScript("arena.ts", [...merge, ...where(`${name}-merged`)]);
  expect(m.code, m.stderr).toBe(0);
  const w = runScript("arena.ts", [...whole, ...where(`${name}-whole`)]);
  expect(w.code, w.stderr).toBe(0);
  return { merged: join(dir, `${name}-merged`), whole: join(dir, `${name}-whole`) };
}

describe("round robin in parts", () => {
  const flags = ["--game", "sevens", "--seats", "3", "--agents", "random,computer,tutorial", "--games", "4", "--seed", "9", "-q"];
  const part = (range: string) => {
    const r = runScript("arena.ts", [...flags, "--fixtures", range, "--out", join(dir, range.replace(":", "-"))]);
    expect(r.code, r.stderr).toBe(0);
    return join(dir, range.replace(":", "-"), "arena-results.json");
  };

  it("--plan names the games to split, and parts merged in any order give the one-process report", () => {
    const plan = runScript("arena.ts", [...flags, "--plan"]);
    expect(plan.code, plan.stderr).toBe(0);
    expect(JSON.parse(plan.stdout)).toMatchObject({ fixtures: 12, plan: { game: "sevens", agents: ["random", "computer", "tutorial"], games: 4, seed: 9 } });
    const files = [part("5:12"), part("0:2"), part("2:5")];
    const run = mergeAndWhole(
      "rr",
      files.flatMap((f) => ["--from-results", f]),
      flags,
    );
    expect(timeless(json(join(run.merged, "arena.json")))).toEqual(timeless(json(join(run.whole, "arena.json"))));
    expect(timeless(json(`${run.merged}.jsonl`))).toEqual(timeless(json(`${run.whole}.jsonl`)));
  });

  it("refuses a game counted twice, a missing game, another run's part and a result played elsewhere than scheduled", () => {
    const a = part("0:6");
    const b = part("4:12");
    const merge = (...files: string[]) => runScript("arena.ts", [...files.flatMap((f) => ["--from-results", f]), "--out", join(dir, "bad")]);
    const twice = merge(a, b);
    expect(twice.code).toBe(2);
    expect(twice.stderr).toContain("game 4 is in the files twice");
    const missing = merge(a);
    expect(missing.code).toBe(2);
    expect(missing.stderr).toContain("game 6 of 12 is in none of the files");
    const other = runScript("arena.ts", [...flags.map((f) => (f === "9" ? "10" : f)), "--fixtures", "6:12", "--out", join(dir, "other")]);
    expect(other.code, other.stderr).toBe(0);
    const mixed = merge(a, join(dir, "other", "arena-results.json"));
    expect(mixed.code).toBe(2);
    expect(mixed.stderr).toContain("is from another run");
    const tampered = json(a);
    tampered.shards[0].results[1].seats.reverse();
    writeFileSync(join(dir, "tampered.json"), JSON.stringify(tampered));
    const bad = merge(join(dir, "tampered.json"), part("6:12"));
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain("game 1 was not played as the plan schedules it");
  });
});

describe("SPRT in parts", () => {
  const test = ["--elo0", "0", "--elo1", "50", "--max-games", "1200"];
  const flags = ["--sprt", "--game", "sevens", "--seats", "3", "--candidate", "computer", "--baseline", "random", "--workers", "0", ...test, "-q"];
  const part = (range: string) => {
    const r = runScript("arena.ts", [...flags, "--groups", range, "--out", join(dir, `g${range.replace(":", "-")}`)]);
    expect(r.code, r.stderr).toBe(0);
    return join(dir, `g${range.replace(":", "-")}`, "sprt-scores.json");
  };

  it("groups played in parts decide the test at the same group, with the same history line, as one process", () => {
    const plan = runScript("arena.ts", [...flags, "--plan"]);
    expect(plan.code, plan.stderr).toBe(0);
    expect(JSON.parse(plan.stdout)).toMatchObject({
      plan: { candidate: "computer", baseline: "random", fill: "random", seed: 1, gamesPerGroup: 6 },
      maxGroups: 200,
    });
    const files = [part("12:30"), part("0:12")];
    const run = mergeAndWhole("sprt", ["--sprt", ...files.flatMap((f) => ["--from-scores", f]), ...test], flags);
    const [m] = json(join(run.merged, "sprt.json"));
    expect(m).toMatchObject({ result: "H1", games: 138 });
    expect(timeless(m)).toEqual(timeless(json(join(run.whole, "sprt.json"))[0]));
    expect(timeless(json(`${run.merged}.jsonl`))).toEqual(timeless(json(`${run.whole}.jsonl`)));
  });

  it("scores that end before a decision, or a group given twice, are refused", () => {
    const first = part("0:12");
    const short = runScript("arena.ts", ["--sprt", "--from-scores", first, ...test, "--out", join(dir, "short")]);
    expect(short.code).toBe(2);
    expect(short.stderr).toContain("the files hold groups 0..11 (72 games) and the test is not decided by then");
    const twice = runScript("arena.ts", ["--sprt", "--from-scores", first, "--from-scores", part("11:14"), ...test, "--out", join(dir, "twice")]);
    expect(twice.code).toBe(2);
    expect(twice.stderr).toContain("group 11 is in the files twice");
  });
});

describe("SPRT merge of model players", () => {
  it("names registered models in the history line, as a run that played them here does", () => {
    const dcgPlan = JSON.parse(
      runScript("arena.ts", ["--sprt", "--game", "dcg", "--candidate", "model:dcg-ppo-v1", "--baseline", "champion", "--plan"]).stdout,
    ).plan;
    // Scores as parts would return them: the candidate loses both games of every group.
    const file = { kind: "cardgym-sprt-scores", plan: dcgPlan, seconds: 1, shards: [{ from: 0, scores: Array.from({ length: 40 }, () => [0, 0]) }] };
    writeFileSync(join(dir, "dcg-scores.json"), JSON.stringify(file));
    const merged = runScript("arena.ts", ["--sprt", "--from-scores", join(dir, "dcg-scores.json"), "--elo0", "-50", "--elo1", "0", "--out", join(dir, "dcg")]);
    expect(merged.code, merged.stderr).toBe(0);
    const [entry] = json(join(dir, "dcg", "sprt.json"));
    expect(entry.result).toBe("H0");
    expect(entry.candidate).toMatchObject({ spec: "onnx:builtin/dcg-ppo-v1", model: "dcg-ppo-v1" });
    expect(entry.baseline.model).toMatch(/^dcg-/);
  });
});
