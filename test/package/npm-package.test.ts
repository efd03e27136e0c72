import { spawn } from "node:child_process";
import { copyFileSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { repoRoot } from "../scripts/run-script.ts";
import { run } from "./run.ts";

// The npm package from a user's side: build and pack it, install the tarball into an empty folder
// (no checkout, no tsx), then use it as a library and as the `cardgym` command.
describe("the npm package", () => {
  const dir = mkdtempSync(join(tmpdir(), "cardgym-npm-"));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it("packs, installs into an empty folder, and runs the Node example and the cardgym bin", () => {
    const built = run(process.execPath, ["--import", "tsx", "scripts/build/npm-package.ts", "--pack"], { cwd: repoRoot });
    const tarball = /packed (build\/cardgym-[^\s]+\.tgz)/.exec(built)?.[1];
    expect(tarball, built).toBeDefined();
    writeFileSync(join(dir, "package.json"), JSON.stringify({ name: "user-game", private: true, type: "module" }));
    // ONNXRUNTIME_NODE_INSTALL=skip: onnxruntime-node's install script would try to download GPU
    // binaries on npm versions that run install scripts (docs/api.md says so to users too).
    run("npm", ["install", "--no-audit", "--no-fund", join(repoRoot, tarball!)], { cwd: dir, env: { ...process.env, ONNXRUNTIME_NODE_INSTALL: "skip" } });
    const installed = JSON.parse(readFileSync(join(dir, "node_modules", "cardgym", "package.json"), "utf8")) as { exports: Record<string, unknown> };
    expect(Object.keys(installed.exports)).toEqual([".", "./engine", "./agents", "./server", "./package.json"]);

    // The example game loop: a scripted seat against the shipped ONNX policy, no server.
    copyFileSync(join(repoRoot, "scripts", "examples", "game-loop.mjs"), join(dir, "game-loop.mjs"));
    const env = { ...process.env, NODE_PATH: "" };
    const game = run(process.execPath, ["game-loop.mjs", "--seed", "2"], { cwd: dir, env });
    expect(game).toMatch(/game over after \d+ decisions/);
    expect(game).toMatch(/final state hash [0-9a-f]{16}/);
    // Deterministic: the same seed gives the same game.
    expect(run(process.execPath, ["game-loop.mjs", "--seed", "2"], { cwd: dir, env })).toBe(game);

    // Types resolve for a TypeScript user: the declarations of every entry point exist.
    for (const entry of ["env/api.d.ts", "engine/index.d.ts", "agents/index.d.ts", "env/server/index.d.ts"]) {
      expect(readFileSync(join(dir, "node_modules", "cardgym", entry), "utf8").length).toBeGreaterThan(0);
    }

    const play = run("npx", ["--no-install", "cardgym", "play", "dcg", "--seed", "1"], { cwd: dir, env });
    expect(play).toMatch(/final state hash [0-9a-f]{16}/);
    // The same game as the checkout's `npm run play`: the package runs the same engine.
    const fromSource = run(process.execPath, ["--import", "tsx", "scripts/play.ts", "dcg", "--seed", "1"], { cwd: repoRoot });
    expect(play.match(/final state hash ([0-9a-f]{16})/)?.[1]).toBe(fromSource.match(/final state hash ([0-9a-f]{16})/)?.[1]);

    // And a bad command is one line and a usage, not a stack trace.
    expect(() => run("npx", ["--no-install", "cardgym", "nope"], { cwd: dir, env })).toThrow(/unknown command "nope"/);
  });

  it("serves from the installed package: sessions stepped on its session workers with an ONNX seat, and the web client", async () => {
    const bin = join(dir, "node_modules", "cardgym", "scripts", "cardgym.js");
    const server = spawn(process.execPath, [bin, "serve", "--port", "0", "--quiet", "--workers", "1"], { cwd: dir, stdio: ["pipe", "pipe", "pipe"] });
    try {
      const url = await new Promise<string>((resolve, reject) => {
        let out = "";
        const timer = setTimeout(() => reject(new Error(`no URL within 60 s: ${out}`)), 60_000);
        server.stdout.on("data", (chunk: Buffer) => {
          out += chunk.toString();
          const m = /at (http:\/\/\S+)/.exec(out);
          if (m) {
            clearTimeout(timer);
            resolve(m[1]!);
          }
        });
        server.stderr.on("data", (chunk: Buffer) => (out += chunk.toString()));
        server.on("exit", (code) => reject(new Error(`server exited with ${code}: ${out}`)));
      });
      const json = { "content-type": "application/json", accept: "application/json" };
      const created = (await (
        await fetch(`${url}/v1/sessions`, {
          method: "POST",
          headers: json,
          body: JSON.stringify({ game: "dcg", seats: ["learner", "onnx:builtin/dcg-ppo-v1"], numEnvs: 2, seed: 1 }),
        })
      ).json()) as { session: string };
      expect(created.session).toEqual(expect.any(String));
      const reset = await fetch(`${url}/v1/sessions/${created.session}/reset`, { method: "POST", headers: json, body: "{}" });
      expect(reset.status).toBe(200);
      const page = await fetch(`${url}/`);
      expect(page.status).toBe(200);
      expect(await page.text()).toMatch(/<html/i);
      expect((await fetch(`${url}/app.js`)).status).toBe(200);
      // The shipped vocabulary card set is in the installed package's card-set directory.
      const vocabulary = await fetch(`${url}/v1/sessions`, {
        method: "POST",
        headers: json,
        body: JSON.stringify({ game: "dcg", config: { cardSetFile: "vocabulary.json", books: ["mimicry", "wardens"] }, numEnvs: 1, seed: 1 }),
      });
      expect(vocabulary.status, (await vocabulary.clone().text()).slice(0, 300)).toBe(201);
    } finally {
      server.kill("SIGTERM");
    }
  });
});
