/**
 * `npm run arena -- --sprt ...`: a sequential probability ratio test between a candidate and a
 * baseline on paired games (docs/sprt.md), or every SPRT gate of a gate file (`--gate F`).
 */
import { execFileSync } from "node:child_process";
import { appendFileSync, readFileSync, writeFileSync } from "node:fs";
import { availableParallelism } from "node:os";
import { dirname, join } from "node:path";
import { unwrap, type AnyGame } from "../../engine/core/index.ts";
import { registry as games } from "../../engine/games.ts";
import { GateFileError, isSprtGate, parseAllGates, type SprtGate } from "../../agents/arena/gates.ts";
import { thin, type Player, type SprtEntry } from "../../agents/arena/history.ts";
import { groupSeatings, playGroup, runSprt, type SprtMatchup, type SprtRun } from "../../agents/arena/sprt-run.ts";
import { checkSprtParams, formatSprt, SPRT_DEFAULTS, type SprtParams } from "../../agents/arena/sprt.ts";
import { createAgentReady, knownAgents, parseAgentSpec, seatsModel } from "../../agents/spec.ts";
import { adapters } from "../../env/games/index.ts";
import { specOf } from "../../env/spec.ts";
import { intArg, jsonArg, outDirArg, parseCli, UsageError, printUsage } from "../cli.ts";
import { GroupPool } from "./pool.ts";
import { mergeSprtScores, parseRange, type MergedSprt, type SprtPlan } from "./shards.ts";
import { loadRegistry, resolveRegistrySpec, sha256File, specModelFile, type Registry } from "./registry.ts";

export const SPRT_USAGE =
  "npm run arena -- --sprt --game <id> --candidate SPEC --baseline SPEC [--elo0 -10] [--elo1 10] [--alpha 0.05] [--beta 0.05] [--max-games 2000] [--seed N] [--seats N] [--config JSON] [--fill SPEC] [--workers N] [--in-flight N] [--history F.jsonl] [--out dir] [--model-root dir] [-q] [--plan | --groups A:B]\n" +
  "       npm run arena -- --sprt --from-scores F.json [--from-scores G.json ...] [--elo0 -10] [--elo1 10] [--alpha 0.05] [--beta 0.05] [--max-games 2000] [--history F.jsonl] [--out dir] [-q]\n" +
  "       npm run arena -- --sprt --gate gates.json [--game <id>] [--workers N] [--history F.jsonl] [--out dir] [-q]";

export interface SprtJob {
  readonly label: string;
  readonly game: AnyGame;
  readonly config: { readonly seats: number } & Record<string, unknown>;
  readonly matchup: SprtMatchup;
  readonly params: SprtParams;
  readonly maxGames: number;
  readonly gate?: SprtGate;
}

export interface SprtJobOptions {
  /** Worker threads; 0 plays in this thread. */
  readonly workers: number;
  /** A pool to reuse (several tests in one run); else one is made for this test and closed. */
  readonly pool?: GroupPool;
  /** Groups in flight per worker (default: 16 with an onnx agent seated, else 2). */
  readonly inFlight?: number;
  readonly modelRoot?: string;
  readonly quiet: boolean;
  readonly log: (line: string) => void;
  /** Groups already played elsewhere (--from-scores): counted in order, nothing is played here. */
  readonly played?: readonly (readonly number[])[];
}

const seatsOnnx = (m: SprtMatchup) => [m.candidate, m.baseline, m.fill].some(seatsModel);

function contextFor(game: AnyGame, modelRoot?: string) {
  const adapter = adapters.get(game.info.id);
  return {
    ...(adapter ? { adapter, actionSpecHash: specOf(adapter).actionSpecHash } : {}),
    ...(modelRoot === undefined ? {} : { modelRoot }),
  };
}

