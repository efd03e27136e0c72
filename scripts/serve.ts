/**
 * `npm start`: serve LearningFacilitator sessions over HTTP + msgpack (docs/protocol.md).
 * Binds 127.0.0.1 by default; flags and environment variables override the embedded defaults.
 */
import { connect } from "node:net";
import { lstatSync, rmdirSync, statSync, unlinkSync } from "node:fs";
import { dirname, resolve } from "node:path";
import { buildApp, DEFAULT_LIMITS } from "../env/server/index.ts";
import { listenForLeases, type LeaseListener } from "../env/server/lease.ts";
import { intArg, main, parseCli, UsageError, printUsage } from "./cli.ts";
import { isLoopback, readToken } from "./serve-config.ts";

const DEFAULT_LEASE_GRACE_MS = 5000;
/** How long a shared server waits for its first lease (the process that started it connects at once). */
const FIRST_LEASE_MS = 60_000;

const USAGE =
  "npm start -- [--host H] [--port N] [--socket PATH] [--token-file FILE] [--token T] [--workers N] [--max-agent-cost N] " +
  "[--max-sessions N] [--max-envs N] [--max-total-envs N] [--max-connections N] [--body-limit BYTES] [--idle-timeout S] " +
  "[--request-timeout S] [--step-timeout S] [--model-dir DIR] [--card-set-dir DIR] [--data-dir DIR] [--max-tables N] [--quiet] [--exit-on-stdin-eof] [--remove-socket-dir] [--no-fast-path] " +
  "[--lease-socket PATH] [--lease-grace-ms N] [--build-id ID] [--expose-state-hashes]\n" +
  "environment: CARDGYM_HOST, PORT, CARDGYM_SOCKET, CARDGYM_TOKEN, CARDGYM_DATA_DIR\n" +
  "--socket PATH listens on a Unix domain socket instead of host:port (its URL is unix:PATH): on one\n" +
  "machine, 1.1-1.4x the requests/s of TCP loopback in our runs (docs/protocol.md, Performance); each session\n" +
  "worker then also serves the fast path on PATH.w<i> (framed steps without HTTP; --no-fast-path: off)\n" +
  "--token T is visible to every user of this machine in `ps`; prefer CARDGYM_TOKEN or --token-file\n" +
  "(a file holding the token on its first line)\n" +
  "--workers N: threads that run sessions (default: the available cores); --step-timeout S: budget of\n" +
  `one request (default ${DEFAULT_LIMITS.stepTimeoutMs / 1000}); --max-agent-cost N: per-step agent cost a session may have (default ${DEFAULT_LIMITS.maxAgentCost}, docs/agents.md)\n` +
  "--lease-socket PATH: a server shared by several processes (the Python package starts one): it counts\n" +
  "connections to PATH as leases, greets each with a line of JSON (--build-id, pid, URL) and exits\n" +
  `--lease-grace-ms after the last one closes (default ${DEFAULT_LEASE_GRACE_MS})\n` +
  "--expose-state-hashes: GET /v1/sessions/:id lists each env's state hash (tests and desync hunting: a hash\n" +
  "fingerprints hidden cards, so never on a server whose sessions' players must not see each other's)";

