export * from "./codec.ts";
export * from "./errors.ts";
export * from "./spec.ts";
export * from "./seats.ts";
export * from "./decision-point.ts";
export { LearningFacilitator, type AgentFactory, type EnvBatch, type FacilitatorOptions, type SessionSettings } from "./learning-facilitator.ts";
