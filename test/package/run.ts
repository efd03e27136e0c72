import { spawnSync, type SpawnSyncOptions } from "node:child_process";
import { hangGuard } from "../fixtures/hang-guard.ts";

/**
 * Runs a command to completion; a failure throws with its output, so a red test says why. Returns
 * its stdout, or stdout and stderr together with `withStderr` (for checks on warnings).
 */
export function run(command: string, args: readonly string[], options: SpawnSyncOptions & { timeout?: number; withStderr?: boolean } = {}): string {
  const { withStderr, ...spawnOptions } = options;
  const out = spawnSync(command, args, { encoding: "utf8", timeout: hangGuard(600_000), ...spawnOptions });
  const text = `${String(out.stdout ?? "")}${String(out.stderr ?? "")}`;
  if (out.error || out.status !== 0) {
    throw new Error(`${command} ${args.join(" ")} failed (${out.error?.message ?? `exit ${out.status}`}):\n${text.slice(-4000)}`);
  }
  return withStderr === true ? text : String(out.stdout ?? "");
}
