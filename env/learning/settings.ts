import type { Clock } from "../../agents/clock.ts";
import { createAgent as defaultCreateAgent } from "../../agents/spec.ts";
import type { AnyGame, BaseConfig, Result, Seat } from "../../engine/core/index.ts";
import type { GameAdapter } from "../codec.ts";
import { EnvFault, EnvRequestError, describeThrown } from "../errors.ts";
import { OBS_DTYPES, ObsWire } from "../obs-dtype.ts";
import { isControlled, parseSeats, sessionMode, type SeatRole, type SessionMode } from "../seats.ts";
import { specOf, type EnvSpec } from "../spec.ts";
import type { AgentFactory, AutoresetMode, FacilitatorOptions, IllegalActionMode, LearnerSeatMode, ObserveMode } from "./types.ts";

/**
 * A learning session's options, checked and resolved: what every part of the session (episodes,
 * reply writing, action checks) reads and nothing changes after creation.
 */
export interface SessionSettings {
  readonly adapter: GameAdapter;
  readonly game: AnyGame;
  readonly spec: EnvSpec;
  readonly config: BaseConfig;
  readonly seatNames: readonly string[];
  readonly roles: readonly SeatRole[];
  readonly mode: SessionMode;
  readonly numEnvs: number;
  readonly numSeats: number;
  /** The learner's configured seat in single mode; -1 in multi mode. */
  readonly learnerSeat: Seat;
  /** The opponents' roles in seat order without the learner (single mode): seatings are built from them. */
  readonly others: readonly SeatRole[];
  readonly autoreset: AutoresetMode;
  readonly learnerSeatMode: LearnerSeatMode;
  readonly illegalAction: IllegalActionMode;
  readonly illegalReward: number;
  readonly obsWire: ObsWire;
  readonly observe: ObserveMode;
  /** Truncation cap (all seats' decisions per episode), or null. */
  readonly maxDecisions: number | null;
  /** The game's own declared bound on decisions per episode. */
  readonly bound: number;
  readonly createAgent: AgentFactory;
  readonly modelRoot: string | undefined;
  /** The creation seed. */
  readonly seed: number;
  /** Deadlines of client decisions: the clock and the turn time, or null (none). */
  readonly deadlines: { readonly clock: Clock; readonly turnMs: number | null } | null;
  /** Replies share one buffer, valid until the next reset or step (FacilitatorOptions.reuseReplies). */
  readonly reuseReplies: boolean;
}

/**
 * Validates the options (numbers and modes, then the config through the game, then the seats) and
 * resolves their defaults; throws EnvRequestError on the first bad one, EnvFault when the game's
 * parseConfig throws.
 */
export function resolveSettings(options: FacilitatorOptions): SessionSettings {
  checkScalars(options);
  const game = options.adapter.game;
  const config = parseGameConfig(game, options);
  const seatNames = seatNamesFor(options.seats, config);
  const spec = specOf(options.adapter);
  const roles = parseSeats(seatNames);
  const mode = sessionMode(roles);
  const learnerSeat = mode === "single" ? roles.findIndex(isControlled) : -1;
  const settings: SessionSettings = {
    adapter: options.adapter,
    game,
    spec,
    config,
    seatNames,
    roles,
    mode,
    numEnvs: options.numEnvs,
    numSeats: seatNames.length,
    learnerSeat,
    others: roles.filter((_, k) => k !== learnerSeat),
    autoreset: options.autoreset ?? "next-step",
    learnerSeatMode: options.learnerSeat ?? "fixed",
    illegalAction: options.illegalAction ?? "reject",
    illegalReward: options.illegalReward ?? -1,
    obsWire: ObsWire.create(options.obsDtype ?? "float32", options.adapter.observation, config, game.info.id),
    observe: options.observe ?? "all",
    maxDecisions: options.maxDecisions ?? null,
    bound: game.maxDecisions(config),
    createAgent: options.createAgent ?? defaultCreateAgent,
    modelRoot: options.modelRoot,
    seed: options.seed,
    deadlines: options.clock ? { clock: options.clock, turnMs: options.turnMs ?? null } : null,
    reuseReplies: options.reuseReplies ?? false,
  };
  if (mode === "multi" && settings.learnerSeatMode !== "fixed") {
    throw new EnvRequestError(
      "invalid_config",
      `learnerSeat "${settings.learnerSeatMode}" needs a single learner (one client seat); multi mode seats are fixed`,
    );
  }
  return settings;
}

