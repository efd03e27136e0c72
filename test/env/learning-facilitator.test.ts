import { describe, expect, it } from "vitest";
import { stateHash } from "../../engine/core/index.ts";
import type { GameAdapter } from "../../env/codec.ts";
import { EnvFault, EnvRequestError } from "../../env/errors.ts";
import { LearningFacilitator, type EnvBatch, type FacilitatorOptions } from "../../env/learning-facilitator.ts";
import { buildSpec } from "../../env/spec.ts";
import { countAdapter, countGame } from "../fixtures/count-game.ts";
import { testAgentFactory } from "../fixtures/agents.ts";
import { maskedPicker } from "../server/client.ts";

const make = (o: Partial<FacilitatorOptions> = {}) =>
  LearningFacilitator.create({ adapter: countAdapter, numEnvs: 4, seed: 11, createAgent: testAgentFactory, ...o });

const A = countAdapter.actions.size;

function snapshot(b: EnvBatch): string {
  return JSON.stringify({
    step: b.step,
    obs: Array.from(b.obs),
    mask: Array.from(b.mask),
    reward: Array.from(b.reward),
    terminated: Array.from(b.terminated),
    truncated: Array.from(b.truncated),
    seat: Array.from(b.seat),
    episode: Array.from(b.episode),
    episodeStep: Array.from(b.episodeStep),
    returns: Array.from(b.returns),
  });
}

async function trajectory(f: LearningFacilitator, steps: number, pickSeed = 5): Promise<string[]> {
  const pick = maskedPicker(pickSeed);
  let b = await f.reset();
  const out = [snapshot(b)];
  for (let t = 0; t < steps; t++) {
    b = await f.step(pick(b.mask, f.settings.numEnvs, A));
    out.push(snapshot(b));
  }
  return out;
}