main(async () => {
  const { values } = parseCli(USAGE, {
    host: { type: "string" },
    port: { type: "string" },
    socket: { type: "string" },
    token: { type: "string" },
    "token-file": { type: "string" },
    workers: { type: "string" },
    "max-agent-cost": { type: "string" },
    "max-connections": { type: "string" },
    "max-sessions": { type: "string" },
    "max-envs": { type: "string" },
    "max-total-envs": { type: "string" },
    "body-limit": { type: "string" },
    "idle-timeout": { type: "string" },
    "request-timeout": { type: "string" },
    "step-timeout": { type: "string" },
    "model-dir": { type: "string" },
    "card-set-dir": { type: "string" },
    "data-dir": { type: "string" },
    "max-tables": { type: "string" },
    quiet: { type: "boolean" },
    "exit-on-stdin-eof": { type: "boolean" },
    "remove-socket-dir": { type: "boolean" },
    "no-fast-path": { type: "boolean" },
    "lease-socket": { type: "string" },
    "lease-grace-ms": { type: "string" },
    "build-id": { type: "string" },
    "expose-state-hashes": { type: "boolean" },
  });
  if (values.help) return printUsage(USAGE);
  // CARDGYM_HOST only: the generic HOST is often set to the machine's name by shells and
  // containers, and must not silently expose the server beyond loopback.
  const host = values.host ?? process.env.CARDGYM_HOST ?? "127.0.0.1";
  if (!/^[A-Za-z0-9.:-]+$/.test(host)) throw new UsageError(`--host must be a host name or IP address, got "${host}"`);
  const port = intArg(values.port ?? process.env.PORT, "port", 8787, 0, 65535);
  const socketPath = values.socket ?? process.env.CARDGYM_SOCKET ?? null;
  if (socketPath !== null) checkSocketPath(socketPath);
  const leasePath = values["lease-socket"] ?? null;
  if (leasePath !== null) checkSocketPath(leasePath, "--lease-socket");
  const leaseGraceMs = intArg(values["lease-grace-ms"], "lease-grace-ms", DEFAULT_LEASE_GRACE_MS, 0, 86_400_000);
  const buildId = values["build-id"] ?? "";
  if (!/^[A-Za-z0-9._:-]{0,128}$/.test(buildId)) throw new UsageError("--build-id must be at most 128 letters, digits and . _ : -");
  for (const flag of ["model-dir", "card-set-dir"] as const) checkDirectory(values[flag], `--${flag}`);
  const token = readToken(values.token, values["token-file"]);
  const seconds = (name: string, def: number) => intArg(values[name as keyof typeof values] as string | undefined, name, def / 1000, 1, 86_400) * 1000;
  const log = values.quiet ? () => undefined : (line: string) => console.error(`[cardgym] ${line}`);
  const app = buildApp({
    token,
    maxSessions: intArg(values["max-sessions"], "max-sessions", DEFAULT_LIMITS.maxSessions, 1, 1_000_000),
    maxEnvsPerSession: intArg(values["max-envs"], "max-envs", DEFAULT_LIMITS.maxEnvsPerSession, 1, 1_000_000),
    maxTotalEnvs: intArg(values["max-total-envs"], "max-total-envs", DEFAULT_LIMITS.maxTotalEnvs, 1, 100_000_000),
    bodyLimit: intArg(values["body-limit"], "body-limit", DEFAULT_LIMITS.bodyLimit, 1024, 1 << 30),
    idleTimeoutMs: seconds("idle-timeout", DEFAULT_LIMITS.idleTimeoutMs),
    requestTimeoutMs: seconds("request-timeout", DEFAULT_LIMITS.requestTimeoutMs),
    stepTimeoutMs: seconds("step-timeout", DEFAULT_LIMITS.stepTimeoutMs),
    maxAgentCost: intArg(values["max-agent-cost"], "max-agent-cost", DEFAULT_LIMITS.maxAgentCost, 1, Number.MAX_SAFE_INTEGER),
    maxConnections: intArg(values["max-connections"], "max-connections", DEFAULT_LIMITS.maxConnections, 1, 1_000_000),
    ...(values.workers === undefined ? {} : { workers: intArg(values.workers, "workers", 1, 1, 1024) }),
    log,
    // Live tables journal here (docs/live.md); the signing key is made here on first start.
    dataDir: values["data-dir"] ?? process.env.CARDGYM_DATA_DIR ?? "cardgym-data",
    maxTables: intArg(values["max-tables"], "max-tables", 2000, 1, 1_000_000),
    ...(values["model-dir"] === undefined ? {} : { modelDir: values["model-dir"] }),
    ...(values["card-set-dir"] === undefined ? {} : { cardSetDir: values["card-set-dir"] }),
    fastPath: socketPath !== null && !values["no-fast-path"] ? fastPathPrefix(socketPath, log) : null,
    exposeStateHashes: values["expose-state-hashes"] === true,
  });
  let address: string;
  try {
    if (socketPath !== null) {
      await clearStaleSocket(socketPath);
      await app.listen({ path: socketPath });
      address = `unix:${resolve(socketPath)}`;
    } else {
      address = await app.listen({ host, port });
    }
  } catch (e) {
    const err = e as NodeJS.ErrnoException;
    if (socketPath !== null) throw socketError(socketPath, err);
    if (err.code === "EADDRINUSE") throw new Error(`port ${port} on ${host} is already in use; pass --port N (or --port 0 for any free port)`, { cause: e });
    if (err.code === "EADDRNOTAVAIL" || err.code === "ENOTFOUND") throw new Error(`cannot bind ${host}: not an address of this machine`, { cause: e });
    if (err.code === "EACCES") throw new Error(`not allowed to bind ${host}:${port}; use a port above 1023`, { cause: e });
    throw e;
  }
  const games = app.cardgym.options.registry.ids().filter((id) => app.cardgym.options.adapters.has(id));
  console.log(`cardgym serving ${games.length ? games.join(", ") : "no games yet"} at ${address}${token ? " (bearer token required)" : ""}`);
  if (socketPath === null && !isLoopback(host) && !token) {
    console.log("warning: listening beyond loopback without a token; set CARDGYM_TOKEN or pass --token-file to require one");
  }
  console.log("connect from Python:");
  if (socketPath !== null) {
    const auth = token ? "with CARDGYM_TOKEN set to the token; " : "";
    console.log(`  import cardgym; env = cardgym.make("${games[0] ?? "sevens"}", url="${address}")  # ${auth}pip install -e python; see docs/protocol.md`);
  } else {
    console.log(
      `  import msgpack, urllib.request as u; B="${address}"; H={"content-type":"application/msgpack"${token ? `,"authorization":"Bearer "+TOKEN` : ""}}`,
    );
    console.log(
      `  s=msgpack.unpackb(u.urlopen(u.Request(B+"/v1/sessions",msgpack.packb({"game":"${games[0] ?? "sevens"}","numEnvs":8,"seed":0}),H)).read())["session"]`,
    );
    console.log('  r=msgpack.unpackb(u.urlopen(u.Request(B+f"/v1/sessions/{s}/reset",msgpack.packb({}),H)).read())  # see docs/protocol.md');
  }
  let leases: LeaseListener | null = null;
  await new Promise<void>((resolve, reject) => {
    let stopping = false;
    const stop = (signal: string) => {
      if (stopping) {
        // Only a second Ctrl-C cuts the shutdown short. A SIGTERM may come more than once without
        // anyone asking twice: Linux sends an embedding parent's PR_SET_PDEATHSIG at each reparenting,
        // i.e. once per thread of a multi-threaded parent that dies (Python's embedded server).
        if (signal !== "SIGINT") return;
        console.error(`${signal} again: exiting now`);
        process.exit(130);
      }
      stopping = true;
      console.error(`${signal}: finishing in-flight requests, then exiting`);
      Promise.all([app.close(), leases?.close()]).then(() => resolve(), resolve);
    };
    process.on("SIGINT", () => stop("SIGINT"));
    process.on("SIGTERM", () => stop("SIGTERM"));
    if (values["exit-on-stdin-eof"]) {
      // For a server embedded in another process (python/cardgym/server.py): the parent holds our
      // stdin pipe open, and the OS closes it however the parent ends (even SIGKILL), on every OS.
      // Input is read and discarded; its end means the parent is gone.
      const parentGone = () => {
        if (!stopping) stop("stdin closed");
      };
      // Our stdout and stderr may be pipes to that parent too: once it is gone, writing the shutdown
      // lines fails (EPIPE), which must not crash the shutdown before the socket folder is removed.
      process.stdout.on("error", () => undefined);
      process.stderr.on("error", () => undefined);
      process.stdin.on("data", () => undefined);
      process.stdin.on("end", parentGone);
      process.stdin.on("error", parentGone);
    }
    if (leasePath !== null) {
      clearStaleSocket(leasePath, "--lease-socket")
        .then(() =>
          listenForLeases({
            path: leasePath,
            hello: { cardgym: "lease", build: buildId, pid: process.pid, url: address },
            graceMs: leaseGraceMs,
            firstLeaseMs: Math.max(FIRST_LEASE_MS, leaseGraceMs),
            onIdle: () => stop("no clients left"),
          }),
        )
        .then((listener) => {
          leases = listener;
          if (stopping) void listener.close();
        })
        .catch((e: unknown) => {
          app.close().then(() => reject(socketError(leasePath, e as NodeJS.ErrnoException, "--lease-socket")), reject);
        });
    }
  });
  // An open stdin would keep the process alive after a signal-initiated shutdown.
  if (values["exit-on-stdin-eof"]) process.stdin.destroy();
  // An embedding parent that made a private folder for the socket may be gone (killed) by now:
  // remove the folder if nothing but our socket was in it (rmdir refuses a non-empty folder).
  if (values["remove-socket-dir"] && socketPath !== null) {
    for (const path of [socketPath, leasePath]) {
      try {
        if (path !== null) unlinkSync(path);
      } catch {
        // already removed by close()
      }
    }
    try {
      rmdirSync(dirname(resolve(socketPath)));
    } catch {
      // not empty, or already gone: leave it
    }
  }
  return 0;
});

