/**
 * npm run gate [-- --only NAME[,NAME...]] [--list]
 *
 * CI's strength gates: the arena runs below, each checked against .ci/gates.json (round-robin win
 * rates and the SPRT gates). Every run goes to the end even when an earlier one fails, so one weak
 * bot does not hide another; the exit code is 1 when any run failed. The runs are data, so adding a
 * game's gate is one line here and its thresholds live in the gate file.
 */
import { spawnSync } from "node:child_process";
import { availableParallelism } from "node:os";
import { fileURLToPath } from "node:url";
import { main, parseCli, printUsage, UsageError } from "./cli.ts";

const USAGE = "npm run gate [-- --only NAME[,NAME...]] [--list]";

interface GateRun {
  readonly name: string;
  /** Arguments to scripts/arena.ts. */
  readonly args: readonly string[];
}

const GATE_FILE = ".ci/gates.json";

const perCore = ["--workers", String(availableParallelism())];

export const GATE_RUNS: readonly GateRun[] = [
  {
    name: "dcg",
    args: ["--game", "dcg", "--agents", "random,computer,sandbag,onnx:builtin/dcg-ppo-v3", "--games", "40", "--seed", "1", "--out", "arena-out/ci"],
  },
  { name: "blackpoker", args: ["--game", "blackpoker", "--agents", "random,computer", "--games", "40", "--seed", "1", "--out", "arena-out/ci-blackpoker"] },
  // Shephy's computer agent searches (CPU-bound) and this run is the gate's longest: its games go to
  // a worker thread per core. The report is the same (agent seeds come from the fixture, not from
  // where it runs); the dcg run's ONNX seat batches best in one thread, the BlackPoker run is short.
  { name: "shephy", args: ["--game", "shephy", "--agents", "computer", "--games", "40", "--seed", "1", ...perCore, "--out", "arena-out/ci-shephy"] },
  { name: "sprt", args: ["--sprt", "--out", "arena-out/ci-sprt"] },
];

main(() => {
  const { values, positionals } = parseCli(USAGE, { only: { type: "string" }, list: { type: "boolean" } });
  const names = GATE_RUNS.map((r) => r.name);
  if (values.help) return printUsage(USAGE, `runs (each against ${GATE_FILE}): ${names.join(", ")}`);
  if (positionals.length > 0) throw new UsageError(`unexpected argument "${positionals[0]}"\nusage: ${USAGE}`);
  if (values.list) {
    for (const r of GATE_RUNS) console.log(`${r.name}: npm run arena -- ${[...r.args, "--gate", GATE_FILE].join(" ")}`);
    return 0;
  }
  const only = values.only?.split(",").map((s) => s.trim());
  for (const n of only ?? []) if (!names.includes(n)) throw new UsageError(`--only: no gate run "${n}" (runs: ${names.join(", ")})`);
  const runs = GATE_RUNS.filter((r) => only === undefined || only.includes(r.name));
  const arena = fileURLToPath(new URL("./arena.ts", import.meta.url));
  const failed: string[] = [];
  for (const run of runs) {
    console.error(`gate ${run.name}: arena ${run.args.join(" ")}`);
    const out = spawnSync(process.execPath, [...process.execArgv, arena, ...run.args, "--gate", GATE_FILE, "-q"], { stdio: "inherit" });
    if (out.status !== 0) failed.push(`${run.name} (exit ${out.status ?? out.signal})`);
  }
  if (failed.length > 0) {
    console.error(`gate: ${failed.length} of ${runs.length} runs failed: ${failed.join(", ")}`);
    return 1;
  }
  console.error(`gate: all ${runs.length} runs passed`);
  return 0;
});
