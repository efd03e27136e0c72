import websocket from "@fastify/websocket";
import type { FastifyInstance, FastifyPluginCallback, FastifyRequest } from "fastify";
import { RouteError } from "./ports.ts";
import { intOf, json, longPoll, tableOf, toApi, tokenOf, watchableOf } from "./http.ts";
import {
  AnswerBody,
  CursorBody,
  CreateTableBody,
  FrameQuery,
  LIVE_LIMITS,
  ListQuery,
  LogQuery,
  PROTOCOL_SCHEMAS,
  PROTOCOL_VERSION,
  SeatParams,
  TableParams,
  type ResignReply,
} from "./protocol.ts";
import { seatSocketRoute, spectateRoute } from "./sockets.ts";
import type { TableStore } from "./store.ts";
import type { Table } from "./table.ts";

/**
 * Table routes (docs/live.md) as a fastify plugin: REST to create/list/join, a WebSocket per seat
 * and per spectator (sockets.ts), and the same frames over plain HTTP for clients without
 * WebSocket. Table routes speak JSON unless the client asks for msgpack (errors follow the Accept
 * header).
 */
export const tableRoutes: FastifyPluginCallback<{ store: TableStore }> = (app, { store }, done) => {
  // Read messages well past the protocol's limit, so an oversize one gets a bad_message answer
  // (parseMessage) rather than a closed channel; past maxReadBytes ws closes with 1009.
  app.register(websocket, { options: { maxPayload: LIVE_LIMITS.maxReadBytes } });
  // Registered after the websocket plugin has loaded, so that its routes can be WebSocket routes.
  app.register(async (api) => {
    api.addHook("onRequest", (request, _reply, hookDone) => {
      if (!request.headers.accept || request.headers.accept === "*/*") request.headers.accept = "application/json";
      hookDone();
    });
    tableRestRoutes(api, store);
    seatSocketRoute(api, store);
    spectateRoute(api, store);
    seatHttpRoutes(api, store);
  });
  done();
};

function seatOf(table: Table, text: string): number {
  const seat = Number(text);
  if (!table.hasSeat(seat)) throw new RouteError(404, "unknown_seat", `table ${table.id} has no seat ${text}`);
  return seat;
}

/** The table and seat a request acts for, once its token is checked (401) and the seat is still played (403). */
function holder(store: TableStore, request: FastifyRequest<{ Params: { id: string; seat: string }; Querystring: { token?: string } }>) {
  const table = tableOf(store, request.params.id);
  const seat = seatOf(table, request.params.seat);
  if (!table.authorize(seat, tokenOf(request))) throw new RouteError(401, "unauthorized", `missing or wrong seat token for seat ${seat} (send x-seat-token)`);
  if (table.isResigned(seat)) throw new RouteError(403, "seat_resigned", `seat ${seat} was resigned; its token no longer plays it (watch the table instead)`);
  return { table, seat };
}

/** The protocol, creating, listing and reading tables, a table's record and log, joining a seat, a replay's cursor. */
function tableRestRoutes(api: FastifyInstance, store: TableStore): void {
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
    json(reply, 200, watchableOf(store, request.params.id).summary()),
  );

  api.get<{ Params: { id: string } }>("/v1/tables/:id/record", { schema: { params: TableParams } }, (request, reply) => {
    try {
      return json(reply, 200, tableOf(store, request.params.id).record());
    } catch (e) {
      throw toApi(e);
    }
  });

  api.get<{ Params: { id: string }; Querystring: LogQuery }>(
    "/v1/tables/:id/log",
    { schema: { params: TableParams, querystring: LogQuery } },
    (request, reply) => {
      const table = tableOf(store, request.params.id);
      if (!table.spectatorsAllowed) throw new RouteError(403, "spectators_forbidden", `table ${table.id} does not allow spectators`);
      const since = intOf(request.query.since) ?? 0;
      // No token is asked for: the log is what a spectator may read.
      return json(reply, 200, { table: table.id, seq: table.seq, events: table.eventsFor("spectator", since, LIVE_LIMITS.maxLogPage) });
    },
  );

  api.post<{ Params: { id: string; seat: string }; Querystring: { token?: string } }>(
    "/v1/tables/:id/seats/:seat/join",
    { schema: { params: SeatParams } },
    async (request, reply) => {
      // With the seat's token, its holder takes the seat again under a token of its own: whoever
      // else had the old one (the table's creator, for a person's seat) no longer opens it.
      const rekey = tokenOf(request) !== undefined;
      const table = tableOf(store, request.params.id);
      const seat = rekey ? holder(store, request).seat : seatOf(table, request.params.seat);
      try {
        return json(reply, 200, { table: table.id, seat, token: await table.join(seat, rekey) });
      } catch (e) {
        throw toApi(e);
      }
    },
  );

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
}

/** A seat's frames, answers, resignation and leaving over plain HTTP (for clients without WebSocket). */
function seatHttpRoutes(api: FastifyInstance, store: TableStore): void {
  api.get<{ Params: { id: string; seat: string }; Querystring: FrameQuery }>(
    "/v1/tables/:id/seats/:seat/frame",
    { schema: { params: SeatParams, querystring: FrameQuery } },
    async (request, reply) => {
      const { table, seat } = holder(store, request);
      await table.touch(seat).catch((e: unknown) => {
        throw toApi(e);
      });
      const since = intOf(request.query.since);
      await longPoll(table, since, intOf(request.query.wait), () => table.mustDecide(seat));
      return json(reply, 200, table.seatFrame(seat, since ?? table.seq));
    },
  );

  api.post<{ Params: { id: string; seat: string }; Body: AnswerBody; Querystring: { token?: string } }>(
    "/v1/tables/:id/seats/:seat/answer",
    { schema: { params: SeatParams, body: AnswerBody } },
    async (request, reply) => {
      const { table, seat } = holder(store, request);
      try {
        await table.touch(seat);
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
    async (request, reply) => {
      const { table, seat } = holder(store, request);
      try {
        const { outcome } = await table.resign(seat);
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
    async (request, reply) => {
      const { table, seat } = holder(store, request);
      try {
        await table.leave(seat);
      } catch (e) {
        throw toApi(e);
      }
      return json(reply, 200, { left: true });
    },
  );
}
