/**
 * The request schemas of the session routes, in TypeBox: one definition gives the TypeScript type
 * (`Static<>`), the JSON Schema fastify's ajv checks before a handler runs (no type coercion: a
 * string where a number belongs is a 400, not a guess; unknown fields are refused), and the
 * handlers' parameter types through @fastify/type-provider-typebox.
 */
import { Type, type Static } from "typebox";

const SAFE = Number.MAX_SAFE_INTEGER;
const INT32 = 2 ** 31 - 1;

export const sessionParams = Type.Object({ id: Type.String({ pattern: "^[A-Za-z0-9_-]{1,64}$" }) });

export const gameParams = Type.Object({ game: Type.String({ pattern: "^[A-Za-z0-9_.-]{1,64}$" }) });

const Seed = Type.Integer({ minimum: -SAFE, maximum: SAFE });

export function createSessionBody(maxEnvsPerSession: number) {
  return Type.Object(
    {
      game: Type.String({ minLength: 1, maxLength: 64 }),
      config: Type.Optional(Type.Record(Type.String(), Type.Unknown())),
      seats: Type.Optional(Type.Array(Type.String({ minLength: 1, maxLength: 512 }), { minItems: 1, maxItems: 64 })),
      numEnvs: Type.Optional(Type.Integer({ minimum: 1, maximum: maxEnvsPerSession })),
      seed: Type.Optional(Seed),
      maxDecisions: Type.Optional(Type.Union([Type.Integer({ minimum: 1, maximum: 100_000_000 }), Type.Null()])),
      autoreset: Type.Optional(Type.Enum(["next-step", "same-step"])),
      learnerSeat: Type.Optional(Type.Enum(["fixed", "alternating", "random"])),
      illegalAction: Type.Optional(Type.Enum(["reject", "terminate"])),
      illegalReward: Type.Optional(Type.Number({ minimum: -1e9, maximum: 1e9 })),
      obsDtype: Type.Optional(Type.Enum(["float32", "float16", "uint8", "bits"])),
      observe: Type.Optional(Type.Enum(["all", "acting"])),
    },
    { additionalProperties: false },
  );
}
/** A validated create body: every field but `game` is a LearningFacilitator option of the same name. */
export type CreateBody = Static<ReturnType<typeof createSessionBody>>;

export function resetBody(maxEnvsPerSession: number) {
  return Type.Object(
    {
      seed: Type.Optional(Seed),
      seeds: Type.Optional(Type.Array(Type.Union([Seed, Type.Null()]), { maxItems: maxEnvsPerSession })),
      envs: Type.Optional(Type.Array(Type.Integer({ minimum: 0, maximum: INT32 }), { maxItems: maxEnvsPerSession })),
    },
    { additionalProperties: false },
  );
}
export type ResetBody = Static<ReturnType<typeof resetBody>>;

export function stepBody(maxEnvsPerSession: number) {
  return Type.Object(
    { actions: Type.Array(Type.Integer({ minimum: -INT32 - 1, maximum: INT32 }), { maxItems: maxEnvsPerSession }) },
    { additionalProperties: false },
  );
}
export type StepBody = Static<ReturnType<typeof stepBody>>;

export const maskQuery = Type.Object({ labels: Type.Optional(Type.Enum(["true", "false", "1", "0"])) }, { additionalProperties: false });

export const renderQuery = Type.Object({ env: Type.Optional(Type.String({ pattern: "^[0-9]{1,7}$" })) }, { additionalProperties: false });