/** Runs one SPRT, on worker threads or in this thread, printing progress lines. */
export async function runSprtJob(job: SprtJob, options: SprtJobOptions): Promise<SprtRun> {
  const { game, config, matchup } = job;
  const gamesPerGroup = groupSeatings(config.seats).length;
  const context = contextFor(game, options.modelRoot);
  if (options.played) return replaySprt(job, options.played, gamesPerGroup);
  await checkAgents(job, context);
  const perWorker = options.inFlight ?? (seatsOnnx(matchup) ? 16 : 2);
  const own = options.pool === undefined && options.workers > 0;
  const pool = options.pool ?? (own ? new GroupPool(options.modelRoot === undefined ? {} : { modelRoot: options.modelRoot }, options.workers) : null);
  const match = { game: game.info.id, config, matchup };
  const start = performance.now();
  const step = Math.max(gamesPerGroup, Math.round(job.maxGames / 10 / gamesPerGroup) * gamesPerGroup);
  let nextLine = step;
  try {
    if (pool) await pool.ready();
    const run = await runSprt({
      params: job.params,
      gamesPerGroup,
      maxGames: job.maxGames,
      inFlight: perWorker * Math.max(1, pool?.size ?? 1),
      play: pool ? (g) => pool.play(match, g) : (g) => playGroup(game, config, matchup, context, g),
      onGroup: (s) => {
        if (options.quiet || (s.games < nextLine && s.decision === null)) return;
        while (nextLine <= s.games) nextLine += step;
        const secs = (performance.now() - start) / 1000;
        options.log(`sprt ${job.label}: ${formatSprt(s)} (${(s.games / Math.max(secs, 1e-9)).toFixed(1)} games/s)`);
      },
    });
    return run;
  } finally {
    pool?.abandon();
    if (own) await pool?.close();
  }
}

/** Builds every agent once, so a bad spec or model fails before any game is played. */
async function checkAgents(job: SprtJob, context: ReturnType<typeof contextFor>): Promise<void> {
  const { game, config, matchup } = job;
  for (const spec of [matchup.candidate, matchup.baseline, ...(config.seats > 2 ? [matchup.fill] : [])]) {
    const made = await createAgentReady(spec, { ...context, seed: matchup.seed, seat: 0, game: game.info.id });
    if (!made.ok) throw new UsageError(`${job.label}: ${made.error.message}`);
  }
}

/**
 * Counts groups played elsewhere exactly as a run here counts them (in index order, stopping at
 * the first group that decides the test); scores that end before a decision or maxGames are an error.
 */
async function replaySprt(job: SprtJob, played: readonly (readonly number[])[], gamesPerGroup: number): Promise<SprtRun> {
  return runSprt({
    params: job.params,
    gamesPerGroup,
    maxGames: job.maxGames,
    inFlight: 1,
    play: (g) => {
      const scores = played[g];
      if (scores) return Promise.resolve(scores);
      return Promise.reject(
        new UsageError(
          `--from-scores: the files hold groups 0..${played.length - 1} (${played.length * gamesPerGroup} games) and the test is not decided by then; play more groups`,
        ),
      );
    },
  });
}

/** Plays groups [from, to) of a test, several in flight, without stopping (--groups). */
async function playGroups(job: SprtJob, range: readonly [number, number], options: SprtJobOptions): Promise<number[][]> {
  const context = contextFor(job.game, options.modelRoot);
  await checkAgents(job, context);
  const scores: number[][] = [];
  let next = range[0];
  const lane = async () => {
    while (next < range[1]) {
      const g = next++;
      scores[g - range[0]] = await playGroup(job.game, job.config, job.matchup, context, g);
    }
  };
  const lanes = options.inFlight ?? (seatsOnnx(job.matchup) ? 16 : 2);
  await Promise.all(Array.from({ length: Math.min(lanes, range[1] - range[0]) }, lane));
  return scores;
}

export function gitCommit(): string {
  try {
    return execFileSync("git", ["rev-parse", "--short", "HEAD"], { encoding: "utf8", stdio: ["ignore", "pipe", "ignore"] }).trim();
  } catch {
    return "unknown";
  }
}

export function player(spec: string, reg: Registry | null, modelRoot?: string): Player {
  const file = specModelFile(spec, modelRoot);
  if (file === null) return { spec };
  let sha: string;
  try {
    sha = sha256File(file);
  } catch {
    return { spec };
  }
  const model = reg?.models.find((m) => m.sha256 === sha)?.name;
  return { spec, sha256: sha, ...(model === undefined ? {} : { model }) };
}

