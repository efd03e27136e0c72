import type { TypeBoxTypeProvider } from "@fastify/type-provider-typebox";
import type { FastifyPluginCallback } from "fastify";
import { memoryUsage } from "node:process";
import type { GameAdapter } from "../../codec.ts";
import { specOf } from "../../spec.ts";
import { ApiError } from "../api-error.ts";
import type { ServerCore } from "../core.ts";
import type { ResolvedOptions } from "../options.ts";
import { sendEncoded } from "../reply.ts";
import { gameParams } from "../schemas.ts";
import { gameSummary } from "../session-info.ts";

/**
 * What the server is and serves: the probes (`/healthz`, `/metrics`, JSON unless msgpack is asked
 * for, so `curl /healthz` prints something readable) and the served games with their env specs.
 */
const games: FastifyPluginCallback<{ core: ServerCore }> = (app, { core }, done) => {
  const { o, sessions, metrics } = core;
  app.get("/healthz", (request, reply) => sendEncoded(core, request, reply, 200, { ok: true, sessions: sessions.size }, "json"));

  app.get("/metrics", (request, reply) => {
    core.runtime.collectFastSteps();
    const mem = memoryUsage();
    const body = {
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
      tables: core.tables?.stats(),
    };
    return sendEncoded(core, request, reply, 200, body, "json");
  });

  app.get("/v1/games", (request, reply) => {
    const list = o.registry.ids().flatMap((id) => {
      const adapter = o.adapters.get(id);
      return adapter === undefined ? [] : [gameSummary(id, adapter)];
    });
    return sendEncoded(core, request, reply, 200, { games: list });
  });

  app
    .withTypeProvider<TypeBoxTypeProvider>()
    .get("/v1/games/:game/spec", { schema: { params: gameParams } }, (request, reply) =>
      sendEncoded(core, request, reply, 200, specOf(findGame(o, request.params.game))),
    );
  done();
};

export default games;

/** The ids of the registered games that have an RL adapter. */
function servedGames(o: ResolvedOptions): string[] {
  return o.registry.ids().filter((id) => o.adapters.has(id));
}

/** The served game's adapter, or 404 unknown_game naming the games served. */
export function findGame(o: ResolvedOptions, id: string): GameAdapter {
  const found = o.registry.get(id);
  const adapter = o.adapters.get(id);
  if (!found.ok || !adapter) {
    const known = servedGames(o).join(", ") || "none yet";
    throw new ApiError(404, "unknown_game", `no game ${JSON.stringify(id)} with an RL adapter; served games: ${known}`);
  }
  return adapter;
}
