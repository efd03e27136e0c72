import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import WebSocket from "ws";
import { afterAll, afterEach, beforeAll } from "vitest";
import type { FastifyInstance } from "fastify";
import { hangGuard } from "../fixtures/hang-guard.ts";
import { buildApp, type ServerOptions } from "../../env/server/index.ts";
import { registry } from "../../engine/games.ts";
import { adapters } from "../../env/games/index.ts";
import { TableStore, type TableStoreOptions } from "../../env/live/store.ts";

export interface Live {
  app: FastifyInstance;
  base: string;
  ws: string;
  dataDir: string;
  close(keepData?: boolean): Promise<void>;
}

export function tempDir(): string {
  return mkdtempSync(join(tmpdir(), "cardgym-live-"));
}

/**
 * Table stores without a server, each on a fresh data dir, closed and removed after each test of
 * the file (call at the file's top level).
 */
export function storesPerTest(): (options?: Partial<TableStoreOptions>) => TableStore {
  const made: { store: TableStore; dir: string }[] = [];
  afterEach(() => {
    for (const { store, dir } of made.splice(0)) {
      store.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });
  return (options = {}) => {
    const dir = tempDir();
    const store = new TableStore({ dataDir: dir, registry, adapters, modelRoot: dir, ...options });
    made.push({ store, dir });
    return store;
  };
}

/** A real server on a loopback port with a fresh (or given) data dir. */
export async function startLive(options: ServerOptions = {}, dataDir = tempDir()): Promise<Live> {
  const app = buildApp({ dataDir, ...options });
  const address = await app.listen({ host: "127.0.0.1", port: 0 });
  return {
    app,
    base: address,
    ws: address.replace(/^http/, "ws"),
    dataDir,
    async close(keepData = false) {
      await app.close();
      if (!keepData) rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

/**
 * One server for a whole test file, started before its tests and closed after them: `server.live`
 * (inside a test) and `server.create(body)` (POST /v1/tables).
 */
export function liveForFile(options: ServerOptions = {}): { readonly live: Live; create(body: Record<string, unknown>): ReturnType<typeof http> } {
  let live: Live | undefined;
  beforeAll(async () => {
    live = await startLive(options);
  });
  afterAll(async () => {
    await live?.close();
  });
  const get = (): Live => {
    if (!live) throw new Error("the live server is not running (use server.live inside a test)");
    return live;
  };
  return {
    get live() {
      return get();
    },
    create: (body) => http(get().base, "POST", "/v1/tables", body),
  };
}

/** `open(url)`: a Client on `url`, closed after each test of the file that calls this. */
export function clientsForFile(): (url: string) => Promise<Client> {
  const clients: Client[] = [];
  afterEach(() => {
    for (const c of clients.splice(0)) c.close();
  });
  return async (url) => {
    const c = await Client.open(url);
    clients.push(c);
    return c;
  };
}

export async function http(
  base: string,
  method: string,
  path: string,
  body?: unknown,
  headers: Record<string, string> = {},
): Promise<{ status: number; body: any }> {
  const res = await fetch(base + path, {
    method,
    headers: { accept: "application/json", ...(body === undefined ? {} : { "content-type": "application/json" }), ...headers },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  const text = await res.text();
  return { status: res.status, body: text ? JSON.parse(text) : null };
}

/** A WebSocket client that queues every message, with awaitable matching. */
export class Client {
  readonly messages: any[] = [];
  readonly raw: string[] = [];
  private waiters: { pred: (m: any) => boolean; resolve: (m: any) => void; reject: (e: Error) => void; from: number }[] = [];
  private cursor = 0;
  closed: { code: number; reason: string } | null = null;
  readonly socket: WebSocket;

  private constructor(url: string) {
    this.socket = new WebSocket(url);
    this.socket.on("message", (data) => {
      const text = data.toString();
      this.raw.push(text);
      const m = JSON.parse(text);
      this.messages.push(m);
      this.check();
    });
    this.socket.on("close", (code, reason) => {
      this.closed = { code, reason: reason.toString() };
      for (const w of this.waiters) w.reject(new Error(`socket closed (${code} ${reason.toString()}) while waiting`));
      this.waiters = [];
    });
  }

  static async open(url: string): Promise<Client> {
    const c = new Client(url);
    await new Promise<void>((resolve, reject) => {
      c.socket.once("open", () => resolve());
      c.socket.once("error", reject);
    });
    return c;
  }

  private check(): void {
    for (const w of [...this.waiters]) {
      for (let i = w.from; i < this.messages.length; i++) {
        if (w.pred(this.messages[i])) {
          this.waiters = this.waiters.filter((x) => x !== w);
          this.cursor = Math.max(this.cursor, i + 1);
          w.resolve(this.messages[i]);
          break;
        }
      }
    }
  }

  /** The next message (after the last one matched) satisfying pred; `timeoutMs` is only a hang guard. */
  next(pred: (m: any) => boolean = () => true, timeoutMs = hangGuard()): Promise<any> {
    return new Promise((resolve, reject) => {
      const w = { pred, resolve, reject, from: this.cursor };
      this.waiters.push(w);
      const t = setTimeout(() => {
        this.waiters = this.waiters.filter((x) => x !== w);
        reject(new Error(`timed out waiting for a message; last: ${JSON.stringify(this.messages.at(-1))?.slice(0, 300)}`));
      }, timeoutMs);
      const done = w.resolve;
      w.resolve = (m) => {
        clearTimeout(t);
        done(m);
      };
      this.check();
    });
  }

  /**
   * The latest frame received so far if it satisfies pred, else the next one that does. The
   * timeout only guards against a hang: waiting for a whole game to finish takes a few fsyncs per
   * decision, so it is generous.
   */
  async frame(pred: (f: any) => boolean = () => true, timeoutMs = 60_000): Promise<any> {
    const isFrame = (m: any) => m.type === "frame" || m.type === "spectate";
    for (let i = this.messages.length - 1; i >= 0; i--) {
      const m = this.messages[i];
      if (!isFrame(m)) continue;
      if (pred(m)) {
        this.cursor = Math.max(this.cursor, i + 1);
        return m;
      }
      break;
    }
    return this.next((m) => isFrame(m) && pred(m), timeoutMs);
  }

  send(msg: unknown): void {
    this.socket.send(JSON.stringify(msg));
  }

  close(): void {
    this.socket.close();
  }
}
