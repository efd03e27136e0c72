import { describe, expect, it } from "vitest";
import { EnvRequestError } from "../../env/errors.ts";
import { LearningFacilitator, type EnvBatch, type FacilitatorOptions } from "../../env/learning-facilitator.ts";
import { countAdapter } from "../fixtures/count-game.ts";
import { testAgentFactory } from "../fixtures/agents.ts";
import { maskedPicker } from "../server/client.ts";

const A = countAdapter.actions.size;
const O = countAdapter.observation.size;
const make = (o: Partial<FacilitatorOptions> = {}) =>
  LearningFacilitator.create({ adapter: countAdapter, numEnvs: 4, seed: 11, createAgent: testAgentFactory, ...o });

/** Env i's row of a batch, as plain arrays. */
function row(b: EnvBatch, i: number) {
  return {
    obs: Array.from(b.obs.subarray(i * O, (i + 1) * O)),
    mask: Array.from(b.mask.subarray(i * A, (i + 1) * A)),
    reward: b.reward[i],
    terminated: b.terminated[i],
    truncated: b.truncated[i],
    episode: b.episode[i],
    learnerSeat: b.learnerSeat[i],
  };
}

/** The row of env i in a same-step reply's final rows, or -1 when its episode did not end. */
function finalIndex(b: EnvBatch, i: number): number {
  return Array.from(b.final!.envs).indexOf(i);
}

/** The first legal action of every env (0 on done rows). */
function firstLegal(b: EnvBatch): number[] {
  return Array.from({ length: b.numEnvs }, (_, i) => {
    const k = b.mask.subarray(i * A, (i + 1) * A).indexOf(1);
    return k < 0 ? 0 : k;
  });
}

describe("seeding: env i of a session seeded s is a one-env session seeded s + i", () => {
  it("step for step, across episodes, from creation and from reset(seed)", async () => {
    const vec = make({ seed: 100 });
    const singles = [0, 1, 2, 3].map((i) => make({ numEnvs: 1, seed: 100 + i }));
    const pick = maskedPicker(3);
    let b = await vec.reset();
    let ones = await Promise.all(singles.map((f) => f.reset()));
    for (let t = 0; t < 80; t++) {
      for (let i = 0; i < 4; i++) expect(row(b, i)).toEqual(row(ones[i]!, 0));
      const actions = pick(b.mask, 4, A);
      b = await vec.step(actions);
      ones = await Promise.all(singles.map((f, i) => f.step([actions[i]!])));
    }
    expect(Math.max(...b.episode)).toBeGreaterThan(2);
    b = await vec.reset(7);
    ones = await Promise.all(singles.map((f, i) => f.reset(7 + i)));
    for (let i = 0; i < 4; i++) expect(row(b, i)).toEqual(row(ones[i]!, 0));
  });

  it("seeds lists re-seed per env; null continues the env's stream", async () => {
    const f = make({ seed: 5 });
    await f.reset();
    const b = await f.reset({ seeds: [42, null, 42, null] });
    const fresh = await make({ numEnvs: 1, seed: 42 }).reset();
    expect(row(b, 0)).toEqual(row(fresh, 0));
    expect(row(b, 2)).toEqual(row(fresh, 0));
    expect(b.episode[1]).toBe(2); // its stream went on to episode 2
    expect(b.episode[0]).toBe(1);
    await expect(f.reset({ seeds: [1, 2] })).rejects.toThrow(EnvRequestError);
  });
});

describe("per-env reset", () => {
  it("restarts only the listed envs and leaves the others exactly as they were", async () => {
    const f = make();
    let b = await f.reset();
    b = await f.step(firstLegal(b));
    const before = [0, 1, 2, 3].map((i) => row(b, i));
    const hashes = f.hashes();
    const r = await f.reset({ envs: [2], seeds: [9] });
    for (const i of [0, 1, 3]) expect({ ...row(r, i), reward: 0 }).toEqual({ ...before[i], reward: 0 });
    expect(f.hashes()[0]).toBe(hashes[0]);
    expect(f.hashes()[2]).not.toBe(hashes[2]);
    expect(row(r, 2)).toEqual(row(await make({ numEnvs: 1, seed: 9 }).reset(), 0));
    await expect(make().reset({ envs: [0] })).rejects.toThrow(/first reset/);
    await expect(f.reset({ envs: [4] })).rejects.toThrow(/not an env index/);
    await expect(f.reset({ envs: [1, 1] })).rejects.toThrow(/twice/);
  });
});

describe("same-step autoreset", () => {
  it("gives the next-step session's rows one step earlier, with the ended episode in final", async () => {
    const next = make({ autoreset: "next-step" });
    const same = make({ autoreset: "same-step" });
    let bn = await next.reset();
    let bs = await same.reset();
    let ended = 0;
    for (let t = 0; t < 150; t++) {
      const actions = firstLegal(bs);
      const an = firstLegal(bn);
      bs = await same.step(actions);
      // Feed next-step the same actions on live rows; its done rows restart on the following step.
      bn = await next.step(an.map((a, i) => (bn.terminated[i] || bn.truncated[i] ? 0 : a)));
      const doneRows = [0, 1, 2, 3].filter((i) => bn.terminated[i] || bn.truncated[i]);
      const final = bs.final!;
      expect(Array.from(final.envs)).toEqual(doneRows);
      for (let i = 0; i < 4; i++) {
        expect(bs.terminated[i]).toBe(bn.terminated[i]);
        expect(bs.reward[i]).toBe(bn.reward[i]);
        const j = finalIndex(bs, i);
        if (doneRows.includes(i)) {
          ended++;
          // final holds the ended episode's last observation; the row already holds the new one.
          expect(Array.from(final.obs.subarray(j * O, (j + 1) * O))).toEqual(Array.from(bn.obs.subarray(i * O, (i + 1) * O)));
          expect(bs.mask.subarray(i * A, (i + 1) * A).some((m) => m === 1)).toBe(true);
          expect(bs.episode[i]).toBe(bn.episode[i]! + 1);
          expect(final.episodeStep[j]).toBe(bn.episodeStep[i]);
        } else {
          expect(j).toBe(-1);
        }
      }
      // Bring next-step in line: its done rows restart now (action ignored), then compare rows.
      if (doneRows.length > 0) {
        bn = await next.step(firstLegal(bn));
        for (const i of doneRows) expect({ ...row(bs, i), reward: 0, terminated: 0 }).toEqual(row(bn, i));
        // Live rows advanced in `next` only; resync by resetting both sessions identically.
        bn = await next.reset(1000 + t);
        bs = await same.reset(1000 + t);
      }
    }
    expect(ended).toBeGreaterThan(5);
  });
});

