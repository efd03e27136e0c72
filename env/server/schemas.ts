/**
 * JSON schemas of every request: the contract, checked by fastify's ajv before a handler runs
 * (no type coercion: a string where a number belongs is a 400, not a guess).
 */
const SAFE = Number.MAX_SAFE_INTEGER;
const INT32 = 2 ** 31 - 1;

export const sessionParams = {
  type: "object",
  properties: { id: { type: "string", pattern: "^[A-Za-z0-9_-]{1,64}$" } },
  required: ["id"],
} as const;

export const gameParams = {
  type: "object",
  properties: { game: { type: "string", pattern: "^[A-Za-z0-9_.-]{1,64}$" } },
  required: ["game"],
} as const;

export function createSessionBody(maxEnvsPerSession: number) {
  return {
    type: "object",
    additionalProperties: false,
    required: ["game"],
    properties: {
      game: { type: "string", minLength: 1, maxLength: 64 },
      config: { type: "object" },
      seats: { type: "array", minItems: 1, maxItems: 64, items: { type: "string", minLength: 1, maxLength: 512 } },
      numEnvs: { type: "integer", minimum: 1, maximum: maxEnvsPerSession },
      seed: { type: "integer", minimum: -SAFE, maximum: SAFE },
      maxDecisions: { anyOf: [{ type: "integer", minimum: 1, maximum: 100_000_000 }, { type: "null" }] },
      autoreset: { type: "string", enum: ["next-step", "same-step"] },
      learnerSeat: { type: "string", enum: ["fixed", "alternating", "random"] },
      illegalAction: { type: "string", enum: ["reject", "terminate"] },
      illegalReward: { type: "number", minimum: -1e9, maximum: 1e9 },
      obsDtype: { type: "string", enum: ["float32", "float16", "uint8", "bits"] },
      observe: { type: "string", enum: ["all", "acting"] },
    },
  } as const;
}

export function resetBody(maxEnvsPerSession: number) {
  return {
    type: "object",
    additionalProperties: false,
    properties: {
      seed: { type: "integer", minimum: -SAFE, maximum: SAFE },
      seeds: { type: "array", maxItems: maxEnvsPerSession, items: { anyOf: [{ type: "integer", minimum: -SAFE, maximum: SAFE }, { type: "null" }] } },
      envs: { type: "array", maxItems: maxEnvsPerSession, items: { type: "integer", minimum: 0, maximum: INT32 } },
    },
  } as const;
}

export function stepBody(maxEnvsPerSession: number) {
  return {
    type: "object",
    additionalProperties: false,
    required: ["actions"],
    properties: {
      actions: { type: "array", maxItems: maxEnvsPerSession, items: { type: "integer", minimum: -INT32 - 1, maximum: INT32 } },
    },
  } as const;
}

export const maskQuery = {
  type: "object",
  additionalProperties: false,
  properties: { labels: { type: "string", enum: ["true", "false", "1", "0"] } },
} as const;

export const renderQuery = {
  type: "object",
  additionalProperties: false,
  properties: { env: { type: "string", pattern: "^[0-9]{1,7}$" } },
} as const;
