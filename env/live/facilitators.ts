import type { AnyGame } from "../../engine/core/index.ts";
import type { CreateTableBody, FacilitatorName } from "./protocol.ts";
import { seatKindOf, TableError } from "./table.ts";

/**
 * Facilitators (the design's play modes) as named presets of POST /v1/tables: each checks the seats
 * it is for and fills in what it implies; the table then runs the same way for all of them.
 * `learning` is not here: that is the session API.
 */
export interface Preset {
  readonly facilitator: FacilitatorName;
  readonly seats: string[];
  readonly config: Record<string, unknown>;
  readonly botDelayMs?: number;
}

export function applyPreset(game: AnyGame, body: CreateTableBody): Preset {
  const config = { ...(body.config ?? {}) };
  const n = body.seats?.length ?? (typeof config.seats === "number" ? config.seats : game.info.defaultSeats);
  let seats = body.seats ?? Array.from({ length: n }, () => "human");
  const kinds = seats.map((s) => seatKindOf(s).kind);
  const people = kinds.filter((k) => k !== "agent").length;
  const agents = kinds.length - people;
  const facilitator = (body.facilitator ?? (agents === 0 ? "online" : "training")) as FacilitatorName;
  const bad = (msg: string) => new TableError(400, "invalid_seats", `facilitator ${facilitator}: ${msg}`);
  if (body.board !== undefined && facilitator !== "debug")
    throw new TableError(400, "invalid_board", `\`board\` is read by facilitator debug only (this table's is ${facilitator})`, { path: "board" });
  switch (facilitator) {
    case "online":
      if (agents > 0) throw bad('every seat must be "human" or "open" (people only)');
      break;
    case "training":
      if (people === 0 || agents === 0) throw bad("needs at least one person and at least one agent seat");
      break;
    case "tutorial":
    case "sandbag": {
      // One person against the named opponent on every other seat (filled in when seats are absent).
      const opponent = facilitator;
      if (body.seats === undefined) seats = Array.from({ length: n }, (_, i) => (i === 0 ? "human" : opponent));
      const k = seats.map((s) => seatKindOf(s).kind);
      if (k.filter((x) => x !== "agent").length !== 1 || seats.some((s, i) => k[i] === "agent" && s !== opponent)) {
        throw bad(`one "human" seat, every other seat "${opponent}"`);
      }
      // dcg's tutorial is always played with the same beginner books (the aggro preset on both sides).
      if (facilitator === "tutorial" && game.info.id === "dcg" && config.books === undefined) config.books = ["vanguard", "vanguard"];
      break;
    }
    case "audience":
      if (people > 0) throw bad("agents only (people watch as spectators)");
      if (body.spectators === false) throw bad("an audience table must allow spectators");
      return { facilitator, seats, config, botDelayMs: body.deadlines?.botDelayMs ?? 500 };
    case "debug": {
      // A dcg position (docs/board-file.md) as config.board; the seats play it like any table.
      if (game.info.id !== "dcg") throw new TableError(400, "unsupported_facilitator", `facilitator debug starts dcg games only, not ${game.info.id}`);
      const missing = (message: string, path: string) => new TableError(400, "invalid_board", message, { path });
      if (body.board === undefined) throw missing("facilitator debug needs `board`: a dcg board file (docs/board-file.md)", "board");
      if (config.board !== undefined) throw missing("give the board once, as `board` (not also as config.board)", "config.board");
      config.board = body.board;
      break;
    }
    case "replay":
      // Replay tables are built from their record by TableStore.createReplay, never from a preset.
      throw new TableError(400, "invalid_record", "facilitator replay needs `record` (a GameRecord), not seats");
  }
  return { facilitator, seats, config };
}
