import type { FastifyReply, FastifyRequest } from "fastify";
import { RouteError } from "./ports.ts";
import { LIVE_LIMITS } from "./protocol.ts";
import type { ReplayTable } from "./replay.ts";
import type { TableStore } from "./store.ts";
import { TableError, type Table } from "./table.ts";

/*
 * What the table routes (routes.ts) and sockets (sockets.ts) share: finding tables, reading
 * tokens and numbers from requests, JSON replies and long polls.
 */

/** A table's own error as the HTTP error the server answers with; anything else unchanged. */
export const toApi = (e: unknown): unknown => (e instanceof TableError ? new RouteError(e.status, e.code, e.message, e.details) : e);

export const json = (reply: FastifyReply, status: number, body: unknown) =>
  reply.code(status).type("application/json; charset=utf-8").send(JSON.stringify(body));

/** A non-negative safe integer from a query parameter, else null. */
export function intOf(text: string | undefined): number | null {
  if (text === undefined) return null;
  const n = Number(text);
  return Number.isSafeInteger(n) && n >= 0 ? n : null;
}

/** The table, or the store's error as an HTTP error. */
export function tableOf(store: TableStore, id: string): Table {
  try {
    return store.get(id);
  } catch (e) {
    throw toApi(e);
  }
}

/** A playing, finished or replayed table, or the store's error as an HTTP error. */
export function watchableOf(store: TableStore, id: string): Table | ReplayTable {
  try {
    return store.watchable(id);
  } catch (e) {
    throw toApi(e);
  }
}

/** The seat token of a request: the x-seat-token header, else the `token` query parameter. */
export function tokenOf(request: FastifyRequest<{ Querystring: { token?: string } }>): string | undefined {
  const h = request.headers["x-seat-token"];
  return (typeof h === "string" ? h : undefined) ?? request.query?.token;
}

/** Waits (bounded) until the table moved past `since` or `ready()` holds. */
export async function longPoll(table: Table | ReplayTable, since: number | null, wait: number | null, ready: () => boolean): Promise<void> {
  if (wait === null || wait === 0 || since === null) return;
  const end = Date.now() + Math.min(wait, LIVE_LIMITS.maxLongPollMs);
  while (table.seq <= since && !table.isFinished && !ready()) {
    const left = end - Date.now();
    if (left <= 0) return;
    await table.waitForChange(left);
  }
}
