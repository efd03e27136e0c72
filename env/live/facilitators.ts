import { gameTutorialConfig } from "../../agents/evaluators/index.ts";
import type { AnyGame, GameRegistry } from "../../engine/core/index.ts";
import { buildConfigSchemas } from "../../engine/config-schemas.ts";
import type { CreateTableBody, FacilitatorName } from "./protocol.ts";
import { playBack, type PlayedBack } from "./replay.ts";
import { seatKindOf, TableError, type ResolvedDeadlines } from "./table.ts";

/**
 * Facilitators: the design's play modes. Each sets up a game and says who drives each seat (its
 * Facilitatees: people, agents, a record or a trainer's client); the table, the replay table or
 * the learning session then runs the same way for all of them. What tells the modes apart is
 * data (FacilitatorPreset); the one rule that reads it (planSeats) knows no game: what a mode
 * needs from a game comes from the game's own data (its config schema, its tutorial).
 */

/** What a mode starts from. */
export type FacilitatorSource =
  /** Seats and a config (a new game). */
  | "seats"
  /** Seats, a config and a position (`board`, the game's config field of that name). */
  | "board"
  /** A finished game's record (GameRecord), played back. */
  | "record"
  /** Not a table: a trainer's session (POST /v1/sessions). */
  | "session";

/** Who drives a seat. */
export type SeatDriver = "person" | "agent" | "record" | "client";

export interface FacilitatorPreset {
  readonly name: FacilitatorName;
  /** One line: what the mode is for. */
  readonly purpose: string;
  readonly source: FacilitatorSource;
  /** How many seats people (`human`, `open`) and agents may hold; max null: no limit. */
  readonly people: { readonly min: number; readonly max: number | null };
  readonly agents: { readonly min: number; readonly max: number | null };
  /** The one agent spec every agent seat must have (tutorial, sandbag); null: any spec. */
  readonly opponent: string | null;
  /** Seats when a body gives none: every seat a person's, or seat 0 a person's and the rest the opponent's. */
  readonly defaultSeats: "people" | "person-then-opponent" | "none";
  /** Deadlines the mode sets where the body leaves them out. */
  readonly deadlines: Partial<ResolvedDeadlines>;
  /** Spectators: the body chooses (default allowed), they must be allowed, or there is nothing to watch. */
  readonly spectators: "optional" | "required" | "none";
  /** What a person may join: a person's seat (human/open, or one a person left), an agent's seat. */
  readonly joinable: { readonly personSeats: boolean; readonly agentSeats: boolean };
  /** Who drives the seats, for the docs and clients. */
  readonly drivers: readonly SeatDriver[];
}

/** What a table is built from: the seats, the config to parse, deadlines the mode implies. */
export interface TablePlan {
  readonly facilitator: FacilitatorName;
  readonly seats: string[];
  readonly config: Record<string, unknown>;
  readonly deadlines: Partial<ResolvedDeadlines>;
}

export interface Facilitator {
  readonly preset: FacilitatorPreset;
  /**
   * Checks a create body against the preset and fills in what it implies. Throws TableError for
   * a body this mode cannot start. Replay (from a record: ReplayFacilitator.play) and learning
   * (the session API) do not start from seats and refuse here with an error that says so.
   */
  plan(game: AnyGame, body: CreateTableBody): TablePlan;
}

const ANY = { min: 0, max: null } as const;
const NONE = { min: 0, max: 0 } as const;
const ONE = { min: 1, max: 1 } as const;
const AT_LEAST_ONE = { min: 1, max: null } as const;

