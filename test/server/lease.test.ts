import { spawn } from "node:child_process";
import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { request } from "node:http";
import { connect, type Socket } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { listenForLeases, type Schedule } from "../../env/server/lease.ts";
import { hangGuard, waitUntil } from "../fixtures/hang-guard.ts";

/** A clock the test advances by hand: `due()` lists what is scheduled, `fire()` runs it. */
function manualClock() {
  const pending = new Map<number, { fn: () => void; ms: number }>();
  let next = 0;
  const schedule: Schedule = (fn, ms) => {
    const id = next++;
    pending.set(id, { fn, ms });
    return () => pending.delete(id);
  };
  return {
    schedule,
    due: () => [...pending.values()].map((p) => p.ms),
    fire: () => {
      const calls = [...pending.values()];
      pending.clear();
      for (const call of calls) call.fn();
    },
  };
}

/** Connects to a lease socket and resolves with the socket and its greeting (null: closed without one). */
function takeLease(path: string): Promise<{ socket: Socket; hello: Record<string, unknown> | null }> {
  return new Promise((resolve, reject) => {
    const socket = connect({ path });
    let text = "";
    socket.on("data", (chunk: Buffer) => {
      text += chunk.toString();
      if (text.includes("\n")) resolve({ socket, hello: JSON.parse(text.slice(0, text.indexOf("\n"))) as Record<string, unknown> });
    });
    socket.on("close", () => resolve({ socket, hello: null }));
    socket.on("error", (e) => (text === "" ? reject(e) : undefined));
  });
}

function healthStatus(socketPath: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const req = request({ socketPath, path: "/healthz" }, (res) => {
      res.resume();
      resolve(res.statusCode ?? 0);
    });
    req.on("error", reject);
    req.end();
  });
}

const dirs: string[] = [];
function tempDir(): string {
  const dir = mkdtempSync(join(tmpdir(), "cg-lease-"));
  dirs.push(dir);
  return dir;
}
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

describe("lease listener", () => {
  it("greets every lease, counts them, and goes idle only after the last one closed and the grace ran out", async () => {
    const clock = manualClock();
    const path = join(tempDir(), "lease.sock");
    let idle = 0;
    const leases = await listenForLeases({
      path,
      hello: { build: "b1", pid: 7 },
      graceMs: 500,
      firstLeaseMs: 60_000,
      onIdle: () => idle++,
      schedule: clock.schedule,
    });
    try {
      expect(clock.due()).toEqual([60_000]); // waiting for the first lease
      const a = await takeLease(path);
      const b = await takeLease(path);
      expect(a.hello).toEqual({ build: "b1", pid: 7 });
      expect(b.hello).toEqual({ build: "b1", pid: 7 });
      expect(leases.held()).toBe(2);
      expect(clock.due()).toEqual([]); // a lease cancels the wait
      a.socket.destroy();
      await waitUntil(() => leases.held() === 1, "the first lease to be released");
      expect(clock.due()).toEqual([]); // one lease still held: no countdown
      b.socket.destroy();
      await waitUntil(() => leases.held() === 0, "the second lease to be released");
      expect(clock.due()).toEqual([500]);
      // A lease taken during the grace cancels it.
      const c = await takeLease(path);
      expect(clock.due()).toEqual([]);
      c.socket.destroy();
      await waitUntil(() => clock.due().length === 1, "the grace to start again");
      expect(idle).toBe(0);
      clock.fire();
      expect(idle).toBe(1);
      // Once idle, the listener is gone: nobody is greeted by a server on its way out.
      await waitUntil(() => !existsSync(path), "the lease socket to be removed");
      await expect(takeLease(path)).rejects.toThrow();
    } finally {
      await leases.close();
    }
  });

  it("goes idle if the first lease never comes", async () => {
    const clock = manualClock();
    const path = join(tempDir(), "lease.sock");
    let idle = 0;
    const leases = await listenForLeases({ path, hello: {}, graceMs: 10, firstLeaseMs: 30_000, onIdle: () => idle++, schedule: clock.schedule });
    try {
      expect(clock.due()).toEqual([30_000]);
      clock.fire();
      expect(idle).toBe(1);
    } finally {
      await leases.close();
    }
  });

  it("refuses leases beyond its bound without a greeting", async () => {
    const clock = manualClock();
    const path = join(tempDir(), "lease.sock");
    const leases = await listenForLeases({
      path,
      hello: { ok: 1 },
      graceMs: 10,
      firstLeaseMs: 30_000,
      onIdle: () => undefined,
      maxLeases: 1,
      schedule: clock.schedule,
    });
    try {
      const first = await takeLease(path);
      expect(first.hello).toEqual({ ok: 1 });
      const second = await takeLease(path);
      expect(second.hello).toBeNull();
      expect(leases.held()).toBe(1);
      first.socket.destroy();
    } finally {
      await leases.close();
    }
  });
});

describe("npm start -- --lease-socket PATH", () => {
  it(
    "greets with its build, pid and URL, serves while a lease is held, and exits once the last lease is gone",
    async () => {
      const dir = tempDir();
      const sock = join(dir, "server.sock");
      const leaseSock = join(dir, "lease.sock");
      const child = spawn(
        process.execPath,
        [
          "--import",
          "tsx",
          "scripts/serve.ts",
          "--socket",
          sock,
          "--lease-socket",
          leaseSock,
          "--lease-grace-ms",
          "0",
          "--build-id",
          "test-build.1",
          "--quiet",
        ],
        { stdio: ["ignore", "ignore", "pipe"] },
      );
      let stderr = "";
      child.stderr.on("data", (c: Buffer) => (stderr += c.toString()));
      const exit = new Promise<number | null>((resolve) => child.on("exit", (code) => resolve(code)));
      try {
        await waitUntil(() => {
          if (child.exitCode !== null) throw new Error(`the server exited: ${stderr}`);
          return existsSync(leaseSock);
        }, "the lease socket to appear");
        const lease = await takeLease(leaseSock);
        expect(lease.hello).toEqual({ cardgym: "lease", build: "test-build.1", pid: child.pid, url: `unix:${sock}` });
        expect(await healthStatus(sock)).toBe(200);
        lease.socket.destroy();
        expect(await exit).toBe(0);
        expect(stderr).toMatch(/no clients left/);
        expect(existsSync(sock)).toBe(false);
        expect(existsSync(leaseSock)).toBe(false);
      } finally {
        if (child.exitCode === null) child.kill("SIGKILL");
      }
    },
    hangGuard(),
  );

  it(
    "refuses a build id that is not a short plain word",
    async () => {
      const dir = tempDir();
      const child = spawn(
        process.execPath,
        ["--import", "tsx", "scripts/serve.ts", "--socket", join(dir, "s.sock"), "--lease-socket", join(dir, "l.sock"), "--build-id", "a b/c"],
        {
          stdio: ["ignore", "ignore", "pipe"],
        },
      );
      let stderr = "";
      child.stderr.on("data", (c: Buffer) => (stderr += c.toString()));
      const code = await new Promise<number | null>((resolve) => child.on("exit", (c) => resolve(c)));
      expect(code).not.toBe(0);
      expect(stderr).toMatch(/--build-id must be/);
      expect(stderr).not.toMatch(/\n\s+at /);
    },
    hangGuard(),
  );
});