export function historyEntry(job: SprtJob, run: SprtRun, reg: Registry | null, modelRoot?: string): SprtEntry {
  const s = run.state;
  return {
    kind: "sprt",
    time: new Date().toISOString(),
    commit: gitCommit(),
    game: job.game.info.id,
    gameVersion: job.game.info.version,
    config: job.config,
    seed: job.matchup.seed,
    seconds: run.seconds,
    ...(job.gate ? { gate: job.gate.name } : {}),
    candidate: player(job.matchup.candidate, reg, modelRoot),
    baseline: player(job.matchup.baseline, reg, modelRoot),
    ...(job.config.seats > 2 ? { fill: job.matchup.fill } : {}),
    ...job.params,
    maxGames: job.maxGames,
    result: s.decision ?? "inconclusive",
    llr: s.llr,
    lower: s.bounds.lower,
    upper: s.bounds.upper,
    games: s.games,
    gamesPerGroup: run.gamesPerGroup,
    counts: [...run.counts],
    elo: s.elo,
    eloLow: s.eloLow,
    eloHigh: s.eloHigh,
    trajectory: thin(run.trajectory),
  };
}

function numArg(value: string | undefined, name: string, def: number): number {
  if (value === undefined) return def;
  const n = Number(value);
  if (value.trim() === "" || !Number.isFinite(n)) throw new UsageError(`--${name} must be a number, got "${value}"`);
  return n;
}

function checkSpec(spec: string, flag: string): void {
  const p = parseAgentSpec(spec);
  if (!p.ok) throw new UsageError(`--${flag}: ${p.error.message}`);
  if (!knownAgents().includes(p.value.name))
    throw new UsageError(`--${flag}: unknown agent "${p.value.name}"; known agents: ${knownAgents().join(", ")}, or champion, model:<name>`);
}

function parseConfig(game: AnyGame, raw: unknown): { seats: number } & Record<string, unknown> {
  const parsed = game.parseConfig(raw);
  if (!parsed.ok) throw new UsageError(`${game.info.id}: ${parsed.error.message}`);
  const config = parsed.value as { seats: number } & Record<string, unknown>;
  if (config.seats < 2) throw new UsageError(`${game.info.id} with ${config.seats} seat: an SPRT needs a game with two or more seats`);
  return config;
}

function markdown(entries: readonly SprtEntry[], failures: readonly string[]): string {
  const lines = [
    "# SPRT",
    "",
    "| test | game | candidate | baseline | bounds (Elo) | result | LLR | Elo (95%) | games | config |",
    "|---|---|---|---|---|---|---:|---|---:|---|",
  ];
  for (const e of entries) {
    lines.push(
      `| ${e.gate ?? "-"} | ${e.game} | ${e.candidate.spec} | ${e.baseline.spec} | [${e.elo0}, ${e.elo1}] | ${e.result} | ${e.llr.toFixed(2)} (${e.lower.toFixed(2)}, ${e.upper.toFixed(2)}) | ${e.elo.toFixed(1)} [${e.eloLow.toFixed(1)}, ${e.eloHigh.toFixed(1)}] | ${e.games} | \`${JSON.stringify(e.config)}\` |`,
    );
  }
  lines.push(
    "",
    `Group counts (candidate's half-points per group of ${entries[0]?.gamesPerGroup ?? 2} games): ${entries.map((e) => `[${e.counts.join(", ")}]`).join(" ")}`,
  );
  if (failures.length > 0) lines.push("", "## Failed gates", "", ...failures.map((f) => `- ${f}`));
  lines.push("");
  return lines.join("\n");
}

function testParams(values: { elo0?: string | undefined; elo1?: string | undefined; alpha?: string | undefined; beta?: string | undefined }): SprtParams {
  const params = {
    elo0: numArg(values.elo0, "elo0", SPRT_DEFAULTS.elo0),
    elo1: numArg(values.elo1, "elo1", SPRT_DEFAULTS.elo1),
    alpha: numArg(values.alpha, "alpha", SPRT_DEFAULTS.alpha),
    beta: numArg(values.beta, "beta", SPRT_DEFAULTS.beta),
  };
  const bad = checkSprtParams(params);
  if (bad) throw new UsageError(bad);
  return params;
}