describe("LearningFacilitator (single learner)", () => {
  it("shows what its options resolved to, defaults filled in, as its settings", () => {
    const f = make({ seats: ["random", "learner"], illegalAction: "terminate" });
    expect(f.settings).toMatchObject({
      game: countAdapter.game,
      seatNames: ["random", "learner"],
      mode: "single",
      numEnvs: 4,
      numSeats: 2,
      learnerSeat: 1,
      autoreset: "next-step",
      learnerSeatMode: "fixed",
      illegalAction: "terminate",
      illegalReward: -1,
      observe: "all",
      maxDecisions: null,
      seed: 11,
    });
    expect(f.settings.spec.action.size).toBe(A);
  });

  it("same seed gives identical observations, masks, rewards and flags at every step", async () => {
    const a = await trajectory(make(), 120);
    const b = await trajectory(make(), 120);
    expect(a).toEqual(b);
    const c = await trajectory(make({ seed: 12 }), 120);
    expect(c).not.toEqual(a);
  });

  it("reset(seed) behaves exactly like a new session with that seed", async () => {
    const f = make({ seed: 1 });
    await trajectory(f, 30);
    const pick = maskedPicker(9);
    const fresh = make({ seed: 77 });
    let x = await f.reset(77);
    let y = await fresh.reset();
    for (let t = 0; t < 60; t++) {
      expect(snapshot(x)).toEqual(snapshot(y));
      const actions = pick(x.mask, 4, A);
      x = await f.step(actions);
      y = await fresh.step(actions);
    }
  });

  it("the mask is exactly the encoded legal decisions of the learner, from its view", async () => {
    const f = make({ numEnvs: 3 });
    const pick = maskedPicker(3);
    let b = await f.reset();
    for (let t = 0; t < 40; t++) {
      for (let i = 0; i < 3; i++) {
        const row = Array.from(b.mask.subarray(i * A, (i + 1) * A));
        if (b.terminated[i] || b.truncated[i]) {
          expect(row.every((v) => v === 0)).toBe(true);
          expect(b.seat[i]).toBe(-1);
        } else {
          expect(b.seat[i]).toBe(0);
          expect(row.reduce((s, v) => s + v, 0)).toBeGreaterThan(0);
        }
      }
      b = await f.step(pick(b.mask, 3, A));
    }
  });

  it("rewards of an episode sum to the learner's final return (minus anything before its first decision)", async () => {
    const f = make({ numEnvs: 2 });
    const pick = maskedPicker(4);
    let b = await f.reset();
    const sums = [0, 0];
    const start = [b.returns[0]!, b.returns[2]!];
    let finished = 0;
    for (let t = 0; t < 500 && finished < 6; t++) {
      const justReset = Array.from(b.terminated).map((v, i) => v || b.truncated[i]);
      b = await f.step(pick(b.mask, 2, A));
      for (let i = 0; i < 2; i++) {
        if (justReset[i]) {
          expect(b.reward[i]).toBe(0);
          sums[i] = 0;
          start[i] = b.returns[i * 2]!;
          continue;
        }
        sums[i]! += b.reward[i]!;
        if (b.terminated[i]) {
          expect(sums[i]).toBeCloseTo(b.returns[i * 2]! - start[i]!, 5);
          finished++;
        }
      }
    }
    expect(finished).toBeGreaterThanOrEqual(6);
  });

  it("autoresets on the next step (Gymnasium >= 1.0): the action is ignored, reward 0, new episode", async () => {
    const f = make({ numEnvs: 1 });
    const pick = maskedPicker(8);
    let b = await f.reset();
    let t = 0;
    while (!b.terminated[0] && t++ < 200) b = await f.step(pick(b.mask, 1, A));
    expect(b.terminated[0]).toBe(1);
    expect(b.episode[0]).toBe(1);
    const next = await f.step([5]); // any integer: this env autoresets
    expect(next.terminated[0]).toBe(0);
    expect(next.truncated[0]).toBe(0);
    expect(next.reward[0]).toBe(0);
    expect(next.episode[0]).toBe(2);
    expect(next.seat[0]).toBe(0);
  });

  it("truncates at the session's decision cap, distinct from termination", async () => {
    const f = make({ numEnvs: 2, maxDecisions: 3 });
    let b = await f.reset();
    b = await f.step(maskedPicker(1)(b.mask, 2, A));
    const b2 = await f.step(maskedPicker(2)(b.mask, 2, A));
    // learner, agent, learner, agent...: the 3rd decision is the learner's second, then the agent's is cut.
    for (let i = 0; i < 2; i++) {
      expect(b2.truncated[i]).toBe(1);
      expect(b2.terminated[i]).toBe(0);
      expect(b2.episodeStep[i]).toBe(3);
      expect(Array.from(b2.mask.subarray(i * A, (i + 1) * A)).every((v) => v === 0)).toBe(true);
    }
  });

  it("an illegal or out-of-range action is refused naming it, and nothing changes", async () => {
    const f = make({ numEnvs: 3 });
    const b = await f.reset();
    await f.step(maskedPicker(1)(b.mask, 3, A));
    const hashes = f.hashes();
    const mask = f.mask().mask;
    const illegal = Array.from({ length: A }, (_, a) => a).find((a) => !mask[2 * A + a])!;
    const good = maskedPicker(2)(mask, 3, A);
    const bad = [...good];
    bad[2] = illegal;
    const err = await f.step(bad).catch((e) => e);
    expect(err).toBeInstanceOf(EnvRequestError);
    expect(err.code).toBe("illegal_action");
    expect(err.message).toContain(`env 2: action ${illegal} is not legal`);
    const range = await f.step([good[0]!, 99, good[2]!]).catch((e) => e);
    expect(range.code).toBe("action_out_of_range");
    expect(range.message).toContain("action 99");
    const count = await f.step([0]).catch((e) => e);
    expect(count.code).toBe("wrong_action_count");
    expect(f.hashes()).toEqual(hashes);
    expect(f.steps).toBe(1);
    // And the session still works.
    const after = await f.step(good);
    expect(after.step).toBe(2);
  });

  it("refuses to step before reset", async () => {
    const err = await make()
      .step([0, 0, 0, 0])
      .catch((e) => e);
    expect(err.code).toBe("reset_required");
  });

  it("async agents give the same trajectory as their synchronous counterpart", async () => {
    const sync = await trajectory(make({ seats: ["learner", "random"] }), 40);
    const slow = await trajectory(make({ seats: ["learner", "slow:ms=0"] }), 40);
    expect(slow).toEqual(sync);
  });

  it("stepNow answers without a promise while every agent is synchronous, and through one otherwise", async () => {
    const pick = maskedPicker(3);
    const fast = make({ seats: ["learner", "random"] });
    const slow = make({ seats: ["learner", "slow:ms=0"] });
    let a = await fast.reset();
    let b = await slow.reset();
    expect(snapshot(b)).toEqual(snapshot(a));
    let waited = 0;
    for (let t = 0; t < 30; t++) {
      const actions = pick(a.mask, fast.settings.numEnvs, A);
      const x = fast.stepNow(actions);
      const y = slow.stepNow(actions);
      expect(x).not.toBeInstanceOf(Promise);
      expect(fast.isBusy).toBe(false);
      // The slow agent answers through a promise whenever some env consults it; the session stays
      // busy until that settles.
      if (y instanceof Promise) {
        waited++;
        expect(slow.isBusy).toBe(true);
      }
      a = x as EnvBatch;
      b = await y;
      expect(slow.isBusy).toBe(false);
      expect(snapshot(b)).toEqual(snapshot(a));
    }
    expect(waited).toBeGreaterThan(10);
  });

  it("a synchronous fault leaves the session free (not stuck busy) and reports the fault", async () => {
    const f = make({ numEnvs: 3, config: { throwAtStep: 2 } });
    const b = await f.reset();
    const b1 = f.stepNow(maskedPicker(1)(b.mask, 3, A)) as EnvBatch;
    expect(() => f.stepNow(maskedPicker(2)(b1.mask, 3, A))).toThrow(EnvFault);
    expect(f.isBusy).toBe(false);
  });

  it("plays agents at any seat and waits for the learner (learner at seat 1 of 3)", async () => {
    const f = make({ seats: ["random", "learner", "random"], numEnvs: 2 });
    let b = await f.reset();
    for (let t = 0; t < 30; t++) {
      for (let i = 0; i < 2; i++) if (!b.terminated[i] && !b.truncated[i]) expect(b.seat[i]).toBe(1);
      b = await f.step(maskedPicker(t)(b.mask, 2, A));
    }
  });
});

