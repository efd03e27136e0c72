import type { FastifyPluginCallback } from "fastify";
import fp from "fastify-plugin";
import { STATUS_CODES } from "node:http";
import type { Duplex } from "node:stream";
import { EnvRequestError, clipMessage, describeThrown } from "../../errors.ts";
import { RouteError } from "../../live/ports.ts";
import { ApiError } from "../api-error.ts";
import type { ServerCore } from "../core.ts";
import type { Metrics } from "../metrics.ts";
import { sendEncoded } from "../reply.ts";
import { MSGPACK_TYPES, checkDepth, decodeMsgpack } from "../wire.ts";

/**
 * Bodies and errors: the two body types (msgpack restricted to plain data, and JSON; anything
 * else is a 415), and every error, thrown by a route or raised by fastify, answered as
 * `{error: {code, message, ...details}}` in the client's format. Not encapsulated: it covers every
 * route.
 */
const errors: FastifyPluginCallback<{ core: ServerCore }> = (app, { core }, done) => {
  app.removeAllContentTypeParsers();
  const jsonParser = app.getDefaultJsonParser("error", "error");
  app.addContentTypeParser("application/json", { parseAs: "string" }, (request, body, parsed) => {
    jsonParser(request, body as string, (err, value) => {
      if (err) return parsed(new ApiError(400, "malformed_body", `JSON body could not be parsed: ${err.message}`), undefined);
      try {
        checkDepth(value);
      } catch (e) {
        return parsed(e as Error, undefined);
      }
      parsed(null, value);
    });
  });
  app.addContentTypeParser([...MSGPACK_TYPES], { parseAs: "buffer" }, (_request, body, parsed) => {
    try {
      parsed(null, decodeMsgpack(body as Buffer));
    } catch (e) {
      parsed(e as Error, undefined);
    }
  });

  app.setErrorHandler((err, request, reply) => {
    const api = explained(toApiError(err), request.headers["content-type"], core.o.bodyLimit);
    core.metrics.recordError(api.code);
    if (api.status >= 500) core.o.log(`${request.method} ${request.url} -> ${api.status} ${api.code}: ${api.message}`);
    const body: Record<string, unknown> = { code: api.code, message: clipMessage(api.message) };
    if (api.details) Object.assign(body, api.details, { code: api.code, message: body.message });
    if (api.status === 401) reply.header("www-authenticate", 'Bearer realm="cardgym"');
    return sendEncoded(core, request, reply, api.status, { error: body });
  });
  app.setNotFoundHandler((request, reply) => {
    core.metrics.recordError("not_found");
    return sendEncoded(core, request, reply, 404, { error: { code: "not_found", message: `no route ${request.method} ${request.url.split("?")[0]}` } });
  });
  done();
};

export default fp(errors, { name: "cardgym-errors" });

/** fastify's own messages for a refused body type or size, replaced by ones that say what to send. */
function explained(api: ApiError, contentType: string | undefined, bodyLimit: number): ApiError {
  if (api.code === "unsupported_media_type") {
    return new ApiError(
      415,
      api.code,
      `unsupported content type ${contentType ? JSON.stringify(contentType) : "(none)"}; send application/msgpack (or application/json for debugging)`,
    );
  }
  if (api.code === "body_too_large")
    return new ApiError(413, api.code, `the request body is larger than the server's limit of ${bodyLimit} bytes (--body-limit)`);
  return api;
}

const FASTIFY_CODES: Record<string, [number, string]> = {
  FST_ERR_CTP_BODY_TOO_LARGE: [413, "body_too_large"],
  FST_ERR_CTP_INVALID_MEDIA_TYPE: [415, "unsupported_media_type"],
  FST_ERR_CTP_INVALID_CONTENT_LENGTH: [400, "malformed_body"],
  FST_ERR_CTP_EMPTY_JSON_BODY: [400, "malformed_body"],
  FST_ERR_CTP_INVALID_JSON_BODY: [400, "malformed_body"],
};

/** Any thrown value as the error the client is answered with; what is not a known request error is a 500. */
export function toApiError(err: unknown): ApiError {
  if (err instanceof ApiError) return err;
  if (err instanceof RouteError) return new ApiError(err.status, err.code, err.message, err.details);
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

/**
 * Answers HTTP-level client errors (raised before any route runs) in the documented error shape,
 * as JSON since the request never got far enough to ask for msgpack, and closes the connection.
 */
export function clientError(err: Error & { code?: string }, socket: Duplex, requestTimeoutMs: number, metrics: Metrics): void {
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
