import { afterAll, describe, expect, it } from "vitest";
import { unwrap } from "../../engine/core/index.ts";
import { registry } from "../../engine/games.ts";
import { adapters } from "../../env/games/index.ts";
import { LearningFacilitator } from "../../env/learning-facilitator.ts";
import { float16Bits, ObsWire } from "../../env/obs-dtype.ts";
import { buildApp } from "../../env/server/index.ts";
import { float16Value } from "../../env/server/wire.ts";
import { EnvRequestError } from "../../env/errors.ts";
import { Client, injectTransport, maskedPicker, tensor } from "./client.ts";

const app = buildApp({});
const client = new Client(injectTransport(app));
afterAll(() => app.close());

/** What a client does with a uint8/bits reply (python/cardgym/client.py does the same with numpy). */
function decode(info: { dtype: string; steps?: number[]; bitBytes?: number; rowBytes: number }, data: Uint8Array, rows: number): Float32Array {
  const enc = adapters.get("sevens")!.observation;
  const size = enc.size;
  const out = new Float32Array(rows * size);
  const den = new Float32Array(size);
  const bits: number[] = [];
  const rest: number[] = [];
  enc.layout.forEach((f, i) => {
    const d = info.steps![i]!;
    for (let j = f.offset; j < f.offset + f.length; j++) {
      den[j] = d;
      (info.dtype === "bits" && d === 1 && f.high !== undefined && f.high <= 1 ? bits : rest).push(j);
    }
  });
  for (let r = 0; r < rows; r++) {
    const row = data.subarray(r * info.rowBytes, (r + 1) * info.rowBytes);
    if (info.dtype === "uint8") {
      for (let j = 0; j < size; j++) out[r * size + j] = Math.fround(row[j]! / den[j]!);
    } else {
      bits.forEach((j, b) => (out[r * size + j] = (row[b >> 3]! >> (b & 7)) & 1));
      rest.forEach((j, b) => (out[r * size + j] = Math.fround(row[info.bitBytes! + b]! / den[j]!)));
    }
  }
  return out;
}

/** Bit-identical float arrays (toEqual on large typed arrays is slow). */
function sameFloats(a: Float32Array, b: Float32Array): boolean {
  return Buffer.from(a.buffer, a.byteOffset, a.byteLength).equals(Buffer.from(b.buffer, b.byteOffset, b.byteLength));
}

