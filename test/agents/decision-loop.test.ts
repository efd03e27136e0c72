import { setFlagsFromString } from "node:v8";
import { runInNewContext } from "node:vm";
import { describe, expect, it } from "vitest";
import { ManualClock } from "../../agents/clock.ts";
import { DecisionLoop, DecisionLoopFault, defaultDecision, type AppliedDecision, type SeatDriver } from "../../agents/decision-loop.ts";
import type { Facilitatee } from "../../agents/facilitatee.ts";
import type { AnyGame } from "../../engine/core/index.ts";
import { tiny } from "../core/tiny-game.ts";

const setup = (config: object, seed = 1) => {
  const parsed = tiny.parseConfig(config);
  if (!parsed.ok) throw new Error(parsed.error.message);
  return tiny.setup(parsed.value, seed);
};
const first: Facilitatee = { name: "first", decide: () => 0 };
const second: Facilitatee = { name: "second", decide: () => 1 };
const agent = (a: Facilitatee): SeatDriver => ({ kind: "agent", agent: a });

/** A full garbage collection, after the current job (a WeakRef made in it holds its target until it ends). */
async function collectGarbage(): Promise<void> {
  await new Promise((r) => setTimeout(r, 0));
  setFlagsFromString("--expose-gc");
  (runInNewContext("gc") as () => void)();
}

/** tiny without its own default: the loop's rule picks one. */
const noDefault = (legal: (s: unknown) => readonly unknown[]): AnyGame => ({
  ...tiny,
  expectation: (s: unknown) => {
    const e = tiny.expectation(s as never);
    return e === null ? null : { seat: e.seat, ...(e.timeoutMs === undefined ? {} : { timeoutMs: e.timeoutMs }) };
  },
  legal,
  apply: (s: unknown, d: unknown) => ({ ok: true as const, state: tiny.applyTrusted(s as never, d as never) }),
});

describe("the default decision", () => {
  it("is the game's own default, else the first passive legal decision, else the first legal one", () => {
    const state = setup({ timeoutMs: 5 });
    expect(defaultDecision(tiny, state)).toEqual({ kind: "stall" });
    const withPass = noDefault(() => [{ kind: "add", n: 1 }, { kind: "pass" }, { kind: "add", n: 2 }]);
    expect(defaultDecision(withPass, state)).toEqual({ kind: "pass" });
    const noPass = noDefault(() => [
      { kind: "add", n: 2 },
      { kind: "add", n: 1 },
    ]);
    expect(defaultDecision(noPass, state)).toEqual({ kind: "add", n: 2 });
  });

  it("uses the configured turn time when the game gives no deadline, and no deadline without a clock", async () => {
    const clock = new ManualClock();
    const timed = new DecisionLoop({ game: tiny, state: setup({}), driver: () => ({ kind: "remote" }), clock, turnMs: 100 });
    await timed.drive();
    expect(timed.pending).toMatchObject({ step: 0, seat: 0, since: clock.now(), deadline: clock.now() + 100 });
    const untimed = new DecisionLoop({ game: tiny, state: setup({ timeoutMs: 5 }), driver: () => ({ kind: "remote" }) });
    expect(untimed.pending).toMatchObject({ since: null, deadline: null });
  });
});

