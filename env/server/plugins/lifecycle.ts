import type { FastifyPluginCallback } from "fastify";
import fp from "fastify-plugin";
import { ApiError } from "../api-error.ts";
import type { ServerCore } from "../core.ts";

/**
 * Counting requests and shutting down gracefully: close() stops accepting, requests arriving
 * meanwhile get 503 `shutting_down`, in-flight requests finish and their connections are told to
 * close (so keep-alive clients do not hold the server open until their idle timeout), then the
 * sessions, tables and workers are closed. Not encapsulated: its hooks cover every route.
 */
const lifecycle: FastifyPluginCallback<{ core: ServerCore }> = (app, { core }, done) => {
  app.addHook("preClose", (hookDone) => {
    core.closing = true;
    hookDone();
  });
  app.addHook("onClose", async () => {
    await core.close();
  });
  app.addHook("onRequest", (_request, _reply, hookDone) => {
    core.metrics.requests++;
    if (core.closing) return hookDone(new ApiError(503, "shutting_down", "the server is shutting down"));
    hookDone();
  });
  done();
};

export default fp(lifecycle, { name: "cardgym-lifecycle" });
