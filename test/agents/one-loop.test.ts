/**
 * One decision loop: the same deal (game, config, seed) with the same deadlines, some decisions
 * answered late so the default applies, gives the same record through the arena's match runner,
 * a live table and a learning session. Time is a ManualClock in all three. The table's deadlines
 * are the loop's own: every deadline a frame shows is the loop's pending decision's, every answer
 * goes through the loop, and env/live has no deadline timer or default rule of its own.
 */
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it, vi } from "vitest";
import { ManualClock } from "../../agents/clock.ts";
import { DecisionLoop, type PendingDecision } from "../../agents/decision-loop.ts";
import type { Facilitatee } from "../../agents/facilitatee.ts";
import { runMatch } from "../../agents/match.ts";
import { deriveSeed, type AnyGame } from "../../engine/core/index.ts";
import { registry } from "../../engine/games.ts";
import { adapters } from "../../env/games/index.ts";
import { LearningFacilitator } from "../../env/learning-facilitator.ts";
import { storesPerTest } from "../live/helpers.ts";

interface Deal {
  readonly game: string;
  readonly seats: number;
  readonly config: Record<string, unknown>;
  /** The turn time when the game gives none. */
  readonly turnMs: number | null;
}

/** The session seed; the deal's game seed is the one its env 0 plays its first episode with. */
const SESSION_SEED = 11;
const gameSeed = deriveSeed(deriveSeed(SESSION_SEED, "env"), "episode:0");

/** Every fourth decision is answered too late; the others pick among the legal action ids by step and seat. */
const late = (step: number) => step % 4 === 1;
const pick = (ids: readonly number[], step: number, seat: number) => [...ids].sort((a, b) => a - b)[(step * 7 + seat * 3) % ids.length]!;

const gameOf = (id: string): AnyGame => {
  const g = registry.get(id);
  if (!g.ok) throw new Error(g.error.message);
  return g.value;
};
const adapterOf = (id: string) => adapters.get(id)!;
const clockAt = () => new ManualClock(1_800_000_000_000);

interface Played {
  readonly decisions: readonly unknown[];
  readonly finalHash: string;
  readonly timeouts: number;
}

async function arena(deal: Deal): Promise<Played> {
  const game = gameOf(deal.game);
  const adapter = adapterOf(deal.game);
  const clock = clockAt();
  const agent = (seat: number): Facilitatee => ({
    name: `scripted-${seat}`,
    decide: (req) => {
      const ids = req.legal.map((d) => adapter.actions.encode(req.view, d));
      const index = ids.indexOf(pick(ids, req.step, seat));
      if (!late(req.step)) return index;
      // Thinks past the deadline: an hour passes on the clock before it answers.
      return new Promise<number>((resolve) =>
        setImmediate(() => {
          clock.advance(3_600_000);
          resolve(index);
        }),
      );
    },
  });
  let timeouts = 0;
  const result = await runMatch({
    game,
    config: { ...deal.config, seats: deal.seats },
    seed: gameSeed,
    agents: Array.from({ length: deal.seats }, (_, s) => agent(s)),
    clock,
    turnMs: deal.turnMs,
    onDecision: (e) => void (timeouts += e.timedOut ? 1 : 0),
  });
  return { decisions: result.record.decisions, finalHash: result.finalHash, timeouts };
}

const newStore = storesPerTest();
afterEach(() => void vi.restoreAllMocks());