describe("pull style: agents are asked and awaited", () => {
  it("plays synchronous agents to the end without a promise and records every decision", () => {
    const seen: AppliedDecision[] = [];
    const loop = new DecisionLoop({ game: tiny, state: setup({}), driver: (seat) => agent(seat === 0 ? first : second), onDecision: (d) => seen.push(d) });
    expect(loop.drive()).toBeUndefined();
    expect(loop.status).toBe("over");
    expect(seen.map((d) => d.step)).toEqual(loop.decisions.map((_, k) => k));
    expect(seen.every((d, k) => d.seat === k % 2 && d.cause === "agent")).toBe(true);
    expect(seen[0]!.events[0]!.kind).toBe("decision");
  });

  it("applies the default when an async agent misses its deadline, and ignores its late answer", async () => {
    const clock = new ManualClock();
    const releases: ((i: number) => void)[] = [];
    const stuck: Facilitatee = { name: "stuck", decide: () => new Promise<number>((r) => releases.push(r)) };
    const loop = new DecisionLoop({ game: tiny, state: setup({ timeoutMs: 50, target: 20 }), driver: (seat) => agent(seat === 0 ? stuck : second), clock });
    const done = loop.drive();
    expect(done).toBeInstanceOf(Promise);
    clock.advance(49);
    expect(loop.step).toBe(0);
    clock.advance(1);
    // The default (stall) counted at the deadline; seat 1 answered at once; seat 0 is asked again.
    expect(loop.decisions).toEqual([{ kind: "stall" }, { kind: "add", n: 2 }]);
    expect(releases.length).toBe(2);
    releases[0]!(0);
    await Promise.resolve();
    expect(loop.decisions.length).toBe(2);
    releases[1]!(0);
    await new Promise((r) => setImmediate(r));
    expect(loop.decisions.slice(2, 4)).toEqual([
      { kind: "add", n: 1 },
      { kind: "add", n: 2 },
    ]);
    loop.close();
  });

  it("replaces a synchronous answer given after the deadline by the default", () => {
    const clock = new ManualClock();
    const slow: Facilitatee = {
      name: "slow",
      decide: () => {
        clock.advance(11);
        return 1;
      },
    };
    const seen: AppliedDecision[] = [];
    const loop = new DecisionLoop({ game: tiny, state: setup({ target: 20 }), driver: () => agent(slow), clock, turnMs: 10, onDecision: (d) => seen.push(d) });
    loop.drive();
    // tiny has no default of its own and no passive decision: the first legal one (add 1) applies.
    expect(seen.length).toBeGreaterThan(2);
    expect(seen.every((d) => d.cause === "timeout" && (d.decision as { n: number }).n === 1)).toBe(true);
  });

  it("stops on an agent fault unless told to apply the default for it", () => {
    const bad: Facilitatee = { name: "bad", decide: () => 7 };
    const loop = new DecisionLoop({ game: tiny, state: setup({}), driver: () => agent(bad) });
    expect(() => loop.drive()).toThrow(DecisionLoopFault);
    expect(() => loop.drive()).toThrow(/agent bad at seat 0 chose index 7 of 2 legal decisions/);
    const faults: string[] = [];
    const tolerant = new DecisionLoop({ game: tiny, state: setup({ target: 2 }), driver: () => agent(bad), onAgentFault: (f) => faults.push(f.kind) });
    tolerant.drive();
    expect(tolerant.status).toBe("over");
    expect(faults.length).toBe(tolerant.step);
  });
});

describe("remote and step style", () => {
  it("waits for a remote seat, refuses a stale or foreign answer, and fires the default at the deadline", () => {
    const clock = new ManualClock();
    const loop = new DecisionLoop({ game: tiny, state: setup({ timeoutMs: 30, target: 4 }), driver: () => ({ kind: "remote" }), clock });
    expect(loop.drive()).toBeUndefined();
    expect(loop.status).toBe("waiting");
    expect(loop.answer(0, 1, { kind: "add", n: 1 })).toBe(false);
    expect(loop.answer(0, 0, { kind: "add", n: 1 })).toBe(true);
    expect(loop.answer(0, 0, { kind: "add", n: 1 })).toBe(false);
    clock.advance(30);
    expect(loop.decisions).toEqual([{ kind: "add", n: 1 }, { kind: "stall" }]);
    expect(clock.pending()).toBe(1);
  });

  it("stops at a trainer seat with no timer running, and turns its late answer into the default", () => {
    const clock = new ManualClock();
    const causes: string[] = [];
    const loop = new DecisionLoop({
      game: tiny,
      state: setup({ timeoutMs: 30, target: 4 }),
      driver: (seat) => (seat === 0 ? { kind: "trainer" } : agent(first)),
      clock,
      onDecision: (d) => causes.push(d.cause),
    });
    loop.drive();
    expect(loop.status).toBe("waiting");
    expect(clock.pending()).toBe(0);
    clock.advance(31);
    expect(loop.step).toBe(0);
    loop.answer(0, 0, { kind: "add", n: 2 });
    expect(loop.decisions.slice(0, 2)).toEqual([{ kind: "stall" }, { kind: "add", n: 1 }]);
    expect(causes.slice(0, 2)).toEqual(["timeout", "agent"]);
    expect(loop.status).toBe("waiting");
    loop.answer(2, 0, { kind: "add", n: 2 });
    expect(loop.decisions[2]).toEqual({ kind: "add", n: 2 });
  });

  it("asks an agent when a waiting seat's driver becomes one (a person away), keeping the deadline", () => {
    const clock = new ManualClock();
    let away = false;
    const loop = new DecisionLoop({
      game: tiny,
      state: setup({ timeoutMs: 30, target: 1 }),
      driver: () => (away ? agent(second) : { kind: "remote" }),
      clock,
    });
    loop.drive();
    expect(loop.status).toBe("waiting");
    away = true;
    loop.drive();
    expect(loop.status).toBe("over");
    expect(loop.decisions).toEqual([{ kind: "add", n: 2 }]);
    expect(clock.pending()).toBe(0);
  });

  it("seats that are not timed get no deadline", () => {
    const clock = new ManualClock();
    const loop = new DecisionLoop({ game: tiny, state: setup({ timeoutMs: 30 }), driver: () => ({ kind: "remote" }), clock, timed: (seat) => seat !== 0 });
    loop.drive();
    expect(loop.pending?.deadline).toBeNull();
    clock.advance(1000);
    expect(loop.step).toBe(0);
  });
});

