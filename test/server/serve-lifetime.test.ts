import { spawn, type ChildProcess } from "node:child_process";
import { describe, expect, it } from "vitest";

/** Starts `npm start`'s script on a free port and resolves with its URL line. */
function startServer(args: string[]): { child: ChildProcess; url: Promise<string>; exit: Promise<{ code: number | null; stderr: string }> } {
  const child = spawn(process.execPath, ["--import", "tsx", "scripts/serve.ts", "--port", "0", "--host", "127.0.0.1", ...args], {
    stdio: ["pipe", "pipe", "pipe"],
  });
  let stderr = "";
  child.stderr!.on("data", (c: Buffer) => (stderr += c.toString()));
  const url = new Promise<string>((resolve, reject) => {
    let out = "";
    child.stdout!.on("data", (c: Buffer) => {
      out += c.toString();
      const m = /\bat (http:\/\/\S+)/.exec(out);
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
  }, 60_000);

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
  }, 60_000);
});