async function table(deal: Deal): Promise<Played> {
  const clock = clockAt();
  const store = newStore({ clock });
  const made = await store.create({
    game: deal.game,
    seats: Array.from({ length: deal.seats }, () => "human"),
    seed: gameSeed,
    config: deal.config,
    deadlines: { turnMs: deal.turnMs },
  });
  const t = store.get(made.table);
  // The table reads its pending decision and hands answers to a decision loop: spy on both.
  const pending = vi.spyOn(DecisionLoop.prototype, "pending", "get");
  const answers = vi.spyOn(DecisionLoop.prototype, "answer");
  const lastPending = () => pending.mock.results.at(-1)?.value as PendingDecision | null | undefined;
  let lateAnswers = 0;
  while (!t.isFinished) {
    const seq = t.seq;
    const actor = t.spectatorFrame(seq).actor as number;
    const frame = t.seatFrame(actor, seq);
    // The deadline the seat is shown is the loop's pending decision's, counted from when it became pending.
    const loopPending = lastPending();
    expect(frame.expectation?.deadline).toBeGreaterThan(clock.now());
    expect(loopPending).toMatchObject({ step: seq, seat: actor, deadline: frame.expectation?.deadline });
    if (late(seq)) {
      clock.advance(frame.expectation!.deadline! - clock.now());
      lateAnswers++;
      while (t.seq === seq) await t.waitForChange(1000);
    } else {
      await t.answer(
        actor,
        seq,
        pick(
          frame.decisions.map((o) => o.id),
          seq,
          actor,
        ),
      );
    }
  }
  const record = t.record();
  expect(answers.mock.calls.length).toBe(record.decisions.length - lateAnswers);
  return { decisions: record.decisions, finalHash: record.finalHash, timeouts: record.signed.entries.filter((e) => e.cause === "timeout").length };
}

async function learning(deal: Deal): Promise<Played> {
  const clock = clockAt();
  const session = LearningFacilitator.create({
    adapter: adapterOf(deal.game),
    config: deal.config,
    seats: Array.from({ length: deal.seats }, (_, s) => (s === 0 ? "learner" : "external")),
    numEnvs: 1,
    seed: SESSION_SEED,
    clock,
    ...(deal.turnMs === null ? {} : { turnMs: deal.turnMs }),
  });
  let batch = await session.reset();
  const size = session.settings.adapter.actions.size;
  let timeouts = 0;
  while (!batch.terminated[0]) {
    const step = batch.episodeStep[0]!;
    const seat = batch.seat[0]!;
    const ids: number[] = [];
    for (let a = 0; a < size; a++) if (batch.mask[a]) ids.push(a);
    if (late(step)) {
      // The trainer answers after the deadline: its action is replaced by the default.
      clock.advance(3_600_000);
      timeouts++;
    }
    batch = await session.step([pick(ids, step, seat)]);
  }
  return { decisions: session.episodeDecisions(0), finalHash: session.hashes()[0]!, timeouts };
}

const deals: readonly Deal[] = [
  // The game's own deadline and default (Killing Sevens' turn timer, the forced pass).
  { game: "sevens", seats: 3, config: { turnTimeoutSec: 5 }, turnMs: null },
  // No deadline or default from the game: the configured turn time and the loop's default rule.
  { game: "blackpoker", seats: 2, config: {}, turnMs: 2_000 },
];

describe("one decision loop: arena, live table and learning session play the same deal alike", () => {
  for (const deal of deals) {
    it(`${deal.game}: same decisions and final hash, with late answers given the default`, async () => {
      const a = await arena(deal);
      const t = await table(deal);
      const l = await learning(deal);
      expect(a.timeouts).toBeGreaterThan(0);
      expect(t.timeouts).toBe(a.timeouts);
      expect(t.decisions).toEqual(a.decisions);
      expect(t.finalHash).toBe(a.finalHash);
      expect(l.decisions).toEqual(a.decisions);
      expect(l.finalHash).toBe(a.finalHash);
    });
  }
});

describe("one decision loop: the live table has no deadline code of its own", () => {
  const dir = join(import.meta.dirname, "../../env/live");
  const sources = readdirSync(dir)
    .filter((f) => f.endsWith(".ts"))
    .map((f) => ({ file: f, text: readFileSync(join(dir, f), "utf8") }));

  it("no env/live file applies the loop's default rule itself", () => {
    const own = sources.filter((s) => /import\s*\{[^}]*\bdefaultDecision\b[^}]*\}\s*from\s*"[^"]*decision-loop/.test(s.text)).map((s) => s.file);
    expect(own).toEqual([]);
  });

  it("the only clock timers in env/live are the entry window's and the seats' grace periods", () => {
    const timers = sources.filter((s) => /\bsetTimer\s*\(/.test(s.text)).map((s) => s.file);
    expect(timers.sort()).toEqual(["entry-window.ts", "seats.ts"]);
  });
});
