import { spawnSync } from "node:child_process";
import { fileURLToPath } from "node:url";
import { hangGuard } from "../fixtures/hang-guard.ts";

export const repoRoot = fileURLToPath(new URL("../..", import.meta.url));

/** Runs one of our CLIs the way npm does (node + tsx), in a separate process. */
export function runScript(script: string, args: readonly string[], timeoutMs = hangGuard(300_000)) {
  const out = spawnSync(process.execPath, ["--import", "tsx", `scripts/${script}`, ...args], {
    cwd: repoRoot,
    encoding: "utf8",
    timeout: timeoutMs,
    env: { ...process.env, CARDGYM_DEBUG: "" },
  });
  return { code: out.status, stdout: out.stdout, stderr: out.stderr };
}
