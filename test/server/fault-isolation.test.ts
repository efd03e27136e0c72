import { afterAll, describe, expect, it } from "vitest";
import { buildApp } from "../../env/server/index.ts";
import { fixtureAdapters, fixtureRegistry } from "../fixtures/count-game.ts";
import { testAgentFactory } from "../fixtures/agents.ts";
import { Client, injectTransport, maskedPicker, tensor } from "./client.ts";

/**
 * Quality 18: a session whose rules (or agent) throw is quarantined while 100 others step on with
 * exactly the hashes and reply bytes of a server that never saw the fault.
 */
const A = 6;
const SESSIONS = 100;
const ROUNDS = 30;

const make = () => buildApp({ registry: fixtureRegistry, adapters: fixtureAdapters, createAgent: testAgentFactory, exposeStateHashes: true });
const faulty = make();
const clean = make();
afterAll(async () => {
  await faulty.close();
  await clean.close();
});

interface Track {
  id: string;
  mask: Uint8Array;
  pick: ReturnType<typeof maskedPicker>;
}

async function open(client: Client, body: Record<string, unknown>, pickSeed: number): Promise<Track> {
  const id = await client.create(body);
  const r = await client.ok("POST", `/v1/sessions/${id}/reset`);
  return { id, mask: tensor(r.mask) as Uint8Array, pick: maskedPicker(pickSeed) };
}

describe("fault isolation", () => {
  it("quarantines the throwing sessions only; 100 others keep identical hashes and replies", async () => {
    const a = new Client(injectTransport(faulty));
    const b = new Client(injectTransport(clean));
    const bodies = Array.from({ length: SESSIONS }, (_, k) => ({ game: "count", numEnvs: 2, seed: 1000 + k, seats: ["learner", "random"] }));
    const tracksA: Track[] = [];
    const tracksB: Track[] = [];
    for (let k = 0; k < SESSIONS; k++) {
      tracksA.push(await open(a, bodies[k]!, k + 1));
      tracksB.push(await open(b, bodies[k]!, k + 1));
    }
    // Two bad sessions live among them on the faulty server: rules that throw at decision 6, an agent that throws on its 4th.
    const badRules = await open(a, { game: "count", numEnvs: 2, seed: 5, config: { throwAtStep: 6 } }, 7);
    const badAgent = await open(a, { game: "count", numEnvs: 2, seed: 6, seats: ["learner", "throwing:at=3"] }, 8);
    const bad = [badRules, badAgent];
    const failures: { id: string; status: number; code: string }[] = [];

    for (let round = 0; round < ROUNDS; round++) {
      const stepAll = async (client: Client, tracks: Track[]) =>
        Promise.all(
          tracks.map(async (t) => {
            const r = await client.call("POST", `/v1/sessions/${t.id}/step`, { actions: t.pick(t.mask, 2, A) });
            if (r.status === 200) t.mask = tensor(r.body.mask) as Uint8Array;
            return r;
          }),
        );
      // Interleave: the bad sessions are stepped concurrently with the good ones.
      const [repliesA, badReplies, repliesB] = await Promise.all([stepAll(a, tracksA), stepAll(a, bad), stepAll(b, tracksB)]);
      badReplies.forEach((r, k) => {
        if (r.status !== 200) failures.push({ id: bad[k]!.id, status: r.status, code: r.body.error.code });
      });
      for (let k = 0; k < SESSIONS; k++) {
        expect(repliesA[k]!.status).toBe(200);
        expect(Buffer.compare(repliesA[k]!.raw, repliesB[k]!.raw), `session ${k} round ${round}`).toBe(0);
      }
      if (round % 10 === 9 || round === ROUNDS - 1) {
        for (let k = 0; k < SESSIONS; k++) {
          const ha = (await a.ok("GET", `/v1/sessions/${tracksA[k]!.id}`)).hashes;
          const hb = (await b.ok("GET", `/v1/sessions/${tracksB[k]!.id}`)).hashes;
          expect(ha).toEqual(hb);
        }
      }
    }
    // Each bad session failed once with its fault (500), then was refused as quarantined (409).
    for (const [t, code] of [
      [badRules, "game_fault"],
      [badAgent, "agent_fault"],
    ] as const) {
      const mine = failures.filter((f) => f.id === t.id);
      expect(mine[0]).toMatchObject({ status: 500, code });
      expect(mine.length).toBeGreaterThan(1);
      for (const later of mine.slice(1)) expect(later).toMatchObject({ status: 409, code: "session_quarantined" });
    }
    const m = await a.ok("GET", "/metrics");
    expect(m.quarantined).toBe(2);
    expect(m.sessions).toBe(SESSIONS + 2);
  });
});
