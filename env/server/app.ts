import type { ObsDtype } from "../obs-dtype.ts";
import Fastify, { type FastifyInstance, type FastifyReply, type FastifyRequest } from "fastify";
import { timingSafeEqual } from "node:crypto";
import { memoryUsage } from "node:process";
import type { GameAdapter } from "../codec.ts";
import { EnvFault, EnvRequestError, describeThrown } from "../errors.ts";
import { LearningFacilitator, type AutoresetMode, type EnvBatch, type IllegalActionMode, type LearnerSeatMode, type ObserveMode, type ResetRequest } from "../learning-facilitator.ts";
import { specOf } from "../spec.ts";
import { registerTableRoutes } from "../live/routes.ts";
import { TableStore } from "../live/store.ts";
import { ApiError } from "./api-error.ts";
import { inlineCardSet } from "./card-sets.ts";
import { Metrics } from "./metrics.ts";
import { resolveOptions, type ResolvedOptions, type ServerOptions } from "./options.ts";
import { createSessionBody, gameParams, maskQuery, renderQuery, resetBody, sessionParams, stepBody } from "./schemas.ts";
import { SessionStore, type SessionEntry } from "./session-store.ts";
import { registerWebRoutes } from "./web.ts";
import { MSGPACK_TYPES, Tensor, checkDepth, contentTypeOf, decodeMsgpack, encodeReply, replyFormat } from "./wire.ts";

/** What the app exposes to its owner (scripts, tests) besides the routes. */
export interface CardgymState {
  readonly options: ResolvedOptions;
  readonly sessions: SessionStore;
  readonly metrics: Metrics;
  /** Live tables (null when the server has no data dir). */
  readonly tables: TableStore | null;
  /** Runs the idle-session sweep now (it also runs on a timer); returns how many expired. */
  sweep(): number;
}

declare module "fastify" {
  interface FastifyInstance {
    cardgym: CardgymState;
  }
}

interface CreateBody {
  game: string;
  config?: Record<string, unknown>;
  seats?: string[];
  numEnvs?: number;
  seed?: number;
  maxDecisions?: number | null;
  autoreset?: AutoresetMode;
  learnerSeat?: LearnerSeatMode;
  illegalAction?: IllegalActionMode;
  illegalReward?: number;
  obsDtype?: ObsDtype;
  observe?: ObserveMode;
}

class StepTimeout extends Error {}

/**
 * The HTTP face of LearningFacilitator sessions. Returns the fastify app without listening: tests
 * use `inject`, scripts/serve.ts calls listen. See docs/protocol.md for the wire contract.
 */
