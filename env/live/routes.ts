import websocket from "@fastify/websocket";
import type { FastifyInstance, FastifyReply, FastifyRequest } from "fastify";
import { Compile } from "typebox/compile";
import type { WebSocket } from "ws";
import { ApiError } from "../server/api-error.ts";
import {
  AnswerBody,
  ClientMessage,
  CursorBody,
  CreateTableBody,
  FrameQuery,
  LIVE_LIMITS,
  ListQuery,
  PROTOCOL_SCHEMAS,
  PROTOCOL_VERSION,
  SeatParams,
  TableParams,
  type Hello,
  type ResignReply,
} from "./protocol.ts";
import { ReplayTable } from "./replay.ts";
import type { TableStore } from "./store.ts";
import { DEFAULT_DEADLINES, RESIGNED_CLOSE, TableError, type Channel, type Table } from "./table.ts";

const clientMessage = Compile(ClientMessage);

const toApi = (e: unknown): unknown => (e instanceof TableError ? new ApiError(e.status, e.code, e.message, e.details) : e);

const json = (reply: FastifyReply, status: number, body: unknown) => reply.code(status).type("application/json; charset=utf-8").send(JSON.stringify(body));

function hello(table: Table | ReplayTable, seat: number | null): Hello {
  return {
    type: "hello",
    protocol: PROTOCOL_VERSION,
    table: table.id,
    game: table.game.info.id,
    gameVersion: table.game.info.version,
    facilitator: table.facilitator,
    config: table.config,
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

function intOf(text: string | undefined): number | null {
  if (text === undefined) return null;
  const n = Number(text);
  return Number.isSafeInteger(n) && n >= 0 ? n : null;
}

/**
 * Table routes (docs/live.md): REST to create/list/join, a WebSocket per seat and per spectator,
 * and the same frames over plain HTTP for clients without WebSocket.
 */
export function registerTableRoutes(app: FastifyInstance, store: TableStore): void {
  // Read messages well past the protocol's limit, so an oversize one gets a bad_message answer
  // (parseMessage) rather than a closed channel; past maxReadBytes ws closes with 1009.
  app.register(websocket, { options: { maxPayload: LIVE_LIMITS.maxReadBytes } });
  app.register(async (api) => {
    // Table routes speak JSON unless the client asks for msgpack (errors follow the Accept header).
    api.addHook("onRequest", (request, _reply, done) => {
      if (!request.headers.accept || request.headers.accept === "*/*") request.headers.accept = "application/json";
      done();
    });

    const tableOf = (id: string): Table => {
      try {
        return store.get(id);
      } catch (e) {
        throw toApi(e);
      }
    };
    const watchableOf = (id: string): Table | ReplayTable => {
      try {
        return store.watchable(id);
      } catch (e) {
        throw toApi(e);
      }
    };
    const seatOf = (table: Table, text: string): number => {
      const seat = Number(text);
      if (!table.hasSeat(seat)) throw new ApiError(404, "unknown_seat", `table ${table.id} has no seat ${text}`);
      return seat;
    };
    const tokenOf = (request: FastifyRequest<{ Querystring: { token?: string } }>): string | undefined => {
      const h = request.headers["x-seat-token"];
      return (typeof h === "string" ? h : undefined) ?? request.query?.token;
    };
    const holder = (request: FastifyRequest<{ Params: { id: string; seat: string }; Querystring: { token?: string } }>) => {
      const table = tableOf(request.params.id);
      const seat = seatOf(table, request.params.seat);
      if (!table.authorize(seat, tokenOf(request))) throw new ApiError(401, "unauthorized", `missing or wrong seat token for seat ${seat} (send x-seat-token)`);
      if (table.isResigned(seat)) throw new ApiError(403, "seat_resigned", `seat ${seat} was resigned; its token no longer plays it (watch the table instead)`);
      return { table, seat };
    };

    api.get("/v1/tables/protocol", (_request, reply) => json(reply, 200, { protocol: PROTOCOL_VERSION, schemas: PROTOCOL_SCHEMAS }));

    api.post<{ Body: CreateTableBody }>("/v1/tables", { schema: { body: CreateTableBody } }, async (request, reply) => {
      try {
        return json(reply, 201, await store.create(request.body));
      } catch (e) {
        throw toApi(e);
      }
    });

    api.get<{ Querystring: { status?: "playing" | "finished" } }>("/v1/tables", { schema: { querystring: ListQuery } }, (request, reply) =>
      json(reply, 200, { tables: store.list(request.query.status).map((t) => t.summary()) }),
    );

    api.get<{ Params: { id: string } }>("/v1/tables/:id", { schema: { params: TableParams } }, (request, reply) =>
      json(reply, 200, watchableOf(request.params.id).summary()),
    );

    api.get<{ Params: { id: string } }>("/v1/tables/:id/record", { schema: { params: TableParams } }, (request, reply) => {
      try {
        return json(reply, 200, tableOf(request.params.id).record());
      } catch (e) {
        throw toApi(e);
      }
    });

    api.get<{ Params: { id: string }; Querystring: { since?: string } }>("/v1/tables/:id/log", { schema: { params: TableParams } }, (request, reply) => {
      const table = tableOf(request.params.id);
      if (!table.spectatorsAllowed) throw new ApiError(403, "spectators_forbidden", `table ${table.id} does not allow spectators`);
      const since = intOf(request.query.since) ?? 0;
      // No token is asked for: the log is what a spectator may read.
      return json(reply, 200, { table: table.id, seq: table.seq, events: table.eventsFor("spectator", since, LIVE_LIMITS.maxLogPage) });
    });

    api.post<{ Params: { id: string; seat: string } }>("/v1/tables/:id/seats/:seat/join", { schema: { params: SeatParams } }, (request, reply) => {
      const table = tableOf(request.params.id);
      const seat = seatOf(table, request.params.seat);
      try {
        return json(reply, 200, { table: table.id, seat, token: table.join(seat) });
      } catch (e) {
        throw toApi(e);
      }
    });

    // ---------------------------------------------------------- a seat's WebSocket
    api.get<{ Params: { id: string; seat: string }; Querystring: { token?: string; since?: string } }>(
      "/v1/tables/:id/seats/:seat/ws",
      { websocket: true },
      (socket: WebSocket, request) => {
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
        const channel: Channel = {
          seat,
          sentSeq: 0,
          send: (text) => {
            if (socket.readyState === socket.OPEN) socket.send(text);
          },
          close: (code, reason) => socket.close(code, reason),
        };
        socket.send(JSON.stringify(hello(table, seat)));
        table.attach(channel, intOf(request.query.since));
        socket.on("close", () => table.detach(channel));
        socket.on("error", () => table.detach(channel));
        socket.on("message", (raw: Buffer, isBinary: boolean) => {
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
              channel.send(table.frameFor(channel, msg.since ?? null));
            } else if (msg.type === "resign") {
              table.resign(seat);
            } else {
              table.leave(seat);
            }
          } catch (e) {
            if (e instanceof TableError) channel.send(errorText(e.code, e.message, table.seq));
            else throw e;
          }
        });
      },
    );

    // ---------------------------------------------------------- spectators (WebSocket or HTTP)
    /** ?viewer=N chooses a seat's view, on replay tables only (a record hides nothing). */
    const viewerOf = (table: Table | ReplayTable, text: string | undefined): "spectator" | number => {
      if (text === undefined || text === "spectator") return "spectator";
      const seat = Number(text);
      if (!(table instanceof ReplayTable)) throw new ApiError(403, "viewer_forbidden", "only replay tables show a seat's view to spectators");
      if (!Number.isInteger(seat) || seat < 0 || seat >= table.numSeats) throw new ApiError(400, "unknown_seat", `no seat ${text}`);
      return seat;
    };
    api.route<{ Params: { id: string }; Querystring: { since?: string; wait?: string; viewer?: string } }>({
      method: "GET",
      url: "/v1/tables/:id/spectate",
      schema: { params: TableParams },
      handler: async (request, reply) => {
        const table = watchableOf(request.params.id);
        if (!table.spectatorsAllowed) throw new ApiError(403, "spectators_forbidden", `table ${table.id} does not allow spectators`);
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
          if (e instanceof ApiError && e.code !== "unknown_table") {
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
        const channel: Channel = {
          seat: null,
          viewer,
          sentSeq: 0,
          send: (text) => {
            if (socket.readyState === socket.OPEN) socket.send(text);
          },
          close: (code, reason) => socket.close(code, reason),
        };
        socket.send(JSON.stringify(hello(table, null)));
        const watched = table;
        watched.attach(channel, intOf(request.query.since));
        socket.on("close", () => watched.detach(channel));
        socket.on("error", () => watched.detach(channel));
        socket.on("message", (raw: Buffer, isBinary: boolean) => {
          const { msg, refused } = parseMessage(raw, isBinary);
          if (clientMessage.Check(msg) && msg.type === "sync") channel.send(watched.frameFor(channel, msg.since ?? null));
          else channel.send(errorText("bad_message", refused + 'a spectator may only send {"type": "sync"}', watched.seq));
        });
      },
    });

    api.post<{ Params: { id: string }; Body: { seq: number } }>(
      "/v1/tables/:id/cursor",
      { schema: { params: TableParams, body: CursorBody } },
      (request, reply) => {
        try {
          const r = store.replay(request.params.id);
          r.moveTo(request.body.seq);
          return json(reply, 200, r.summary());
        } catch (e) {
          throw toApi(e);
        }
      },
    );

    // ---------------------------------------------------------- HTTP fallback for seats
    api.get<{ Params: { id: string; seat: string }; Querystring: FrameQuery }>(
      "/v1/tables/:id/seats/:seat/frame",
      { schema: { params: SeatParams, querystring: FrameQuery } },
      async (request, reply) => {
        const { table, seat } = holder(request);
        table.touch(seat);
        const since = intOf(request.query.since);
        await longPoll(table, since, intOf(request.query.wait), () => table.mustDecide(seat));
        return json(reply, 200, table.seatFrame(seat, since ?? table.seq));
      },
    );

    api.post<{ Params: { id: string; seat: string }; Body: AnswerBody; Querystring: { token?: string } }>(
      "/v1/tables/:id/seats/:seat/answer",
      { schema: { params: SeatParams, body: AnswerBody } },
      async (request, reply) => {
        const { table, seat } = holder(request);
        table.touch(seat);
        try {
          const out = await table.answer(seat, request.body.seq, request.body.decisionId);
          return json(reply, 200, { type: "ack", seq: out.seq, decisionId: request.body.decisionId });
        } catch (e) {
          throw toApi(e);
        }
      },
    );

    api.post<{ Params: { id: string; seat: string }; Querystring: { token?: string } }>(
      "/v1/tables/:id/seats/:seat/resign",
      { schema: { params: SeatParams } },
      (request, reply) => {
        const { table, seat } = holder(request);
        try {
          const { outcome } = table.resign(seat);
          const body: ResignReply = { resigned: true, seat, outcome };
          return json(reply, 200, body);
        } catch (e) {
          throw toApi(e);
        }
      },
    );

    api.post<{ Params: { id: string; seat: string }; Querystring: { token?: string } }>(
      "/v1/tables/:id/seats/:seat/leave",
      { schema: { params: SeatParams } },
      (request, reply) => {
        const { table, seat } = holder(request);
        table.leave(seat);
        return json(reply, 200, { left: true });
      },
    );
  });
}

/** Waits (bounded) until the table moved past `since` or `ready()` holds. */
async function longPoll(table: Table | ReplayTable, since: number | null, wait: number | null, ready: () => boolean): Promise<void> {
  if (wait === null || wait === 0 || since === null) return;
  const end = Date.now() + Math.min(wait, LIVE_LIMITS.maxLongPollMs);
  while (table.seq <= since && !table.isFinished && !ready()) {
    const left = end - Date.now();
    if (left <= 0) return;
    await table.waitForChange(left);
  }
}
