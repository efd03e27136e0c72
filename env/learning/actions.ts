import { explainAction, findAction } from "../decision-point.ts";
import { EnvRequestError } from "../errors.ts";
import { Done, type EnvSlot, pointOf } from "./env-slot.ts";
import { checkSessionSeed, type SessionSettings } from "./settings.ts";
import type { ResetRequest } from "./types.ts";

/** A step's actions, checked: per env the index of the chosen legal decision (-1: an illegal action ends the episode). */
export interface ChosenActions {
  readonly chosen: Int32Array;
  /** 1 at envs whose illegal action ends their episode (illegalAction "terminate"); null when none. */
  readonly illegal: Uint8Array | null;
}

/**
 * Checks one action id per env before any env changes: a bad one throws EnvRequestError (or, with
 * illegalAction "terminate", marks that env's episode to end, writing the acting seat into
 * `illegalSeat`). Envs whose episode is over ignore their action: they autoreset.
 */
export function chooseActions(settings: SessionSettings, envs: readonly EnvSlot[], actions: ArrayLike<number>, illegalSeat: Int32Array): ChosenActions {
  const { numEnvs, adapter } = settings;
  if (actions.length !== numEnvs) {
    throw new EnvRequestError("wrong_action_count", `expected ${numEnvs} actions (one per env), got ${actions.length}`, 400, {
      expected: numEnvs,
      got: actions.length,
    });
  }
  const size = adapter.actions.size;
  const chosen = new Int32Array(numEnvs);
  const terminate = settings.illegalAction === "terminate";
  let illegal: Uint8Array | null = null;
  for (const env of envs) {
    const a = actions[env.index];
    if (typeof a !== "number" || !Number.isInteger(a)) {
      throw new EnvRequestError("action_out_of_range", `env ${env.index}: action ${String(a)} is not an integer`, 400, { env: env.index, action: a });
    }
    if (env.done !== Done.Running) continue; // ignored: this env autoresets
    const point = pointOf(env);
    const k = a < 0 || a >= size ? -1 : findAction(point, a);
    if (k < 0) {
      if (!terminate) throw refusal(settings, env, a);
      (illegal ??= new Uint8Array(numEnvs))[env.index] = 1;
      illegalSeat[env.index] = point.seat;
      chosen[env.index] = -1;
      continue;
    }
    chosen[env.index] = k;
  }
  return { chosen, illegal };
}

/** The error for an action out of range, or in range but not legal for the seat that must act now. */
function refusal(settings: SessionSettings, env: EnvSlot, a: number): EnvRequestError {
  const size = settings.adapter.actions.size;
  if (a < 0 || a >= size) {
    return new EnvRequestError("action_out_of_range", `env ${env.index}: action ${a} is out of range [0, ${size})`, 400, { env: env.index, action: a });
  }
  const point = pointOf(env);
  const legal = Array.from(point.ids).sort((x, y) => x - y);
  const shown = legal.length > 32 ? `${legal.slice(0, 32).join(", ")}, ...` : legal.join(", ");
  const why = explainAction(settings.adapter, env.state, point, a);
  return new EnvRequestError(
    "illegal_action",
    `env ${env.index}: action ${a} is not legal for seat ${point.seat} now${why === null ? "" : `: ${why}`}; legal action ids: ${shown}`,
    400,
    { env: env.index, action: a, seat: point.seat },
  );
}

/**
 * Which envs a reset restarts and the seed each is re-seeded with (null: its stream continues).
 * Validates before anything changes. `sessionSeed` is the seed the first reset seeds env i from
 * (seed + i); `started` whether the session was reset before.
 */
export function resetPlan(envs: readonly EnvSlot[], req: ResetRequest, sessionSeed: number, started: boolean): [EnvSlot, number | null][] {
  const { seed, seeds, envs: indices } = req;
  const n = envs.length;
  if (seed !== undefined && seeds !== undefined) throw new EnvRequestError("invalid_config", "give either seed or seeds, not both");
  if (seed !== undefined) checkSessionSeed(seed, n);
  let chosen: readonly EnvSlot[] = envs;
  if (indices !== undefined) {
    if (!started) throw new EnvRequestError("reset_required", "the first reset restarts every env: leave envs out", 409);
    const seen = new Set<number>();
    chosen = indices.map((i) => {
      const env = Number.isInteger(i) ? envs[i] : undefined;
      if (!env) throw new EnvRequestError("invalid_config", `envs: ${i} is not an env index in [0, ${n})`);
      if (seen.has(i)) throw new EnvRequestError("invalid_config", `envs lists env ${i} twice`);
      seen.add(i);
      return env;
    });
  }
  if (seeds !== undefined) {
    if (seeds.length !== chosen.length) {
      throw new EnvRequestError("invalid_config", `seeds must have one entry per env reset (${chosen.length}), got ${seeds.length}`);
    }
    for (const s of seeds) {
      if (s !== null && !Number.isSafeInteger(s)) throw new EnvRequestError("invalid_config", `seeds entries must be safe integers or null, got ${s}`);
    }
  }
  return chosen.map((env, k): [EnvSlot, number | null] => {
    let s: number | null = null;
    if (seeds !== undefined) s = seeds[k] ?? null;
    else if (seed !== undefined) s = seed + env.index;
    if (s === null && !started) s = sessionSeed + env.index;
    return [env, s];
  });
}
