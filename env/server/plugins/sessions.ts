import type { TypeBoxTypeProvider } from "@fastify/type-provider-typebox";
import type { FastifyPluginCallback, FastifyReply, FastifyRequest } from "fastify";
import { checkAgentCost } from "../../../agents/cost.ts";
import { describeThrown } from "../../errors.ts";
import type { ResetRequest } from "../../learning-facilitator.ts";
import { ApiError } from "../api-error.ts";
import { inlineCardSet } from "../card-sets.ts";
import type { ServerCore } from "../core.ts";
import { formatOf, sendEncoded, sendPayload } from "../reply.ts";
import { StepTimeout, WorkerLost } from "../runtime.ts";
import { createSessionBody, maskQuery, renderQuery, resetBody, sessionParams, stepBody, type CreateBody } from "../schemas.ts";
import type { HostReply, HostRequest, LoggedOp, SessionCounts } from "../host-protocol.ts";
import { freshEntry, type SessionEntry } from "../session-store.ts";
import { findGame } from "./games.ts";

/**
 * The session routes (docs/protocol.md): create, inspect, reset, step, mask, render and delete.
 * A route validates (TypeBox schemas, schemas.ts), forwards one request to the session's worker
 * and answers with the bytes the worker encoded; what the main thread keeps about a session
 * (its log for rebuilds, counters, quarantine) is updated here.
 */
const sessionRoutes: FastifyPluginCallback<{ core: ServerCore }> = (plain, { core }, done) => {
  const { o, sessions, metrics } = core;
  const app = plain.withTypeProvider<TypeBoxTypeProvider>();

  app.post("/v1/sessions", { schema: { body: createSessionBody(o.maxEnvsPerSession) } }, (request, reply) => createSession(core, request, reply, request.body));

  app.get("/v1/sessions/:id", { schema: { params: sessionParams } }, async (request, reply) => {
    const entry = sessions.get(request.params.id);
    let hashes: unknown;
    if (o.exposeStateHashes && !entry.quarantine) hashes = (await forward(core, entry, { op: "hashes", session: entry.id, format: "msgpack" })).value;
    // A fast-path session's counters live on its worker (its steps never pass this thread).
    let counts: SessionCounts = { step: entry.step, envSteps: entry.envSteps, reset: entry.isReset };
    if (entry.fast && !entry.quarantine) counts = (await forward(core, entry, { op: "status", session: entry.id, format: "msgpack" })).counts ?? counts;
    return sendEncoded(core, request, reply, 200, {
      session: entry.id,
      game: entry.meta.game,
      mode: entry.meta.mode,
      seats: entry.meta.seats,
      numEnvs: entry.meta.numEnvs,
      ...counts,
      status: entry.quarantine ? "quarantined" : "ok",
      quarantine: entry.quarantine ?? undefined,
      hashes,
    });
  });

  app.post(
    "/v1/sessions/:id/reset",
    {
      schema: { params: sessionParams, body: resetBody(o.maxEnvsPerSession) },
      // The body is optional here (Gymnasium's reset() takes no arguments): none means {}.
      preValidation: (request, _reply, next) => {
        if (request.body === undefined || request.body === null) request.body = {};
        next();
      },
    },
    async (request, reply) => {
      const entry = sessions.usable(request.params.id);
      notAttached(entry);
      const body = request.body ?? {};
      const r = await forward(core, entry, { op: "reset", session: entry.id, body, format: formatOf(request) });
      record(entry, { op: "reset", body }, r);
      return sendPayload(core, request, reply, 200, payloadOf(r));
    },
  );

  app.post("/v1/sessions/:id/step", { schema: { params: sessionParams, body: stepBody(o.maxEnvsPerSession) } }, async (request, reply) => {
    const entry = sessions.usable(request.params.id);
    notAttached(entry);
    const body = { actions: request.body.actions };
    const r = await forward(core, entry, { op: "step", session: entry.id, body, format: formatOf(request) });
    record(entry, { op: "step", body }, r);
    metrics.recordStep(entry.meta.numEnvs);
    return sendPayload(core, request, reply, 200, payloadOf(r));
  });

  app.get("/v1/sessions/:id/mask", { schema: { params: sessionParams, querystring: maskQuery } }, async (request, reply) => {
    const entry = sessions.usable(request.params.id);
    const labels = request.query.labels === "true" || request.query.labels === "1";
    const r = await forward(core, entry, { op: "mask", session: entry.id, body: { labels }, format: formatOf(request) });
    return sendPayload(core, request, reply, 200, payloadOf(r));
  });

  app.get("/v1/sessions/:id/render", { schema: { params: sessionParams, querystring: renderQuery } }, async (request, reply) => {
    const entry = sessions.usable(request.params.id);
    const body = { env: Number(request.query.env ?? "0") };
    const r = await forward(core, entry, { op: "render", session: entry.id, body, format: formatOf(request) });
    return sendPayload(core, request, reply, 200, payloadOf(r));
  });

  app.post("/v1/sessions/:id/fast-path", { schema: { params: sessionParams } }, async (request, reply) => {
    const entry = sessions.usable(request.params.id);
    const socket = core.runtime.fastSocket(entry.slot);
    if (socket === null) throw new ApiError(404, "fast_path_off", "this server has no fast path (it serves one beside a --socket, for clients on its machine)");
    if (!core.runtime.fastPathReady(entry.slot))
      throw new ApiError(503, "fast_path_unavailable", "the session's worker is not serving its fast-path socket; use HTTP");
    const binding = await core.bindFastPath(entry, (body) => forward(core, entry, { op: "attach", session: entry.id, body, format: "msgpack" }));
    return sendEncoded(core, request, reply, 200, { session: entry.id, socket, key: binding.key, protocol: 1 });
  });

  app.delete("/v1/sessions/:id", { schema: { params: sessionParams } }, (request, reply) => {
    const entry = sessions.get(request.params.id);
    core.dropSession(entry, "deleted by a client");
    return sendEncoded(core, request, reply, 200, { deleted: entry.id });
  });
  done();
};

