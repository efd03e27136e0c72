import { describe, expect, it } from "vitest";
import { connect, type Socket } from "node:net";
import type { FastifyInstance } from "fastify";
import { buildApp } from "../../env/server/index.ts";
import { hangGuard, waitUntil } from "../fixtures/hang-guard.ts";

/**
 * Slow and greedy clients on a real listening server: a body or headers that stall are answered
 * with 408 in the documented error shape once the request timeout has passed, and Node is told to
 * check that deadline at least every 250 ms (its own default, 30 s, held such connections for a
 * minute and more); connections beyond --max-connections are closed by the server without an
 * answer while the others keep working.
 */
const TIMEOUT = 1000;

async function listen(app: FastifyInstance): Promise<number> {
  await app.listen({ host: "127.0.0.1", port: 0 });
  const addr = app.server.address();
  if (addr === null || typeof addr === "string") throw new Error("no port");
  return addr.port;
}

interface Stalled {
  readonly reply: string;
  /** How long the connection lasted: a lower bound on when the server ended it. */
  readonly ms: number;
  /** True when the hang guard, not the server, ended the connection. */
  readonly guardFired: boolean;
}

/** Sends `text` and waits for the server to end the connection; returns what came back. */
function stall(port: number, text: string): Promise<Stalled> {
  return new Promise((resolve, reject) => {
    const t0 = performance.now();
    const socket = connect(port, "127.0.0.1", () => socket.write(text));
    let reply = "";
    let guardFired = false;
    socket.on("data", (d) => (reply += d.toString()));
    socket.on("close", () => resolve({ reply, ms: performance.now() - t0, guardFired }));
    socket.on("error", reject);
    setTimeout(() => {
      guardFired = true;
      socket.destroy();
    }, hangGuard()).unref();
  });
}

function expect408(r: Stalled): void {
  expect(r.guardFired, "the server never answered").toBe(false);
  expect(r.reply.startsWith("HTTP/1.1 408"), r.reply).toBe(true);
  const body = JSON.parse(r.reply.slice(r.reply.indexOf("\r\n\r\n") + 4));
  expect(body.error.code).toBe("request_timeout");
  expect(body.error.message).toContain(`${TIMEOUT} ms`);
  // Not cut off before the timeout (a load-proof bound: a slow machine only makes this longer).
  expect(r.ms).toBeGreaterThan(TIMEOUT - 100);
}

describe("slow clients", () => {
  it("a stalled body and stalled headers get 408 {error: {code, message}} after the timeout, checked every 250 ms at most", async () => {
    const app = buildApp({ requestTimeoutMs: TIMEOUT, workers: 1 });
    const port = await listen(app);
    try {
      // Node enforces these deadlines only when its connection check runs: at Node's default
      // interval (30 s) a stalled request held its connection for up to 30 s past the timeout.
      expect(app.server.requestTimeout).toBe(TIMEOUT);
      expect(app.server.headersTimeout).toBe(TIMEOUT);
      expect((app.server as { connectionsCheckingInterval?: number }).connectionsCheckingInterval).toBeLessThanOrEqual(250);
      const [body, headers] = await Promise.all([
        stall(port, 'POST /v1/sessions HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{"game"'),
        stall(port, "GET /healthz HTTP/1.1\r\nHost: x\r\n"),
      ]);
      expect408(body);
      expect408(headers);
    } finally {
      await app.close();
    }
  });

  it("closes connections beyond --max-connections without answering them; the others keep working", async () => {
    const app = buildApp({ maxConnections: 2, workers: 1 });
    const port = await listen(app);
    const open: Socket[] = [];
    try {
      for (let i = 0; i < 2; i++) {
        open.push(
          await new Promise<Socket>((resolve) => {
            const s = connect(port, "127.0.0.1", () => resolve(s));
          }),
        );
      }
      const connections = () => new Promise<number>((resolve, reject) => app.server.getConnections((e, n) => (e ? reject(e) : resolve(n))));
      await waitUntil(async () => (await connections()) === 2, "the server accepting both connections");
      // A complete request: had the server kept this connection, it would have answered 200.
      const extra = await stall(port, "GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n");
      expect(extra.guardFired, "the server kept the extra connection open").toBe(false);
      expect(extra.reply).toBe("");
      const answer = await new Promise<string>((resolve) => {
        open[0]!.once("data", (d) => resolve(d.toString()));
        open[0]!.write("GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n");
      });
      expect(answer.startsWith("HTTP/1.1 200")).toBe(true);
    } finally {
      for (const s of open) s.destroy();
      await app.close();
    }
  });
});
