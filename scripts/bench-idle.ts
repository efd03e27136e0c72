/**
 * tsx scripts/bench-idle.ts [--old <checkout>] [--settle S] [--runs N]
 *
 * Idle memory of the server: each way of starting it is launched on a Unix socket, asked once for
 * /healthz after it has listened and settled (--settle seconds, default 5), and its resident set
 * (VmRSS, and the anonymous and file-backed parts) read from /proc (Linux). Ways: this checkout
 * under tsx (`node --import tsx scripts/serve.ts`), this checkout bundled at start with the
 * server's node flags (`node <SERVER_NODE_FLAGS> scripts/run-bundled.mjs scripts/serve.ts`, what
 * `npm start` and the Python package run), and with --old, another checkout bundled at start. Runs alternate between the ways; the median is printed.
 * A benchmark, not a test.
 */
import { spawn } from "node:child_process";
import { existsSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { request } from "node:http";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { SERVER_NODE_FLAGS } from "../env/server/heap.ts";
import { intArg, main, parseCli, printUsage, UsageError } from "./cli.ts";

const USAGE = "tsx scripts/bench-idle.ts [--old <checkout>] [--settle S] [--runs N]";

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

function status(pid: number): Record<string, number> {
  const out: Record<string, number> = {};
  for (const line of readFileSync(`/proc/${pid}/status`, "utf8").split("\n")) {
    const m = /^(VmRSS|RssAnon|RssFile):\s+(\d+) kB/.exec(line);
    if (m) out[m[1]!] = Number(m[2]) / 1024;
  }
  return out;
}

async function idle(cwd: string, args: string[], settleMs: number): Promise<Record<string, number>> {
  const dir = mkdtempSync(join(tmpdir(), "bench-idle-"));
  const sock = join(dir, "s.sock");
  const child = spawn(process.execPath, [...args, "--socket", sock, "--quiet"], { cwd, stdio: ["pipe", "ignore", "pipe"] });
  let stderr = "";
  child.stderr.on("data", (d: Buffer) => (stderr = (stderr + d.toString()).slice(-2000)));
  const exited = new Promise<void>((r) => child.once("exit", () => r()));
  try {
    for (let i = 0; i < 600 && !existsSync(sock) && child.exitCode === null && child.signalCode === null; i++) await sleep(50);
    if (!existsSync(sock)) {
      const how =
        child.exitCode === null && child.signalCode === null ? "did not listen within 30 s" : `exited (${child.exitCode ?? child.signalCode}) before listening`;
      throw new Error(`${args.join(" ")} in ${cwd} ${how}${stderr.trim() === "" ? "" : `:\n${stderr.trim()}`}`);
    }
    await sleep(settleMs);
    await new Promise<void>((ok, fail) =>
      request({ socketPath: sock, path: "/healthz" }, (r) => r.resume().on("end", ok))
        .on("error", fail)
        .end(),
    );
    await sleep(500);
    return status(child.pid!);
  } finally {
    child.kill();
    await exited;
    rmSync(dir, { recursive: true, force: true });
  }
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;

main(async () => {
  const { values } = parseCli(USAGE, { old: { type: "string" }, settle: { type: "string" }, runs: { type: "string" } });
  if (values.help) return printUsage(USAGE);
  const settle = intArg(values.settle, "settle", 5, 0, 600) * 1000;
  const runs = intArg(values.runs, "runs", 3, 1, 100);
  const ways: [string, string, string[]][] = [
    ["this checkout, tsx", ".", ["--import", "tsx", "scripts/serve.ts"]],
    ["this checkout, run-bundled (npm start)", ".", [...SERVER_NODE_FLAGS, "scripts/run-bundled.mjs", "scripts/serve.ts"]],
  ];
  // The old checkout as its own npm start ran it (no node flags before they were introduced).
  if (values.old !== undefined && !existsSync(join(values.old, "scripts", "run-bundled.mjs")))
    throw new UsageError(`--old ${values.old}: no scripts/run-bundled.mjs there (not a checkout, or one from before the server was bundled at start)`);
  if (values.old) ways.unshift([`old (${values.old}), run-bundled`, resolve(values.old), ["scripts/run-bundled.mjs", "scripts/serve.ts"]]);
  const got = new Map<string, Record<string, number>[]>(ways.map(([label]) => [label, []]));
  for (let r = 0; r < runs; r++) for (const [label, cwd, args] of ways) got.get(label)!.push(await idle(cwd, args, settle));
  console.log(`idle server RSS ${new Date().toISOString()}, median of ${runs}, ${settle / 1000} s after listening + one /healthz`);
  for (const [label, list] of got) {
    const m = (k: string) => median(list.map((x) => x[k] ?? 0)).toFixed(1);
    console.log(`  ${label.padEnd(42)} ${m("VmRSS")} MiB  (anonymous ${m("RssAnon")}, file-backed ${m("RssFile")})`);
  }
  return 0;
});
