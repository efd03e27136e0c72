/**
 * The agents' public face (the npm package's `cardgym/agents`): whoever decides at a seat
 * (Facilitatees), built from spec strings, and the match runner with the clock its deadlines use. ONNX policies are seated by spec
 * (`onnx:builtin/dcg-ppo-v1`, `onnx:path=...`); env's `seatAgent` fills in what they need.
 */
export type { DecisionRequest, Facilitatee } from "./facilitatee.ts";
export { createAgent, createAgentReady, knownAgents, parseAgentSpec, splitAgentList, type AgentContext, type AgentSpec } from "./spec.ts";
export { runMatch, MatchError, type DecisionEvent, type MatchOptions, type MatchResult } from "./match.ts";
export { ManualClock, systemClock, type Clock } from "./clock.ts";
export { BUILTIN_MODEL_DIR, DEFAULT_CARD_SET_DIR, DEFAULT_MODEL_DIR, PACKAGE_ROOT } from "./paths.ts";