export function buildApp(options: ServerOptions = {}): FastifyInstance {
  const o = resolveOptions(options);
  const app = Fastify({
    logger: o.logger,
    bodyLimit: o.bodyLimit,
    requestTimeout: o.requestTimeoutMs,
    // Requests arriving during shutdown get our own 503 (see onRequest), in the usual error shape.
    return503OnClosing: false,
    forceCloseConnections: "idle",
    // Bodies are checked, never coerced: "3" is not 3, and unknown fields are refused by the schemas.
    ajv: { customOptions: { coerceTypes: false, removeAdditional: false, useDefaults: false, allErrors: false } },
  });
  const sessions = new SessionStore(o, o.now);
  const metrics = new Metrics(o.now);
  const sweeper = setInterval(() => sessions.sweep(), o.sweepIntervalMs);
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
          ...(o.liveClock ? { clock: o.liveClock } : {}),
        });
  if (tables) {
    const { recovered, failed } = tables.recover();
    if (recovered > 0) o.log(`live tables: ${recovered} recovered from ${o.dataDir}`);
    for (const f of failed) o.log(`live tables: journal ${f.id} not recovered: ${f.reason}`);
  }
  app.decorate("cardgym", { options: o, sessions, metrics, tables, sweep: () => sessions.sweep() } satisfies CardgymState);
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

  const send = (request: FastifyRequest, reply: FastifyReply, status: number, payload: unknown): FastifyReply => {
    const format = replyFormat(request.headers.accept, request.headers["content-type"]);
    if (closing) reply.header("connection", "close");
    return reply.code(status).type(contentTypeOf(format)).send(encodeReply(payload, format));
  };

  app.setErrorHandler((err, request, reply) => {
    let api = toApiError(err);
    if (api.code === "unsupported_media_type") {
      const given = request.headers["content-type"];
      api = new ApiError(415, api.code, `unsupported content type ${given ? JSON.stringify(given) : "(none)"}; send application/msgpack (or application/json for debugging)`);
    }
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

  /** Runs a reset/step: maps request errors to 4xx, and quarantines the session on a fault or timeout. */
  const run = (entry: SessionEntry, op: () => EnvBatch | Promise<EnvBatch>): EnvBatch | Promise<EnvBatch> => {
    entry.inFlight++;
    let work: EnvBatch | Promise<EnvBatch>;
    try {
      work = op();
    } catch (e) {
      settle(entry);
      throw failure(entry, e, null);
    }
    // A step whose agents all answered synchronously is already done: no timer can interrupt
    // synchronous work anyway, so the timeout race (a promise and a timer per request) is skipped.
    if (!(work instanceof Promise)) {
      settle(entry);
      return work;
    }
    return raceTimeout(entry, work);
  };
  const settle = (entry: SessionEntry): void => {
    entry.inFlight--;
    entry.lastUsed = o.now();
  };
  const raceTimeout = async (entry: SessionEntry, work: Promise<EnvBatch>): Promise<EnvBatch> => {
    let timer: ReturnType<typeof setTimeout> | undefined;
    try {
      const timeout = new Promise<never>((_, reject) => {
        timer = setTimeout(() => reject(new StepTimeout()), o.stepTimeoutMs);
      });
      return await Promise.race([work, timeout]);
    } catch (e) {
      throw failure(entry, e, work);
    } finally {
      clearTimeout(timer);
      settle(entry);
    }
  };
  /** Maps a failed reset/step to its ApiError; a fault or timeout quarantines the session. */
  const failure = (entry: SessionEntry, e: unknown, work: Promise<EnvBatch> | null): ApiError => {
    if (e instanceof EnvRequestError) return new ApiError(e.status, e.code, e.message, e.details as Record<string, unknown> | undefined);
    let api: ApiError;
    if (e instanceof StepTimeout) {
      work?.catch(() => undefined);
      api = new ApiError(503, "step_timeout", `the step did not finish within ${o.stepTimeoutMs} ms`);
    } else if (e instanceof EnvFault) {
      api = new ApiError(500, e.code, e.message, e.env === undefined ? undefined : { env: e.env });
    } else {
      api = new ApiError(500, "internal_error", describeThrown(e));
    }
    entry.quarantine = { code: api.code, message: api.message };
    o.log(`session ${entry.id} quarantined: ${api.code}: ${api.message}`);
    return api;
  };

  app.get("/healthz", (request, reply) => send(request, reply, 200, { ok: true, sessions: sessions.size }));

  app.get("/metrics", (request, reply) => {
    const mem = memoryUsage();
    return send(request, reply, 200, {
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
    });
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

  app.get<{ Params: { game: string } }>("/v1/games/:game/spec", { schema: { params: gameParams } }, (request, reply) =>
    send(request, reply, 200, specOf(findGame(request.params.game))),
  );

  app.post<{ Body: CreateBody }>("/v1/sessions", { schema: { body: createSessionBody(o.maxEnvsPerSession) } }, (request, reply) => {
    const body = request.body;
    const adapter = findGame(body.game);
    const numEnvs = body.numEnvs ?? 1;
    sessions.checkCapacity(numEnvs);
    let facilitator: LearningFacilitator;
    try {
      facilitator = LearningFacilitator.create({
        adapter,
        // A named card-set file is read here and inlined: the engine never touches files.
        config: inlineCardSet(body.config, o.cardSetDir),
        seats: body.seats,
        numEnvs,
        seed: body.seed ?? 0,
        maxDecisions: body.maxDecisions ?? null,
        ...(body.autoreset === undefined ? {} : { autoreset: body.autoreset }),
        ...(body.learnerSeat === undefined ? {} : { learnerSeat: body.learnerSeat }),
        ...(body.illegalAction === undefined ? {} : { illegalAction: body.illegalAction }),
        ...(body.illegalReward === undefined ? {} : { illegalReward: body.illegalReward }),
        ...(body.obsDtype === undefined ? {} : { obsDtype: body.obsDtype }),
        ...(body.observe === undefined ? {} : { observe: body.observe }),
        createAgent: o.createAgent,
        modelRoot: o.modelDir,
      });
    } catch (e) {
      if (e instanceof EnvRequestError) throw new ApiError(e.status, e.code, e.message, e.details as Record<string, unknown> | undefined);
      if (e instanceof EnvFault) throw new ApiError(500, e.code, e.message);
      throw e;
    }
    const entry = sessions.add(facilitator);
    return send(request, reply, 201, {
      session: entry.id,
      game: adapter.game.info.id,
      gameVersion: adapter.game.info.version,
      mode: facilitator.mode,
      seats: facilitator.seatNames,
      numSeats: facilitator.numSeats,
      numEnvs: facilitator.numEnvs,
      maxDecisions: facilitator.maxDecisions,
      autoreset: facilitator.autoreset,
      learnerSeat: facilitator.learnerSeatMode,
      illegalAction: facilitator.illegalAction,
      illegalReward: facilitator.illegalReward,
      obsWire: facilitator.obsWire.info,
      observe: facilitator.observe,
      config: facilitator.config,
      spec: facilitator.spec,
    });
  });

  app.get<{ Params: { id: string } }>("/v1/sessions/:id", { schema: { params: sessionParams } }, (request, reply) => {
    const entry = sessions.get(request.params.id);
    const f = entry.facilitator;
    return send(request, reply, 200, {
      session: entry.id,
      game: f.game.info.id,
      mode: f.mode,
      seats: f.seatNames,
      numEnvs: f.numEnvs,
      step: f.steps,
      envSteps: f.envSteps,
      reset: f.isReset,
      status: entry.quarantine ? "quarantined" : "ok",
      quarantine: entry.quarantine ?? undefined,
      hashes: o.exposeStateHashes ? f.hashes() : undefined,
    });
  });

  app.post<{ Params: { id: string }; Body: ResetRequest | undefined }>(
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
      const body = request.body ?? {};
      const batch = await run(entry, () => entry.facilitator.reset(body));
      return send(request, reply, 200, batchReply(batch, entry.facilitator));
    },
  );

  app.post<{ Params: { id: string }; Body: { actions: number[] } }>(
    "/v1/sessions/:id/step",
    { schema: { params: sessionParams, body: stepBody(o.maxEnvsPerSession) } },
    (request, reply) => {
      const entry = sessions.usable(request.params.id);
      const done = (batch: EnvBatch): FastifyReply => {
        metrics.recordStep(batch.numEnvs);
        return send(request, reply, 200, batchReply(batch, entry.facilitator));
      };
      // Synchronous handler on the fast path: fastify sends the returned reply without an extra
      // promise; only a step waiting on an asynchronous agent goes through one.
      const work = run(entry, () => entry.facilitator.stepNow(request.body.actions));
      return work instanceof Promise ? work.then(done) : done(work);
    },
  );

  app.get<{ Params: { id: string }; Querystring: { labels?: string } }>(
    "/v1/sessions/:id/mask",
    { schema: { params: sessionParams, querystring: maskQuery } },
    (request, reply) => {
      const entry = sessions.usable(request.params.id);
      const f = entry.facilitator;
      const { mask, seat } = f.mask();
      const withLabels = request.query.labels === "true" || request.query.labels === "1";
      return send(request, reply, 200, {
        step: f.steps,
        mask: new Tensor("uint8", [f.numEnvs, f.spec.action.size], mask),
        seat: new Tensor("int32", [f.numEnvs], seat),
        labels: withLabels ? f.labels() : undefined,
      });
    },
  );

  app.get<{ Params: { id: string }; Querystring: { env?: string } }>(
    "/v1/sessions/:id/render",
    { schema: { params: sessionParams, querystring: renderQuery } },
    (request, reply) => {
      const entry = sessions.usable(request.params.id);
      const f = entry.facilitator;
      const index = Number(request.query.env ?? "0");
      let text: string;
      try {
        text = f.render(index);
      } catch (e) {
        if (e instanceof EnvRequestError) throw new ApiError(e.status, e.code, e.message);
        if (e instanceof EnvFault) throw new ApiError(500, e.code, e.message);
        throw e;
      }
      return send(request, reply, 200, { step: f.steps, env: index, text });
    },
  );

  app.delete<{ Params: { id: string } }>("/v1/sessions/:id", { schema: { params: sessionParams } }, (request, reply) => {
    const entry = sessions.get(request.params.id);
    sessions.delete(entry.id, "deleted by a client");
    return send(request, reply, 200, { deleted: entry.id });
  });

  if (tables) registerTableRoutes(app, tables);
  // The browser client (docs/web.md) talks to the table routes, so it is served with them.
  if (tables && o.webDir !== null) registerWebRoutes(app, o.webDir);

  return app;
}

/** Observations in the session's wire form (obsDtype). */
function obsTensor(f: LearningFacilitator, shape: readonly number[], obs: Float32Array): Tensor {
  const w = f.obsWire.encode(shape, obs);
  return new Tensor(w.dtype, w.shape, w.values);
}

function batchReply(b: EnvBatch, f: LearningFacilitator): Record<string, unknown> {
  const n = b.numEnvs;
  const s = b.numSeats;
  return {
    step: b.step,
    mode: b.mode,
    obs: obsTensor(f, b.obsShape, b.obs),
    mask: new Tensor("uint8", [n, f.spec.action.size], b.mask),
    reward: new Tensor("float32", b.rewardShape, b.reward),
    terminated: new Tensor("bool", [n], b.terminated),
    truncated: new Tensor("bool", [n], b.truncated),
    seat: new Tensor("int32", [n], b.seat),
    info: {
      episode: new Tensor("int32", [n], b.episode),
      episodeStep: new Tensor("int32", [n], b.episodeStep),
      returns: new Tensor("float32", [n, s], b.returns),
      learnerSeat: b.mode === "single" ? new Tensor("int32", [n], b.learnerSeat) : undefined,
      illegal: b.illegal ? new Tensor("bool", [n], b.illegal) : undefined,
    },
    final: b.final ? finalReply(b, f) : undefined,
  };
}

function finalReply(b: EnvBatch, f: LearningFacilitator): Record<string, unknown> {
  const final = b.final!;
  const k = final.envs.length;
  const o = f.spec.observation.size;
  return {
    envs: new Tensor("int32", [k], final.envs),
    obs: obsTensor(f, b.mode === "single" ? [k, o] : [k, b.numSeats, o], final.obs),
    returns: new Tensor("float32", [k, b.numSeats], final.returns),
    episodeStep: new Tensor("int32", [k], final.episodeStep),
    learnerSeat: b.mode === "single" ? new Tensor("int32", [k], final.learnerSeat) : undefined,
  };
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