describe("learner seat per episode", () => {
  it("fixed keeps the configured seat; alternating rotates it; random is seeded and varies", async () => {
    const seatsOf = async (mode: "fixed" | "alternating" | "random", seed = 3) => {
      const f = make({ numEnvs: 2, seed, config: { seats: 3 }, learnerSeat: mode, seats: ["random", "learner", "random"], autoreset: "same-step" });
      let b = await f.reset();
      const seen: number[] = [b.learnerSeat[0]!];
      for (let t = 0; t < 200 && seen.length < 12; t++) {
        b = await f.step(firstLegal(b));
        if (b.terminated[0] || b.truncated[0]) {
          expect(b.final!.learnerSeat[finalIndex(b, 0)]).toBe(seen[seen.length - 1]);
          seen.push(b.learnerSeat[0]!);
        }
      }
      return seen;
    };
    expect(new Set(await seatsOf("fixed"))).toEqual(new Set([1]));
    const alt = await seatsOf("alternating");
    expect(alt.slice(0, 6)).toEqual([1, 2, 0, 1, 2, 0]);
    const rnd = await seatsOf("random");
    expect(new Set(rnd).size).toBeGreaterThan(1);
    expect(await seatsOf("random")).toEqual(rnd);
    expect(await seatsOf("random", 4)).not.toEqual(rnd);
    expect(() => make({ seats: ["external", "external"], config: { seats: 2 }, learnerSeat: "alternating" })).toThrow(/single learner/);
  });

  it("the learner's observation and reward follow its seat", async () => {
    const f = make({ numEnvs: 1, config: { seats: 2 }, seats: ["learner", "random"], learnerSeat: "alternating", autoreset: "same-step" });
    let b = await f.reset();
    let atSeat1 = false;
    for (let t = 0; t < 100; t++) {
      if (b.learnerSeat[0] === 1) {
        atSeat1 = true;
        expect(b.seat[0]).toBe(1); // the client is asked to act for seat 1 now
      }
      b = await f.step(firstLegal(b));
    }
    expect(atSeat1).toBe(true);
  });
});

describe("illegalAction: terminate", () => {
  it("ends only that env's episode with the penalty and flags it; reject mode refuses the request", async () => {
    const f = make({ illegalAction: "terminate", illegalReward: -5 });
    let b = await f.reset();
    const actions = firstLegal(b);
    const bad = b.mask.subarray(0, A).indexOf(0);
    expect(bad).toBeGreaterThanOrEqual(0);
    actions[0] = bad;
    actions[1] = A + 3; // out of range
    b = await f.step(actions);
    expect(Array.from(b.illegal!)).toEqual([1, 1, 0, 0]);
    expect(b.terminated[0]).toBe(1);
    expect(b.terminated[1]).toBe(1);
    expect(b.reward[0]).toBe(-5);
    expect(b.reward[1]).toBe(-5);
    b = await f.step(firstLegal(b));
    expect(Array.from(b.illegal!)).toEqual([0, 0, 0, 0]);
    expect(b.episode[0]).toBe(2);

    const r = make();
    const rb = await r.reset();
    const acts = firstLegal(rb);
    acts[0] = bad;
    expect(() => r.stepNow(acts)).toThrow(/not legal/);
  });
});

describe("render", () => {
  it("draws the env's table with whose turn it is and the legal actions", async () => {
    const f = make();
    expect(f.render(0)).toContain("not reset");
    await f.reset();
    const text = f.render(1);
    expect(text).toMatch(/^total 0\//);
    expect(text).toContain("legal actions:");
    expect(() => f.render(9)).toThrow(EnvRequestError);
  });
});

describe("observe: acting (multi mode)", () => {
  it("carries only the acting seat's observation, equal to its row in an 'all' session", async () => {
    const opts = { numEnvs: 3, config: { seats: 3 }, seats: ["external", "external", "random"], autoreset: "same-step" as const };
    const all = make(opts);
    const acting = make({ ...opts, observe: "acting" });
    let ba = await all.reset();
    let bb = await acting.reset();
    const S = 3;
    for (let t = 0; t < 60; t++) {
      expect(bb.obsShape).toEqual([3, O]);
      for (let i = 0; i < 3; i++) {
        const seat = ba.seat[i]!;
        expect(bb.seat[i]).toBe(seat);
        expect(Array.from(bb.obs.subarray(i * O, (i + 1) * O))).toEqual(Array.from(ba.obs.subarray((i * S + seat) * O, (i * S + seat + 1) * O)));
      }
      const actions = firstLegal(ba);
      ba = await all.step(actions);
      bb = await acting.step(actions);
      expect(Array.from(bb.final!.obs)).toEqual(Array.from(ba.final!.obs));
      expect(Array.from(bb.reward)).toEqual(Array.from(ba.reward));
    }
  });
});
