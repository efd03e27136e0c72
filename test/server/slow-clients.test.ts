import { describe, expect, it } from "vitest";
import { connect, type Socket } from "node:net";
import type { FastifyInstance } from "fastify";
import { buildApp } from "../../env/server/index.ts";

/**
 * Slow and greedy clients on a real listening server: a body or headers that stall are answered
 * with 408 in the documented error shape within the request timeout + 1 s (Node's own check ran
 * every 30 s, holding such connections for a minute and more), and connections beyond
 * --max-connections are closed at once while the others keep working.
 */
const TIMEOUT = 1000;

async function listen(app: FastifyInstance): Promise<number> {
  await app.listen({ host: "127.0.0.1", port: 0 });
  const addr = app.server.address();
  if (addr === null || typeof addr === "string") throw new Error("no port");
  return addr.port;
}

/** Sends `text` and waits for the connection to end; returns what came back and when. */
function stall(port: number, text: string): Promise<{ reply: string; ms: number }> {
  return new Promise((resolve, reject) => {
    const t0 = performance.now();
    const socket = connect(port, "127.0.0.1", () => socket.write(text));
    let reply = "";
    socket.on("data", (d) => (reply += d.toString()));
    socket.on("close", () => resolve({ reply, ms: performance.now() - t0 }));
    socket.on("error", reject);
    setTimeout(() => socket.destroy(), 10_000).unref();
  });
}

function expect408(r: { reply: string; ms: number }): void {
  expect(r.reply.startsWith("HTTP/1.1 408"), r.reply).toBe(true);
  const body = JSON.parse(r.reply.slice(r.reply.indexOf("\r\n\r\n") + 4));
  expect(body.error.code).toBe("request_timeout");
  expect(body.error.message).toContain(`${TIMEOUT} ms`);
  expect(r.ms).toBeGreaterThan(TIMEOUT - 100);
  expect(r.ms).toBeLessThan(TIMEOUT + 1000);
}

describe("slow clients", () => {
  it("a stalled body and stalled headers get 408 {error: {code, message}} within the timeout + 1 s", async () => {
    const app = buildApp({ requestTimeoutMs: TIMEOUT, workers: 1 });
    const port = await listen(app);
    try {
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

  it("closes connections beyond --max-connections at once; the others keep working", async () => {
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
      await new Promise((r) => setTimeout(r, 50));
      const extra = await stall(port, "GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n");
      expect(extra.reply).toBe("");
      expect(extra.ms).toBeLessThan(1000);
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
