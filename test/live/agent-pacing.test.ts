/**
 * A table's agents on its decision loop: an agent's decision waits `botDelayMs` on the table's
 * clock, and an agent runner that is full makes the seat ask again later instead of taking the
 * default. Neither changes what the agents decide: the record equals an unpaced table's.
 */
import { afterEach, describe, expect, it, vi } from "vitest";
import { ManualClock } from "../../agents/clock.ts";
import { AgentBusy, AgentRunner } from "../../env/live/agent-runner.ts";
import type { Table } from "../../env/live/table.ts";
import { storesPerTest } from "./helpers.ts";

const SEATS = ["random", "computer", "random"];
const SEED = 17;

const newStore = storesPerTest();
afterEach(() => void vi.restoreAllMocks());

async function tableOn(clock: ManualClock, botDelayMs: number, log: string[]): Promise<Table> {
  const store = newStore({ clock, log: (l) => log.push(l) });
  const made = await store.create({ game: "sevens", seats: SEATS, seed: SEED, facilitator: "audience", deadlines: { botDelayMs } });
  return store.get(made.table);
}

/** Waits until `done` (agents compute on setImmediate turns, journal writes on the thread pool); the bound only guards against a hang. */
async function until(done: () => boolean, what: string): Promise<void> {
  const giveUp = Date.now() + 60_000;
  while (!done()) {
    if (Date.now() > giveUp) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 2));
  }
}

describe("a table's agents on the decision loop", () => {
  it("an agent's decision counts botDelayMs after it was asked, by the table's clock; the record is an unpaced table's", async () => {
    const plain = await tableOn(new ManualClock(), 0, []);
    await until(() => plain.isFinished, "the unpaced game");
    const clock = new ManualClock();
    const paced = await tableOn(clock, 1_000, []);
    while (!paced.isFinished) {
      const seq = paced.seq;
      // The agent answered: its decision waits on the clock (agent seats have no deadline, so that is the only timer).
      await until(() => clock.pending() === 1, `the agent's answer at seq ${seq}`);
      clock.advance(999);
      expect(clock.pending()).toBe(1);
      expect(paced.seq).toBe(seq);
      clock.advance(1);
      await until(() => paced.seq === seq + 1, `seq ${seq + 1}`);
    }
    expect(paced.record().decisions).toEqual(plain.record().decisions);
    expect(paced.record().finalHash).toBe(plain.record().finalHash);
  });

  it("a full agent runner makes the seat ask again 100 ms later, not take the default; the record is unchanged", async () => {
    const plain = await tableOn(new ManualClock(), 0, []);
    await until(() => plain.isFinished, "the unhindered game");
    // Every other job is refused as if the runner's queue were full.
    const run = AgentRunner.prototype.run;
    let calls = 0;
    vi.spyOn(AgentRunner.prototype, "run").mockImplementation(function <T>(this: AgentRunner, job: () => T | Promise<T>): Promise<T> {
      return ++calls % 2 === 1 ? Promise.reject(new AgentBusy()) : (run.call(this, job) as Promise<T>);
    });
    const clock = new ManualClock();
    const log: string[] = [];
    const busy = await tableOn(clock, 0, log);
    let retries = 0;
    while (!busy.isFinished) {
      const seq = busy.seq;
      await until(() => clock.pending() === 1, `the retry at seq ${seq}`);
      expect(busy.seq).toBe(seq);
      clock.advance(99);
      expect(clock.pending()).toBe(1);
      clock.advance(1);
      retries++;
      await until(() => busy.seq === seq + 1, `seq ${seq + 1}`);
    }
    expect(retries).toBe(busy.seq);
    const record = busy.record();
    expect(record.decisions).toEqual(plain.record().decisions);
    expect(record.signed.entries.every((e) => e.cause === "agent")).toBe(true);
    expect(log.filter((l) => /default applied/.test(l))).toEqual([]);
  });
});