describe("LearningFacilitator (multi-agent, AEC)", () => {
  it("names the seat that must act and gives each client seat its own view and rewards", async () => {
    const f = make({ seats: ["learner", "external"], numEnvs: 2 });
    expect(f.settings.mode).toBe("multi");
    const O = countAdapter.observation.size;
    let b = await f.reset();
    expect(b.obsShape).toEqual([2, 2, O]);
    expect(b.rewardShape).toEqual([2, 2]);
    const seen = new Set<number>();
    for (let t = 0; t < 60; t++) {
      for (let i = 0; i < 2; i++) {
        if (b.terminated[i]) {
          expect(b.seat[i]).toBe(-1);
          // Zero-sum game: per-seat rewards of a step cancel out.
          expect(b.reward[i * 2]! + b.reward[i * 2 + 1]!).toBeCloseTo(0, 5);
        } else seen.add(b.seat[i]!);
      }
      b = await f.step(maskedPicker(t + 1)(b.mask, 2, A));
    }
    expect([...seen].sort()).toEqual([0, 1]);
  });

  it("refuses seat lists with no client seat, or a lone external", () => {
    expect(() => make({ seats: ["random", "random"] })).toThrow(/at least one seat/);
    expect(() => make({ seats: ["external", "random"] })).toThrow(/must be "learner"/);
    expect(() => make({ seats: ["learner", "nosuchagent"] })).toThrow(/unknown agent/);
    expect(() => make({ seats: ["learner", "random"], config: { seats: 3 } })).toThrow(/config.seats is 3/);
    expect(() => make({ config: { target: "x" } })).toThrow(/target must be an integer/);
  });
});

describe("faults", () => {
  it("a throwing rule surfaces as a game_fault naming the env", async () => {
    const f = make({ numEnvs: 3, config: { throwAtStep: 2 } });
    // Seat 0 (learner) makes decision 0, the agent decision 1, the learner decision 2: throws.
    const b = await f.reset();
    const b1 = await f.step(maskedPicker(1)(b.mask, 3, A));
    const err = await f.step(maskedPicker(2)(b1.mask, 3, A)).catch((e) => e);
    expect(err).toBeInstanceOf(EnvFault);
    expect(err.code).toBe("game_fault");
    expect(err.env).toBe(0);
    expect(err.message).toContain("rules exploded");
  });

  it("a throwing agent surfaces as an agent_fault", async () => {
    const f = make({ numEnvs: 2, seats: ["learner", "throwing:at=0"] });
    const b = await f.reset();
    const err = await f.step(maskedPicker(1)(b.mask, 2, A)).catch((e) => e);
    expect(err).toBeInstanceOf(EnvFault);
    expect(err.code).toBe("agent_fault");
  });

  it("a codec that gives two legal decisions one id is a codec_fault", async () => {
    const broken: GameAdapter = { ...countAdapter, actions: { ...countAdapter.actions, encode: () => 0 } };
    // With 8 deals, some opening hand surely holds two distinct values.
    const f = LearningFacilitator.create({ adapter: broken, numEnvs: 8, seed: 3 });
    const err = await f.reset().catch((e) => e);
    expect(err).toBeInstanceOf(EnvFault);
    expect(err.code).toBe("codec_fault");
  });
});

describe("spec", () => {
  it("hashes the layout: stable for the same adapter, different when a layout detail changes", () => {
    const a = buildSpec(countAdapter);
    expect(buildSpec(countAdapter).actionSpecHash).toBe(a.actionSpecHash);
    const b = buildSpec({ ...countAdapter, observation: { ...countAdapter.observation, version: "count-obs-2" } });
    expect(b.actionSpecHash).not.toBe(a.actionSpecHash);
    const c = buildSpec({ ...countAdapter, actions: { ...countAdapter.actions, size: 7 } });
    expect(c.actionSpecHash).not.toBe(a.actionSpecHash);
    expect(a.observation.size).toBe(19);
    expect(a.action.size).toBe(6);
  });

  it("observations come from the view only: the opponent's hidden hand does not change them", () => {
    const s = countGame.setup(countGame.parseConfig({}).ok ? (countGame.parseConfig({}) as any).value : null, 5);
    const swapped = { ...s, hands: [s.hands[0]!, s.hands[1]!.map((c) => (c % 6) + 1)], deck: [...s.deck].reverse() };
    expect(stateHash(swapped)).not.toBe(stateHash(s));
    const o1 = new Float32Array(19);
    const o2 = new Float32Array(19);
    countAdapter.observation.encode(countGame.view(s, 0), o1);
    countAdapter.observation.encode(countGame.view(swapped, 0), o2);
    expect(Array.from(o2)).toEqual(Array.from(o1));
  });
});