/** The seven play modes of the design, and `audience` (agents only, for people to watch). */
export const PRESETS = {
  online: {
    name: "online",
    purpose: "people play each other over the network, with reconnect",
    source: "seats",
    people: AT_LEAST_ONE,
    agents: NONE,
    opponent: null,
    defaultSeats: "people",
    deadlines: {},
    spectators: "optional",
    joinable: { personSeats: true, agentSeats: false },
    drivers: ["person"],
  },
  debug: {
    name: "debug",
    purpose: "play from a chosen position (a board), any seats people's or agents'",
    source: "board",
    people: ANY,
    agents: ANY,
    opponent: null,
    defaultSeats: "people",
    deadlines: {},
    spectators: "optional",
    joinable: { personSeats: true, agentSeats: true },
    drivers: ["person", "agent"],
  },
  tutorial: {
    name: "tutorial",
    purpose: "one person learns the game against the scripted tutorial agent",
    source: "seats",
    people: ONE,
    agents: ANY,
    opponent: "tutorial",
    defaultSeats: "person-then-opponent",
    deadlines: {},
    spectators: "optional",
    joinable: { personSeats: true, agentSeats: false },
    drivers: ["person", "agent"],
  },
  training: {
    name: "training",
    purpose: "people practise against agents (any spec, trained models included)",
    source: "seats",
    people: AT_LEAST_ONE,
    agents: AT_LEAST_ONE,
    opponent: null,
    defaultSeats: "none",
    deadlines: {},
    spectators: "optional",
    joinable: { personSeats: true, agentSeats: true },
    drivers: ["person", "agent"],
  },
  sandbag: {
    name: "sandbag",
    purpose: "one person tests a deck against an opponent that barely acts",
    source: "seats",
    people: ONE,
    agents: ANY,
    opponent: "sandbag",
    defaultSeats: "person-then-opponent",
    deadlines: {},
    spectators: "optional",
    joinable: { personSeats: true, agentSeats: false },
    drivers: ["person", "agent"],
  },
  replay: {
    name: "replay",
    purpose: "a finished game played back from its record, stepped forward and back",
    source: "record",
    people: NONE,
    agents: NONE,
    opponent: null,
    defaultSeats: "none",
    deadlines: {},
    spectators: "required",
    joinable: { personSeats: false, agentSeats: false },
    drivers: ["record"],
  },
  learning: {
    name: "learning",
    purpose: "the reinforcement-learning environment: a trainer's client steps N games at once",
    source: "session",
    people: NONE,
    agents: ANY,
    opponent: null,
    defaultSeats: "none",
    deadlines: {},
    spectators: "none",
    joinable: { personSeats: false, agentSeats: false },
    drivers: ["client", "agent"],
  },
  audience: {
    name: "audience",
    purpose: "agents play each other, paced for people watching",
    source: "seats",
    people: NONE,
    agents: AT_LEAST_ONE,
    opponent: null,
    defaultSeats: "none",
    deadlines: { botDelayMs: 500 },
    spectators: "required",
    joinable: { personSeats: false, agentSeats: false },
    drivers: ["agent"],
  },
} as const satisfies Record<FacilitatorName, FacilitatorPreset>;

const invalidSeats = (name: string, message: string) => new TableError(400, "invalid_seats", `facilitator ${name}: ${message}`);

/** Whether the game's config has a field named `board` (a position to start from): the game's own data. */
export function gameTakesBoard(gameId: string): boolean {
  const defs = (buildConfigSchemas() as { $defs: Record<string, { properties?: Record<string, unknown> } | undefined> }).$defs;
  return defs[gameId]?.properties?.board !== undefined;
}

function seatCount(game: AnyGame, body: CreateTableBody, config: Record<string, unknown>): number {
  return body.seats?.length ?? (typeof config.seats === "number" ? config.seats : game.info.defaultSeats);
}

function defaultSeats(p: FacilitatorPreset, n: number): string[] | undefined {
  if (p.defaultSeats === "people") return Array.from({ length: n }, () => "human");
  const opponent = p.opponent;
  if (p.defaultSeats === "person-then-opponent" && opponent !== null) return Array.from({ length: n }, (_, i) => (i === 0 ? "human" : opponent));
  return undefined;
}

/** "exactly 1 person", "at least 1 agent", "no agents", "any number of agents". */
function countText(c: { readonly min: number; readonly max: number | null }, one: string, many: string): string {
  const noun = (n: number | null) => (n === 1 ? one : many);
  if (c.max === 0) return `no ${many}`;
  if (c.max === c.min) return `exactly ${c.min} ${noun(c.min)}`;
  if (c.max === null) return c.min === 0 ? `any number of ${many}` : `at least ${c.min} ${noun(c.min)}`;
  return `${c.min} to ${c.max} ${many}`;
}

/** The seats of a body checked against a preset's counts and opponent (the generic rule). */
export function planSeats(p: FacilitatorPreset, game: AnyGame, body: CreateTableBody, config: Record<string, unknown>): string[] {
  const seats = body.seats ?? defaultSeats(p, seatCount(game, body, config));
  if (seats === undefined) throw invalidSeats(p.name, "give `seats` (one spec per seat)");
  const kinds = seats.map((s) => seatKindOf(s).kind);
  const people = kinds.filter((k) => k !== "agent").length;
  const agents = kinds.length - people;
  const within = (n: number, c: { min: number; max: number | null }) => n >= c.min && (c.max === null || n <= c.max);
  if (!within(people, p.people) || !within(agents, p.agents)) {
    throw invalidSeats(
      p.name,
      `needs ${countText(p.people, "person", "people")} (human/open seats) and ${countText(p.agents, "agent", "agents")}; got ${people} and ${agents}`,
    );
  }
  if (p.opponent !== null && seats.some((s, i) => kinds[i] === "agent" && s !== p.opponent)) {
    throw invalidSeats(p.name, `every agent seat is "${p.opponent}"`);
  }
  return seats;
}

