import { deriveSeed, fail, ok, type Result } from "../engine/core/index.ts";
import type { Facilitatee } from "./facilitatee.ts";
import { RandomAgent } from "./random.ts";

/**
 * Agents are built from spec strings shared by the CLI, the arena and the server:
 * `name` or `name:key=value,key=value` (e.g. `random`, `mcts:iters=400`).
 */
export interface AgentSpec {
  readonly name: string;
  readonly params: Readonly<Record<string, string>>;
}

export interface AgentContext {
  /** Base seed; each agent derives its own stream from it and its seat. */
  readonly seed: number;
  readonly seat: number;
  readonly game: string;
}

type Factory = (spec: AgentSpec, ctx: AgentContext) => Result<Facilitatee>;

const factories: Record<string, { params: readonly string[]; make: Factory }> = {
  random: { params: [], make: (_spec, ctx) => ok(new RandomAgent(deriveSeed(ctx.seed, `agent:${ctx.seat}:random`))) },
};

export const MAX_SPEC_LENGTH = 512;

export function parseAgentSpec(text: unknown): Result<AgentSpec> {
  if (typeof text !== "string" || text.length === 0) return fail("invalid_config", "an agent spec must be a non-empty string");
  if (text.length > MAX_SPEC_LENGTH) return fail("invalid_config", `an agent spec must be at most ${MAX_SPEC_LENGTH} characters`);
  const colon = text.indexOf(":");
  const name = colon < 0 ? text : text.slice(0, colon);
  const params: Record<string, string> = Object.create(null);
  if (colon >= 0) {
    for (const part of text.slice(colon + 1).split(",")) {
      if (part === "") continue;
      const eq = part.indexOf("=");
      if (eq <= 0) return fail("invalid_config", `agent spec "${text}": parameter "${part}" is not key=value`);
      const key = part.slice(0, eq);
      if (key === "__proto__" || key === "constructor" || key === "prototype") {
        return fail("invalid_config", `agent spec "${text}": parameter name "${key}" is not allowed`);
      }
      params[key] = part.slice(eq + 1);
    }
  }
  return ok({ name, params });
}

export function knownAgents(): readonly string[] {
  return Object.keys(factories);
}

export function createAgent(text: string, ctx: AgentContext): Result<Facilitatee> {
  const parsed = parseAgentSpec(text);
  if (!parsed.ok) return parsed;
  const entry = Object.hasOwn(factories, parsed.value.name) ? factories[parsed.value.name] : undefined;
  if (!entry) return fail("invalid_config", `unknown agent "${parsed.value.name}"; known agents: ${knownAgents().join(", ")}`);
  for (const key of Object.keys(parsed.value.params)) {
    if (!entry.params.includes(key)) {
      return fail("invalid_config", `agent "${parsed.value.name}" has no parameter "${key}"${entry.params.length ? `; it takes ${entry.params.join(", ")}` : ""}`);
    }
  }
  return entry.make(parsed.value, ctx);
}
