/**
 * tsx scripts/bench-sprt.ts [--games N] [--rounds N] [--workers N]
 *
 * Paired-game throughput, side by side in one process, interleaved round by round so machine load
 * hits every mode alike: "before" is the round-robin arena on one thread (runArena: a pair's games
 * in flight together, ONNX decisions batched across them); "round robin, pool" the same fixtures
 * on --workers worker threads (the arena's --workers); "1 thread" is the SPRT runner in this
 * thread; "pool" is the SPRT runner on --workers worker threads (default: one per core), each
 * keeping several groups in flight. The SPRT runs are set up never to decide (bounds around the
 * truth), so every mode plays exactly --games games. Cases: dcg-ppo-v1 against itself (sampled),
 * and dcg computer against random. Prints games/s per mode (best of rounds) and pool/before.
 * A benchmark, not a test.
 */
import { availableParallelism } from "node:os";
import { unwrap } from "../engine/core/index.ts";
import { registry } from "../engine/games.ts";
import { runArena } from "../agents/arena/tournament.ts";
import { adapters } from "../env/games/index.ts";
import { specOf } from "../env/spec.ts";
import { GroupPool } from "./arena/pool.ts";
import { runSprtJob } from "./arena/sprt-cli.ts";
import { intArg, main, parseCli, printUsage } from "./cli.ts";

const USAGE = "npm run bench:sprt -- [--games N] [--rounds N] [--workers N]";

main(async () => {
  const { values } = parseCli(USAGE, { games: { type: "string" }, rounds: { type: "string" }, workers: { type: "string" } });
  if (values.help) return printUsage(USAGE);
  const games = intArg(values.games, "games", 200, 2, 100_000);
  const rounds = intArg(values.rounds, "rounds", 2, 1, 20);
  const workers = intArg(values.workers, "workers", availableParallelism(), 1, 64);
  const game = unwrap(registry.get("dcg"));
  const config = unwrap(game.parseConfig({})) as { seats: number };
  const adapter = adapters.get("dcg")!;
  const context = { adapter, actionSpecHash: specOf(adapter).actionSpecHash };
  const cases = [
    { name: "dcg onnx vs onnx (sampled)", a: "onnx:builtin/dcg-ppo-v1,sample=true", b: "onnx:builtin/dcg-ppo-v1,sample=true,temperature=1.0001" },
    { name: "dcg computer vs random", a: "computer", b: "random" },
  ];
  // Hypotheses 2 Elo apart and error rates of 1e-6: no run decides within `games` games.
  const params = { elo0: -1, elo1: 1, alpha: 1e-6, beta: 1e-6 };
  console.log(
    `bench-sprt ${new Date().toISOString().slice(0, 10)}: ${games} games per mode, best of ${rounds} rounds, ${availableParallelism()} cores, pool of ${workers}`,
  );
  for (const c of cases) {
    const best = { before: 0, rrPool: 0, thread: 0, pool: 0 };
    const onnx = c.a.startsWith("onnx");
    for (let r = 0; r < rounds; r++) {
      const rr = await runArena({ game, config: config as never, agents: [c.a, c.b], games, seed: 1 + r, context });
      best.before = Math.max(best.before, rr.results.length / rr.seconds);
      const rrPool = new GroupPool({}, workers);
      await rrPool.ready();
      const rp = await runArena({
        game,
        config: config as never,
        agents: [c.a, c.b],
        games,
        seed: 1 + r,
        context,
        concurrency: workers * (onnx ? 32 : 2),
        runner: (f) => rrPool.playFixture({ game: "dcg", config: config as never, agents: [c.a, c.b], seed: 1 + r, fixture: f }),
      });
      await rrPool.close();
      best.rrPool = Math.max(best.rrPool, rp.results.length / rp.seconds);
      const job = {
        label: c.name,
        game,
        config: config as never,
        matchup: { candidate: c.a, baseline: c.b, fill: "random", seed: 1 + r },
        params,
        maxGames: games,
      };
      const t = await runSprtJob(job, { workers: 0, quiet: true, log: () => {} });
      best.thread = Math.max(best.thread, t.state.games / t.seconds);
      const p = await runSprtJob(job, { workers, quiet: true, log: () => {} });
      best.pool = Math.max(best.pool, p.state.games / p.seconds);
    }
    console.log(
      `${c.name}: before (round robin, 1 thread) ${best.before.toFixed(1)} games/s | round robin, pool ${best.rrPool.toFixed(1)} (${(best.rrPool / best.before).toFixed(2)}x) | SPRT 1 thread ${best.thread.toFixed(1)} | SPRT pool ${best.pool.toFixed(1)} games/s (${(best.pool / best.before).toFixed(2)}x)`,
    );
  }
  return 0;
});
