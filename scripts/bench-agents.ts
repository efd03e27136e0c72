/**
 * npm run bench:agents -- [--game id] [--positions N] [--ms N] [--mcts-iters N] [--hidden N] [--batch N] [--seed N] [--model file.onnx] [--json]
 * Decisions/s of the computer agent, MCTS iterations/s, and the ONNX agent at batch 1 and batched
 * (a small MLP written on the fly for the game's adapter, or --model) on onnxruntime-node, next to
 * onnxruntime's bare session.run. Benchmarks, not
 * tests: compare figures measured side by side in one run.
 */
import { readFileSync } from "node:fs";
import { unwrap } from "../engine/core/index.ts";
import { registry } from "../engine/games.ts";
import { benchAgents } from "../agents/bench.ts";
import { adapters } from "../env/games/index.ts";
import { intArg, main, parseCli, UsageError, printUsage } from "./cli.ts";

const USAGE = "npm run bench:agents -- [--game id] [--positions N] [--ms N] [--mcts-iters N] [--hidden N] [--batch N] [--seed N] [--model file.onnx] [--json]";

main(async () => {
  const { values, positionals } = parseCli(USAGE, {
    game: { type: "string" },
    positions: { type: "string" },
    ms: { type: "string" },
    "mcts-iters": { type: "string" },
    hidden: { type: "string" },
    batch: { type: "string" },
    seed: { type: "string" },
    model: { type: "string" },
    json: { type: "boolean" },
  });
  if (values.help) return printUsage(USAGE, `games: ${registry.ids().join(", ")}`);
  if (positionals.length > 0) throw new UsageError(`unexpected argument "${positionals[0]}"\nusage: ${USAGE}`);
  const ids = values.game ? [values.game] : registry.ids();
  if (values.model && !values.game) throw new UsageError(`--model needs --game (a model fits one game)\nusage: ${USAGE}`);
  const model = values.model ? { label: values.model, bytes: new Uint8Array(readFileSync(values.model)) } : undefined;
  const all = [];
  for (const id of ids) {
    const game = unwrap(registry.get(id));
    const config = unwrap(game.parseConfig({}));
    const figures = await benchAgents(
      game,
      config,
      {
        positions: intArg(values.positions, "positions", 32, 1, 10_000),
        minMs: intArg(values.ms, "ms", 2000, 1, 600_000),
        mctsIters: intArg(values["mcts-iters"], "mcts-iters", 400, 1, 1_000_000),
        hidden: intArg(values.hidden, "hidden", 64, 1, 4096),
        batchSize: intArg(values.batch, "batch", 256, 1, 65_536),
        seed: intArg(values.seed, "seed", 1),
        ...(model ? { model } : {}),
      },
      adapters.get(id),
    );
    all.push(figures);
    if (!values.json) {
      console.log(`${id} (${figures.positions} positions)`);
      console.log(`  computer           ${figures.computerDecisionsPerSec.toFixed(1)} decisions/s`);
      console.log(
        `  mcts               ${figures.mctsIterationsPerSec.toFixed(0)} iterations/s (${figures.mctsDecisionsPerSec.toFixed(2)} decisions/s at its budget)`,
      );
      if (figures.onnx) {
        const o = figures.onnx;
        console.log(`  onnx model         ${o.model}`);
        console.log(
          `  onnx bare ort      ${o.bareRunsPerSec.toFixed(0)} runs/s at batch 1, ${o.bareBatchedPerSec.toFixed(0)} observations/s at batch ${o.batchSize}  (session.run alone)`,
        );
        console.log(`  onnx encode+mask   ${o.encodePerSec.toFixed(0)} decisions/s  (the agent's own work, no model)`);
        console.log(
          `  onnx agent         batch 1 ${o.batch1DecisionsPerSec.toFixed(0).padStart(7)} decisions/s   batched ${o.batchedDecisionsPerSec.toFixed(0).padStart(7)} decisions/s (mean batch ${o.meanBatch.toFixed(0)})`,
        );
      } else console.log("  onnx               (no adapter for this game)");
    }
  }
  if (values.json) console.log(JSON.stringify(all, null, 1));
});
