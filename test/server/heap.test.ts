import { execFileSync } from "node:child_process";
import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { SERVER_NODE_FLAGS, SESSION_WORKER_YOUNG_MB } from "../../env/server/heap.ts";

const ROOT = new URL("../../", import.meta.url);

/**
 * Runs a node process started with the server's flags: the main thread and a worker each allocate
 * short-lived objects until V8 has grown their young generation as far as it will, and report its
 * size (KiB); before the worker starts, `restore` calls restoreWorkerYoungGeneration() ("heap") or
 * creates a SessionRuntime with workers ("runtime"), or neither (false).
 */
function youngGenerations(restore: "heap" | "runtime" | false): { main: number; worker: number } {
  const heap = JSON.stringify(new URL("env/server/heap.ts", ROOT).href);
  const runtime = JSON.stringify(new URL("env/server/runtime.ts", ROOT).href);
  const script = `
    import { Worker } from "node:worker_threads";
    import v8 from "node:v8";
    const churn = () => { let a = []; for (let i = 0; i < 3e6; i++) { a.push({ i }); if (a.length > 1000) a = []; } };
    const size = () => v8.getHeapSpaceStatistics().find((s) => s.space_name === "new_space").space_size >> 10;
    churn();
    const main = size();
    if (${JSON.stringify(restore)} === "heap") (await import(${heap})).restoreWorkerYoungGeneration();
    // The session runtime with workers resets the flag itself, before it starts any of them.
    if (${JSON.stringify(restore)} === "runtime") new (await import(${runtime})).SessionRuntime({ workers: 1 });
    const w = new Worker(\`
      (async () => {
        const v8 = await import("node:v8");
        const { parentPort } = await import("node:worker_threads");
        let a = []; for (let i = 0; i < 3e6; i++) { a.push({ i }); if (a.length > 1000) a = []; }
        parentPort.postMessage(v8.getHeapSpaceStatistics().find((s) => s.space_name === "new_space").space_size >> 10);
      })();
    \`, { eval: true });
    w.once("message", (worker) => { console.log(JSON.stringify({ main, worker })); w.terminate(); });
  `;
  const out = execFileSync(process.execPath, [...SERVER_NODE_FLAGS, "--import", "tsx", "--input-type=module", "-e", script], { cwd: ROOT, encoding: "utf8" });
  return JSON.parse(out.trim().split("\n").pop()!) as { main: number; worker: number };
}

describe("the server process's node flags", () => {
  it("give the event loop a small young generation, and not the workers started after the reset", () => {
    const restored = youngGenerations("heap");
    expect(restored.main).toBeLessThanOrEqual(2048);
    expect(restored.worker).toBeGreaterThan(2048);
    // Without the reset the flag would reach every worker too (it wins over resourceLimits).
    const unrestored = youngGenerations(false);
    expect(unrestored.worker).toBeLessThanOrEqual(2048);
  });

  it("are reset by the session runtime before its workers start", () => {
    expect(youngGenerations("runtime").worker).toBeGreaterThan(2048);
  });

  it("let a session worker grow its young generation past V8's default (16 MiB semi-spaces, 32 MiB in all)", () => {
    // A session runtime in a process started with the server's flags, its one worker running a
    // job that keeps much alive across minor collections, as stepping many envs does.
    const runtime = JSON.stringify(new URL("env/server/runtime.ts", ROOT).href);
    const heapModule = JSON.stringify(new URL("test/fixtures/heap-module.ts", ROOT).href);
    const script = `
      const { SessionRuntime } = await import(${runtime});
      const rt = new SessionRuntime({
        workers: 1, stepTimeoutMs: 120000, setup: null, sessionModule: ${heapModule}, modelDir: "", workerHeapMb: 4096,
        log: () => {}, sessionsOn: () => [], lost: () => {},
      });
      console.log(JSON.stringify(await rt.runJob({ kind: "youngGeneration" }, { budgetMs: 120000 })));
      await rt.close();
    `;
    const out = execFileSync(process.execPath, [...SERVER_NODE_FLAGS, "--import", "tsx", "--input-type=module", "-e", script], { cwd: ROOT, encoding: "utf8" });
    const kib = JSON.parse(out.trim().split("\n").pop()!) as number;
    expect(kib).toBeGreaterThan(32 * 1024);
    expect(kib).toBeLessThanOrEqual((2 * SESSION_WORKER_YOUNG_MB * 1024) / 3);
  });

  it("are the ones npm start and the Python package's embedded server pass", () => {
    const pkg = JSON.parse(readFileSync(new URL("package.json", ROOT), "utf8")) as { scripts: Record<string, string> };
    expect(pkg.scripts.start).toContain(`node ${SERVER_NODE_FLAGS.join(" ")} scripts/run-bundled.mjs scripts/serve.ts`);
    const py = readFileSync(new URL("python/cardgym/server.py", ROOT), "utf8");
    const tuple = /^SERVER_NODE_FLAGS = \(([^)]*)\)/m.exec(py)?.[1];
    expect(
      tuple
        ?.split(",")
        .map((s) => s.trim().replace(/^"|"$/g, ""))
        .filter(Boolean),
    ).toEqual([...SERVER_NODE_FLAGS]);
  });
});
