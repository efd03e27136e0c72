import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { FastifyInstance } from "fastify";
import { registry } from "../../engine/games.ts";
import { adapters } from "../../env/games/index.ts";
import { buildApp } from "../../env/server/index.ts";
import { Client, fetchTransport, maskedPicker, tensor } from "./client.ts";

/**
 * A full episode of every shipped game through a real listening server (msgpack over HTTP), with
 * the shipped registry and adapters: games are covered here as soon as they are registered.
 */
const served = registry.ids().filter((id) => adapters.has(id));

let app: FastifyInstance;
let client: Client;
beforeAll(async () => {
  app = buildApp({ exposeStateHashes: true });
  const address = await app.listen({ host: "127.0.0.1", port: 0 });
  client = new Client(fetchTransport(address));
});
afterAll(async () => {
  await app.close();
});

async function episodes(game: string, seed: number, numEnvs: number): Promise<{ raws: Buffer[]; finished: number; rewardSums: number[]; finals: number[] }> {
  const spec = await client.ok("GET", `/v1/games/${game}/spec`);
  const A = spec.action.size as number;
  const id = await client.create({ game, numEnvs, seed });
  const pick = maskedPicker(seed);
  let r = await client.call("POST", `/v1/sessions/${id}/reset`);
  expect(r.status).toBe(200);
  const raws = [r.raw];
  const done = new Array<boolean>(numEnvs).fill(false);
  const sums = new Array<number>(numEnvs).fill(0);
  const start = Array.from(tensor(r.body.info.returns) as Float32Array).filter((_, k) => k % r.body.info.returns.shape[1] === 0);
  const finals = new Array<number>(numEnvs).fill(NaN);
  const seats = r.body.info.returns.shape[1] as number;
  const learner = 0;
  for (let t = 0; t < 20_000 && done.some((d) => !d); t++) {
    const mask = tensor(r.body.mask) as Uint8Array;
    const flags = tensor(r.body.terminated);
    const trunc = tensor(r.body.truncated);
    for (let i = 0; i < numEnvs; i++) {
      if (!flags[i] && !trunc[i]) {
        let legal = 0;
        for (let a = 0; a < A; a++) legal += mask[i * A + a]!;
        expect(legal, `${game} env ${i} has a legal action`).toBeGreaterThan(0);
      }
    }
    r = await client.call("POST", `/v1/sessions/${id}/step`, { actions: pick(mask, numEnvs, A) });
    expect(r.status, JSON.stringify(r.body.error ?? "")).toBe(200);
    raws.push(r.raw);
    const reward = tensor(r.body.reward) as Float32Array;
    const term = tensor(r.body.terminated);
    const returns = tensor(r.body.info.returns) as Float32Array;
    for (let i = 0; i < numEnvs; i++) {
      if (done[i]) continue;
      sums[i]! += reward[i]!;
      if (term[i] || tensor(r.body.truncated)[i]) {
        done[i] = true;
        finals[i] = returns[i * seats + learner]! - start[i]!;
      }
    }
  }
  await client.ok("DELETE", `/v1/sessions/${id}`);
  return { raws, finished: done.filter(Boolean).length, rewardSums: sums, finals };
}

describe("every registered game through HTTP", () => {
  if (served.length === 0) it.skip("no game is registered with an adapter yet", () => undefined);
  for (const game of served) {
    it(`${game}: full episodes end, rewards sum to returns, same seed gives byte-identical replies`, async () => {
      const a = await episodes(game, 21, 4);
      expect(a.finished).toBe(4);
      a.rewardSums.forEach((s, i) => expect(s).toBeCloseTo(a.finals[i]!, 4));
      const b = await episodes(game, 21, 4);
      expect(b.raws.length).toBe(a.raws.length);
      a.raws.forEach((raw, t) => expect(Buffer.compare(raw, b.raws[t]!), `${game} reply ${t}`).toBe(0));
    });
  }
});

describe("every registered multi-seat game in multi-agent (AEC) mode through HTTP", () => {
  const multi = served.filter((id) => registry.get(id).ok && (registry.get(id) as { value: { info: { maxSeats: number } } }).value.info.maxSeats >= 2);
  if (multi.length === 0) it.skip("no multi-seat game is registered yet", () => undefined);
  for (const game of multi) {
    it(`${game}: every seat client-controlled; the named seat acts; per-seat rewards sum to returns`, async () => {
      const info = (await client.ok("GET", "/v1/games")).games.find((g: { id: string }) => g.id === game);
      const seats = Array.from({ length: info.defaultSeats as number }, (_, k) => (k === 0 ? "learner" : "external"));
      const numEnvs = 3;
      const A = info.actionSize as number;
      const O = info.observationSize as number;
      const id = await client.create({ game, numEnvs, seed: 5, seats });
      let r = await client.ok("POST", `/v1/sessions/${id}/reset`);
      expect(r.mode).toBe("multi");
      expect(r.obs.shape).toEqual([numEnvs, seats.length, O]);
      const S = seats.length;
      const sums = new Array<number>(numEnvs * S).fill(0);
      const done = new Array<boolean>(numEnvs).fill(false);
      const pick = maskedPicker(13);
      for (let t = 0; t < 50_000 && done.some((d) => !d); t++) {
        const seat = tensor(r.seat) as Int32Array;
        for (let i = 0; i < numEnvs; i++) if (!done[i]) expect(seat[i]).toBeGreaterThanOrEqual(0);
        r = await client.ok("POST", `/v1/sessions/${id}/step`, { actions: pick(tensor(r.mask) as Uint8Array, numEnvs, A) });
        const reward = tensor(r.reward) as Float32Array;
        const returns = tensor(r.info.returns) as Float32Array;
        const term = tensor(r.terminated);
        for (let i = 0; i < numEnvs; i++) {
          if (done[i]) continue;
          for (let k = 0; k < S; k++) sums[i * S + k]! += reward[i * S + k]!;
          if (term[i]) {
            done[i] = true;
            expect((tensor(r.seat) as Int32Array)[i]).toBe(-1);
            for (let k = 0; k < S; k++) expect(sums[i * S + k]).toBeCloseTo(returns[i * S + k]!, 4);
            if (info.zeroSum) expect(Array.from(returns.subarray(i * S, (i + 1) * S)).reduce((a, b) => a + b, 0)).toBeCloseTo(0, 4);
          }
        }
      }
      expect(done.every(Boolean)).toBe(true);
      await client.ok("DELETE", `/v1/sessions/${id}`);
    });
  }
});
