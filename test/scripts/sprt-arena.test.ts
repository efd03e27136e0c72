import { createHash } from "node:crypto";
import { copyFileSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { tempDir } from "../fixtures/temp-dir.ts";
import { unwrap } from "../../engine/core/index.ts";
import { registry as games } from "../../engine/games.ts";
import { parseAllGates } from "../../agents/arena/gates.ts";
import { HistoryError, parseHistory, type SprtEntry } from "../../agents/arena/history.ts";
import { BASELINE, CANDIDATE, groupSeatings, runSprt } from "../../agents/arena/sprt-run.ts";
import { withMetadata, metadataEntries } from "../../agents/onnx/stamp.ts";
import { FILLER } from "../../agents/arena/tournament.ts";
import { runSprtJob } from "../../scripts/arena/sprt-cli.ts";
import { repoRoot, runScript } from "./run-script.ts";
import { Rng } from "../../engine/core/index.ts";
import { readFields, text } from "../../agents/onnx/protobuf.ts";

const sha256 = (f: string) => createHash("sha256").update(readFileSync(f)).digest("hex");

const params = { elo0: -50, elo1: 0, alpha: 0.05, beta: 0.05 };

describe("SPRT schedule", () => {
  it("2 seats: the pair plays both seatings of a deal", () => {
    expect(groupSeatings(2)).toEqual([
      [CANDIDATE, BASELINE],
      [BASELINE, CANDIDATE],
    ]);
  });

  it("N seats: every rotation, both orders, so each side sits everywhere equally often", () => {
    for (const n of [3, 5]) {
      const s = groupSeatings(n);
      expect(s).toHaveLength(2 * n);
      expect(new Set(s.map((x) => x.join())).size).toBe(2 * n);
      for (let k = 0; k < n; k++) {
        expect(s.filter((x) => x[k] === CANDIDATE)).toHaveLength(2);
        expect(s.filter((x) => x[k] === BASELINE)).toHaveLength(2);
        expect(s.filter((x) => x[k] === FILLER)).toHaveLength(2 * (n - 2));
      }
    }
  });
});

describe("SPRT runner", () => {
  // Scripted groups: group g's scores come from a fixed table; delays shuffle the finishing order.
  const script = (g: number) =>
    [
      [1, 0],
      [0, 0],
      [0.5, 0],
      [1, 1],
      [0, 0],
      [0, 0.5],
    ][g % 6]!;
  const delayed = (g: number) => new Promise<readonly number[]>((r) => setTimeout(() => r(script(g)), (g * 7919) % 13));

  it("counts the pentanomial exactly and stops at max games", async () => {
    const run = await runSprt({ params, gamesPerGroup: 2, maxGames: 12, inFlight: 1, play: async (g) => script(g) });
    // Groups 0..5 once each: WL, LL, DL, WW, LL, LD -> [LL=2, LD/DL=2, WL=1, WD=0, WW=1].
    expect(run.counts).toEqual([2, 2, 1, 0, 1]);
    expect(run.state.games).toBe(12);
    expect(run.truncated).toBe(true);
    expect(run.trajectory).toHaveLength(6);
  });

  it("gives the same decision, games and trajectory whatever the groups in flight and their finishing order", async () => {
    const one = await runSprt({ params, gamesPerGroup: 2, maxGames: 10_000, inFlight: 1, play: async (g) => script(g) });
    const many = await runSprt({ params, gamesPerGroup: 2, maxGames: 10_000, inFlight: 16, play: delayed });
    expect(one.state.decision).toBe("H0");
    expect(many.state).toEqual(one.state);
    expect(many.trajectory).toEqual(one.trajectory);
    expect(many.gamesPlayed).toBeGreaterThanOrEqual(one.gamesPlayed);
  });
});

const dcg = unwrap(games.get("dcg"));
const sevens = unwrap(games.get("sevens"));

describe("SPRT on real games", () => {
  it("identical deterministic policies end at 0 Elo and pass a non-regression test", async () => {
    const job = {
      label: "same",
      game: dcg,
      config: unwrap(dcg.parseConfig({})) as { seats: number },
      matchup: { candidate: "onnx:builtin/dcg-ppo-v1", baseline: "onnx:builtin/dcg-ppo-v1", fill: "random", seed: 3 },
      params,
      maxGames: 400,
    };
    const run = await runSprtJob(job, { workers: 0, quiet: true, log: () => {} });
    expect(run.state.decision).toBe("H1");
    expect(run.state.elo).toBeCloseTo(0, 6);
    // Every pair split 1-1: all groups in the middle category.
    expect(run.counts).toEqual([0, 0, run.state.groups, 0, 0]);
  });

  it("identical random agents in a 3-seat game end near 0 Elo, the interval holding 0", async () => {
    const job = {
      label: "same",
      game: sevens,
      config: unwrap(sevens.parseConfig({ seats: 3 })) as { seats: number },
      matchup: { candidate: "random", baseline: "random", fill: "random", seed: 5 },
      params: { elo0: -30, elo1: 30, alpha: 0.05, beta: 0.05 },
      maxGames: 600,
    };
    const run = await runSprtJob(job, { workers: 0, quiet: true, log: () => {} });
    expect(run.gamesPerGroup).toBe(6);
    expect(run.counts).toHaveLength(13);
    expect(run.state.eloLow).toBeLessThan(0);
    expect(run.state.eloHigh).toBeGreaterThan(0);
    expect(Math.abs(run.state.elo)).toBeLessThan(40);
  });

  it("runs the same groups on worker threads as in this thread", async () => {
    const job = {
      label: "w",
      game: sevens,
      config: unwrap(sevens.parseConfig({ seats: 3 })) as { seats: number },
      matchup: { candidate: "computer", baseline: "random", fill: "random", seed: 1 },
      params: { elo0: 0, elo1: 50, alpha: 0.05, beta: 0.05 },
      maxGames: 120,
    };
    const here = await runSprtJob(job, { workers: 0, quiet: true, log: () => {} });
    const pooled = await runSprtJob(job, { workers: 2, quiet: true, log: () => {} });
    expect(pooled.counts).toEqual(here.counts);
    expect(pooled.state).toEqual(here.state);
  });
});

describe("round robin on worker threads", () => {
  it("gives the same results with --workers 2 as in one thread", () => {
    const dir = tempDir("rr-workers-");
    const args = (w: string) => [
      "--game",
      "sevens",
      "--seats",
      "3",
      "--agents",
      "random,computer",
      "--games",
      "12",
      "--seed",
      "4",
      "--workers",
      w,
      "--out",
      join(dir, w),
      "-q",
    ];
    const here = runScript("arena.ts", args("0"));
    const pooled = runScript("arena.ts", args("2"));
    expect(here.code).toBe(0);
    expect(pooled.code).toBe(0);
    const read = (w: string) => JSON.parse(readFileSync(join(dir, w, "arena.json"), "utf8"));
    expect(read("2").matrix).toEqual(read("0").matrix);
    expect(read("2").agents.map((a: { decisions: number }) => a.decisions)).toEqual(read("0").agents.map((a: { decisions: number }) => a.decisions));
  });
});

describe("SPRT gates", () => {
  it("validates SPRT gates in the gate file", () => {
    const ok = { kind: "sprt", name: "n", game: "dcg", candidate: "computer", baseline: "random", elo0: -10, elo1: 0, maxGames: 100 };
    expect(parseAllGates([ok])).toHaveLength(1);
    expect(() => parseAllGates([{ ...ok, elo0: 5 }])).toThrow(/elo0 must be below elo1/);
    expect(() => parseAllGates([{ ...ok, alpha: 0.7 }])).toThrow(/gates\[0\]\.alpha/);
    expect(() => parseAllGates([{ ...ok, speed: 1 }])).toThrow(/unknown field "speed"/);
    expect(() => parseAllGates([{ ...ok, kind: "elo" }])).toThrow(/kind must be/);
    // The shipped gate file parses.
    const shipped = parseAllGates(JSON.parse(readFileSync(join(repoRoot, ".ci/gates.json"), "utf8")));
    expect(shipped.filter((g) => g.kind === "sprt").map((g) => g.game)).toEqual(["dcg", "dcg", "dcg", "dcg", "dcg", "sevens", "sevens"]);
  });

  it("a weakened policy (sampling at temperature 3) fails the non-regression gate against the champion, naming the gate, the LLR and the games", () => {
    const dir = tempDir("sprt-gate-");
    const gates = join(dir, "gates.json");
    writeFileSync(
      gates,
      JSON.stringify([
        {
          kind: "sprt",
          name: "weakened dcg policy",
          game: "dcg",
          candidate: "onnx:builtin/dcg-exit-v2,sample=true,temperature=3",
          baseline: "champion",
          elo0: -50,
          elo1: 0,
          maxGames: 400,
        },
      ]),
    );
    const r = runScript("arena.ts", ["--sprt", "--gate", gates, "--workers", "1", "--out", join(dir, "out"), "--history", join(dir, "h.jsonl"), "-q"]);
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/gate failed: gate "weakened dcg policy" \(dcg\): FAIL, H0 accepted: LLR -\d+\.\d+ \[-2\.94, 2\.94\], Elo -\d+/);
    expect(r.stderr).toMatch(/after \d+ games/);
    const [entry] = parseHistory(readFileSync(join(dir, "h.jsonl"), "utf8")) as SprtEntry[];
    expect(entry?.result).toBe("H0");
    expect(entry?.baseline.model).toBe("dcg-ppo-v3");
    expect(entry!.games).toBeLessThanOrEqual(200);
  });
});

