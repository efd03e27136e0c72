/**
 * A worker thread of the arena pool (scripts/arena/pool.ts): plays the SPRT groups it is sent and
 * posts back the candidate's per-game scores. Several groups run at once inside a worker, so ONNX
 * agents on it batch their decisions across games. Each request names its match, so one pool
 * serves every test of a run (a worker loads the engine and onnxruntime once).
 */
import { parentPort, workerData } from "node:worker_threads";
import { unwrap, type AnyGame } from "../../engine/core/index.ts";
import { registry } from "../../engine/games.ts";
import { playGroup, type Context } from "../../agents/arena/sprt-run.ts";
import { playFixture } from "../../agents/arena/tournament.ts";
import { adapters } from "../../env/games/index.ts";
import { specOf } from "../../env/spec.ts";
import type { PoolInit, PoolReply, PoolRequest } from "./pool.ts";

const init = workerData as PoolInit;
const games = new Map<string, { game: AnyGame; context: Context }>();
function gameFor(id: string) {
  let hit = games.get(id);
  if (!hit) {
    const game = unwrap(registry.get(id));
    const adapter = adapters.get(id);
    const context = {
      ...(adapter ? { adapter, actionSpecHash: specOf(adapter).actionSpecHash } : {}),
      ...(init.modelRoot === undefined ? {} : { modelRoot: init.modelRoot }),
    };
    hit = { game, context };
    games.set(id, hit);
  }
  return hit;
}

const port = parentPort!;
port.on("message", (req: PoolRequest) => {
  Promise.resolve()
    .then(async (): Promise<PoolReply> => {
      if ("roundRobin" in req) {
        const rr = req.roundRobin;
        const { game, context } = gameFor(rr.game);
        const timing = rr.agents.map(() => ({ decisions: 0, seconds: 0 }));
        // One game per request; the worker's own concurrency is the requests it holds at once.
        const options = { game, config: rr.config, agents: rr.agents, games: 1, seed: rr.seed, context, ...(rr.fill === undefined ? {} : { fill: rr.fill }) };
        const result = await playFixture(options, rr.fixture, timing);
        return { id: req.id, result, timing };
      }
      const { game, context } = gameFor(req.match.game);
      const config = unwrap(game.parseConfig(req.match.config)) as { seats: number };
      return { id: req.id, scores: await playGroup(game, config, req.match.matchup, context, req.group) };
    })
    .then(
      (reply) => port.postMessage(reply),
      (e: unknown) => port.postMessage({ id: req.id, error: e instanceof Error ? e.message : String(e) } satisfies PoolReply),
    );
});
port.postMessage({ ready: true });
