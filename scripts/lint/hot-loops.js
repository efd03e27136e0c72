// @ts-check
/**
 * The files exempt from `@typescript-eslint/no-non-null-assertion` (eslint.config.js): the ones that
 * carry the per-step work of a random playout, an env step or a search, by CPU profile. The list,
 * and the measurement behind each entry, is in docs/quality-bar.md ("Non-null assertions"); a test
 * keeps the two equal. Everywhere else a value that may be missing gets a real check.
 */
export const HOT_LOOP_FILES = [
  "engine/core/rng.ts",
  "engine/sevens/apply.ts",
  "engine/sevens/board.ts",
  "engine/blackpoker/resolve.ts",
  "engine/dcg/battle-index.ts",
  "engine/dcg/command.ts",
  "engine/dcg/decision-table.ts",
  "engine/dcg/effect.ts",
  "engine/dcg/flow.ts",
  "engine/dcg/fused.ts",
  "engine/dcg/heads.ts",
  "engine/dcg/operation.ts",
  "engine/dcg/ops.ts",
  "engine/dcg/params.ts",
  "engine/dcg/pipes.ts",
  "engine/dcg/resolve.ts",
  "env/obs-dtype.ts",
  "env/learning/replies.ts",
  "env/games/*.ts",
  "agents/mcts.ts",
  "agents/onnx/onnx-agent.ts",
  "agents/onnx/policy-model.ts",
];

/** Where the rule is on: the source folders (tests and scripts may assert what their setup guarantees). */
export const NON_NULL_CHECKED = ["engine", "env", "agents", "web/src"].map((d) => `${d}/**/*.{ts,mts,cts,tsx}`);