describe("obsDtype", () => {
  it("float16: round to nearest even, subnormals, overflow, and the JSON value of a bit pattern", () => {
    const cases: [number, number][] = [
      [0, 0],
      [1, 0x3c00],
      [-2, 0xc000],
      [0.5, 0x3800],
      [1 / 3, 0x3555],
      [65504, 0x7bff],
      [65520, 0x7c00],
      [1e9, 0x7c00],
      [2 ** -24, 0x0001],
      [2 ** -25, 0],
      [3 * 2 ** -26, 0x0001],
      [2 ** -14, 0x0400],
      [2049, 0x6800],
      [2051, 0x6802],
      [Infinity, 0x7c00],
    ];
    for (const [x, bits] of cases) expect([x, float16Bits(x)]).toEqual([x, bits]);
    expect(Number.isNaN(float16Value(float16Bits(NaN)))).toBe(true);
    for (let h = 0; h < 0x7c00; h += 37) expect(float16Bits(float16Value(h))).toBe(h); // every finite pattern round-trips
  });

  it("sevens uint8 and bits decode to exactly the float32 observations, over random games of several configs", () => {
    const adapter = adapters.get("sevens")!;
    const game = unwrap(registry.get("sevens"));
    const size = adapter.observation.size;
    for (const raw of [{ seats: 3, startPlayer: "diamond7" }, { seats: 4 }, { seats: 6, passLimit: 0 }, { seats: 5, passLimit: 20, voluntaryPass: true }]) {
      const config = unwrap(game.parseConfig(raw));
      const wires = [ObsWire.create("uint8", adapter.observation, config, "sevens"), ObsWire.create("bits", adapter.observation, config, "sevens")];
      let rows = 0;
      for (let seed = 1; seed <= 4; seed++) {
        let state = game.setup(config, seed);
        let x = seed;
        for (;;) {
          const actor = game.actor(state);
          for (let seat = 0; seat < config.seats; seat++) {
            const obs = new Float32Array(size);
            adapter.observation.encode(game.view(state, seat), obs);
            for (const w of wires) {
              const wire = w.encode([1, size], obs);
              expect(wire.values.length).toBe(w.info.rowBytes);
              expect(sameFloats(decode(w.info as never, wire.values as Uint8Array, 1), obs)).toBe(true);
            }
            rows++;
          }
          if (actor === "terminal") break;
          const legal = game.legal(state);
          x = (x * 1103515245 + 12345) % 2 ** 31;
          state = game.applyTrusted(state, legal[x % legal.length]);
        }
      }
      expect(rows).toBeGreaterThan(300);
    }
  });

  it("a game whose encoder declares no steps refuses uint8 and bits, and takes float16", () => {
    for (const dtype of ["uint8", "bits"] as const) {
      expect(() => LearningFacilitator.create({ adapter: adapters.get("dcg")!, numEnvs: 1, seed: 1, obsDtype: dtype })).toThrow(EnvRequestError);
    }
    expect(LearningFacilitator.create({ adapter: adapters.get("dcg")!, numEnvs: 1, seed: 1, obsDtype: "float16" }).settings.obsWire.info.rowBytes).toBe(
      2 * adapters.get("dcg")!.observation.size,
    );
  });

  it("64-env sevens replies: bits at most a quarter of float32's bytes, uint8 under 0.3, float16 about half; same decoded obs and other fields", async () => {
    const n = 64;
    const A = adapters.get("sevens")!.actions.size;
    const size = adapters.get("sevens")!.observation.size;
    const sessions: Record<string, { id: string; info: any }> = {};
    for (const dtype of ["float32", "float16", "uint8", "bits"]) {
      const created = await client.ok("POST", "/v1/sessions", { game: "sevens", numEnvs: n, seed: 5, ...(dtype === "float32" ? {} : { obsDtype: dtype }) });
      expect(created.obsWire.dtype).toBe(dtype);
      sessions[dtype] = { id: created.session, info: created.obsWire };
    }
    const bad = await client.call("POST", "/v1/sessions", { game: "dcg", obsDtype: "uint8" });
    expect([bad.status, bad.body.error.code]).toEqual([400, "invalid_config"]);
    const pick = maskedPicker(3);
    const bytes: Record<string, number> = { float32: 0, float16: 0, uint8: 0, bits: 0 };
    let actions: number[] | null = null;
    for (let step = 0; step < 12; step++) {
      const replies: Record<string, any> = {};
      for (const [dtype, s] of Object.entries(sessions)) {
        const r =
          actions === null ? await client.call("POST", `/v1/sessions/${s.id}/reset`) : await client.call("POST", `/v1/sessions/${s.id}/step`, { actions });
        expect(r.status).toBe(200);
        bytes[dtype]! += r.raw.length;
        replies[dtype] = r.body;
      }
      const want = tensor(replies.float32.obs) as Float32Array;
      for (const dtype of ["uint8", "bits"]) {
        const o = replies[dtype].obs;
        expect(o.dtype).toBe("uint8");
        expect(sameFloats(decode(sessions[dtype]!.info, new Uint8Array(o.data), n), want)).toBe(true);
        expect(replies[dtype].mask).toEqual(replies.float32.mask);
        expect(replies[dtype].reward).toEqual(replies.float32.reward);
      }
      const half = replies.float16.obs;
      expect([half.dtype, half.shape]).toEqual(["float16", [n, size]]);
      const h = new Uint16Array(new Uint8Array(half.data).slice().buffer);
      for (let j = 0; j < want.length; j += 7) expect(Math.abs(float16Value(h[j]!) - want[j]!)).toBeLessThanOrEqual(want[j]! / 1024);
      actions = pick(tensor(replies.float32.mask) as Uint8Array, n, A);
    }
    // Whole replies, msgpack bytes as sent.
    expect(bytes.bits! / bytes.float32!).toBeLessThanOrEqual(0.25);
    expect(bytes.uint8! / bytes.float32!).toBeLessThan(0.3);
    expect(bytes.float16! / bytes.float32!).toBeLessThan(0.55);
    console.log(
      `sevens 64-env reply bytes vs float32: float16 ${(bytes.float16! / bytes.float32!).toFixed(3)}, uint8 ${(bytes.uint8! / bytes.float32!).toFixed(3)}, bits ${(bytes.bits! / bytes.float32!).toFixed(3)}`,
    );
  });
});