/** The real model with its first dense layer's weights (64 x 875) shuffled in place: same values, no structure. */
function corruptedModel(dir: string): string {
  const bytes = new Uint8Array(readFileSync(join(repoRoot, "models/builtin/dcg-ppo-v1.onnx")));
  const graph = readFields(bytes).find((f) => f.field === 7)!;
  const layer = readFields(graph.bytes)
    .filter((f) => f.field === 5)
    .map((f) => readFields(f.bytes))
    .find((fs) => text(fs.find((f) => f.field === 8)!.bytes) === "head.0.weight")!;
  const raw = layer.find((f) => f.field === 9)!.bytes; // a view into `bytes`: edits land in the file
  const floats = new Float32Array(raw.slice().buffer);
  Rng.seeded(7).shuffle(floats as unknown as number[]);
  raw.set(new Uint8Array(floats.buffer));
  const out = join(dir, "corrupt.onnx");
  writeFileSync(out, bytes);
  return out;
}

describe("a corrupted layer", () => {
  it("fails the non-regression test against the champion", async () => {
    const file = corruptedModel(tempDir("sprt-corrupt-"));
    expect(sha256(file)).not.toBe(sha256(join(repoRoot, "models/builtin/dcg-ppo-v1.onnx")));
    const job = {
      label: "corrupt",
      game: dcg,
      config: unwrap(dcg.parseConfig({})) as { seats: number },
      matchup: { candidate: `onnx:path=${file}`, baseline: "onnx:builtin/dcg-ppo-v1", fill: "random", seed: 1 },
      params,
      maxGames: 400,
    };
    const run = await runSprtJob(job, { workers: 0, quiet: true, log: () => {} });
    expect(run.state.decision).toBe("H0");
    expect(run.state.eloHigh).toBeLessThan(0);
  });
});

