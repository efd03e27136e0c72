/**
 * A live table's seed is its whole deal: every hidden card and the deck order follow from it. A
 * seat sees its own hand, so a seed drawn from a small space is a deal a player can look up by
 * trying every seed against that hand. Tables made without a seed must draw from the whole space
 * the engine's RNG tells apart (53 bits, engine/core/rng.ts), not from 32 bits, which one core
 * searches in minutes (docs/live.md: the `seed` of a table).
 */
import { describe, expect, it } from "vitest";
import { waitUntil } from "../fixtures/hang-guard.ts";
import { http, liveForFile, storesPerTest } from "./helpers.ts";

const stores = storesPerTest();
const server = liveForFile();

describe("table seeds", () => {
  it("a table made without a seed draws it from 53 bits", async () => {
    const store = stores();
    const seeds: number[] = [];
    for (let i = 0; i < 24; i++) {
      const made = await store.create({ game: "sevens", seats: ["human", "random", "random"] });
      seeds.push(store.get(made.table).seed);
    }
    for (const s of seeds) expect(Number.isSafeInteger(s) && s >= 0).toBe(true);
    // 24 seeds of 53 random bits all below 2^32: odds 2^-504.
    expect(seeds.some((s) => s >= 2 ** 32)).toBe(true);
    expect(new Set(seeds).size).toBe(seeds.length);
  });

  it("a table may be given any seed the engine tells apart, up to 2^53 - 1, and its record keeps it", async () => {
    const seed = Number.MAX_SAFE_INTEGER;
    const made = await server.create({ game: "sevens", facilitator: "audience", seats: ["random", "random", "random"], seed, deadlines: { botDelayMs: 0 } });
    expect(made.status).toBe(201);
    const id = made.body.table as string;
    await waitUntil(async () => (await http(server.live.base, "GET", `/v1/tables/${id}`)).body.status === "finished", "the table finished");
    const record = await http(server.live.base, "GET", `/v1/tables/${id}/record`);
    expect(record.body.seed).toBe(seed);
  });
});
