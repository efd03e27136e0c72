/**
 * `npm start`: serve LearningFacilitator sessions over HTTP + msgpack (docs/protocol.md).
 * Binds 127.0.0.1 by default; flags and environment variables override the embedded defaults.
 */
import { buildApp, DEFAULT_LIMITS } from "../env/server/index.ts";
import { intArg, main, parseCli, UsageError } from "./cli.ts";

const USAGE =
  "npm start -- [--host H] [--port N] [--token T] [--max-sessions N] [--max-envs N] [--max-total-envs N] " +
  "[--body-limit BYTES] [--idle-timeout S] [--request-timeout S] [--step-timeout S] [--model-dir DIR] [--card-set-dir DIR] [--quiet] [--exit-on-stdin-eof]\n" +
  "environment: HOST, PORT, CARDGYM_TOKEN";

main(async () => {
  const { values } = parseCli(USAGE, {
    host: { type: "string" },
    port: { type: "string" },
    token: { type: "string" },
    "max-sessions": { type: "string" },
    "max-envs": { type: "string" },
    "max-total-envs": { type: "string" },
    "body-limit": { type: "string" },
    "idle-timeout": { type: "string" },
    "request-timeout": { type: "string" },
    "step-timeout": { type: "string" },
    "model-dir": { type: "string" },
    "card-set-dir": { type: "string" },
    quiet: { type: "boolean" },
    "exit-on-stdin-eof": { type: "boolean" },
  });
  if (values.help) {
    console.log(`usage: ${USAGE}`);
    return 0;
  }
  const host = values.host ?? process.env.HOST ?? "127.0.0.1";
  if (!/^[A-Za-z0-9.:-]+$/.test(host)) throw new UsageError(`--host must be a host name or IP address, got "${host}"`);
  const port = intArg(values.port ?? process.env.PORT, "port", 8787, 0, 65535);
  const token = values.token ?? process.env.CARDGYM_TOKEN ?? null;
  if (token !== null && token.length < 8) throw new UsageError("--token (or CARDGYM_TOKEN) must be at least 8 characters");
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
    log,
    ...(values["model-dir"] === undefined ? {} : { modelDir: values["model-dir"] }),
    ...(values["card-set-dir"] === undefined ? {} : { cardSetDir: values["card-set-dir"] }),
  });
  let address: string;
  try {
    address = await app.listen({ host, port });
  } catch (e) {
    const err = e as NodeJS.ErrnoException;
    if (err.code === "EADDRINUSE") throw new Error(`port ${port} on ${host} is already in use; pass --port N (or --port 0 for any free port)`);
    if (err.code === "EADDRNOTAVAIL" || err.code === "ENOTFOUND") throw new Error(`cannot bind ${host}: not an address of this machine`);
    if (err.code === "EACCES") throw new Error(`not allowed to bind ${host}:${port}; use a port above 1023`);
    throw e;
  }
  const games = app.cardgym.options.registry.ids().filter((id) => app.cardgym.options.adapters.has(id));
  console.log(`cardgym serving ${games.length ? games.join(", ") : "no games yet"} at ${address}${token ? " (bearer token required)" : ""}`);
  if (host !== "127.0.0.1" && host !== "localhost" && host !== "::1" && !token) {
    console.log("warning: listening beyond loopback without a token; pass --token to require one");
  }
  console.log("connect from Python:");
  console.log(`  import msgpack, urllib.request as u; B="${address}"; H={"content-type":"application/msgpack"${token ? `,"authorization":"Bearer "+TOKEN` : ""}}`);
  console.log(`  s=msgpack.unpackb(u.urlopen(u.Request(B+"/v1/sessions",msgpack.packb({"game":"${games[0] ?? "sevens"}","numEnvs":8,"seed":0}),H)).read())["session"]`);
  console.log('  r=msgpack.unpackb(u.urlopen(u.Request(B+f"/v1/sessions/{s}/reset",msgpack.packb({}),H)).read())  # see docs/protocol.md');
  await new Promise<void>((resolve) => {
    let stopping = false;
    const stop = (signal: string) => {
      if (stopping) {
        console.error(`${signal} again: exiting now`);
        process.exit(130);
      }
      stopping = true;
      console.error(`${signal}: finishing in-flight requests, then exiting`);
      app.close().then(resolve, resolve);
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
      process.stdin.on("data", () => undefined);
      process.stdin.on("end", parentGone);
      process.stdin.on("error", parentGone);
    }
  });
  // An open stdin would keep the process alive after a signal-initiated shutdown.
  if (values["exit-on-stdin-eof"]) process.stdin.destroy();
  return 0;
});
