import { spawn, spawnSync } from "node:child_process";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { isLoopback, readToken } from "../../scripts/serve-config.ts";
import { hangGuard } from "../fixtures/hang-guard.ts";
import { NPM_START_ARGS } from "../fixtures/npm-start.ts";

/** Runs `npm start`'s script (its bundle, as npm start runs it) with `args` and `env` until it has printed its whole banner; returns its stdout so far, then stops it. */
async function startAndStop(args: string[], env: Record<string, string>, probe: (base: string) => Promise<void>): Promise<string> {
  const child = spawn(process.execPath, [...NPM_START_ARGS, "--port", "0", "--workers", "1", ...args], {
    stdio: ["ignore", "pipe", "pipe"],
    env: { ...process.env, CARDGYM_TOKEN: "", HOST: "", ...env },
  });
  let out = "";
  let err = "";
  child.stderr.on("data", (c: Buffer) => (err += c.toString()));
  const exited = new Promise<void>((resolve) => child.on("exit", () => resolve()));
  try {
    const base = await new Promise<string>((resolve, reject) => {
      child.stdout.on("data", (c: Buffer) => {
        out += c.toString();
        const m = /\bat ((?:http:\/\/|unix:)\S+)/.exec(out);
        // The banner ends with its "see docs/protocol.md" line: by then any warning is printed too.
        if (m && /see docs\/protocol\.md\n/.test(out.slice(m.index))) resolve(m[1]!);
      });
      child.on("exit", (code) => reject(new Error(`server exited (${code}): ${err}`)));
    });
    await probe(base);
    return out;
  } finally {
    child.kill("SIGTERM");
    await exited;
  }
}

describe("npm start: where it binds and how it takes a token", () => {
  it("ignores the generic HOST variable (CARDGYM_HOST sets the address)", async () => {
    const out = await startAndStop([], { HOST: "0.0.0.0" }, async (base) => {
      expect(base).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    });
    expect(out).not.toContain("warning");
  });

  it("reads the token from --token-file; 127.0.0.2 counts as loopback (no warning)", async () => {
    const dir = mkdtempSync(join(tmpdir(), "cardgym-token-"));
    const file = join(dir, "token");
    writeFileSync(file, "s3cret-token-value\n");
    try {
      const out = await startAndStop(["--token-file", file], { CARDGYM_HOST: "127.0.0.2" }, async (base) => {
        expect(base).toMatch(/^http:\/\/127\.0\.0\.2:\d+$/);
        expect((await fetch(`${base}/v1/games`)).status).toBe(401);
        expect((await fetch(`${base}/v1/games`, { headers: { authorization: "Bearer s3cret-token-value" } })).status).toBe(200);
      });
      expect(out).toContain("bearer token required");
      expect(out).not.toContain("warning");
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it("on a Unix socket with a token, the banner's Python line says where the client takes the token", async () => {
    const dir = mkdtempSync(join(tmpdir(), "cardgym-token-"));
    const file = join(dir, "token");
    writeFileSync(file, "s3cret-token-value\n");
    try {
      const out = await startAndStop(["--token-file", file, "--socket", join(dir, "s.sock"), "--no-fast-path"], {}, async (base) => {
        expect(base).toBe(`unix:${join(dir, "s.sock")}`);
      });
      expect(out).toMatch(/cardgym\.make\("dcg", url="unix:\S+"\)\s+# with CARDGYM_TOKEN set to the token;/);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it("a --model-dir or --card-set-dir that is not a folder stops the start with one line", () => {
    for (const [flag, dir, says] of [
      ["--model-dir", "/nonexistent/models", "no such directory"],
      ["--card-set-dir", "package.json", "not a directory"],
    ]) {
      // (The hang guard: before the check, such a server started and served until stopped.)
      const r = spawnSync(process.execPath, [...NPM_START_ARGS, "--port", "0", flag!, dir!], {
        encoding: "utf8",
        timeout: hangGuard(60_000),
      });
      expect(r.status).toBe(2);
      expect(r.stdout).toBe("");
      expect(r.stderr.trim()).toBe(`error: ${flag} ${dir}: ${says}`);
    }
  });

  it("--help says that --token shows in ps and names the other ways", () => {
    const r = spawnSync(process.execPath, [...NPM_START_ARGS, "--help"], { encoding: "utf8" });
    expect(r.status).toBe(0);
    expect(r.stdout).toMatch(/--token T is visible to every user of this machine in `ps`/);
    expect(r.stdout).toContain("--token-file");
    expect(r.stdout).toContain("CARDGYM_TOKEN");
  });

  it("loopback is 127.0.0.0/8, ::1 and localhost; a token comes one way only", () => {
    for (const h of ["127.0.0.1", "127.0.0.2", "127.255.255.254", "localhost", "::1", "[::1]", "::ffff:127.0.0.5"]) expect(isLoopback(h), h).toBe(true);
    for (const h of ["0.0.0.0", "10.0.0.1", "128.0.0.1", "::", "127.0.0.256", "example.com", "1270.0.0.1"]) expect(isLoopback(h), h).toBe(false);
    expect(readToken(undefined, undefined, "from-the-environment")).toBe("from-the-environment");
    expect(readToken(undefined, undefined, "")).toBe(null);
    expect(() => readToken("a-token-flag", undefined, "from-the-environment")).toThrow(/one way/);
    expect(() => readToken("short", undefined, undefined)).toThrow(/at least 8/);
    expect(() => readToken(undefined, "/nonexistent/token", undefined)).toThrow(/cannot read it \(ENOENT\)/);
  });

  it("refuses a token no client could send in an Authorization header: binary, control characters, or huge", () => {
    const dir = mkdtempSync(join(tmpdir(), "cardgym-token-"));
    const file = join(dir, "token");
    for (const bad of [Buffer.from([0x9f, 0x00, 0x41, 0xff, 0xfe, 0x80, 0x01, 0x02, 0x03]), Buffer.from("a".repeat(100_000))]) {
      writeFileSync(file, bad);
      expect(() => readToken(undefined, file, undefined)).toThrow(/at most 1024 printable ASCII characters/);
    }
    expect(() => readToken("tab\tinside-token", undefined, undefined)).toThrow(/printable ASCII/);
    writeFileSync(file, "good-token-12345\r\nsecond line\n");
    expect(readToken(undefined, file, undefined)).toBe("good-token-12345");
    rmSync(dir, { recursive: true, force: true });
  });
});