/** Unix socket paths are short on every OS (108 bytes on Linux, 104 on macOS, NUL included). */
const MAX_SOCKET_PATH = 103;

/** The fast path's socket prefix (worker i listens on PREFIX.w<i>), or null when those paths would be too long. */
function fastPathPrefix(socketPath: string, log: (line: string) => void): string | null {
  const prefix = resolve(socketPath);
  if (Buffer.byteLength(`${prefix}.w1024`) > MAX_SOCKET_PATH) {
    log(`no fast path: ${prefix}.w<i> would be longer than a Unix socket path may be`);
    return null;
  }
  return prefix;
}

/** A folder the server only reads (models, card sets) must exist at start, not fail the first session that names a file. */
function checkDirectory(dir: string | undefined, flag: string): void {
  if (dir === undefined) return;
  const st = statSync(dir, { throwIfNoEntry: false });
  if (st === undefined) throw new UsageError(`${flag} ${dir}: no such directory`);
  if (!st.isDirectory()) throw new UsageError(`${flag} ${dir}: not a directory`);
}

function checkSocketPath(path: string, flag = "--socket (or CARDGYM_SOCKET)"): void {
  if (path.length === 0) throw new UsageError(`${flag} must be a file path`);
  if (Buffer.byteLength(resolve(path)) > MAX_SOCKET_PATH) {
    throw new UsageError(
      `${flag} path is too long for a Unix socket (${Buffer.byteLength(resolve(path))} bytes, at most ${MAX_SOCKET_PATH}): ${resolve(path)}`,
    );
  }
  let folder: boolean;
  try {
    folder = statSync(dirname(resolve(path))).isDirectory();
  } catch {
    folder = false;
  }
  if (!folder) throw new UsageError(`${flag} ${path}: its folder ${dirname(resolve(path))} does not exist`);
}

/**
 * A socket file left by a server that died is removed (nothing answers on it); a live one, or a
 * path that is not a socket, is an error: we never delete someone else's file or steal a server's
 * address.
 */
async function clearStaleSocket(path: string, flag = "--socket"): Promise<void> {
  let isSocket: boolean;
  try {
    isSocket = lstatSync(path).isSocket();
  } catch {
    return; // nothing there
  }
  if (!isSocket) throw new Error(`${flag} ${path}: the path exists and is not a socket; choose another path`);
  const live = await new Promise<boolean>((done) => {
    const probe = connect({ path }, () => {
      probe.destroy();
      done(true);
    });
    probe.on("error", () => done(false));
  });
  if (live) throw new Error(`${flag} ${path}: another server is listening on it; stop it or choose another path`);
  unlinkSync(path);
}

function socketError(path: string, err: NodeJS.ErrnoException, flag = "--socket"): Error {
  if (err.code === "EACCES") return new Error(`${flag} ${path}: permission denied creating the socket there`);
  if (err.code === "ENOENT") return new Error(`${flag} ${path}: its folder does not exist`);
  if (err.code === "EADDRINUSE") return new Error(`${flag} ${path}: already in use`);
  return err;
}