/**
 * --plan: prints the test's plan (resolved specs, games per group), bounds and max games as JSON;
 * --groups A:B: plays groups [A, B) in this thread and writes them to <out>/sprt-scores.json.
 */
async function planOrPart(
  job: SprtJob,
  o: { plan: boolean; groups: string | undefined; out: string; quiet: boolean; inFlight?: number; modelRoot?: string },
): Promise<number> {
  const { game, config, matchup } = job;
  const gamesPerGroup = groupSeatings(config.seats).length;
  const plan: SprtPlan = { game: game.info.id, gameVersion: game.info.version, config, ...matchup, gamesPerGroup };
  const maxGroups = Math.max(1, Math.ceil(job.maxGames / gamesPerGroup));
  if (o.plan) {
    if (o.groups !== undefined) throw new UsageError("--plan and --groups do not go together");
    await checkAgents(job, contextFor(game, o.modelRoot));
    console.log(JSON.stringify({ plan, params: job.params, maxGames: job.maxGames, maxGroups }));
    return 0;
  }
  const range = parseRange(o.groups!, "groups", maxGroups);
  const start = performance.now();
  const scores = await playGroups(job, range, {
    workers: 0,
    quiet: o.quiet,
    log: () => {},
    ...(o.inFlight === undefined ? {} : { inFlight: o.inFlight }),
    ...(o.modelRoot === undefined ? {} : { modelRoot: o.modelRoot }),
  });
  // The shape of SprtScores (./shards.ts), which --from-scores validates.
  const file = { kind: "cardgym-sprt-scores", plan, seconds: (performance.now() - start) / 1000, shards: [{ from: range[0], scores }] };
  outDirArg("--out", o.out);
  writeFileSync(join(o.out, "sprt-scores.json"), JSON.stringify(file) + "\n");
  if (!o.quiet) console.log(`groups ${range[0]}..${range[1] - 1} (${scores.length * gamesPerGroup} games) written to ${join(o.out, "sprt-scores.json")}`);
  return 0;
}

