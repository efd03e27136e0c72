/**
 * Durability: a server killed with SIGKILL mid-game and restarted on the same data dir brings the
 * table back at its last acknowledged decision; the people reconnect with the same tokens and the
 * game ends with the same final state hash as an uninterrupted run.
 */
import { spawn, type ChildProcess } from "node:child_process";
import { rmSync } from "node:fs";
import { afterEach, describe, expect, it } from "vitest";
import { Client, http, startLive, tempDir } from "./helpers.ts";

const children: ChildProcess[] = [];
const clients: Client[] = [];
afterEach(() => {
  for (const c of clients.splice(0)) c.close();
  for (const p of children.splice(0)) if (p.exitCode === null) p.kill("SIGKILL");
});

/** Starts `npm start` (scripts/serve.ts) on a free port; resolves with its base URL. */
function serve(dataDir: string): Promise<{ proc: ChildProcess; base: string }> {
  const proc = spawn(process.execPath, ["--import", "tsx", "scripts/serve.ts", "--port", "0", "--data-dir", dataDir, "--quiet"], {
    stdio: ["ignore", "pipe", "pipe"],
  });
  children.push(proc);
  return new Promise((resolve, reject) => {
    let out = "";
    proc.stdout!.on("data", (d) => {
      out += String(d);
      const m = /at (http:\/\/[0-9.]+:[0-9]+)/.exec(out);
      if (m) resolve({ proc, base: m[1]! });
    });
    proc.on("exit", (code) => reject(new Error(`server exited early (${code}): ${out}`)));
  });
}

const pick = (f: { seq: number; seat: number; decisions: { id: number }[] }) => f.decisions[(f.seq * 7919 + f.seat * 31) % f.decisions.length]!.id;

/** Plays from the clients' current frames until the game ends or `stopAt` decisions are acknowledged. */
async function play(cs: Client[], stopAt = Infinity): Promise<{ seq: number; finished: boolean }> {
  let seq = -1;
  for (;;) {
    const frames = await Promise.all(cs.map((c) => c.frame((f) => f.seq > seq)));
    const f0 = frames[0]!;
    if (f0.status === "finished") return { seq: f0.seq, finished: true };
    if (f0.seq >= stopAt) return { seq: f0.seq, finished: false };
    seq = f0.seq;
    const mine = frames.find((f) => f.decisions.length > 0)!;
    const c = cs[mine.seat]!;
    c.send({ type: "answer", seq, decisionId: pick(mine) });
    await c.next((m) => m.type === "ack" && m.seq === seq + 1);
  }
}

const body = { game: "sevens", seats: ["human", "human", "human"], seed: 77 };
const wsOf = (base: string) => base.replace(/^http/, "ws");
const seatUrl = (base: string, table: string, seat: number, token: string) => `${wsOf(base)}/v1/tables/${table}/seats/${seat}/ws?token=${token}`;

describe("live tables survive kill -9", () => {
  it("restart on the same data dir: same tokens, last acknowledged decision, same final hash as an uninterrupted run", async () => {
    // The uninterrupted run, in process.
    const ref = await startLive();
    const made0 = (await http(ref.base, "POST", "/v1/tables", body)).body;
    const r = [0, 1, 2].map((s) => Client.open(seatUrl(ref.base, made0.table, s, made0.tokens[String(s)])));
    const refClients = await Promise.all(r);
    clients.push(...refClients);
    expect((await play(refClients)).finished).toBe(true);
    const want = (await http(ref.base, "GET", `/v1/tables/${made0.table}/record`)).body.finalHash;
    await ref.close();

    const dataDir = tempDir();
    try {
      let server = await serve(dataDir);
      const made = (await http(server.base, "POST", "/v1/tables", body)).body;
      let cs = await Promise.all([0, 1, 2].map((s) => Client.open(seatUrl(server.base, made.table, s, made.tokens[String(s)]))));
      clients.push(...cs);
      const mid = await play(cs, 12);
      expect(mid.finished).toBe(false);
      server.proc.kill("SIGKILL");
      await new Promise((res) => server.proc.once("exit", res));

      server = await serve(dataDir);
      const summary = (await http(server.base, "GET", `/v1/tables/${made.table}`)).body;
      expect(summary.seq).toBe(mid.seq);
      expect(summary.status).toBe("playing");
      // Every acknowledged line is there, and its head says so: no integrity finding.
      expect(summary.integrity).toBeUndefined();
      cs = await Promise.all([0, 1, 2].map((s) => Client.open(seatUrl(server.base, made.table, s, made.tokens[String(s)]))));
      clients.push(...cs);
      const end = await play(cs);
      expect(end.finished).toBe(true);
      const rec = (await http(server.base, "GET", `/v1/tables/${made.table}/record`)).body;
      expect(rec.finalHash).toBe(want);
      server.proc.kill("SIGTERM");
    } finally {
      rmSync(dataDir, { recursive: true, force: true });
    }
  });
});
