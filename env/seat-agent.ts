import { createAgentReady, type AgentContext } from "../agents/spec.ts";
import type { Facilitatee } from "../agents/facilitatee.ts";
import { GameFailure, type Seat } from "../engine/core/index.ts";
import { adapters } from "./games/index.ts";
import { specOf } from "./spec.ts";

export interface SeatAgentOptions {
  /** A registered game id (`dcg`, `sevens`, ...). */
  readonly game: string;
  readonly seat: Seat;
  /** Base seed of the agent's own random stream (it never reads the game's RNG). */
  readonly seed?: number;
  /** Folder that `onnx:path=` specs resolve in and stay inside; builtin models need none. */
  readonly modelRoot?: string;
}

/**
 * Builds the agent a spec names, ready to decide: the host-side glue an embedding game needs. ONNX
 * policies get the game's observation encoder and action codec, and a model whose action-spec
 * hash differs from this build's is refused here, before the first decision. Throws GameFailure
 * with a readable message for an unknown or malformed spec.
 */
export async function seatAgent(spec: string, options: SeatAgentOptions): Promise<Facilitatee> {
  const adapter = adapters.get(options.game);
  const ctx: AgentContext = {
    seed: options.seed ?? 0,
    seat: options.seat,
    game: options.game,
    ...(adapter ? { adapter, actionSpecHash: specOf(adapter).actionSpecHash } : {}),
    ...(options.modelRoot === undefined ? {} : { modelRoot: options.modelRoot }),
  };
  const made = await createAgentReady(spec, ctx);
  if (!made.ok) throw new GameFailure(made.error);
  return made.value;
}