/** The `--sprt` entry point; returns the exit code. */
export async function sprtMain(argv: readonly string[]): Promise<number> {
  const { values, positionals } = parseCli(
    SPRT_USAGE,
    {
      sprt: { type: "boolean" },
      game: { type: "string" },
      candidate: { type: "string" },
      baseline: { type: "string" },
      fill: { type: "string" },
      elo0: { type: "string" },
      elo1: { type: "string" },
      alpha: { type: "string" },
      beta: { type: "string" },
      "max-games": { type: "string" },
      seed: { type: "string" },
      seats: { type: "string" },
      config: { type: "string" },
      gate: { type: "string" },
      workers: { type: "string" },
      "in-flight": { type: "string" },
      history: { type: "string" },
      out: { type: "string" },
      "model-root": { type: "string" },
      plan: { type: "boolean" },
      groups: { type: "string" },
      "from-scores": { type: "string", multiple: true },
      quiet: { type: "boolean", short: "q" },
    },
    argv,
  );
  if (values.help)
    return printUsage(SPRT_USAGE, `games: ${games.ids().join(", ")}\nagents: ${knownAgents().join(", ")}, champion, model:<name> (models/registry.json)`);
  if (positionals.length > 0) throw new UsageError(`unexpected argument "${positionals[0]}"\nusage: ${SPRT_USAGE}`);
  const workers = intArg(values.workers, "workers", Math.min(8, availableParallelism()), 0, 64);
  const inFlight = values["in-flight"] === undefined ? undefined : intArg(values["in-flight"], "in-flight", 2, 1, 1024);
  const modelRoot = values["model-root"];
  const quiet = values.quiet ?? false;
  let reg: Registry | null = null;
  const registry = () => (reg ??= loadRegistry());
  const resolveSpec = (spec: string, game: string, flag: string) => {
    const out = resolveRegistrySpec(spec, game, registry);
    checkSpec(out, flag);
    return out;
  };

  const jobs: SprtJob[] = [];
  let merged: MergedSprt | undefined;
  if (values.gate !== undefined) {
    for (const flag of [
      "from-scores",
      "groups",
      "plan",
      "candidate",
      "baseline",
      "elo0",
      "elo1",
      "alpha",
      "beta",
      "max-games",
      "fill",
      "config",
      "seats",
    ] as const) {
      if (values[flag] !== undefined) throw new UsageError(`--${flag} does not go with --gate (the gate file says it)`);
    }
    let text: string;
    try {
      text = readFileSync(values.gate, "utf8");
    } catch {
      throw new UsageError(`--gate: cannot read ${values.gate}`);
    }
    let gates: SprtGate[];
    try {
      gates = parseAllGates(JSON.parse(text)).filter(isSprtGate);
    } catch (e) {
      if (e instanceof SyntaxError) throw new UsageError(`--gate: ${values.gate} is not valid JSON (${e.message})`);
      if (e instanceof GateFileError) throw new UsageError(`--gate ${values.gate}: ${e.message}`);
      throw e;
    }
    if (values.game !== undefined) gates = gates.filter((g) => g.game === values.game);
    if (gates.length === 0) throw new UsageError(`--gate ${values.gate}: no SPRT gate${values.game ? ` for ${values.game}` : ""}`);
    for (const g of gates) {
      const game = games.get(g.game);
      if (!game.ok) throw new UsageError(`gate "${g.name}": ${game.error.message}`);
      const params = { elo0: g.elo0, elo1: g.elo1, alpha: g.alpha ?? SPRT_DEFAULTS.alpha, beta: g.beta ?? SPRT_DEFAULTS.beta };
      jobs.push({
        label: `"${g.name}"`,
        game: game.value,
        config: parseConfig(game.value, g.config ?? {}),
        matchup: {
          candidate: resolveSpec(g.candidate, g.game, "candidate"),
          baseline: resolveSpec(g.baseline, g.game, "baseline"),
          fill: resolveSpec(g.fill ?? "random", g.game, "fill"),
          seed: g.seed ?? 1,
        },
        params,
        maxGames: g.maxGames,
        gate: g,
      });
    }
  } else if (values["from-scores"] !== undefined) {
    for (const flag of ["game", "candidate", "baseline", "fill", "seed", "seats", "config", "groups", "plan"] as const) {
      if (values[flag] !== undefined) throw new UsageError(`--${flag} does not go with --from-scores (the files say what was played)`);
    }
    merged = mergeSprtScores(values["from-scores"]);
    try {
      registry(); // for the history line's model names, as a run here that resolved its specs has
    } catch {
      // No readable registry: players are named by spec and sha256 only.
    }
    const { plan } = merged;
    const game = games.get(plan.game);
    if (!game.ok) throw new UsageError(`--from-scores: ${game.error.message}`);
    if (game.value.info.version !== plan.gameVersion)
      throw new UsageError(`--from-scores: the games were played with ${plan.game} ${plan.gameVersion}, this checkout has ${game.value.info.version}`);
    const config = parseConfig(game.value, plan.config);
    if (groupSeatings(config.seats).length !== plan.gamesPerGroup)
      throw new UsageError(`--from-scores: ${plan.gamesPerGroup} games per group do not fit ${config.seats} seats`);
    jobs.push({
      label: `${plan.candidate} vs ${plan.baseline}`,
      game: game.value,
      config,
      matchup: { candidate: plan.candidate, baseline: plan.baseline, fill: plan.fill, seed: plan.seed },
      params: testParams(values),
      maxGames: intArg(values["max-games"], "max-games", 2000, 2, 10_000_000),
    });
  } else {
    if (!values.game) throw new UsageError(`--game is required (${games.ids().join(", ")})`);
    const game = unwrap(games.get(values.game));
    if (!values.candidate || !values.baseline) throw new UsageError(`--candidate and --baseline are required\nusage: ${SPRT_USAGE}`);
    const params = testParams(values);
    const rawConfig = jsonArg(values.config, "config");
    if (rawConfig === null || typeof rawConfig !== "object" || Array.isArray(rawConfig)) throw new UsageError("--config must be a JSON object");
    const config = parseConfig(game, values.seats === undefined ? rawConfig : { ...rawConfig, seats: intArg(values.seats, "seats", 0) });
    const candidate = resolveSpec(values.candidate, game.info.id, "candidate");
    const baseline = resolveSpec(values.baseline, game.info.id, "baseline");
    jobs.push({
      label: `${candidate} vs ${baseline}`,
      game,
      config,
      matchup: { candidate, baseline, fill: resolveSpec(values.fill ?? "random", game.info.id, "fill"), seed: intArg(values.seed, "seed", 1) },
      params,
      maxGames: intArg(values["max-games"], "max-games", 2000, 2, 10_000_000),
    });
  }
  const out = values.out ?? "arena-out";
  if (values.plan || values.groups !== undefined) {
    if (values.gate !== undefined || values.history !== undefined) throw new UsageError("--plan and --groups take one test's flags, not --gate or --history");
    return planOrPart(jobs[0]!, {
      plan: values.plan ?? false,
      groups: values.groups,
      out,
      quiet,
      ...(inFlight === undefined ? {} : { inFlight }),
      ...(modelRoot === undefined ? {} : { modelRoot }),
    });
  }

  const entries: SprtEntry[] = [];
  const failures: string[] = [];
  const log = (line: string) => process.stderr.write(`${line}\n`);
  outDirArg("--out", out); // before the games: a run whose results cannot be written stops now
  // One pool for every test of the run: workers start once.
  const pool = workers > 0 && merged === undefined ? new GroupPool(modelRoot === undefined ? {} : { modelRoot }, workers) : undefined;
  try {
    for (const job of jobs) {
      const ran = await runSprtJob(job, {
        ...(merged ? { played: merged.groups } : {}),
        workers,
        ...(pool ? { pool } : {}),
        ...(inFlight === undefined ? {} : { inFlight }),
        ...(modelRoot === undefined ? {} : { modelRoot }),
        quiet,
        log,
      });
      // A merged run took the wall time of the parts' run, not of the counting here.
      const run = merged ? { ...ran, seconds: merged.seconds } : ran;
      const entry = historyEntry(job, run, reg, modelRoot);
      entries.push(entry);
      const s = run.state;
      const verdict = s.decision === "H1" ? "H1 accepted" : s.decision === "H0" ? "H0 accepted" : `no decision at max games ${job.maxGames}`;
      const summary = `${verdict}: ${formatSprt(s)} (${job.matchup.candidate} vs ${job.matchup.baseline}, Elo bounds [${job.params.elo0}, ${job.params.elo1}], config ${JSON.stringify(job.config)}, ${run.seconds.toFixed(1)} s)`;
      if (job.gate) {
        const pass = s.decision === "H1" || (s.decision === null && job.gate.inconclusive === "pass");
        const line = `gate "${job.gate.name}" (${job.game.info.id}): ${pass ? "PASS" : "FAIL"}, ${summary}`;
        console.log(line);
        if (!pass) failures.push(line);
      } else console.log(`sprt ${job.label}: ${summary}`);
    }
  } finally {
    await pool?.close();
  }
  outDirArg("--out", out);
  writeFileSync(join(out, "sprt.json"), JSON.stringify(entries, null, 1) + "\n");
  writeFileSync(join(out, "sprt.md"), markdown(entries, failures));
  if (values.history !== undefined) {
    outDirArg("--history", dirname(values.history));
    appendFileSync(values.history, entries.map((e) => JSON.stringify(e) + "\n").join(""));
  }
  if (!quiet)
    console.log(`reports written to ${join(out, "sprt.json")} and ${join(out, "sprt.md")}${values.history ? `; history appended to ${values.history}` : ""}`);
  for (const f of failures) console.error(`gate failed: ${f}`);
  return failures.length > 0 ? 1 : 0;
}
