import { afterEach, describe, expect, it } from "vitest";
import { buildApp } from "../../env/server/index.ts";
import { fixtureAdapters, fixtureRegistry } from "../fixtures/count-game.ts";
import { testAgentFactory } from "../fixtures/agents.ts";
import { Client, injectTransport, tensor } from "./client.ts";

const apps: ReturnType<typeof buildApp>[] = [];
function setup() {
  const app = buildApp({ registry: fixtureRegistry, adapters: fixtureAdapters, createAgent: testAgentFactory, exposeStateHashes: true });
  apps.push(app);
  return new Client(injectTransport(app));
}
afterEach(async () => {
  await Promise.all(apps.splice(0).map((a) => a.close()));
});
const A = 6;
const first = (mask: Uint8Array, n: number) => Array.from({ length: n }, (_, i) => Math.max(0, mask.subarray(i * A, (i + 1) * A).indexOf(1)));

describe("trainer options on the wire", () => {
  it("same-step sessions carry final rows on every step; options are echoed and validated", async () => {
    const client = setup();
    const created = await client.ok("POST", "/v1/sessions", {
      game: "count",
      numEnvs: 3,
      seed: 1,
      autoreset: "same-step",
      learnerSeat: "alternating",
      illegalAction: "terminate",
      illegalReward: -2,
    });
    expect([created.autoreset, created.learnerSeat, created.illegalAction, created.illegalReward]).toEqual(["same-step", "alternating", "terminate", -2]);
    const id = created.session as string;
    let r = await client.ok("POST", `/v1/sessions/${id}/reset`, {});
    expect(r.final).toBeUndefined();
    expect(Array.from(tensor(r.info.learnerSeat))).toEqual([0, 0, 0]);
    let ended = 0;
    for (let t = 0; t < 60; t++) {
      r = await client.ok("POST", `/v1/sessions/${id}/step`, { actions: first(tensor(r.mask) as Uint8Array, 3) });
      const term = tensor(r.terminated);
      const envs = Array.from(tensor(r.final.envs));
      expect(envs).toEqual([0, 1, 2].filter((i) => term[i] === 1));
      expect(r.final.obs.shape).toEqual([envs.length, r.obs.shape[1]]);
      expect(tensor(r.final.episodeStep).every((x) => x > 0)).toBe(true);
      ended += envs.length;
      expect(Array.from(tensor(r.info.illegal))).toEqual([0, 0, 0]);
    }
    expect(ended).toBeGreaterThan(0);
    for (const bad of [{ autoreset: "sometimes" }, { learnerSeat: "left" }, { illegalAction: "ignore" }, { illegalReward: "x" }]) {
      const res = await client.call("POST", "/v1/sessions", { game: "count", ...bad });
      expect(res.status).toBe(400);
      expect(res.body.error.code).toBe("invalid_body");
    }
  });

  it("reset takes envs and seeds; render draws one env", async () => {
    const client = setup();
    const id = await client.create({ game: "count", numEnvs: 4, seed: 3 });
    await client.ok("POST", `/v1/sessions/${id}/reset`, {});
    const before = (await client.ok("GET", `/v1/sessions/${id}`)).hashes as string[];
    const r = await client.ok("POST", `/v1/sessions/${id}/reset`, { envs: [1, 3], seeds: [5, null] });
    expect(Array.from(tensor(r.info.episode))).toEqual([1, 1, 1, 2]);
    const after = (await client.ok("GET", `/v1/sessions/${id}`)).hashes as string[];
    expect(after[0]).toBe(before[0]);
    expect(after[2]).toBe(before[2]);
    expect(after[1]).not.toBe(before[1]);
    const bad = await client.call("POST", `/v1/sessions/${id}/reset`, { envs: [7] });
    expect(bad.status).toBe(400);
    expect(bad.body.error.code).toBe("invalid_config");
    const both = await client.call("POST", `/v1/sessions/${id}/reset`, { seed: 1, seeds: [1, 2, 3, 4] });
    expect(both.status).toBe(400);
    const drawn = await client.ok("GET", `/v1/sessions/${id}/render?env=2`);
    expect(drawn.env).toBe(2);
    expect(drawn.text).toContain("legal actions:");
    const outside = await client.call("GET", `/v1/sessions/${id}/render?env=9`);
    expect(outside.status).toBe(400);
  });
});
