import { createAgent as shippedCreateAgent } from "../../agents/spec.ts";
import type { GameRegistry } from "../../engine/core/index.ts";
import { registry as shippedRegistry } from "../../engine/games.ts";
import type { GameAdapter } from "../codec.ts";
import { adapters as shippedAdapters } from "../games/index.ts";
import type { AgentFactory } from "../learning-facilitator.ts";
import { registerJob, type JobRunner } from "./jobs.ts";
import type { HostSetup } from "./session-host.ts";

/**
 * What a worker needs to host sessions. Functions cannot cross threads, so a server with its own
 * games or agents names a module (`ServerOptions.sessionModule`, a file URL) that each worker
 * imports; any of these exports replaces the shipped one:
 *   export const registry: GameRegistry; export const adapters: ReadonlyMap<string, GameAdapter>;
 *   export const createAgent: AgentFactory; export const jobs: Record<string, JobRunner>;
 */
export interface SessionModule {
  readonly registry?: GameRegistry;
  readonly adapters?: ReadonlyMap<string, GameAdapter>;
  readonly createAgent?: AgentFactory;
  readonly jobs?: Readonly<Record<string, JobRunner>>;
}

export interface WorkerInit {
  readonly sessionModule: string | null;
  readonly modelDir: string;
  /** The worker's fast-path socket (env/server/fast-path.ts) and its watchdog buffer, or null. */
  readonly fastPath: { readonly path: string; readonly maxFrame: number; readonly maxEnvsPerSession: number; readonly state: SharedArrayBuffer } | null;
}

export async function loadSetup(init: WorkerInit): Promise<HostSetup> {
  const mod: SessionModule = init.sessionModule === null ? {} : ((await import(init.sessionModule)) as SessionModule);
  for (const [kind, run] of Object.entries(mod.jobs ?? {})) registerJob(kind, run);
  return {
    registry: mod.registry ?? shippedRegistry,
    adapters: mod.adapters ?? shippedAdapters,
    createAgent: mod.createAgent ?? shippedCreateAgent,
    modelDir: init.modelDir,
  };
}
