/**
 * tsx scripts/bench-arena.ts --old <checkout> [--games N] [--rounds N] [--game dcg|sevens|all] [--concurrency N]
 *
 * Arena games/s with ONNX agents, this checkout against another one (e.g. a `git worktree add`
 * of an older commit, with node_modules linked), in one process, interleaved round by round so
 * that machine load hits both alike. Each side runs its own agents/arena/tournament.ts and env
 * adapters at its own default concurrency (and, for reference, at --concurrency, default 16). Cases: dcg, the
 * built-in dcg-ppo-v1 against random; sevens (4 seats), a 426-64-53 MLP written on the fly
 * against random fillers. Prints one line per case and side: best and median games/s, and the
 * ratio new/old. A benchmark, not a test.
 */
import { writeFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { pathToFileURL } from "node:url";
import { intArg, main, parseCli, runTempDir, UsageError, printUsage } from "./cli.ts";

const USAGE = "tsx scripts/bench-arena.ts --old <checkout> [--games N] [--rounds N] [--game dcg|sevens|all] [--concurrency N]";

interface Side {
  readonly label: string;
  runArena(o: Record<string, unknown>): Promise<{ results: readonly unknown[]; seconds: number }>;
  context(game: string): Record<string, unknown>;
  game(id: string): unknown;
  config(id: string, raw: unknown): unknown;
  writeMlp(o: Record<string, unknown>): Uint8Array;
}

async function side(root: string, label: string): Promise<Side> {
  const at = (p: string) => import(pathToFileURL(join(root, p)).href);
  const [tournament, games, envGames, envSpec, mlp] = await Promise.all([
    at("agents/arena/tournament.ts"),
    at("engine/games.ts"),
    at("env/games/index.ts"),
    at("env/spec.ts"),
    at("agents/onnx/write-mlp.ts"),
  ]);
  return {
    label,
    runArena: tournament.runArena,
    context(id) {
      const adapter = envGames.adapters.get(id);
      return { adapter, actionSpecHash: envSpec.specOf(adapter).actionSpecHash };
    },
    game: (id) => games.registry.get(id).value,
    config(id, raw) {
      const g = games.registry.get(id).value as { parseConfig(r: unknown): { ok: boolean; value: unknown } };
      return g.parseConfig(raw).value;
    },
    writeMlp: mlp.writeMlp,
  };
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

main(async () => {
  const { values } = parseCli(USAGE, {
    old: { type: "string" },
    games: { type: "string" },
    rounds: { type: "string" },
    game: { type: "string" },
    concurrency: { type: "string" },
  });
  if (values.help) return printUsage(USAGE);
  if (!values.old) throw new UsageError(`--old is required\nusage: ${USAGE}`);
  const games = intArg(values.games, "games", 32, 2, 100_000);
  const rounds = intArg(values.rounds, "rounds", 3, 1, 100);
  const which = values.game ?? "all";
  const lanes = intArg(values.concurrency, "concurrency", 16, 1, 4096);
  const sides = [await side(resolve(values.old), "old"), await side(resolve("."), "new")];
  const dir = runTempDir("bench-arena-").dir; // removed when the bench exits, however it exits
  const cases: { name: string; game: string; raw: unknown; agents: (s: Side) => string[]; concurrency?: number }[] = [];
  if (which === "all" || which === "dcg") {
    cases.push({ name: "dcg onnx:builtin/dcg-ppo-v1 vs random", game: "dcg", raw: {}, agents: () => ["onnx:builtin/dcg-ppo-v1", "random"] });
    cases.push({ name: `dcg, same, --concurrency ${lanes}`, game: "dcg", raw: {}, agents: () => ["onnx:builtin/dcg-ppo-v1", "random"], concurrency: lanes });
  }
  if (which === "all" || which === "sevens") {
    const sevens = (s: Side) => {
      const file = join(dir, `sevens-${s.label}.onnx`);
      const ctx = s.context("sevens") as { adapter: { observation: { size: number; version: string }; actions: { size: number } }; actionSpecHash: string };
      const bytes = s.writeMlp({
        obsSize: ctx.adapter.observation.size,
        hidden: 64,
        actionSize: ctx.adapter.actions.size,
        metadata: { game: "sevens", obs_version: ctx.adapter.observation.version, action_spec_hash: ctx.actionSpecHash },
        seed: 3,
      });
      writeFileSync(file, bytes);
      return [`onnx:path=${file}`, "random"];
    };
    cases.push({ name: "sevens 4 seats, MLP 426-64-53 vs random", game: "sevens", raw: { seats: 4 }, agents: sevens });
    cases.push({ name: `sevens, same, --concurrency ${lanes}`, game: "sevens", raw: { seats: 4 }, agents: sevens, concurrency: lanes });
  }
  console.log(`bench-arena ${new Date().toISOString()}: ${games} games per pairing, ${rounds} interleaved rounds, old = ${values.old}`);
  for (const c of cases) {
    const rates: Record<string, number[]> = { old: [], new: [] };
    const agents = new Map(sides.map((s) => [s.label, c.agents(s)] as const));
    for (let r = 0; r < rounds; r++) {
      for (const s of r % 2 === 0 ? sides : [...sides].reverse()) {
        const run = await s.runArena({
          game: s.game(c.game),
          config: s.config(c.game, c.raw),
          agents: agents.get(s.label),
          games,
          seed: 1,
          context: s.context(c.game),
          ...(c.concurrency === undefined ? {} : { concurrency: c.concurrency }),
        });
        rates[s.label]!.push(run.results.length / run.seconds);
      }
    }
    const line = (l: string) =>
      `best ${Math.max(...rates[l]!)
        .toFixed(1)
        .padStart(7)}  median ${median(rates[l]!).toFixed(1).padStart(7)} games/s`;
    console.log(`${c.name}\n  old ${line("old")}\n  new ${line("new")}\n  new/old (median) ${(median(rates.new!) / median(rates.old!)).toFixed(2)}x`);
  }
  return 0;
});
