import { spawn } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { sectionBlocks } from "../docs/markdown.ts";
import { repoRoot } from "../scripts/run-script.ts";
import { run } from "./run.ts";
import { hangGuard } from "../fixtures/hang-guard.ts";

// The npm package from a user's side, exactly as docs/api.md (and the README's "Install without a
// checkout") show it: `npm run build:npm` (scripts/build/npm-package.ts), then a plain
// `npm install ./cardgym-<v>.tgz` in a new folder under a temporary directory, then the docs' examples
// there. npm runs with no inherited npm_* variables (`npm test` would pass on this checkout's
// ignore-scripts) and no ONNXRUNTIME_NODE_INSTALL: a user has neither.
const API_DOC = readFileSync(join(repoRoot, "docs", "api.md"), "utf8");
const README = readFileSync(join(repoRoot, "README.md"), "utf8");

function userEnv(extra: Record<string, string>): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [k, v] of Object.entries(process.env)) if (!/^npm_/i.test(k) && k !== "ONNXRUNTIME_NODE_INSTALL" && k !== "NODE_PATH") env[k] = v;
  return { ...env, ...extra };
}

describe("the npm package", () => {
  const tmp = mkdtempSync(join(tmpdir(), "cardgym-npm-"));
  afterAll(() => rmSync(tmp, { recursive: true, force: true }));
  let dir = "";

  it("installs and runs exactly as docs/api.md and the README say", () => {
    const install = sectionBlocks(API_DOC, "## The npm package").find((b) => b.lang === "sh");
    expect(install?.commands.join("\n")).toMatch(/npm install \.\/cardgym-[\d.]+\.tgz/);
    // The README shows the same install lines as docs/api.md.
    const readmeLines = sectionBlocks(README, "### Install without a checkout")
      .flatMap((b) => b.commands)
      .filter((c) => !/wheel/.test(c));
    expect(readmeLines.length).toBeGreaterThan(0);
    for (const line of readmeLines) expect(install?.commands, `README.md's "${line}" is not in docs/api.md's install block`).toContain(line);

    const out = run("bash", ["-c", ["set -euo pipefail", ...install!.commands, 'echo "::project $PWD"'].join("\n")], {
      cwd: repoRoot,
      env: userEnv({ TMPDIR: tmp }),
      withStderr: true,
    });
    expect(out).not.toMatch(/EBADENGINE|npm error/);
    dir = /::project (\S+)/.exec(out)?.[1] ?? "";
    expect(dir.startsWith(tmp), out).toBe(true);
    // The example game loop the block runs: a scripted seat against the shipped ONNX policy.
    expect(out).toMatch(/game over after \d+ decisions/);
    const hash = /final state hash ([0-9a-f]{16})/.exec(out)?.[1];
    expect(hash, out).toBeDefined();

    // onnxruntime-node is the copy inside the package, without the install script that downloads.
    const ort = JSON.parse(readFileSync(join(dir, "node_modules", "cardgym", "node_modules", "onnxruntime-node", "package.json"), "utf8")) as {
      scripts?: unknown;
    };
    expect(ort.scripts).toBeUndefined();
    expect(existsSync(join(dir, "node_modules", "onnxruntime-node"))).toBe(false);

    // The docs' code example, saved as they say, runs against the installed package.
    const example = sectionBlocks(API_DOC, "### What is public").find((b) => b.lang === "js");
    expect(example?.text).toMatch(/from "cardgym"/);
    writeFileSync(join(dir, "example.mjs"), example!.text);
    expect(run(process.execPath, ["example.mjs"], { cwd: dir, env: userEnv({}) })).toMatch(/^returns -?\d+, -?\d+$/m);

    // Deterministic: the same seed gives the same game.
    const env = userEnv({});
    const loop = join("node_modules", "cardgym", "scripts", "examples", "game-loop.mjs");
    expect(run(process.execPath, [loop, "--seed", "2"], { cwd: dir, env })).toMatch(new RegExp(`final state hash ${hash}`));
    // --human reads one answer a line, typed or piped: piped answers play the game to its end, and
    // input that ends first stops it with exit 1 and a line saying so (not a hang or a Node warning).
    expect(run(process.execPath, [loop, "--human"], { cwd: dir, env, input: "0\n".repeat(400) })).toMatch(/game over after \d+ decisions/);
    // An answer that is not one of the numbers shown is asked again, never played as some decision.
    const typo = run(process.execPath, [loop, "--human"], { cwd: dir, env, input: `x\n99\n${"0\n".repeat(400)}` });
    expect(typo).toMatch(/"x" is not a number from 0 to \d+[\s\S]*"99" is not a number from 0 to \d+/);
    expect(typo).toMatch(/game over after \d+ decisions/);
    expect(run(process.execPath, [loop, "--help"], { cwd: dir, env })).toMatch(/^usage: node node_modules\/cardgym\/scripts\/examples\/game-loop\.mjs/);
    expect(() => run(process.execPath, [loop, "--human"], { cwd: dir, env, input: "" })).toThrow(/exit 1\)[\s\S]*input ended after 0 decisions/);

    // Every file the package README links is in the package.
    const packageRoot = join(dir, "node_modules", "cardgym");
    const links = [...readFileSync(join(packageRoot, "README.md"), "utf8").matchAll(/\]\(([^)#\s]+)\)/g)].map((m) => m[1]!).filter((l) => !/^[a-z]+:/i.test(l));
    expect(links.length).toBeGreaterThan(0);
    for (const link of links) expect(existsSync(join(packageRoot, link)), `the package README links ${link}`).toBe(true);

    const installed = JSON.parse(readFileSync(join(packageRoot, "package.json"), "utf8")) as { exports: Record<string, unknown>; engines: unknown };
    expect(Object.keys(installed.exports)).toEqual([".", "./engine", "./agents", "./server", "./package.json"]);
    expect(installed.engines).toEqual((JSON.parse(readFileSync(join(repoRoot, "package.json"), "utf8")) as { engines: unknown }).engines);

    // Types resolve for a TypeScript user: the declarations of every entry point exist.
    for (const entry of ["env/api.d.ts", "engine/index.d.ts", "agents/index.d.ts", "env/server/index.d.ts"]) {
      expect(readFileSync(join(packageRoot, entry), "utf8").length).toBeGreaterThan(0);
    }

    const play = run("npx", ["--no-install", "cardgym", "play", "dcg", "--seed", "1"], { cwd: dir, env });
    expect(play).toMatch(/final state hash [0-9a-f]{16}/);
    // The same game as the checkout's `npm run play`: the package runs the same engine.
    const fromSource = run(process.execPath, ["--import", "tsx", "scripts/play.ts", "dcg", "--seed", "1"], { cwd: repoRoot });
    expect(play.match(/final state hash ([0-9a-f]{16})/)?.[1]).toBe(fromSource.match(/final state hash ([0-9a-f]{16})/)?.[1]);

    // The arena on worker threads finds its worker module in the package (it is started by file,
    // so no import pulls it in) and plays the very games it plays on the main thread.
    const arena = (workers: string[]) =>
      run("npx", ["--no-install", "cardgym", "arena", "--game", "sevens", "--agents", "random,computer:level=1", "--games", "4", "--seed", "1", ...workers], {
        cwd: dir,
        env,
      });
    const results = (out: string) => out.split("\n").filter((l) => /^\| random \| computer/.test(l));
    const onWorkers = arena(["--workers", "2"]);
    expect(results(onWorkers)).toHaveLength(1);
    expect(results(onWorkers)).toEqual(results(arena([])));

    // And a bad command is one line and a usage, not a stack trace.
    expect(() => run("npx", ["--no-install", "cardgym", "nope"], { cwd: dir, env })).toThrow(/unknown command "nope"/);
  });

  it("serves from the installed package: sessions stepped on its session workers with an ONNX seat, and the web client", async () => {
    expect(dir, "the install test ran first").not.toBe("");
    const bin = join(dir, "node_modules", "cardgym", "scripts", "cardgym.js");
    const server = spawn(process.execPath, [bin, "serve", "--port", "0", "--quiet", "--workers", "1"], { cwd: dir, stdio: ["pipe", "pipe", "pipe"] });
    try {
      const url = await new Promise<string>((resolve, reject) => {
        let out = "";
        const guard = hangGuard();
        const timer = setTimeout(() => reject(new Error(`hang guard: no URL within ${guard / 1000} s: ${out}`)), guard);
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
