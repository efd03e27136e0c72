import Fastify, { type FastifyInstance, type FastifyReply, type FastifyRequest } from "fastify";
import { randomBytes, timingSafeEqual } from "node:crypto";
import { STATUS_CODES } from "node:http";
import type { Duplex } from "node:stream";
import { memoryUsage } from "node:process";
import type { GameAdapter } from "../codec.ts";
import { EnvRequestError, describeThrown } from "../errors.ts";
import type { ResetRequest } from "../learning-facilitator.ts";
import { specOf } from "../spec.ts";
import { registerTableRoutes } from "../live/routes.ts";
import { TableStore } from "../live/store.ts";
import { ApiError } from "./api-error.ts";
import { inlineCardSet } from "./card-sets.ts";
import type { TypeBoxTypeProvider } from "@fastify/type-provider-typebox";
import { Metrics } from "./metrics.ts";
import { resolveOptions, type ResolvedOptions, type ServerOptions } from "./options.ts";
import { createSessionBody, gameParams, maskQuery, renderQuery, resetBody, sessionParams, stepBody } from "./schemas.ts";
import { SessionStore, type SessionEntry } from "./session-store.ts";
import { registerWebRoutes } from "./web.ts";
import type { Job } from "./jobs.ts";
import { SessionRuntime, StepTimeout, WorkerLost } from "./runtime.ts";
import type { HostReply, HostRequest, LoggedOp } from "./session-host.ts";
import { checkAgentCost } from "../../agents/cost.ts";
import { MSGPACK_TYPES, checkDepth, contentTypeOf, decodeMsgpack, encodeReply, replyFormat, type WireFormat } from "./wire.ts";

/** What the app exposes to its owner (scripts, tests) besides the routes. */
export interface CardgymState {
  readonly options: ResolvedOptions;
  readonly sessions: SessionStore;
  readonly metrics: Metrics;
  /** Live tables (null when the server has no data dir). */
  readonly tables: TableStore | null;
  /** Runs the idle-session sweep now (it also runs on a timer); returns how many expired. */
  sweep(): number;
  /**
   * Runs a job on the session worker pool under a budget (env/server/jobs.ts: e.g. one agent
   * decision of a live table). See SessionRuntime.runJob.
   */
  runJob(job: Job, options: { budgetMs: number; affinity?: string }): Promise<unknown>;
}

declare module "fastify" {
  interface FastifyInstance {
    cardgym: CardgymState;
  }
}

/**
 * The HTTP face of LearningFacilitator sessions. Returns the fastify app without listening: tests
 * use `inject`, scripts/serve.ts calls listen. See docs/protocol.md for the wire contract.
 */
