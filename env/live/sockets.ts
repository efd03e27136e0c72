import type { FastifyInstance } from "fastify";
import { Compile } from "typebox/compile";
import type { WebSocket } from "ws";
import type { Clock } from "../../agents/clock.ts";
import { channelConfig } from "./channel-config.ts";
import { RouteError } from "./ports.ts";
import { intOf, json, longPoll, tokenOf, watchableOf } from "./http.ts";
import { ClientMessage, FrameQuery, LIVE_LIMITS, PROTOCOL_VERSION, SeatSocketQuery, TableParams, type Hello } from "./protocol.ts";
import { ReplayTable } from "./replay.ts";
import type { TableStore } from "./store.ts";
import { DEFAULT_DEADLINES, RESIGNED_CLOSE, TableError, type Channel, type Table } from "./table.ts";

const clientMessage = Compile(ClientMessage);

function hello(table: Table | ReplayTable, seat: number | null): Hello {
  return {
    type: "hello",
    protocol: PROTOCOL_VERSION,
    table: table.id,
    game: table.game.info.id,
    gameVersion: table.game.info.version,
    facilitator: table.facilitator,
    config: channelConfig(table.config),
    deadlines: table instanceof ReplayTable ? DEFAULT_DEADLINES : table.deadlines,
    spectators: table.spectatorsAllowed,
    role: seat === null ? "spectator" : "seat",
    seat,
  };
}

const errorText = (code: string, message: string, seq: number | null) => JSON.stringify({ type: "error", error: { code, message }, seq });

/**
 * A client's WebSocket message as JSON, or undefined with why it was refused (over the size
 * limit, binary, not JSON): the caller answers bad_message, and the channel stays open.
 */
function parseMessage(raw: Buffer, isBinary: boolean): { msg: unknown; refused: string } {
  if (raw.length > LIVE_LIMITS.maxMessageBytes)
    return { msg: undefined, refused: `messages are at most ${LIVE_LIMITS.maxMessageBytes} bytes, this one has ${raw.length}; ` };
  if (isBinary) return { msg: undefined, refused: "messages are JSON text, not binary; " };
  try {
    return { msg: JSON.parse(raw.toString("utf8")), refused: "" };
  } catch {
    return { msg: undefined, refused: "the message is not valid JSON; " };
  }
}

/** A seat's WebSocket: the seat's frames out, its answers, syncs, resignation and leaving in. */
export function seatSocketRoute(api: FastifyInstance, store: TableStore): void {
  api.route<{ Params: { id: string; seat: string }; Querystring: SeatSocketQuery }>({
    method: "GET",
    url: "/v1/tables/:id/seats/:seat/ws",
    schema: { querystring: SeatSocketQuery },
    // A plain GET (no Upgrade) gets the error shape too, not an empty 404.
    handler: () => {
      throw new RouteError(
        426,
        "upgrade_required",
        "this is a seat's WebSocket channel: connect with a WebSocket client, or use GET .../seats/:seat/frame over HTTP",
      );
    },
    wsHandler: (socket: WebSocket, request) => {
      const refuse = (code: string, message: string, close: number) => {
        socket.send(errorText(code, message, null));
        socket.close(close, code);
      };
      let table: Table;
      try {
        table = store.get(request.params.id);
      } catch {
        return refuse("unknown_table", `no table ${JSON.stringify(request.params.id)}`, 4004);
      }
      const seat = Number(request.params.seat);
      if (!/^[0-9]{1,2}$/.test(request.params.seat) || !table.hasSeat(seat))
        return refuse("unknown_seat", `table ${table.id} has no seat ${request.params.seat}`, 4004);
      if (!table.authorize(seat, tokenOf(request))) return refuse("unauthorized", `missing or wrong seat token for seat ${seat}`, 4001);
      if (table.isResigned(seat))
        return refuse("seat_resigned", `seat ${seat} was resigned; its token no longer plays it (watch the table instead)`, RESIGNED_CLOSE);
      for (const old of table.channelsOf(seat)) old.close(4000, "replaced by a newer connection");
      const channel = socketChannel(socket, { seat });
      socket.send(JSON.stringify(hello(table, seat)));
      table.attach(channel, intOf(request.query.since));
      socket.on("close", () => table.detach(channel));
      socket.on("error", () => table.detach(channel));
      const syncs = new SyncBudget(store.clock);
      socket.on("message", (raw: Buffer, isBinary: boolean) => onSeatMessage(table, seat, channel, syncs, raw, isBinary));
    },
  });
}

/** A seat's message: an answer (acknowledged once applied), a sync, a resignation or leaving; anything else is a bad_message. */
function onSeatMessage(table: Table, seat: number, channel: Channel, syncs: SyncBudget, raw: Buffer, isBinary: boolean): void {
  const { msg, refused } = parseMessage(raw, isBinary);
  if (!clientMessage.Check(msg)) {
    return channel.send(
      errorText(
        "bad_message",
        refused + 'expected {"type": "answer", "seq", "decisionId"}, {"type": "sync"}, {"type": "leave"} or {"type": "resign"} as JSON text',
        table.seq,
      ),
    );
  }
  try {
    if (msg.type === "answer") {
      const id = msg.decisionId;
      table.answer(seat, msg.seq, id).then(
        (out) => channel.send(JSON.stringify({ type: "ack", seq: out.seq, decisionId: id })),
        (e: unknown) => {
          if (e instanceof TableError) channel.send(errorText(e.code, e.message, table.seq));
        },
      );
    } else if (msg.type === "sync") {
      channel.send(syncs.take() ? table.frameFor(channel, msg.since ?? null) : SyncBudget.refusal(table.seq));
    } else {
      // resign or leave: journaled first; the frames that follow show it.
      (msg.type === "resign" ? table.resign(seat) : table.leave(seat)).catch((e: unknown) => {
        if (e instanceof TableError) channel.send(errorText(e.code, e.message, table.seq));
      });
    }
  } catch (e) {
    if (e instanceof TableError) channel.send(errorText(e.code, e.message, table.seq));
    else throw e;
  }
}

