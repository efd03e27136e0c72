import { spawn, spawnSync, type ChildProcess } from "node:child_process";
import { existsSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { request } from "node:http";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { hangGuard } from "../fixtures/hang-guard.ts";
import { NPM_START_ARGS } from "../fixtures/npm-start.ts";

/** Starts `npm start`'s script on a free port and resolves with its URL line. */
function startServer(args: string[]): { child: ChildProcess; url: Promise<string>; exit: Promise<{ code: number | null; stderr: string }> } {
  const child = spawn(process.execPath, [...NPM_START_ARGS, "--port", "0", "--host", "127.0.0.1", ...args], {
    stdio: ["pipe", "pipe", "pipe"],
  });
  let stderr = "";
  child.stderr!.on("data", (c: Buffer) => (stderr += c.toString()));
  const url = new Promise<string>((resolve, reject) => {
    let out = "";
    child.stdout!.on("data", (c: Buffer) => {
      out += c.toString();
      const m = /\bat ((?:http:\/\/|unix:)\S+)/.exec(out);
      if (m) resolve(m[1]!);
    });
    child.on("exit", (code) => reject(new Error(`server exited (${code}) before printing its URL: ${stderr}`)));
  });
  const exit = new Promise<{ code: number | null; stderr: string }>((resolve) => child.on("exit", (code) => resolve({ code, stderr })));
  return { child, url, exit };
}

describe("npm start -- --exit-on-stdin-eof", () => {
  it("serves until its stdin closes, then shuts down gracefully with exit code 0", async () => {
    const { child, url, exit } = startServer(["--exit-on-stdin-eof"]);
    try {
      const base = await url;
      const res = await fetch(`${base}/healthz`);
      expect(res.status).toBe(200);
      // Still serving while the pipe is open (input is ignored).
      child.stdin!.write("anything\n");
      expect((await fetch(`${base}/healthz`)).status).toBe(200);
      child.stdin!.end();
      const { code, stderr } = await exit;
      expect(code).toBe(0);
      expect(stderr).toMatch(/stdin closed/);
    } finally {
      if (child.exitCode === null) child.kill("SIGKILL");
    }
  });

  it("without the flag, a closed stdin does not stop the server", async () => {
    const { child, url, exit } = startServer([]);
    try {
      const base = await url;
      child.stdin!.end();
      await new Promise((r) => setTimeout(r, 300));
      expect((await fetch(`${base}/healthz`)).status).toBe(200);
      child.kill("SIGTERM");
      expect((await exit).code).toBe(0);
    } finally {
      if (child.exitCode === null) child.kill("SIGKILL");
    }
  });
});

/** GET over a Unix domain socket. */
function getUnix(socketPath: string, path: string): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const req = request({ socketPath, path, method: "GET", headers: { accept: "application/json" } }, (res) => {
      let body = "";
      res.on("data", (c: Buffer) => (body += c.toString()));
      res.on("end", () => resolve({ status: res.statusCode ?? 0, body }));
    });
    req.on("error", reject);
    req.end();
  });
}

function serveOnce(args: string[]): { status: number | null; stderr: string } {
  const r = spawnSync(process.execPath, [...NPM_START_ARGS, ...args], { encoding: "utf8", timeout: hangGuard() });
  return { status: r.status, stderr: r.stderr };
}

describe("npm start -- --socket PATH", () => {
  it("serves on a Unix socket, refuses a second server on it, and removes it on exit", async () => {
    const dir = mkdtempSync(join(tmpdir(), "cardgym-test-"));
    const sock = join(dir, "s.sock");
    const { child, url, exit } = startServer(["--socket", sock]);
    try {
      expect(await url).toBe(`unix:${sock}`);
      const r = await getUnix(sock, "/healthz");
      expect(r.status).toBe(200);
      expect(JSON.parse(r.body).ok).toBe(true);
      const second = serveOnce(["--socket", sock]);
      expect(second.status).not.toBe(0);
      expect(second.stderr).toMatch(/another server is listening on it/);
      expect(second.stderr).not.toMatch(/\n\s+at /); // a message, not a stack trace
      child.kill("SIGTERM");
      expect((await exit).code).toBe(0);
      expect(existsSync(sock)).toBe(false);
    } finally {
      if (child.exitCode === null) child.kill("SIGKILL");
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it("replaces a stale socket file left by a killed server", async () => {
    const dir = mkdtempSync(join(tmpdir(), "cardgym-test-"));
    const sock = join(dir, "s.sock");
    const first = startServer(["--socket", sock]);
    try {
      await first.url;
      first.child.kill("SIGKILL"); // no cleanup: the socket file stays behind
      await first.exit;
      expect(existsSync(sock)).toBe(true);
      const { child, url } = startServer(["--socket", sock]);
      try {
        await url;
        expect((await getUnix(sock, "/healthz")).status).toBe(200);
      } finally {
        child.kill("SIGKILL");
      }
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it("refuses paths that are not sockets, missing folders and over-long paths with a clear message", () => {
    const dir = mkdtempSync(join(tmpdir(), "cardgym-test-"));
    try {
      const file = join(dir, "plain.txt");
      writeFileSync(file, "keep me");
      const notSocket = serveOnce(["--socket", file]);
      expect(notSocket.status).not.toBe(0);
      expect(notSocket.stderr).toMatch(/exists and is not a socket/);
      expect(existsSync(file)).toBe(true); // never deletes a file that is not a socket
      const noFolder = serveOnce(["--socket", join(dir, "missing", "s.sock")]);
      expect(noFolder.stderr).toMatch(/does not exist/);
      const tooLong = serveOnce(["--socket", join(dir, "x".repeat(120) + ".sock")]);
      expect(tooLong.stderr).toMatch(/too long for a Unix socket/);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
