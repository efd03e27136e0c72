/**
 * A worker thread of the arena pool (scripts/arena/pool.ts): plays the SPRT groups it is sent and
 * posts back the candidate's per-game scores. Several groups run at once inside a worker, so ONNX
 * agents on it batch their decisions across games.
 */
import { parentPort, workerData } from "node:worker_threads";
import { unwrap } from "../../engine/core/index.ts";
import { registry } from "../../engine/games.ts";
import { playGroup } from "../../agents/arena/sprt-run.ts";
import { adapters } from "../../env/games/index.ts";
import { specOf } from "../../env/spec.ts";
import type { PoolInit, PoolReply, PoolRequest } from "./pool.ts";

const init = workerData as PoolInit;
const game = unwrap(registry.get(init.game));
const parsed = unwrap(game.parseConfig(init.config));
const config = parsed as { seats: number };
const adapter = adapters.get(game.info.id);
const context = {
  ...(adapter ? { adapter, actionSpecHash: specOf(adapter).actionSpecHash } : {}),
  ...(init.modelRoot === undefined ? {} : { modelRoot: init.modelRoot }),
};
const port = parentPort!;
port.on("message", (req: PoolRequest) => {
  playGroup(game, config, init.matchup, context, req.group).then(
    (scores) => port.postMessage({ group: req.group, scores } satisfies PoolReply),
    (e: unknown) => port.postMessage({ group: req.group, error: e instanceof Error ? e.message : String(e) } satisfies PoolReply),
  );
});
port.postMessage({ ready: true });
