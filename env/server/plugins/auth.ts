import type { FastifyPluginCallback } from "fastify";
import fp from "fastify-plugin";
import { timingSafeEqual } from "node:crypto";
import { ApiError } from "../api-error.ts";

/**
 * The optional bearer token: when the server has one, every route but `GET /healthz` needs
 * `Authorization: Bearer <token>` (compared in constant time), else 401. Not encapsulated: its
 * hook covers every route.
 */
const auth: FastifyPluginCallback<{ token: string | null }> = (app, { token }, done) => {
  if (token !== null) {
    app.addHook("onRequest", (request, _reply, hookDone) => {
      if (request.url !== "/healthz" && !authorized(request.headers.authorization, token)) {
        return hookDone(new ApiError(401, "unauthorized", "missing or wrong bearer token (send Authorization: Bearer <token>)"));
      }
      hookDone();
    });
  }
  done();
};

function authorized(header: string | undefined, token: string): boolean {
  if (!header || !header.startsWith("Bearer ")) return false;
  const given = Buffer.from(header.slice(7));
  const want = Buffer.from(token);
  return given.length === want.length && timingSafeEqual(given, want);
}

export default fp(auth, { name: "cardgym-auth" });
