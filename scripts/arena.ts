/**
 * npm run arena -- --game <id> --agents a,b,c [--games N] [--seed N] [--seats N] [--config JSON]
 *                  [--gate gates.json] [--out dir] [--concurrency N] [--model-root dir]
 * Round robin between agents with seats swapped; writes arena.json and arena.md to --out and exits
 * 1 when a gate fails (the CI check of bot strength). --plan prints the run's plan, --fixtures A:B
 * plays games [A, B) of it into a results file, --from-results merges such files into the report
 * (scripts/arena/shards.ts; a run split over machines: docs/scale.md). With --sprt: a sequential test between two
 * agents on paired games, or the SPRT gates of a gate file (scripts/arena/sprt-cli.ts, docs/sprt.md).
 */
import { appendFileSync, readFileSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { unwrap, type AnyGame } from "../engine/core/index.ts";
import { registry } from "../engine/games.ts";
import { checkGateAgents, evaluateGates, GateFileError, parseGates, type Gate } from "../agents/arena/gates.ts";
import { markdownReport, summarise } from "../agents/arena/report.ts";
import { runArena, schedule, type ArenaRun, type Fixture } from "../agents/arena/tournament.ts";
import { GroupPool } from "./arena/pool.ts";
import { checkDecisionCost } from "../agents/cost.ts";
import { createAgentReady, knownAgents, parseAgentSpec, seatsModel, splitAgentList } from "../agents/spec.ts";
import { adapters } from "../env/games/index.ts";
import { specOf } from "../env/spec.ts";
import { intArg, jsonArg, main, outDirArg, parseCli, UsageError, printUsage } from "./cli.ts";
import { gitCommit, player, SPRT_USAGE, sprtMain } from "./arena/sprt-cli.ts";
import { loadRegistry } from "./arena/registry.ts";
import { roundRobinEntry } from "./arena/rr-history.ts";
import { mergeArenaResults, parseRange, type ArenaPlan } from "./arena/shards.ts";

const USAGE =
  "npm run arena -- --game <id> --agents spec,spec[,...] [--games N] [--seed N] [--seats N] [--config JSON] [--gate gates.json] [--out dir] [--concurrency N] [--workers N] [--model-root dir] [--history F.jsonl] [--max-agent-cost N] [--plan | --fixtures A:B]\n" +
  "       npm run arena -- --from-results F.json [--from-results G.json ...] [--gate gates.json] [--out dir] [--history F.jsonl] [--model-root dir]";

/** Flags that say what to play; a merge (--from-results) takes them from its files instead. */
const PLAN_FLAGS = ["game", "agents", "games", "seed", "seats", "config", "concurrency", "workers", "max-agent-cost", "fixtures", "plan"] as const;

main(async () => {
  if (process.argv.includes("--sprt")) return sprtMain(process.argv.slice(2));
  const { values, positionals } = parseCli(USAGE, {
    game: { type: "string" },
    agents: { type: "string" },
    games: { type: "string" },
    seed: { type: "string" },
    seats: { type: "string" },
    config: { type: "string" },
    gate: { type: "string" },
    out: { type: "string" },
    concurrency: { type: "string" },
    "model-root": { type: "string" },
    history: { type: "string" },
    workers: { type: "string" },
    "max-agent-cost": { type: "string" },
    plan: { type: "boolean" },
    fixtures: { type: "string" },
    "from-results": { type: "string", multiple: true },
    quiet: { type: "boolean", short: "q" },
  });
  if (values.help) return printUsage(USAGE, `${SPRT_USAGE}\ngames: ${registry.ids().join(", ")}\nagents: ${knownAgents().join(", ")}`);
  if (positionals.length > 0) throw new UsageError(`unexpected argument "${positionals[0]}"\nusage: ${USAGE}`);
  const out = values.out ?? "arena-out";
  const quiet = values.quiet ?? false;
  if (values["from-results"] !== undefined) {
    for (const flag of PLAN_FLAGS)
      if (values[flag] !== undefined) throw new UsageError(`--${flag} does not go with --from-results (the files say what was played)`);
    const merged = mergeArenaResults(values["from-results"], (plan) => planGame(plan).config.seats);
    const { game, config } = planGame(merged.plan);
    const gates = readGateFile(values.gate, merged.plan.agents, game.info.id, config.seats);
    const run = { results: merged.results, timing: merged.timing, seconds: merged.seconds };
    const plan = { game, config, agents: merged.plan.agents, games: merged.plan.games, seed: merged.plan.seed };
    return report(plan, run, gates, { out, history: values.history, modelRoot: values["model-root"] });
  }

  if (!values.game) throw new UsageError(`--game is required (${registry.ids().join(", ")})`);
  const game = unwrap(registry.get(values.game));
  if (!values.agents) throw new UsageError(`--agents is required, e.g. --agents random,computer (known: ${knownAgents().join(", ")})`);
  const agents = splitAgentList(values.agents);
  for (const a of agents) {
    const p = parseAgentSpec(a);
    if (!p.ok) throw new UsageError(`--agents: ${p.error.message}`);
    if (!knownAgents().includes(p.value.name)) throw new UsageError(`--agents: unknown agent "${p.value.name}"; known agents: ${knownAgents().join(", ")}`);
  }
  // The server's admission cap (agents/cost.ts), applied here only when asked: per decision.
  if (values["max-agent-cost"] !== undefined) {
    const limit = intArg(values["max-agent-cost"], "max-agent-cost", 1, 1, Number.MAX_SAFE_INTEGER);
    for (const a of agents) {
      const c = checkDecisionCost(a, limit, undefined, game.info.id);
      if (!c.ok) throw new UsageError(`--agents: ${c.error.message}`);
    }
  }
  const dup = agents.find((a, i) => agents.indexOf(a) !== i);
  if (dup) throw new UsageError(`--agents lists "${dup}" twice`);
  const games = intArg(values.games, "games", 20, 1, 1_000_000);
  const seed = intArg(values.seed, "seed", 1);
  // Default: 1, or ONNX_LANES games in flight when an onnx agent is seated (they batch across games).
  const concurrency = values.concurrency === undefined ? undefined : intArg(values.concurrency, "concurrency", 1, 1, 4096);
  const rawConfig = jsonArg(values.config, "config");
  if (rawConfig === null || typeof rawConfig !== "object" || Array.isArray(rawConfig)) throw new UsageError("--config must be a JSON object");
  const config0 = values.seats === undefined ? rawConfig : { ...rawConfig, seats: intArg(values.seats, "seats", 0) };
  const parsed = game.parseConfig(config0);
  if (!parsed.ok) throw new UsageError(`${game.info.id}: ${parsed.error.message}`);
  const config = parsed.value as { seats: number } & Record<string, unknown>;
  if (config.seats > 1 && agents.length < 2) throw new UsageError(`a ${config.seats}-seat round robin needs at least two agents`);
  const total = schedule(agents.length, config.seats, games).length;
  if (values.plan && values.fixtures !== undefined) throw new UsageError("--plan and --fixtures do not go together");
  const range = values.fixtures === undefined ? undefined : parseRange(values.fixtures, "fixtures", total);
  if (range && (values.gate !== undefined || values.history !== undefined))
    throw new UsageError("--gate and --history judge a whole run: give them to the --from-results merge, not to --fixtures");
  const gates = readGateFile(values.gate, agents, game.info.id, config.seats);

  const adapter = adapters.get(game.info.id);
  const context = {
    ...(adapter ? { adapter, actionSpecHash: specOf(adapter).actionSpecHash } : {}),
    ...(values["model-root"] ? { modelRoot: values["model-root"] } : {}),
  };
  // Build every agent once up front, so a bad parameter or model fails before any game is played.
  for (const a of agents) {
    const made = await createAgentReady(a, { ...context, seed, seat: 0, game: game.info.id });
    if (!made.ok) throw new UsageError(`--agents: ${made.error.message}`);
  }
  const plan: ArenaPlan = { game: game.info.id, gameVersion: game.info.version, config, agents, games, seed };
  // --plan: what a driver needs to split the run (docs/scale.md), after every check above.
  if (values.plan) {
    console.log(JSON.stringify({ plan, fixtures: total }));
    return 0;
  }
  const progress = progressBar(quiet);
  // --workers N: play the fixtures on N worker threads (default 0: all in this thread).
  const workers = intArg(values.workers, "workers", 0, 0, 64);
  outDirArg("--out", out); // before the games: a run whose results cannot be written stops now
  const pool = workers > 0 ? new GroupPool(values["model-root"] ? { modelRoot: values["model-root"] } : {}, workers) : null;
  if (pool) await pool.ready();
  const runner = pool ? (f: Fixture) => pool.playFixture({ game: game.info.id, config, agents, seed, fixture: f }) : undefined;
  // With a pool, keep every worker busy: 2 fixtures each in flight, 32 when ONNX agents batch.
  const onnxSeated = agents.some(seatsModel);
  const lanes = concurrency ?? (pool ? workers * (onnxSeated ? 32 : 2) : undefined);
  const run = await runArena({
    ...(runner ? { runner } : {}),
    ...(range ? { range } : {}),
    game,
    config,
    agents,
    games,
    seed,
    ...(lanes === undefined ? {} : { concurrency: lanes }),
    context,
    onProgress: progress,
  });
  progress.finish();
  await pool?.close();
  if (range) {
    // The shape of ArenaResults (scripts/arena/shards.ts), which --from-results validates.
    const results = {
      kind: "cardgym-arena-results",
      plan,
      seconds: run.seconds,
      shards: [{ from: range[0], results: [...run.results], timing: [...run.timing] }],
    };
    outDirArg("--out", out);
    writeFileSync(join(out, "arena-results.json"), JSON.stringify(results) + "\n");
    if (!quiet) console.log(`games ${range[0]}..${range[1] - 1} of ${total} written to ${join(out, "arena-results.json")}`);
    return 0;
  }
  return report({ game, config, agents, games, seed }, run, gates, { out, history: values.history, modelRoot: values["model-root"] });
});

/** The game and parsed config a results file names (its game version must be this checkout's). */
function planGame(plan: ArenaPlan): { game: AnyGame; config: { seats: number } & Record<string, unknown> } {
  const game = registry.get(plan.game);
  if (!game.ok) throw new UsageError(`--from-results: ${game.error.message}`);
  if (game.value.info.version !== plan.gameVersion)
    throw new UsageError(`--from-results: the games were played with ${plan.game} ${plan.gameVersion}, this checkout has ${game.value.info.version}`);
  const parsed = game.value.parseConfig(plan.config);
  if (!parsed.ok) throw new UsageError(`--from-results: ${plan.game}: ${parsed.error.message}`);
  return { game: game.value, config: parsed.value as { seats: number } & Record<string, unknown> };
}

function readGateFile(file: string | undefined, agents: readonly string[], game: string, seats: number): Gate[] {
  if (file === undefined) return [];
  let text: string;
  try {
    text = readFileSync(file, "utf8");
  } catch {
    throw new UsageError(`--gate: cannot read ${file}`);
  }
  try {
    const gates = parseGates(JSON.parse(text));
    checkGateAgents(gates, agents, game, seats);
    return gates;
  } catch (e) {
    if (e instanceof SyntaxError) throw new UsageError(`--gate: ${file} is not valid JSON (${e.message})`);
    if (e instanceof GateFileError) throw new UsageError(`--gate ${file}: ${e.message}`);
    throw e;
  }
}

interface Played {
  readonly game: AnyGame;
  readonly config: { readonly seats: number } & Record<string, unknown>;
  readonly agents: readonly string[];
  readonly games: number;
  readonly seed: number;
}

/** Writes arena.json and arena.md (and a history line), prints the report; 1 when a gate fails. */
function report(
  p: Played,
  run: ArenaRun,
  gates: readonly Gate[],
  where: { out: string; history?: string | undefined; modelRoot?: string | undefined },
): number {
  const { game, config, agents, games, seed } = p;
  const report = summarise({ game: game.info.id, gameVersion: game.info.version, config, seats: config.seats, seed, games, agents, run });
  const gateResults = evaluateGates(gates, report);
  const md = markdownReport(report, gateResults);
  const { out } = where;
  outDirArg("--out", out);
  writeFileSync(join(out, "arena.json"), JSON.stringify({ ...report, gates: gateResults }, null, 1) + "\n");
  writeFileSync(join(out, "arena.md"), md);
  if (where.history !== undefined && report.seats > 1) {
    const reg = (() => {
      try {
        return loadRegistry();
      } catch {
        return null;
      }
    })();
    const entry = roundRobinEntry(
      report,
      agents.map((a) => player(a, reg, where.modelRoot)),
      gitCommit(),
    );
    outDirArg("--history", dirname(where.history));
    appendFileSync(where.history, JSON.stringify(entry) + "\n");
  }
  console.log(md);
  console.log(`reports written to ${join(out, "arena.json")} and ${join(out, "arena.md")}`);
  const failed = gateResults.filter((g) => !g.pass);
  if (failed.length > 0) {
    for (const g of failed) console.error(`gate failed: ${g.line}`);
    return 1;
  }
  return 0;
}

/** A one-line progress bar on stderr (a line per 10% when stderr is not a terminal). */
function progressBar(quiet: boolean): ((done: number, total: number) => void) & { finish(): void } {
  const start = performance.now();
  const tty = process.stderr.isTTY === true;
  let lastTenth = -1;
  let drawn = false;
  const f = (done: number, total: number) => {
    if (quiet) return;
    const secs = (performance.now() - start) / 1000;
    const rateText = `${(done / Math.max(secs, 1e-9)).toFixed(1)} games/s`;
    if (tty) {
      const width = 30;
      const filled = Math.round((width * done) / total);
      process.stderr.write(`\r[${"#".repeat(filled)}${" ".repeat(width - filled)}] ${done}/${total} games  ${rateText}  ${secs.toFixed(0)} s `);
      drawn = true;
    } else {
      const tenth = Math.floor((10 * done) / total);
      if (tenth !== lastTenth) {
        lastTenth = tenth;
        process.stderr.write(`arena: ${done}/${total} games (${rateText})\n`);
      }
    }
  };
  return Object.assign(f, {
    finish() {
      if (drawn) process.stderr.write("\n");
    },
  });
}