/**
 * A channel's sync allowance, a token bucket on the store's clock: LIVE_LIMITS.syncBurst at once,
 * then LIVE_LIMITS.syncsPerSecond. A sync past it is refused with `rate_limited` and costs nothing.
 */
export class SyncBudget {
  private tokens: number = LIVE_LIMITS.syncBurst;
  private at: number;

  constructor(private readonly clock: Clock) {
    this.at = clock.now();
  }

  /** Whether a sync may be answered now (and counts it). */
  take(): boolean {
    const now = this.clock.now();
    this.tokens = Math.min(LIVE_LIMITS.syncBurst, this.tokens + (Math.max(0, now - this.at) * LIVE_LIMITS.syncsPerSecond) / 1000);
    this.at = now;
    if (this.tokens < 1) return false;
    this.tokens -= 1;
    return true;
  }

  static refusal(seq: number): string {
    return errorText(
      "rate_limited",
      `too many syncs: at most ${LIVE_LIMITS.syncBurst} at once, then ${LIVE_LIMITS.syncsPerSecond} a second (frames come by themselves; sync after a gap)`,
      seq,
    );
  }
}

/** The channel a table writes a socket's frames to (a seat's, or a spectator's with its viewer). */
export function socketChannel(socket: WebSocket, who: { seat: number } | { seat: null; viewer: "spectator" | number }): Channel {
  return {
    ...who,
    sentSeq: 0,
    send: (text) => {
      if (socket.readyState !== socket.OPEN) return;
      // A client that does not read its frames is cut off (it reconnects with since): what it
      // leaves unread would otherwise pile up in the server's memory, frame after frame.
      if (socket.bufferedAmount > LIVE_LIMITS.maxUnsentBytes) return socket.terminate();
      socket.send(text);
    },
    close: (code, reason) => socket.close(code, reason),
  };
}

/** ?viewer=N chooses a seat's view, on replay tables only (a record hides nothing). */
function viewerOf(table: Table | ReplayTable, text: string | undefined): "spectator" | number {
  if (text === undefined || text === "spectator") return "spectator";
  const seat = Number(text);
  if (!(table instanceof ReplayTable)) throw new RouteError(403, "viewer_forbidden", "only replay tables show a seat's view to spectators");
  if (!Number.isInteger(seat) || seat < 0 || seat >= table.numSeats) throw new RouteError(400, "unknown_seat", `no seat ${text}`);
  return seat;
}

/** Spectating a table (or a replay) over a WebSocket, or over HTTP with an optional long poll. */
export function spectateRoute(api: FastifyInstance, store: TableStore): void {
  api.route<{ Params: { id: string }; Querystring: FrameQuery }>({
    method: "GET",
    url: "/v1/tables/:id/spectate",
    schema: { params: TableParams, querystring: FrameQuery },
    handler: async (request, reply) => {
      const table = watchableOf(store, request.params.id);
      if (!table.spectatorsAllowed) throw new RouteError(403, "spectators_forbidden", `table ${table.id} does not allow spectators`);
      const viewer = viewerOf(table, request.query.viewer);
      const since = intOf(request.query.since);
      await longPoll(table, since, intOf(request.query.wait), () => false);
      return json(reply, 200, table instanceof ReplayTable ? table.spectatorFrame(since ?? table.seq, viewer) : table.spectatorFrame(since ?? table.seq));
    },
    wsHandler: (socket: WebSocket, request) => {
      let table: Table | ReplayTable;
      let viewer: "spectator" | number;
      try {
        table = store.watchable(request.params.id);
        viewer = viewerOf(table, request.query.viewer);
      } catch (e) {
        if (e instanceof RouteError && e.code !== "unknown_table") {
          socket.send(errorText(e.code, e.message, null));
          return socket.close(4003, e.code);
        }
        socket.send(errorText("unknown_table", `no table ${JSON.stringify(request.params.id)}`, null));
        return socket.close(4004, "unknown_table");
      }
      if (!table.spectatorsAllowed) {
        socket.send(errorText("spectators_forbidden", `table ${table.id} does not allow spectators`, null));
        return socket.close(4003, "spectators_forbidden");
      }
      const channel = socketChannel(socket, { seat: null, viewer });
      socket.send(JSON.stringify(hello(table, null)));
      const watched = table;
      watched.attach(channel, intOf(request.query.since));
      socket.on("close", () => watched.detach(channel));
      socket.on("error", () => watched.detach(channel));
      const syncs = new SyncBudget(store.clock);
      socket.on("message", (raw: Buffer, isBinary: boolean) => {
        const { msg, refused } = parseMessage(raw, isBinary);
        if (clientMessage.Check(msg) && msg.type === "sync")
          channel.send(syncs.take() ? watched.frameFor(channel, msg.since ?? null) : SyncBudget.refusal(watched.seq));
        else channel.send(errorText("bad_message", refused + 'a spectator may only send {"type": "sync"}', watched.seq));
      });
    },
  });
}