export default sessionRoutes;

/** A session stepped over the fast path is stepped there only: this thread could not log HTTP steps in order with its frames. */
function notAttached(entry: SessionEntry): void {
  if (entry.fast) {
    throw new ApiError(
      409,
      "session_attached",
      `session ${entry.id} is stepped over the fast path; reset and step it there (or create another session for HTTP)`,
    );
  }
}

/**
 * POST /v1/sessions: checks the game and the seats' cost, reserves the session against the
 * limits, places it on a worker and creates it there. A refused or failed creation gives back
 * its reservation and placement.
 */
async function createSession(core: ServerCore, request: FastifyRequest, reply: FastifyReply, body: CreateBody): Promise<FastifyReply> {
  const { o, sessions, runtime } = core;
  findGame(o, body.game);
  const numEnvs = body.numEnvs ?? 1;
  if (body.seats) {
    const cost = checkAgentCost(body.seats, numEnvs, o.maxAgentCost, undefined, body.game);
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
    const create: CreateBody = { ...body, ...(config === undefined ? {} : { config }) };
    slot = runtime.place(numEnvs);
    // Not in the store until the worker has created it: a failed creation leaves nothing behind.
    const pending = freshEntry({ id, slot, meta: { game: body.game, mode: "single", seats: [], numEnvs }, create }, o.now());
    const r = await forward(core, pending, { op: "create", session: id, body: create, format: formatOf(request) });
    if (r.meta === undefined) throw new Error(`session ${id}: the session worker created it but sent no session metadata`);
    const entry = sessions.add({ id, slot, meta: r.meta, create });
    if (core.closing) sessions.delete(entry.id, "the server shut down");
    return sendPayload(core, request, reply, 201, payloadOf(r));
  } catch (e) {
    sessions.release(id);
    if (slot >= 0) runtime.unplace(slot, numEnvs);
    if (e instanceof ApiError && e.status === 503) {
      throw new ApiError(503, "step_timeout", `creating the session did not finish within ${o.stepTimeoutMs} ms`);
    }
    throw e;
  }
}

/**
 * Forwards one session request to the session's worker and maps its outcome: the reply, a
 * request error (4xx, the session untouched), or a fault / timeout (the session quarantined).
 * One request at a time per session: another one meanwhile is refused with 409 session_busy.
 */
async function forward(core: ServerCore, entry: SessionEntry, req: HostRequest): Promise<HostReply> {
  if (entry.inFlight > 0) throw new ApiError(409, "session_busy", "another request on this session is in progress; send one request at a time per session");
  entry.inFlight++;
  let r: HostReply;
  try {
    r = await core.runtime.call(entry.slot, req);
  } catch (e) {
    let api: ApiError;
    if (e instanceof StepTimeout) api = new ApiError(503, "step_timeout", `the ${req.op} did not finish within ${core.o.stepTimeoutMs} ms`);
    else if (e instanceof WorkerLost) api = new ApiError(500, "worker_lost", e.message);
    else api = new ApiError(500, "internal_error", describeThrown(e));
    if (!entry.quarantine) core.quarantine(entry, api.code, api.message);
    throw api;
  } finally {
    entry.inFlight--;
    entry.lastUsed = core.o.now();
  }
  if (r.error) {
    if (r.error.fault) {
      core.quarantine(entry, r.error.code, r.error.message);
      void core.runtime.call(entry.slot, { op: "delete", session: entry.id, format: "msgpack" }).catch(() => undefined);
    }
    throw new ApiError(r.error.status, r.error.code, r.error.message, r.error.details);
  }
  return r;
}

/** Records a successful reset/step in the session's log (what a rebuild replays). */
function record(entry: SessionEntry, op: LoggedOp, r: HostReply): void {
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
}

/** A reset that re-seeds every env: the session after it depends on nothing before it, so its log restarts there. */
function fullReseed(body: unknown, numEnvs: number): boolean {
  const b = (body ?? {}) as ResetRequest;
  if (b.envs !== undefined) return false;
  if (b.seed !== undefined) return true;
  return b.seeds !== undefined && b.seeds.length === numEnvs && b.seeds.every((x) => x !== null);
}

/** The worker's encoded reply as bytes fastify can send (a view of the transferred buffer, not a copy). */
function payloadOf(r: HostReply): Buffer | string {
  const p = r.payload;
  if (p === undefined) return "";
  return typeof p === "string" ? p : Buffer.from(p.buffer, p.byteOffset, p.byteLength);
}
