import { spawnSync } from "node:child_process";
import { fileURLToPath } from "node:url";
import { hangGuard } from "../fixtures/hang-guard.ts";

export const repoRoot = fileURLToPath(new URL("../..", import.meta.url));

/**
 * The CLIs the tests start most often (tens of runs each), run as one plain-JavaScript bundle by
 * scripts/run-bundled.mjs, as `npm start` runs the server: the same sources, built once (the build
 * is cached while no input changes) instead of loaded module by module through tsx's loader, which
 * costs each start about a second of CPU (the engine's ~800 modules, typebox's among them). That
 * they start under tsx as npm runs them is checked by test/scripts/help.test.ts (`npm run X --
 * --help`) and by the README test's `npm run` lines. scripts/cardgym.ts imports its commands by
 * path at run time, so it cannot run bundled.
 */
const BUNDLED = new Set([
  "arena.ts",
  "play.ts",
  "replay.ts",
  "validate-cards.ts",
  "stamp-model.ts",
  "golden.ts",
  "promote.ts",
  "exit-selfplay.ts",
  "seat-advantage.ts",
  "onnx-logits.ts",
  "cards-generate.ts",
]);

/** Runs one of our CLIs in a separate process: node + tsx, the way npm does, or its bundle (above). */
export function runScript(script: string, args: readonly string[], timeoutMs = hangGuard(300_000)) {
  const how = BUNDLED.has(script) ? ["scripts/run-bundled.mjs"] : ["--import", "tsx"];
  const out = spawnSync(process.execPath, [...how, `scripts/${script}`, ...args], {
    cwd: repoRoot,
    encoding: "utf8",
    timeout: timeoutMs,
    env: { ...process.env, CARDGYM_DEBUG: "" },
  });
  return { code: out.status, stdout: out.stdout, stderr: out.stderr };
}
