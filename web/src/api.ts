import type { CreateTableBody, CreateTableReply, TableSummary } from "../../env/live/protocol.ts";

export interface GameInfo {
  readonly id: string;
  readonly title: string;
  readonly minSeats: number;
  readonly maxSeats: number;
  readonly defaultSeats: number;
}

export class ApiFailure extends Error {
  constructor(
    readonly code: string,
    message: string,
  ) {
    super(message);
  }
}

async function call<T>(method: string, path: string, body?: unknown, headers: Record<string, string> = {}): Promise<T> {
  const res = await fetch(path, {
    method,
    headers: { accept: "application/json", ...(body === undefined ? {} : { "content-type": "application/json" }), ...headers },
    body: body === undefined ? null : JSON.stringify(body),
  });
  const data = (await res.json().catch(() => null)) as { error?: { code: string; message: string } } | null;
  if (!res.ok) throw new ApiFailure(data?.error?.code ?? `http_${res.status}`, data?.error?.message ?? `${method} ${path}: HTTP ${res.status}`);
  return data as T;
}

export const api = {
  games: () => call<{ games: GameInfo[] }>("GET", "/v1/games").then((r) => r.games),
  tables: () => call<{ tables: TableSummary[] }>("GET", "/v1/tables").then((r) => r.tables),
  table: (id: string) => call<TableSummary>("GET", `/v1/tables/${encodeURIComponent(id)}`),
  create: (body: CreateTableBody) => call<CreateTableReply>("POST", "/v1/tables", body),
  /** Takes a seat; with the seat's token, re-keys it (its holder takes it again under a token of its own). */
  join: (id: string, seat: number, token?: string) =>
    call<{ table: string; seat: number; token: string }>(
      "POST",
      `/v1/tables/${encodeURIComponent(id)}/seats/${seat}/join`,
      undefined,
      token === undefined ? {} : { "x-seat-token": token },
    ),
  record: (id: string) => call<unknown>("GET", `/v1/tables/${encodeURIComponent(id)}/record`),
};

/** Seat tokens are kept in this browser so a reload (or a later visit) gets the seat back. */
export const tokens = {
  key: (table: string, seat: number) => `cardgym.token.${table}.${seat}`,
  get(table: string, seat: number): string | null {
    try {
      return localStorage.getItem(this.key(table, seat));
    } catch {
      return null;
    }
  },
  set(table: string, seat: number, token: string): void {
    try {
      localStorage.setItem(this.key(table, seat), token);
    } catch {
      // private mode: the token stays in the URL only
    }
  },
  forget(table: string, seat: number): void {
    try {
      localStorage.removeItem(this.key(table, seat));
    } catch {
      // private mode: nothing was kept
    }
  },
};

/** Takes a seat a person may join (POST .../join), keeps its new token in this browser and goes to it. */
export async function takeSeat(table: string, seat: number): Promise<void> {
  const r = await api.join(table, seat);
  tokens.set(r.table, r.seat, r.token);
  location.hash = `#/play/${encodeURIComponent(r.table)}/${r.seat}`;
}

/**
 * An invitation link's token: the seat is re-keyed with it (POST .../join), so that whoever sent
 * the link, the table's creator for one, no longer opens the seat. A finished table or a resigned
 * seat keeps the link's token. A browser that holds another token for the seat (it opened the
 * link before) keeps that one. When the re-key is refused (the link was used elsewhere) the link's
 * token stays and the table screen says what the server says.
 */
export async function claimSeat(table: string, seat: number, given: string): Promise<string> {
  // This browser re-keyed the seat before (the same link opened again) or took it another way.
  const held = tokens.get(table, seat);
  if (held !== null && held !== given) return held;
  let token = given;
  try {
    const t = await api.table(table);
    if (t.status === "playing" && t.seats[seat]?.status !== "resigned") token = (await api.join(table, seat, given)).token;
  } catch {
    // refused or unreachable: the table screen shows the server's answer
  }
  tokens.set(table, seat, token);
  return token;
}

/** The link that plays a seat (the token rides in the fragment, which browsers never send to a server). */
export function seatLink(table: string, seat: number, token: string): string {
  return `${location.origin}${location.pathname}#/play/${encodeURIComponent(table)}/${seat}?token=${encodeURIComponent(token)}`;
}
