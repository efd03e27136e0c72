import { fail, ok, type GameError, type Result } from "../engine/core/index.ts";
import type { AgentSpec } from "./spec.ts";

/**
 * Typed reading of spec-string parameters (`mcts:iters=400`). Every error names the agent, the
 * parameter and the accepted range, because these strings arrive from CLIs and server requests.
 */
function bad(spec: AgentSpec, key: string, want: string, got: string): { ok: false; error: GameError } {
  return fail("invalid_config", `agent "${spec.name}": ${key} must be ${want}, got ${JSON.stringify(got)}`);
}

export function intParam(spec: AgentSpec, key: string, def: number, min: number, max: number): Result<number> {
  const raw = spec.params[key];
  if (raw === undefined) return ok(def);
  if (!/^-?\d+$/.test(raw)) return bad(spec, key, `an integer between ${min} and ${max}`, raw);
  const n = Number(raw);
  if (!Number.isSafeInteger(n) || n < min || n > max) return bad(spec, key, `an integer between ${min} and ${max}`, raw);
  return ok(n);
}

export function optionalIntParam(spec: AgentSpec, key: string, min: number, max: number): Result<number | undefined> {
  if (spec.params[key] === undefined) return ok(undefined);
  return intParam(spec, key, 0, min, max);
}

export function numberParam(spec: AgentSpec, key: string, def: number, min: number, max: number): Result<number> {
  const raw = spec.params[key];
  if (raw === undefined) return ok(def);
  const n = raw.trim() === "" ? NaN : Number(raw);
  if (!Number.isFinite(n) || n < min || n > max) return bad(spec, key, `a number between ${min} and ${max}`, raw);
  return ok(n);
}

export function boolParam(spec: AgentSpec, key: string, def: boolean): Result<boolean> {
  const raw = spec.params[key];
  if (raw === undefined) return ok(def);
  if (raw === "true" || raw === "1") return ok(true);
  if (raw === "false" || raw === "0") return ok(false);
  return bad(spec, key, "true or false", raw);
}

export function stringParam(spec: AgentSpec, key: string): Result<string | undefined> {
  const raw = spec.params[key];
  if (raw === undefined) return ok(undefined);
  if (raw.length === 0) return bad(spec, key, "a non-empty string", raw);
  return ok(raw);
}

export function enumParam<T extends string>(spec: AgentSpec, key: string, def: T, values: readonly T[]): Result<T> {
  const raw = spec.params[key];
  if (raw === undefined) return ok(def);
  if (!(values as readonly string[]).includes(raw)) return bad(spec, key, `one of ${values.join(", ")}`, raw);
  return ok(raw as T);
}