export function buildApp(options: ServerOptions = {}): FastifyInstance {
  const o = resolveOptions(options);
  const metrics = new Metrics(o.now);
  const app = Fastify({
    logger: o.logger,
    bodyLimit: o.bodyLimit,
    requestTimeout: o.requestTimeoutMs,
    // Node checks request and header deadlines on this interval (default 30 s, which let a stalled
    // body hold a connection long past --request-timeout): check often enough to honour it within 1 s.
    http: { requestTimeout: o.requestTimeoutMs, headersTimeout: o.requestTimeoutMs, connectionsCheckingInterval: Math.min(250, o.requestTimeoutMs) },
    // Requests that never complete and malformed HTTP get the documented error shape too.
    clientErrorHandler: (err, socket) => clientError(err, socket, o.requestTimeoutMs, metrics),
    // Requests arriving during shutdown get our own 503 (see onRequest), in the usual error shape.
    return503OnClosing: false,
    forceCloseConnections: "idle",
    // Bodies are checked, never coerced: "3" is not 3, and unknown fields are refused by the schemas.
    ajv: { customOptions: { coerceTypes: false, removeAdditional: false, useDefaults: false, allErrors: false } },
  });
  app.server.maxConnections = o.maxConnections;
  const sessions = new SessionStore(o, o.now);
  const sweep = (): number => sessions.sweep((entry) => forgetOnWorker(entry));
  const sweeper = setInterval(sweep, o.sweepIntervalMs);
  sweeper.unref();
  const tables =
    o.dataDir === null
      ? null
      : new TableStore({
          dataDir: o.dataDir,
          registry: o.registry,
          adapters: o.adapters,
          modelRoot: o.modelDir,
          maxTables: o.maxTables,
          maxFinished: o.maxFinishedTables,
          log: o.log,
          maxAgentCost: o.maxAgentCost,
          // Table agents decide on the worker pool under the step budget, like session agents.
          decide: (job, affinity) => runtime.runJob(job, { budgetMs: o.stepTimeoutMs, affinity }) as Promise<number>,
          ...(o.liveClock ? { clock: o.liveClock } : {}),
        });
  if (tables) {
    const { recovered, failed } = tables.recover();
    if (recovered > 0) o.log(`live tables: ${recovered} recovered from ${o.dataDir}`);
    for (const f of failed) o.log(`live tables: journal ${f.id} not recovered: ${f.reason}`);
  }
  app.decorate("cardgym", {
    options: o,
    sessions,
    metrics,
    tables,
    sweep,
    runJob: (job, budget) => runtime.runJob(job, budget),
  } satisfies CardgymState);
  // Graceful shutdown: close() stops accepting, in-flight requests finish, and their connections
  // are told to close so keep-alive clients do not hold the server open until their idle timeout.
  let closing = false;
  app.addHook("preClose", (done) => {
    closing = true;
    done();
  });
  app.addHook("onClose", async () => {
    clearInterval(sweeper);
    sessions.clear();
    tables?.close();
    await runtime.close();
  });

  // Content types: msgpack (restricted to plain data) and JSON; anything else is a 415.
  app.removeAllContentTypeParsers();
  const jsonParser = app.getDefaultJsonParser("error", "error");
  app.addContentTypeParser("application/json", { parseAs: "string" }, (request, body, done) => {
    jsonParser(request, body as string, (err, value) => {
      if (err) return done(new ApiError(400, "malformed_body", `JSON body could not be parsed: ${err.message}`), undefined);
      try {
        checkDepth(value);
      } catch (e) {
        return done(e as Error, undefined);
      }
      done(null, value);
    });
  });
  app.addContentTypeParser([...MSGPACK_TYPES], { parseAs: "buffer" }, (_request, body, done) => {
    try {
      done(null, decodeMsgpack(body as Buffer));
    } catch (e) {
      done(e as Error, undefined);
    }
  });

  const send = (request: FastifyRequest, reply: FastifyReply, status: number, payload: unknown, unstated: WireFormat = "msgpack"): FastifyReply => {
    const format = replyFormat(request.headers.accept, request.headers["content-type"], unstated);
    if (closing) reply.header("connection", "close");
    return reply.code(status).type(contentTypeOf(format)).send(encodeReply(payload, format));
  };

  app.setErrorHandler((err, request, reply) => {
    let api = toApiError(err);
    if (api.code === "unsupported_media_type") {
      const given = request.headers["content-type"];
      api = new ApiError(
        415,
        api.code,
        `unsupported content type ${given ? JSON.stringify(given) : "(none)"}; send application/msgpack (or application/json for debugging)`,
      );
    }
    if (api.code === "body_too_large")
      api = new ApiError(413, api.code, `the request body is larger than the server's limit of ${o.bodyLimit} bytes (--body-limit)`);
    metrics.recordError(api.code);
    if (api.status >= 500) o.log(`${request.method} ${request.url} -> ${api.status} ${api.code}: ${api.message}`);
    const body: Record<string, unknown> = { code: api.code, message: api.message };
    if (api.details) Object.assign(body, api.details, { code: api.code, message: api.message });
    if (api.status === 401) reply.header("www-authenticate", 'Bearer realm="cardgym"');
    return send(request, reply, api.status, { error: body });
  });
  app.setNotFoundHandler((request, reply) => {
    metrics.recordError("not_found");
    return send(request, reply, 404, { error: { code: "not_found", message: `no route ${request.method} ${request.url.split("?")[0]}` } });
  });

  app.addHook("onRequest", (request, _reply, done) => {
    metrics.requests++;
    if (closing) return done(new ApiError(503, "shutting_down", "the server is shutting down"));
    if (o.token !== null && request.url !== "/healthz" && !authorized(request.headers.authorization, o.token)) {
      return done(new ApiError(401, "unauthorized", "missing or wrong bearer token (send Authorization: Bearer <token>)"));
    }
    done();
  });

  const findGame = (id: string): GameAdapter => {
    const found = o.registry.get(id);
    const adapter = o.adapters.get(id);
    if (!found.ok || !adapter) {
      const known = servedGames().join(", ") || "none yet";
      throw new ApiError(404, "unknown_game", `no game ${JSON.stringify(id)} with an RL adapter; served games: ${known}`);
    }
    return adapter;
  };
  const servedGames = (): string[] => o.registry.ids().filter((id) => o.adapters.has(id));

  const runtime = new SessionRuntime({
    workers: o.workers,
    stepTimeoutMs: o.stepTimeoutMs,
    setup: { registry: o.registry, adapters: o.adapters, createAgent: o.createAgent, modelDir: o.modelDir },
    sessionModule: o.sessionModule,
    modelDir: o.modelDir,
    workerHeapMb: o.workerHeapMb,
    log: o.log,
    sessionsOn: (slot) =>
      sessions.onSlot(slot).filter((entry) => {
        // Fast-path steps are not logged on this thread, so such a session cannot be rebuilt.
        if (entry.fast) quarantine(entry, "session_lost", "its worker was replaced, and a session stepped over the fast path is not rebuilt");
        return !entry.fast;
      }),
    lost: (id, code, message) => {
      const entry = sessions.find(id);
      if (entry && !entry.quarantine) quarantine(entry, code, message);
    },
    fastPath:
      o.fastPath === null
        ? null
        : {
            prefix: o.fastPath,
            maxFrame: o.bodyLimit,
            maxEnvsPerSession: o.maxEnvsPerSession,
            event: (e) => {
              const entry = sessions.find(e.session);
              if (!entry?.fast) return;
              entry.lastUsed = o.now();
              if (e.kind === "fault") {
                quarantine(entry, e.code, e.message);
                void runtime.call(entry.slot, { op: "delete", session: entry.id, format: "msgpack" }).catch(() => undefined);
              } else entry.fast.open = e.kind === "open";
            },
            expired: (handle) => {
              const entry = fastHandles.get(handle);
              if (entry && !entry.quarantine) quarantine(entry, "step_timeout", `a fast-path request did not finish within ${o.stepTimeoutMs} ms`);
            },
          },
  });
  /** Sessions by fast-path watchdog handle (what a worker marks while it runs a fast-path request). */
  const fastHandles = new Map<number, SessionEntry>();
  let nextFastHandle = 1;
  if (o.fastPath !== null && o.workers === 0) app.addHook("onReady", async () => void (await runtime.listenFastPath()));

  const quarantine = (entry: SessionEntry, code: string, message: string): void => {
    entry.quarantine = { code, message };
    if (entry.fast) entry.fast.open = false;
    o.log(`session ${entry.id} quarantined: ${code}: ${message}`);
  };

  /**
   * Forwards one session request to the session's worker and maps its outcome: the reply, a
   * request error (4xx, the session untouched), or a fault / timeout (the session quarantined).
   * One request at a time per session: another one meanwhile is refused with 409 session_busy.
   */
  const forward = async (entry: SessionEntry, req: HostRequest): Promise<HostReply> => {
    if (entry.inFlight > 0) throw new ApiError(409, "session_busy", "another request on this session is in progress; send one request at a time per session");
    entry.inFlight++;
    let r: HostReply;
    try {
      r = await runtime.call(entry.slot, req);
    } catch (e) {
      let api: ApiError;
      if (e instanceof StepTimeout) api = new ApiError(503, "step_timeout", `the ${req.op} did not finish within ${o.stepTimeoutMs} ms`);
      else if (e instanceof WorkerLost) api = new ApiError(500, "worker_lost", e.message);
      else api = new ApiError(500, "internal_error", describeThrown(e));
      if (!entry.quarantine) quarantine(entry, api.code, api.message);
      throw api;
    } finally {
      entry.inFlight--;
      entry.lastUsed = o.now();
    }
    if (r.error) {
      if (r.error.fault) {
        quarantine(entry, r.error.code, r.error.message);
        void runtime.call(entry.slot, { op: "delete", session: entry.id, format: "msgpack" }).catch(() => undefined);
      }
      throw new ApiError(r.error.status, r.error.code, r.error.message, r.error.details);
    }
    return r;
  };

  /** Records a successful reset/step in the session's log (what a rebuild replays). */
  const record = (entry: SessionEntry, op: LoggedOp, r: HostReply): void => {
    if (op.op === "reset" && fullReseed(op.body, entry.meta.numEnvs)) {
      entry.log = [];
      entry.loggedActions = 0;
    }
    entry.log.push(op);
    entry.loggedActions += op.op === "step" ? op.body.actions.length : entry.meta.numEnvs;
    entry.digest = r.digest ?? null;
    entry.step = r.step ?? entry.step;
    entry.isReset = true;
    if (op.op === "step") entry.envSteps += entry.meta.numEnvs;
  };

  const payloadOf = (r: HostReply): Buffer | string => {
    const p = r.payload;
    if (p === undefined) return "";
    return typeof p === "string" ? p : Buffer.from(p.buffer, p.byteOffset, p.byteLength);
  };
  const sendRaw = (request: FastifyRequest, reply: FastifyReply, status: number, payload: Buffer | string): FastifyReply => {
    const format = replyFormat(request.headers.accept, request.headers["content-type"]);
    if (closing) reply.header("connection", "close");
    return reply.code(status).type(contentTypeOf(format)).send(payload);
  };
  /** Frees a session's state on its worker (queued behind any request still running there). */
  const forgetOnWorker = (entry: SessionEntry): void => {
    runtime.unplace(entry.slot, entry.meta.numEnvs);
    void runtime.call(entry.slot, { op: "delete", session: entry.id, format: "msgpack" }).catch(() => undefined);
  };
  const dropSession = (entry: SessionEntry, why: string): void => {
    if (sessions.delete(entry.id, why)) forgetOnWorker(entry);
    if (entry.fast) fastHandles.delete(entry.fast.handle);
  };
  /** A session stepped over the fast path is stepped there only: this thread could not log HTTP steps in order with its frames. */
  const notAttached = (entry: SessionEntry): void => {
    if (entry.fast) {
      throw new ApiError(
        409,
        "session_attached",
        `session ${entry.id} is stepped over the fast path; reset and step it there (or create another session for HTTP)`,
      );
    }
  };
  const formatOf = (request: FastifyRequest) => replyFormat(request.headers.accept, request.headers["content-type"]);

  // Session routes take their parameter and body types from the TypeBox schemas (schemas.ts).
  const typed = app.withTypeProvider<TypeBoxTypeProvider>();

  // The probes answer JSON unless msgpack is asked for: `curl /healthz` prints something readable.
  app.get("/healthz", (request, reply) => send(request, reply, 200, { ok: true, sessions: sessions.size }, "json"));

  app.get("/metrics", (request, reply) => {
    const mem = memoryUsage();
    return send(
      request,
      reply,
      200,
      {
        sessions: sessions.size,
        quarantined: sessions.quarantined,
        envs: sessions.totalEnvs,
        requests: metrics.requests,
        steps: metrics.steps,
        envSteps: metrics.envSteps,
        envStepsPerSecond: metrics.envStepsPerSecond(),
        errors: { ...metrics.errors },
        uptimeSeconds: metrics.uptimeSeconds(),
        rssBytes: mem.rss,
        heapUsedBytes: mem.heapUsed,
        tables: tables?.stats(),
      },
      "json",
    );
  });

  app.get("/v1/games", (request, reply) => {
    const games = servedGames().map((id) => {
      const adapter = o.adapters.get(id)!;
      const spec = specOf(adapter);
      const info = adapter.game.info;
      return {
        id,
        title: info.title,
        version: info.version,
        minSeats: info.minSeats,
        maxSeats: info.maxSeats,
        defaultSeats: info.defaultSeats,
        zeroSum: info.zeroSum,
        observationSize: spec.observation.size,
        actionSize: spec.action.size,
        actionSpecHash: spec.actionSpecHash,
      };
    });
    return send(request, reply, 200, { games });
  });

  typed.get("/v1/games/:game/spec", { schema: { params: gameParams } }, (request, reply) => send(request, reply, 200, specOf(findGame(request.params.game))));

  typed.post("/v1/sessions", { schema: { body: createSessionBody(o.maxEnvsPerSession) } }, async (request, reply) => {
    const body = request.body;
    findGame(body.game);
    const numEnvs = body.numEnvs ?? 1;
    if (body.seats) {
      const cost = checkAgentCost(body.seats, numEnvs, o.maxAgentCost);
      if (!cost.ok) {
        const invalid = !cost.error.message.includes("playout units");
        throw new ApiError(400, invalid ? "invalid_seats" : "agent_too_costly", cost.error.message, invalid ? undefined : { limit: o.maxAgentCost });
      }
    }
    const id = sessions.reserve(numEnvs);
    let slot = -1;
    try {
      // A named card-set file is read here and inlined: the engine never touches files, and the
      // session's create body replays without the file.
      const config = inlineCardSet(body.config, o.cardSetDir);
      const create: Record<string, unknown> = { ...body, ...(config === undefined ? {} : { config }) };
      slot = runtime.place(numEnvs);
      const pending: SessionEntry = {
        id,
        slot,
        meta: { game: body.game, mode: "single", seats: [], numEnvs },
        create,
        log: [],
        loggedActions: 0,
        digest: null,
        step: 0,
        envSteps: 0,
        isReset: false,
        lastUsed: o.now(),
        inFlight: 0,
        quarantine: null,
        fast: null,
      };
      const r = await forward(pending, { op: "create", session: id, body: create, format: formatOf(request) });
      const entry = sessions.add({ id, slot, meta: r.meta!, create });
      if (closing) sessions.delete(entry.id, "the server shut down");
      return sendRaw(request, reply, 201, payloadOf(r));
    } catch (e) {
      sessions.release(id);
      if (slot >= 0) runtime.unplace(slot, numEnvs);
      if (e instanceof ApiError && e.status === 503) {
        throw new ApiError(503, "step_timeout", `creating the session did not finish within ${o.stepTimeoutMs} ms`);
      }
      throw e;
    }
  });

  typed.get("/v1/sessions/:id", { schema: { params: sessionParams } }, async (request, reply) => {
    const entry = sessions.get(request.params.id);
    let hashes: unknown;
    if (o.exposeStateHashes && !entry.quarantine) hashes = (await forward(entry, { op: "hashes", session: entry.id, format: "msgpack" })).value;
    return send(request, reply, 200, {
      session: entry.id,
      game: entry.meta.game,
      mode: entry.meta.mode,
      seats: entry.meta.seats,
      numEnvs: entry.meta.numEnvs,
      step: entry.step,
      envSteps: entry.envSteps,
      reset: entry.isReset,
      status: entry.quarantine ? "quarantined" : "ok",
      quarantine: entry.quarantine ?? undefined,
      hashes,
    });
  });

  typed.post(
    "/v1/sessions/:id/reset",
    {
      schema: { params: sessionParams, body: resetBody(o.maxEnvsPerSession) },
      // The body is optional here (Gymnasium's reset() takes no arguments): none means {}.
      preValidation: (request, _reply, done) => {
        if (request.body === undefined || request.body === null) request.body = {};
        done();
      },
    },
    async (request, reply) => {
      const entry = sessions.usable(request.params.id);
      notAttached(entry);
      const body = request.body ?? {};
      const r = await forward(entry, { op: "reset", session: entry.id, body, format: formatOf(request) });
      record(entry, { op: "reset", body }, r);
      return sendRaw(request, reply, 200, payloadOf(r));
    },
  );

  typed.post("/v1/sessions/:id/step", { schema: { params: sessionParams, body: stepBody(o.maxEnvsPerSession) } }, async (request, reply) => {
    const entry = sessions.usable(request.params.id);
    notAttached(entry);
    const body = { actions: request.body.actions };
    const r = await forward(entry, { op: "step", session: entry.id, body, format: formatOf(request) });
    record(entry, { op: "step", body }, r);
    metrics.recordStep(entry.meta.numEnvs);
    return sendRaw(request, reply, 200, payloadOf(r));
  });

  typed.get("/v1/sessions/:id/mask", { schema: { params: sessionParams, querystring: maskQuery } }, async (request, reply) => {
    const entry = sessions.usable(request.params.id);
    const labels = request.query.labels === "true" || request.query.labels === "1";
    const r = await forward(entry, { op: "mask", session: entry.id, body: { labels }, format: formatOf(request) });
    return sendRaw(request, reply, 200, payloadOf(r));
  });

  typed.get("/v1/sessions/:id/render", { schema: { params: sessionParams, querystring: renderQuery } }, async (request, reply) => {
    const entry = sessions.usable(request.params.id);
    const r = await forward(entry, { op: "render", session: entry.id, body: { env: Number(request.query.env ?? "0") }, format: formatOf(request) });
    return sendRaw(request, reply, 200, payloadOf(r));
  });

  typed.post("/v1/sessions/:id/fast-path", { schema: { params: sessionParams } }, async (request, reply) => {
    const entry = sessions.usable(request.params.id);
    const socket = runtime.fastSocket(entry.slot);
    if (socket === null) throw new ApiError(404, "fast_path_off", "this server has no fast path (it serves one beside a --socket, for clients on its machine)");
    if (!runtime.fastPathReady(entry.slot))
      throw new ApiError(503, "fast_path_unavailable", "the session's worker is not serving its fast-path socket; use HTTP");
    if (!entry.fast) {
      const binding = { key: randomBytes(24).toString("base64url"), handle: nextFastHandle++, open: false };
      await forward(entry, { op: "attach", session: entry.id, body: { key: binding.key, handle: binding.handle }, format: "msgpack" });
      entry.fast = binding;
      fastHandles.set(binding.handle, entry);
    }
    return send(request, reply, 200, { session: entry.id, socket, key: entry.fast.key, protocol: 1 });
  });

  typed.delete("/v1/sessions/:id", { schema: { params: sessionParams } }, (request, reply) => {
    const entry = sessions.get(request.params.id);
    dropSession(entry, "deleted by a client");
    return send(request, reply, 200, { deleted: entry.id });
  });

  if (tables) registerTableRoutes(app, tables);
  // The browser client (docs/web.md) talks to the table routes, so it is served with them.
  if (tables && o.webDir !== null) registerWebRoutes(app, o.webDir);

  return app;
}

