/**
 * The all-channel leak test (leak-channels.ts) against mutants: each patches one code path the
 * way a real leak would, plays a few whole games on real tables and must be caught, by the check
 * that looks at what the receiver may know (not only by the exactness check A).
 */
import { afterEach, describe, expect, it } from "vitest";
import { publicEvent, type AnyGame, type GameEvent, type Viewer } from "../../engine/core/index.ts";
import { dcg } from "../../engine/dcg/index.ts";
import { registry } from "../../engine/games.ts";
import { Table } from "../../env/live/table.ts";
import { leakProblems, newTally, playOne, server } from "./leak-channels.ts";

/** Every problem the leak test finds over `games` whole games of `id` served from `games set`. */
async function findings(id: string, games: readonly AnyGame[], count = 6): Promise<string[]> {
  const s = await server(games);
  const problems: string[] = [];
  try {
    for (let seed = 1; seed <= count; seed++) problems.push(...leakProblems(await playOne(s, id, { seed, redeal: true }), newTally()));
  } finally {
    await s.close();
  }
  return problems;
}

/** dcg whose decision event of the given kinds reads in full for everyone (its label to every channel). */
function dcgTelling(kinds: readonly string[]): AnyGame {
  return {
    ...dcg,
    events: (before: unknown, decision: unknown, after: unknown): readonly GameEvent[] => {
      const events = [...dcg.events(before as never, decision as never, after as never)];
      const first = events[0]!;
      if (kinds.includes((decision as { kind: string }).kind)) events[0] = publicEvent("decision", first.seat, first.face.text);
      return events;
    },
  };
}

const others = registry.all().filter((g) => g.info.id !== "dcg");
const kinds = (problems: string[]) => new Set(problems.map((p) => p.slice(0, 2)));

const restore: (() => void)[] = [];
afterEach(() => {
  for (const r of restore.splice(0)) r();
});

describe("the all-channel leak test catches", () => {
  it("the real code: nothing found (the baseline the mutants differ from)", async () => {
    expect(await findings("dcg", registry.all(), 3)).toEqual([]);
  }, 300_000);

  it("a label naming a face-down card (a feint's decision event read in full by everyone)", async () => {
    const found = await findings("dcg", [dcgTelling(["feint", "reactFeint"]), ...others]);
    expect(found.some((p) => /^D: .* names /.test(p))).toBe(true);
    expect(found.some((p) => /^C: /.test(p))).toBe(true);
  }, 300_000);

  it("a strategy placement shown before both players confirm", async () => {
    const found = await findings("dcg", [dcgTelling(["strategyMove"]), ...others]);
    expect(found.some((p) => /^D: .* names /.test(p))).toBe(true);
    expect(found.some((p) => /^C: /.test(p))).toBe(true);
  }, 300_000);

  it("a spectator frame carrying a hand (seat 0's view instead of the spectator's)", async () => {
    const original = Table.prototype.spectatorFrame;
    restore.push(() => (Table.prototype.spectatorFrame = original));
    Table.prototype.spectatorFrame = function (this: Table, since: number) {
      const frame = original.call(this, since);
      return { ...frame, view: this.game.view((this as unknown as { state: unknown }).state, 0) };
    };
    for (const id of ["dcg", "sevens", "blackpoker"]) {
      const found = await findings(id, registry.all(), 2);
      // B: re-dealing the hands behind the spectator's back changes what it was sent.
      expect([id, found.some((p) => /^B: spectator's frame .* changed when only what it cannot see was re-dealt/.test(p))]).toEqual([id, true]);
    }
  }, 300_000);

  it("every channel reading every face (the describe label sent to everyone, as before events were projected)", async () => {
    const original = Table.prototype.eventsFor;
    restore.push(() => (Table.prototype.eventsFor = original));
    Table.prototype.eventsFor = function (this: Table, _viewer: Viewer, since: number, limit?: number) {
      return original.call(this, "owner" as Viewer, since, limit);
    };
    const found = await findings("dcg", registry.all(), 3);
    expect(kinds(found).has("D:")).toBe(true);
    expect(found.some((p) => /^A: event \d+ to .* is not its projection/.test(p))).toBe(true);
  }, 300_000);
});
