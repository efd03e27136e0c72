import type { GameRegistry } from "../../engine/core/index.ts";
import type { GameAdapter } from "../codec.ts";
import { EnvRequestError } from "../errors.ts";
import { LearningFacilitator, type AgentFactory, type FacilitatorOptions } from "../learning-facilitator.ts";
import { specOf } from "../spec.ts";
import type { CreateBody } from "./schemas.ts";

/**
 * What a client is told about games and sessions, as plain data: shared by the server (GET
 * /v1/games, the create reply) and the in-process runtime (env/inprocess.ts), so both describe
 * them alike, and how both build a session from a validated create body.
 */

export interface HostSetup {
  readonly registry: GameRegistry;
  readonly adapters: ReadonlyMap<string, GameAdapter>;
  readonly createAgent: AgentFactory;
  readonly modelDir: string;
}

/** Builds a facilitator from a validated create body (every body field but game is a FacilitatorOptions field) for a host that encodes or copies each reply before the next call. */
export function createFacilitator(body: CreateBody, setup: HostSetup): LearningFacilitator {
  const { game, ...rest } = body;
  const adapter = setup.adapters.get(game);
  if (!adapter || !setup.registry.get(game).ok) throw new EnvRequestError("invalid_config", `no game ${JSON.stringify(game)} with an RL adapter`);
  const options: FacilitatorOptions = {
    ...rest,
    adapter,
    numEnvs: rest.numEnvs ?? 1,
    seed: rest.seed ?? 0,
    maxDecisions: rest.maxDecisions ?? null,
    createAgent: setup.createAgent,
    modelRoot: setup.modelDir,
    // Both hosts encode or copy each reply before the session's next call.
    reuseReplies: true,
  };
  return LearningFacilitator.create(options);
}

/** One served game as GET /v1/games lists it. */
export function gameSummary(id: string, adapter: GameAdapter): Record<string, unknown> {
  const spec = specOf(adapter);
  const info = adapter.game.info;
  return {
    id,
    title: info.title,
    version: info.version,
    minSeats: info.minSeats,
    maxSeats: info.maxSeats,
    defaultSeats: info.defaultSeats,
    zeroSum: info.zeroSum,
    observationSize: spec.observation.size,
    actionSize: spec.action.size,
    actionSpecHash: spec.actionSpecHash,
  };
}

/** The reply to a session's creation (POST /v1/sessions). */
export function sessionInfo(id: string, f: LearningFacilitator): Record<string, unknown> {
  const s = f.settings;
  return {
    session: id,
    game: s.game.info.id,
    gameVersion: s.game.info.version,
    mode: s.mode,
    seats: s.seatNames,
    numSeats: s.numSeats,
    numEnvs: s.numEnvs,
    maxDecisions: s.maxDecisions,
    autoreset: s.autoreset,
    learnerSeat: s.learnerSeatMode,
    illegalAction: s.illegalAction,
    illegalReward: s.illegalReward,
    obsWire: s.obsWire.info,
    observe: s.observe,
    config: s.config,
    spec: s.spec,
  };
}
