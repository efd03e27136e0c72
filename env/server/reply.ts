import type { FastifyReply, FastifyRequest } from "fastify";
import type { ServerCore } from "./core.ts";
import { contentTypeOf, encodeReply, replyFormat, type WireFormat } from "./wire.ts";

/**
 * Answers with `payload` encoded as the client asked (Accept, else the request body's type, else
 * `unstated`). While the server shuts down, replies ask the client to close the connection.
 */
export function sendEncoded(
  core: ServerCore,
  request: FastifyRequest,
  reply: FastifyReply,
  status: number,
  payload: unknown,
  unstated: WireFormat = "msgpack",
): FastifyReply {
  const format = replyFormat(request.headers.accept, request.headers["content-type"], unstated);
  if (core.closing) reply.header("connection", "close");
  return reply.code(status).type(contentTypeOf(format)).send(encodeReply(payload, format));
}

/** Answers with bytes a session worker already encoded in the request's format (formatOf). */
export function sendPayload(core: ServerCore, request: FastifyRequest, reply: FastifyReply, status: number, payload: Buffer | string): FastifyReply {
  if (core.closing) reply.header("connection", "close");
  return reply
    .code(status)
    .type(contentTypeOf(formatOf(request)))
    .send(payload);
}

/** The wire format a request's reply is encoded in. */
export function formatOf(request: FastifyRequest): WireFormat {
  return replyFormat(request.headers.accept, request.headers["content-type"]);
}