describe("commit and bounds", () => {
  it("applies nothing while a decision is being committed, and counts it only once committed", () => {
    const clock = new ManualClock();
    let finish: ((err: Error | null) => void) | null = null;
    const loop = new DecisionLoop({
      game: tiny,
      state: setup({ timeoutMs: 30 }),
      driver: () => ({ kind: "remote" }),
      clock,
      commit: (_d, done) => (finish = done),
    });
    loop.drive();
    expect(loop.answer(0, 0, { kind: "add", n: 1 })).toBe(true);
    expect(loop.step).toBe(0);
    clock.advance(100);
    expect(loop.answer(0, 0, { kind: "add", n: 2 })).toBe(false);
    finish!(null);
    expect(loop.decisions).toEqual([{ kind: "add", n: 1 }]);
  });

  it("restarts from a new state with the same drivers, forgetting the old game's record, stop and fault", () => {
    const bad: Facilitatee = { name: "bad", decide: () => 7 };
    let driver: Facilitatee = bad;
    const loop = new DecisionLoop({ game: tiny, state: setup({}), driver: () => agent(driver), stopAfter: 3 });
    expect(() => loop.drive()).toThrow(DecisionLoopFault);
    driver = first;
    loop.restart(setup({}, 2));
    expect(loop.step).toBe(0);
    loop.drive();
    expect(loop.status).toBe("truncated");
    expect(loop.decisions).toEqual([
      { kind: "add", n: 1 },
      { kind: "add", n: 1 },
      { kind: "add", n: 1 },
    ]);
  });

  it("keeps nothing of the state it started from once it moved on (applied a decision or restarted)", async () => {
    // A learning session keeps one loop per env for its lifetime: what the loop holds, every env holds.
    const started = (stopAfter: number) => {
      const start = setup({});
      return { loop: new DecisionLoop({ game: tiny, state: start, driver: () => agent(first), stopAfter }), start: new WeakRef(start) };
    };
    const played = started(2);
    played.loop.drive();
    const restarted = started(5);
    restarted.loop.restart(setup({}, 2));
    const waiting = started(5);
    await collectGarbage();
    expect(played.start.deref()).toBeUndefined();
    expect(restarted.start.deref()).toBeUndefined();
    // The state a loop stands at stays: a loop that has not moved keeps its start.
    expect(waiting.start.deref()).toBe(waiting.loop.state);
    expect([played.loop.step, restarted.loop.step]).toEqual([2, 0]);
  });

  it("truncates at stopAfter and faults past the game's bound", () => {
    const cut = new DecisionLoop({ game: tiny, state: setup({}), driver: () => agent(first), stopAfter: 3 });
    cut.drive();
    expect(cut.status).toBe("truncated");
    expect(cut.step).toBe(3);
    const bounded = new DecisionLoop({ game: tiny, state: setup({}), driver: () => agent(first), bound: 2 });
    expect(() => bounded.drive()).toThrow(/did not end within its declared bound of 2/);
  });
});

