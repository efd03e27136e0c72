import { describe, expect, it } from "vitest";
import { adapters } from "../../env/games/index.ts";
import type { FromWorker, HostRequest } from "../../env/server/host-protocol.ts";
import { SessionHost } from "../../env/server/session-host.ts";
import { createAgent } from "../../agents/spec.ts";
import { registry } from "../../engine/games.ts";
import { LearningFacilitator } from "../../env/learning-facilitator.ts";

describe("the worker boundary: one typed message per operation", () => {
  it("types each request's body by its operation (tsc checks the expect-error lines)", () => {
    const step: HostRequest = { op: "step", session: "s", body: { actions: [0, 1] }, format: "msgpack" };
    const reset: HostRequest = { op: "reset", session: "s", body: { seed: 3, envs: [0] }, format: "json" };
    // @ts-expect-error a step carries its actions
    const noActions: HostRequest = { op: "step", session: "s", format: "msgpack" };
    // @ts-expect-error a reset body has the route schema's type: a seed is a number
    const textSeed: HostRequest = { op: "reset", session: "s", body: { seed: "3" }, format: "msgpack" };
    // @ts-expect-error a create body names its game
    const noGame: HostRequest = { op: "create", session: "s", body: { numEnvs: 2 }, format: "msgpack" };
    // @ts-expect-error a worker's ready message says whether it serves the fast path
    const ready: FromWorker = { kind: "ready" };
    expect([step, reset, noActions, textSeed, noGame, ready].map((m) => ("op" in m ? m.op : m.kind))).toEqual([
      "step",
      "reset",
      "step",
      "reset",
      "create",
      "ready",
    ]);
  });

  it("a session created, reset and stepped through typed requests rebuilds to the same digest", async () => {
    const host = new SessionHost({ registry, adapters, createAgent, modelDir: "models" });
    const seats = ["learner", "random", "random"];
    const create = { game: "sevens", numEnvs: 3, seed: 5, seats };
    const created = await host.handle({ op: "create", session: "a", body: create, format: "msgpack" });
    expect(created.error).toBeUndefined();
    expect(created.meta).toEqual({ game: "sevens", mode: "single", seats, numEnvs: 3 });
    const reset = await host.handle({ op: "reset", session: "a", body: { seed: 9 }, format: "msgpack" });
    // The same session in-process (sessions are deterministic) gives each env's first legal action.
    const twin = LearningFacilitator.create({ adapter: adapters.get("sevens")!, numEnvs: 3, seed: 5, seats, createAgent });
    await twin.reset({ seed: 9 });
    const { mask } = twin.mask();
    const size = twin.settings.spec.action.size;
    const actions = [0, 1, 2].map((i) => mask.subarray(i * size, (i + 1) * size).indexOf(1));
    const step = await host.handle({ op: "step", session: "a", body: { actions: Int32Array.from(actions) }, format: "msgpack" });
    expect(step.error).toBeUndefined();
    expect(step.digest).not.toBe(reset.digest);
    const log = [
      { op: "reset" as const, body: { seed: 9 } },
      { op: "step" as const, body: { actions } },
    ];
    const rebuilt = await host.handle({ op: "rebuild", session: "b", body: { create, log }, format: "msgpack" });
    expect(rebuilt.error).toBeUndefined();
    expect(rebuilt.digest).toBe(step.digest);
  });
});