/**
 * Answers HTTP-level client errors (raised before any route runs) in the documented error shape,
 * as JSON since the request never got far enough to ask for msgpack, and closes the connection.
 */
function clientError(err: Error & { code?: string }, socket: Duplex, requestTimeoutMs: number, metrics: Metrics): void {
  if (err.code === "ECONNRESET" || socket.destroyed) return;
  let status = 400;
  let code = "bad_request";
  let message = "malformed HTTP request";
  if (err.code === "ERR_HTTP_REQUEST_TIMEOUT") {
    status = 408;
    code = "request_timeout";
    message = `the request was not received in full within ${requestTimeoutMs} ms (--request-timeout)`;
  } else if (err.code === "HPE_HEADER_OVERFLOW") {
    status = 431;
    code = "headers_too_large";
    message = "the request's headers are too large";
  }
  metrics.recordError(code);
  const body = JSON.stringify({ error: { code, message } });
  if (!socket.writable) {
    socket.destroy();
    return;
  }
  // end() sends the reply before closing; a peer that never reads is cut off shortly after.
  socket.end(
    `HTTP/1.1 ${status} ${STATUS_CODES[status]}\r\nContent-Type: application/json; charset=utf-8\r\nContent-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`,
  );
  setTimeout(() => socket.destroy(), 1000).unref();
}