/** The session seed's rule, shared by creation and reset: env i gets seed + i, which must stay a safe integer. */
export function checkSessionSeed(seed: number, numEnvs: number): void {
  if (!Number.isSafeInteger(seed) || !Number.isSafeInteger(seed + numEnvs - 1)) {
    throw new EnvRequestError("invalid_config", `seed must be a safe integer and seed + numEnvs - 1 too (env i gets seed + i), got ${seed}`);
  }
}

function checkScalars(options: FacilitatorOptions): void {
  if (!Number.isInteger(options.numEnvs) || options.numEnvs < 1) {
    throw new EnvRequestError("invalid_config", `numEnvs must be a positive integer, got ${options.numEnvs}`);
  }
  checkSessionSeed(options.seed, options.numEnvs);
  const turnMs = options.turnMs;
  if (turnMs !== undefined && turnMs !== null && (!Number.isInteger(turnMs) || turnMs < 1)) {
    throw new EnvRequestError("invalid_config", `turnMs must be a positive integer or null, got ${turnMs}`);
  }
  const cap = options.maxDecisions;
  if (cap !== undefined && cap !== null && (!Number.isInteger(cap) || cap < 1)) {
    throw new EnvRequestError("invalid_config", `maxDecisions must be a positive integer or null, got ${cap}`);
  }
  oneOf("autoreset", options.autoreset, ["next-step", "same-step"]);
  oneOf("learnerSeat", options.learnerSeat, ["fixed", "alternating", "random"]);
  oneOf("illegalAction", options.illegalAction, ["reject", "terminate"]);
  oneOf("obsDtype", options.obsDtype, OBS_DTYPES);
  oneOf("observe", options.observe, ["all", "acting"]);
  if (options.illegalReward !== undefined && !Number.isFinite(options.illegalReward)) {
    throw new EnvRequestError("invalid_config", `illegalReward must be a finite number, got ${options.illegalReward}`);
  }
}

function oneOf<T extends string>(name: string, value: T | undefined, allowed: readonly T[]): void {
  if (value !== undefined && !allowed.includes(value)) {
    throw new EnvRequestError("invalid_config", `${name} must be one of ${allowed.join(", ")}, got ${JSON.stringify(value)}`);
  }
}

/** The game's parsed config; `seats` is filled from the seat list when the config leaves it out. */
function parseGameConfig(game: AnyGame, options: FacilitatorOptions): BaseConfig {
  let raw = options.config ?? {};
  if (raw === null || typeof raw !== "object" || Array.isArray(raw)) throw new EnvRequestError("invalid_config", "config must be an object");
  const seats = options.seats;
  if (seats !== undefined && (raw as Record<string, unknown>).seats === undefined) raw = { ...raw, seats: seats.length };
  let parsed: Result<BaseConfig>;
  try {
    parsed = game.parseConfig(raw);
  } catch (e) {
    throw new EnvFault("game_fault", `${game.info.id}.parseConfig threw: ${describeThrown(e)}`, undefined, e);
  }
  if (!parsed.ok) {
    const where = parsed.error.path ? ` (config.${parsed.error.path})` : "";
    throw new EnvRequestError("invalid_config", `${parsed.error.message}${where}`);
  }
  return parsed.value;
}

/** The seat roles as given (one per seat of the config), or by default the learner at seat 0 and random agents elsewhere. */
function seatNamesFor(seats: readonly string[] | undefined, config: BaseConfig): string[] {
  if (seats === undefined) return Array.from({ length: config.seats }, (_, i) => (i === 0 ? "learner" : "random"));
  if (seats.length !== config.seats) {
    throw new EnvRequestError("invalid_seats", `seats lists ${seats.length} roles but config.seats is ${config.seats}`);
  }
  return [...seats];
}