describe("a live seat's changing driver", () => {
  it("applies a conceding seat's decision at once (cause resign), even after it was asked as a person", () => {
    const clock = new ManualClock();
    let resigned = false;
    const causes: string[] = [];
    const loop = new DecisionLoop({
      game: tiny,
      state: setup({ timeoutMs: 30, target: 4 }),
      driver: (seat) => (seat === 0 && resigned ? { kind: "concede", decision: { kind: "stall" } } : seat === 0 ? { kind: "remote" } : agent(first)),
      clock,
      onDecision: (d) => causes.push(d.cause),
    });
    loop.drive();
    expect(loop.status).toBe("waiting");
    resigned = true;
    loop.drive();
    // Seat 0 concedes now and at its next turn; seat 1's agent plays in between.
    expect(loop.decisions.slice(0, 3)).toEqual([{ kind: "stall" }, { kind: "add", n: 1 }, { kind: "stall" }]);
    expect(causes.slice(0, 3)).toEqual(["resign", "agent", "resign"]);
  });

  it("gives a decision a deadline once its seat becomes timed, counted from when it became pending", () => {
    const clock = new ManualClock();
    let joined = false;
    const never: Facilitatee = { name: "never", decide: () => new Promise<number>(() => undefined) };
    const loop = new DecisionLoop({
      game: tiny,
      state: setup({ timeoutMs: 30, target: 4 }),
      driver: () => (joined ? { kind: "remote" } : agent(never)),
      clock,
      timed: () => joined,
    });
    const since = clock.now();
    void loop.drive();
    expect(loop.pending).toMatchObject({ since, deadline: null });
    clock.advance(20);
    expect(clock.pending()).toBe(0);
    // A person joins the agent's seat 20 ms in: the deadline is 30 ms after the decision became pending.
    joined = true;
    loop.drive();
    expect(loop.pending).toMatchObject({ since, deadline: since + 30 });
    clock.advance(9);
    expect(loop.step).toBe(0);
    clock.advance(1);
    expect(loop.decisions).toEqual([{ kind: "stall" }]);
    loop.close();
  });

  it("asks the driver again after retryAgent's time when an agent is busy, instead of applying the default", async () => {
    const clock = new ManualClock();
    const busy = Object.assign(new Error("busy"), { name: "Busy" });
    let calls = 0;
    const flaky: Facilitatee = { name: "flaky", decide: () => (++calls === 1 ? Promise.reject(busy) : Promise.resolve(1)) };
    const faults: string[] = [];
    const loop = new DecisionLoop({
      game: tiny,
      state: setup({ target: 1 }),
      driver: () => agent(flaky),
      clock,
      retryAgent: (e) => (e === busy ? 100 : null),
      onAgentFault: (f) => faults.push(f.message),
    });
    void loop.drive();
    await new Promise((r) => setImmediate(r));
    expect(calls).toBe(1);
    expect(loop.step).toBe(0);
    clock.advance(99);
    expect(calls).toBe(1);
    clock.advance(1);
    expect(calls).toBe(2);
    await new Promise((r) => setImmediate(r));
    expect(loop.decisions).toEqual([{ kind: "add", n: 2 }]);
    expect(faults).toEqual([]);
  });

  it("counts an agent's decision no sooner than agentDelayMs after it was asked; the deadline still wins before it", async () => {
    const clock = new ManualClock();
    const loop = new DecisionLoop({
      game: tiny,
      state: setup({ timeoutMs: 50, target: 20 }),
      driver: () => agent(second),
      clock,
      agentDelayMs: 40,
      timed: (seat) => seat === 1,
    });
    loop.drive();
    expect(loop.step).toBe(0);
    clock.advance(39);
    expect(loop.step).toBe(0);
    clock.advance(1);
    expect(loop.decisions).toEqual([{ kind: "add", n: 2 }]);
    // Seat 1 is timed: a 60 ms pace loses to its 50 ms deadline.
    const slow = new DecisionLoop({ game: tiny, state: setup({ timeoutMs: 50, target: 20 }), driver: () => agent(second), clock, agentDelayMs: 60 });
    slow.drive();
    clock.advance(50);
    expect(slow.decisions).toEqual([{ kind: "stall" }]);
    loop.close();
    slow.close();
  });

  it("tells onFault once when a deadline's decision faults with nobody awaiting drive", () => {
    const clock = new ManualClock();
    const faults: unknown[] = [];
    const broken: AnyGame = { ...tiny, apply: () => ({ ok: false as const, error: { code: "illegal_decision" as const, message: "refused" } }) };
    const loop = new DecisionLoop({ game: broken, state: setup({ timeoutMs: 10 }), driver: () => ({ kind: "remote" }), clock, onFault: (e) => faults.push(e) });
    loop.drive();
    clock.advance(10);
    expect(faults.length).toBe(1);
    expect(String(faults[0])).toMatch(/refused decision 0: refused/);
    expect(() => loop.drive()).toThrow(DecisionLoopFault);
    expect(faults.length).toBe(1);
  });
});