describe("history and promotion", () => {
  it("names the bad line of a history file", () => {
    expect(() => parseHistory('{"kind":"sprt"}\n')).toThrow(HistoryError);
    expect(() => parseHistory("\nnot json\n")).toThrow(/line 2/);
    expect(() => parseHistory('{"kind":"elo"}', "runs/h.jsonl")).toThrow(/^runs\/h\.jsonl line 1: kind must be "sprt" or "roundrobin"$/);
  });

  it("promotes a model only after an SPRT pass against the current champion is on record", () => {
    const dir = tempDir("promote-");
    mkdirSync(join(dir, "builtin"));
    copyFileSync(join(repoRoot, "models/builtin/dcg-ppo-v1.onnx"), join(dir, "builtin/champ.onnx"));
    const champBytes = readFileSync(join(dir, "builtin/champ.onnx"));
    const reg = JSON.parse(readFileSync(join(repoRoot, "models/registry.json"), "utf8"));
    reg.models[0].name = "champ";
    reg.models[0].file = "builtin/champ.onnx";
    reg.champions.dcg = "champ";
    writeFileSync(join(dir, "registry.json"), JSON.stringify(reg));
    // A "new" model: the same weights with one more metadata entry, so a different sha256.
    const cand = join(dir, "cand.onnx");
    writeFileSync(cand, withMetadata(champBytes, { ...Object.fromEntries(metadataEntries(champBytes)), note: "v2" }));
    const sha = (f: string) => createHash("sha256").update(readFileSync(f)).digest("hex");
    const history = join(dir, "history.jsonl");
    const entry = (result: string, candSha: string) =>
      JSON.stringify({
        kind: "sprt",
        time: "2026-11-23T00:00:00Z",
        commit: "x",
        game: "dcg",
        gameVersion: "1",
        config: {},
        seed: 1,
        seconds: 1,
        candidate: { spec: "onnx:path=cand.onnx", sha256: candSha },
        baseline: { spec: "champion", sha256: reg.models[0].sha256 },
        elo0: -10,
        elo1: 5,
        alpha: 0.05,
        beta: 0.05,
        maxGames: 100,
        result,
        llr: 3,
        lower: -2.94,
        upper: 2.94,
        games: 40,
        gamesPerGroup: 2,
        counts: [0, 0, 20, 0, 0],
        elo: 0,
        eloLow: 0,
        eloHigh: 0,
        trajectory: [],
      }) + "\n";
    const args = [cand, "--name", "v2", "--run", "test", "--registry", join(dir, "registry.json"), "--history", history];

    writeFileSync(history, entry("H0", sha(cand)));
    let r = runScript("promote.ts", args);
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(/no SPRT .* accepted H1 for this model/);
    expect(JSON.parse(readFileSync(join(dir, "registry.json"), "utf8")).champions.dcg).toBe("champ");

    writeFileSync(history, entry("H1", sha(cand)));
    r = runScript("promote.ts", args);
    expect(r.stderr).toBe("");
    expect(r.code).toBe(0);
    const after = JSON.parse(readFileSync(join(dir, "registry.json"), "utf8"));
    expect(after.champions.dcg).toBe("v2");
    const v2 = after.models.find((m: { name: string }) => m.name === "v2");
    expect(v2).toMatchObject({ parent: "champ", file: "builtin/v2.onnx", encoderVersion: "dcg-obs-v2", game: "dcg", trainingRun: "test", sha256: sha(cand) });
    expect(readFileSync(join(dir, "builtin/v2.onnx")).equals(readFileSync(cand))).toBe(true);

    // Promoting the champion again (here the same file): nothing to do, said so, exit 0, registry untouched.
    const registryBefore = readFileSync(join(dir, "registry.json"), "utf8");
    r = runScript("promote.ts", [cand, "--registry", join(dir, "registry.json"), "--history", history]);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toMatch(/is v2, already the dcg champion: nothing to promote/);
    expect(readFileSync(join(dir, "registry.json"), "utf8")).toBe(registryBefore);
  });
});
