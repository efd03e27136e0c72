import Fastify, { type FastifyInstance } from "fastify";
import { tableRoutes } from "../live/routes.ts";
import { ServerCore, type CardgymState } from "./core.ts";
import { resolveOptions, type ServerOptions } from "./options.ts";
import auth from "./plugins/auth.ts";
import errors, { clientError } from "./plugins/errors.ts";
import games from "./plugins/games.ts";
import lifecycle from "./plugins/lifecycle.ts";
import sessionRoutes from "./plugins/sessions.ts";
import webRoutes from "./plugins/web.ts";

export type { CardgymState } from "./core.ts";

declare module "fastify" {
  interface FastifyInstance {
    cardgym: CardgymState;
  }
}

/**
 * The HTTP face of LearningFacilitator sessions and live tables. Returns the fastify app without
 * listening: tests use `inject`, scripts/serve.ts calls listen. See docs/protocol.md for the wire
 * contract and docs/architecture.md for the plugins composed here.
 */
export function buildApp(options: ServerOptions = {}): FastifyInstance {
  const o = resolveOptions(options);
  const core = new ServerCore(o);
  const app = Fastify({
    logger: o.logger,
    bodyLimit: o.bodyLimit,
    requestTimeout: o.requestTimeoutMs,
    // Node checks request and header deadlines on this interval (default 30 s, which let a stalled
    // body hold a connection long past --request-timeout): check often enough to honour it within 1 s.
    http: { requestTimeout: o.requestTimeoutMs, headersTimeout: o.requestTimeoutMs, connectionsCheckingInterval: Math.min(250, o.requestTimeoutMs) },
    // Requests that never complete and malformed HTTP get the documented error shape too.
    clientErrorHandler: (err, socket) => clientError(err, socket, o.requestTimeoutMs, core.metrics),
    // Requests arriving during shutdown get our own 503 (the lifecycle plugin), in the usual error shape.
    return503OnClosing: false,
    forceCloseConnections: "idle",
    // Bodies are checked, never coerced: "3" is not 3, and unknown fields are refused by the schemas.
    ajv: { customOptions: { coerceTypes: false, removeAdditional: false, useDefaults: false, allErrors: false } },
  });
  app.server.maxConnections = o.maxConnections;
  app.decorate("cardgym", core.state);
  // In-thread sessions (workers: 0) serve their fast path from this thread once the app is ready.
  if (o.fastPath !== null && o.workers === 0) app.addHook("onReady", async () => void (await core.runtime.listenFastPath()));

  // Shared by every route, so not encapsulated, and in this order: a request is counted and
  // refused while shutting down before its token is checked.
  app.register(lifecycle, { core });
  app.register(auth, { token: o.token });
  app.register(errors, { core });
  // The routes, each plugin in its own context.
  app.register(games, { core });
  app.register(sessionRoutes, { core });
  if (core.tables) {
    app.register(tableRoutes, { store: core.tables });
    // The browser client (docs/web.md) talks to the table routes, so it is served with them.
    if (o.webDir !== null) app.register(webRoutes, { dir: o.webDir });
  }
  return app;
}