/** A table mode: the preset's seat rule, its deadlines and its config additions. */
function tableFacilitator(
  preset: FacilitatorPreset,
  configure: (game: AnyGame, body: CreateTableBody, config: Record<string, unknown>) => void = () => undefined,
): Facilitator {
  return {
    preset,
    plan(game, body) {
      const config = { ...(body.config ?? {}) };
      if (body.board !== undefined && preset.source !== "board") {
        throw new TableError(400, "invalid_board", `\`board\` is read by facilitator debug only (this table's is ${preset.name})`, { path: "board" });
      }
      if (body.spectators === false && preset.spectators === "required") throw invalidSeats(preset.name, "this table must allow spectators");
      configure(game, body, config);
      const seats = planSeats(preset, game, body, config);
      return { facilitator: preset.name, seats, config, deadlines: preset.deadlines };
    },
  };
}

/** The tutorial: the game's own tutorial config (agents/evaluators: dcg's beginner books) unless the body sets those fields. */
function tutorialConfig(game: AnyGame, _body: CreateTableBody, config: Record<string, unknown>): void {
  for (const [k, v] of Object.entries(gameTutorialConfig(game.info.id) ?? {})) if (config[k] === undefined) config[k] = v;
}

/** Debug: the body's `board` becomes config.board, for games whose config takes one. */
function debugBoard(game: AnyGame, body: CreateTableBody, config: Record<string, unknown>): void {
  if (!gameTakesBoard(game.info.id)) {
    throw new TableError(400, "unsupported_facilitator", `facilitator debug starts games that take a board; ${game.info.id} does not`);
  }
  const bad = (message: string, path: string) => new TableError(400, "invalid_board", message, { path });
  if (body.board === undefined) throw bad(`facilitator debug needs \`board\`: a ${game.info.id} board file (docs/board-file.md)`, "board");
  if (config.board !== undefined) throw bad("give the board once, as `board` (not also as config.board)", "config.board");
  config.board = body.board;
}

/** A mode that is not started by POST /v1/tables seats. */
function elsewhere(preset: FacilitatorPreset, code: string, message: string): Facilitator {
  return {
    preset,
    plan() {
      throw new TableError(400, code, message);
    },
  };
}

/** The replay mode: what it plays back comes from a record, not from seats. */
export interface ReplayFacilitator extends Facilitator {
  /** Plays a record (untrusted) back, each seat's decisions driven by the record (env/live/replay.ts). */
  play(registry: GameRegistry, record: unknown): PlayedBack;
}

const replayFacilitator: ReplayFacilitator = {
  ...elsewhere(PRESETS.replay, "invalid_record", "facilitator replay needs `record` (a GameRecord), not seats"),
  play: playBack,
};

/** Every mode by name. */
export const MODES: Readonly<Record<FacilitatorName, Facilitator>> & { readonly replay: ReplayFacilitator } = {
  online: tableFacilitator(PRESETS.online),
  debug: tableFacilitator(PRESETS.debug, debugBoard),
  tutorial: tableFacilitator(PRESETS.tutorial, tutorialConfig),
  training: tableFacilitator(PRESETS.training),
  sandbag: tableFacilitator(PRESETS.sandbag),
  audience: tableFacilitator(PRESETS.audience),
  replay: replayFacilitator,
  learning: elsewhere(PRESETS.learning, "unsupported_facilitator", "learning is not a table: create a session (POST /v1/sessions)"),
};

/** The facilitator a body names, or the default: online when every seat is a person's, else training. */
export function facilitatorFor(body: CreateTableBody): Facilitator {
  if (body.facilitator !== undefined) return MODES[body.facilitator];
  const agents = (body.seats ?? []).some((s) => seatKindOf(s).kind === "agent");
  return agents ? MODES.training : MODES.online;
}

/** The plan of a create body (what TableStore.create builds the table from). */
export function planTable(game: AnyGame, body: CreateTableBody): TablePlan {
  return facilitatorFor(body).plan(game, body);
}

/** A mode's preset by name (tables read `joinable` from it). */
export function presetOf(name: FacilitatorName): FacilitatorPreset {
  return PRESETS[name];
}