/** A reset that re-seeds every env: the session after it depends on nothing before it, so its log restarts there. */
function fullReseed(body: unknown, numEnvs: number): boolean {
  const b = (body ?? {}) as ResetRequest;
  if (b.envs !== undefined) return false;
  if (b.seed !== undefined) return true;
  return b.seeds !== undefined && b.seeds.length === numEnvs && b.seeds.every((x) => x !== null);
}

function authorized(header: string | undefined, token: string): boolean {
  if (!header || !header.startsWith("Bearer ")) return false;
  const given = Buffer.from(header.slice(7));
  const want = Buffer.from(token);
  return given.length === want.length && timingSafeEqual(given, want);
}

const FASTIFY_CODES: Record<string, [number, string]> = {
  FST_ERR_CTP_BODY_TOO_LARGE: [413, "body_too_large"],
  FST_ERR_CTP_INVALID_MEDIA_TYPE: [415, "unsupported_media_type"],
  FST_ERR_CTP_INVALID_CONTENT_LENGTH: [400, "malformed_body"],
  FST_ERR_CTP_EMPTY_JSON_BODY: [400, "malformed_body"],
  FST_ERR_CTP_INVALID_JSON_BODY: [400, "malformed_body"],
};

function toApiError(err: unknown): ApiError {
  if (err instanceof ApiError) return err;
  if (err instanceof EnvRequestError) return new ApiError(err.status, err.code, err.message, err.details as Record<string, unknown> | undefined);
  const e = err as { code?: string; statusCode?: number; validation?: unknown; validationContext?: string; message?: string };
  if (e && e.validation) {
    return new ApiError(400, e.validationContext === "body" ? "invalid_body" : "bad_request", e.message ?? "request failed schema validation");
  }
  const mapped = e && e.code ? FASTIFY_CODES[e.code] : undefined;
  if (mapped) return new ApiError(mapped[0], mapped[1], e.message ?? mapped[1]);
  if (e && typeof e.statusCode === "number" && e.statusCode >= 400 && e.statusCode < 500) {
    return new ApiError(e.statusCode, "bad_request", e.message ?? "bad request");
  }
  return new ApiError(500, "internal_error", describeThrown(err));
}
