/**
 * Leases on a server shared by several client processes of one user (the Python package's
 * machine-shared embedded server; docs/protocol.md, Transport, Leases; docs/python.md).
 *
 * A lease is a connection to a Unix socket beside the server's own: the server greets each one
 * with a line of JSON (`hello`: which build it runs, its pid and URL) and then only counts it.
 * A client keeps its connection open while it uses the server; the OS closes it however the
 * client ends (close(), exit, SIGKILL), so a dead client can never hold a lease. When the last
 * lease closes, and nobody takes a new one within `graceMs`, the listener closes and `onIdle`
 * runs (the server shuts down). Before the first lease the wait is `firstLeaseMs` (the process
 * that started the server connects right after it listens, unless it died meanwhile).
 */
import { createServer, type Server, type Socket } from "node:net";

/** Cancels a scheduled call. */
export type Cancel = () => void;
/** Schedules `fn` after `ms` (setTimeout by default; tests inject their own clock). */
export type Schedule = (fn: () => void, ms: number) => Cancel;

export interface LeaseOptions {
  /** The Unix socket path to listen on (its folder must exist and should be private to the user). */
  readonly path: string;
  /** The greeting each lease gets, as one line of JSON. */
  readonly hello: Readonly<Record<string, unknown>>;
  /** How long the server stays up after the last lease closes. */
  readonly graceMs: number;
  /** How long it waits for the first lease. */
  readonly firstLeaseMs: number;
  /** Called once, when the wait after the last lease (or for the first) ran out. */
  readonly onIdle: () => void;
  /** At most this many leases at once; more are refused (closed without a greeting). */
  readonly maxLeases?: number;
  readonly schedule?: Schedule;
}

export interface LeaseListener {
  /** Leases held right now. */
  readonly held: () => number;
  /** Stops taking leases and closes the held ones (the server is shutting down for another reason). */
  readonly close: () => Promise<void>;
}

const DEFAULT_MAX_LEASES = 4096;

const realSchedule: Schedule = (fn, ms) => {
  const timer = setTimeout(fn, ms);
  return () => clearTimeout(timer);
};

/** Listens for leases on `o.path`; resolves once listening. */
export async function listenForLeases(o: LeaseOptions): Promise<LeaseListener> {
  const schedule = o.schedule ?? realSchedule;
  const maxLeases = o.maxLeases ?? DEFAULT_MAX_LEASES;
  const greeting = `${JSON.stringify(o.hello)}\n`;
  const leases = new Set<Socket>();
  let cancelIdle: Cancel | null = null;
  let closed = false;

  const server: Server = createServer((socket) => {
    if (closed || leases.size >= maxLeases) {
      socket.destroy();
      return;
    }
    leases.add(socket);
    cancelIdle?.();
    cancelIdle = null;
    // Whatever a client sends is read and dropped: a lease is the open connection, nothing more.
    socket.on("data", () => undefined);
    socket.on("error", () => socket.destroy());
    socket.on("close", () => {
      leases.delete(socket);
      if (leases.size === 0 && !closed) waitForIdle(o.graceMs);
    });
    socket.write(greeting);
  });

  function waitForIdle(ms: number): void {
    cancelIdle?.();
    cancelIdle = schedule(() => {
      cancelIdle = null;
      // Node runs this callback and connection callbacks one at a time: no lease arrived since
      // the last one closed, so nobody is using the server. Closing the listener first means a
      // client that connects from now on is refused rather than greeted by a server on its way out.
      if (leases.size > 0 || closed) return;
      closed = true;
      server.close();
      o.onIdle();
    }, ms);
  }

  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen({ path: o.path }, () => {
      server.off("error", reject);
      resolve();
    });
  });
  waitForIdle(o.firstLeaseMs);

  return {
    held: () => leases.size,
    close: async () => {
      closed = true;
      cancelIdle?.();
      cancelIdle = null;
      for (const socket of leases) socket.destroy();
      if (server.listening) await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
