/**
 * The npm package's main entry (`import ... from "cardgym"`): everything public in one place. The
 * same names are also reachable by layer: `cardgym/engine`, `cardgym/agents`, `cardgym/server`.
 * What is not exported here is internal and may change without notice (docs/api.md).
 */
export * from "../engine/index.ts";
export * from "../agents/index.ts";
export { adapters } from "./games/index.ts";
export type { GameAdapter } from "./codec.ts";
export { specOf, type EnvSpec } from "./spec.ts";
export { seatAgent, type SeatAgentOptions } from "./seat-agent.ts";
export { LearningFacilitator, type EnvBatch, type FacilitatorOptions, type SessionSettings } from "./learning-facilitator.ts";
export { buildApp, DEFAULT_LIMITS, type CardgymState, type ServerOptions } from "./server/index.ts";
