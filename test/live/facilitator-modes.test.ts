/**
 * The play modes as Facilitator instances (env/live/facilitators.ts): each one's preset (data) and
 * plan, without a server; the HTTP side is test/live/facilitators.test.ts.
 */
import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { runMatch } from "../../agents/match.ts";
import { RandomAgent } from "../../agents/random.ts";
import { registry, stateHash, type AnyGame, type GameRecord } from "../../engine/index.ts";
import { MODES, planTable, PRESETS } from "../../env/live/facilitators.ts";
import type { CreateTableBody } from "../../env/live/protocol.ts";
import { TableError } from "../../env/live/table.ts";

const game = (id: string): AnyGame => {
  const found = registry.get(id);
  if (!found.ok) throw new Error(found.error.message);
  return found.value;
};
const dcg = game("dcg");
const sevens = game("sevens");
const blackpoker = game("blackpoker");

/** The TableError a plan throws (fails the test when it does not throw one). */
function refusal(run: () => unknown): TableError {
  try {
    run();
  } catch (e) {
    if (e instanceof TableError) return e;
    throw e;
  }
  throw new Error("expected a TableError");
}

const body = (b: Partial<CreateTableBody> & { game: string }): CreateTableBody => b as CreateTableBody;
const board = () => JSON.parse(readFileSync(new URL("../../docs/examples/dcg-board.json", import.meta.url), "utf8")) as unknown;

describe("facilitators: one interface, the modes as data", () => {
  it("every mode is a named instance whose preset names it, and the generic code names no game", () => {
    expect(Object.keys(MODES).sort()).toEqual(["audience", "debug", "learning", "online", "replay", "sandbag", "training", "tutorial"]);
    for (const [name, f] of Object.entries(MODES)) expect(f.preset).toBe(PRESETS[name as keyof typeof PRESETS]);
    const source = readFileSync(new URL("../../env/live/facilitators.ts", import.meta.url), "utf8");
    for (const id of registry.ids()) expect(source).not.toMatch(new RegExp(`["'\`]${id}["'\`]`));
  });

  it("online: people only, all seats people's by default; an agent seat is refused; only people's seats are joinable", () => {
    expect(planTable(blackpoker, body({ game: "blackpoker", facilitator: "online" })).seats).toEqual(["human", "human"]);
    expect(planTable(blackpoker, body({ game: "blackpoker", seats: ["human", "open"] })).facilitator).toBe("online");
    expect(refusal(() => MODES.online.plan(blackpoker, body({ game: "blackpoker", seats: ["human", "random"] }))).code).toBe("invalid_seats");
    expect(PRESETS.online.joinable).toEqual({ personSeats: true, agentSeats: false });
  });

  it("debug: the board becomes config.board for a game whose config takes one; any seats; other games refused by their config schema", () => {
    const plan = MODES.debug.plan(dcg, body({ game: "dcg", facilitator: "debug", board: board(), seats: ["random", "random"] }));
    expect(plan.config.board).toEqual(board());
    expect(plan.seats).toEqual(["random", "random"]);
    expect(MODES.debug.plan(dcg, body({ game: "dcg", facilitator: "debug", board: board() })).seats).toEqual(["human", "human"]);
    expect(refusal(() => MODES.debug.plan(sevens, body({ game: "sevens", facilitator: "debug", board: board() }))).code).toBe("unsupported_facilitator");
    expect(refusal(() => MODES.debug.plan(dcg, body({ game: "dcg", facilitator: "debug" }))).details).toEqual({ path: "board" });
    // Every other mode refuses a board.
    expect(refusal(() => MODES.training.plan(dcg, body({ game: "dcg", board: board(), seats: ["human", "random"] }))).code).toBe("invalid_board");
  });

  it("tutorial: one person, every other seat the tutorial agent; the game's tutorial config where the body is silent", () => {
    const plan = MODES.tutorial.plan(dcg, body({ game: "dcg", facilitator: "tutorial" }));
    expect(plan.seats).toEqual(["human", "tutorial"]);
    expect(plan.config.books).toEqual(["vanguard", "vanguard"]);
    expect(MODES.tutorial.plan(dcg, body({ game: "dcg", config: { books: ["bastion", "bastion"] } })).config.books).toEqual(["bastion", "bastion"]);
    // A game without tutorial data keeps its own defaults.
    const s = MODES.tutorial.plan(sevens, body({ game: "sevens", facilitator: "tutorial" }));
    expect(s.seats).toEqual(["human", "tutorial", "tutorial", "tutorial", "tutorial"]);
    expect(s.config).toEqual({});
    expect(refusal(() => MODES.tutorial.plan(dcg, body({ game: "dcg", seats: ["human", "random"] }))).message).toMatch(/"tutorial"/);
    expect(refusal(() => MODES.tutorial.plan(dcg, body({ game: "dcg", seats: ["human", "human"] }))).code).toBe("invalid_seats");
    expect(PRESETS.tutorial.joinable.agentSeats).toBe(false);
  });

  it("training: at least one person and one agent (the default when seats mix them); agent seats may be joined", () => {
    const plan = planTable(dcg, body({ game: "dcg", seats: ["human", "computer"] }));
    expect(plan.facilitator).toBe("training");
    expect(refusal(() => MODES.training.plan(dcg, body({ game: "dcg", seats: ["human", "human"] }))).code).toBe("invalid_seats");
    expect(refusal(() => MODES.training.plan(dcg, body({ game: "dcg" }))).message).toMatch(/give `seats`/);
    expect(PRESETS.training.joinable).toEqual({ personSeats: true, agentSeats: true });
  });

  it("sandbag: one person, every other seat the sandbag agent, in any seat order", () => {
    expect(MODES.sandbag.plan(sevens, body({ game: "sevens", config: { seats: 3 } })).seats).toEqual(["human", "sandbag", "sandbag"]);
    expect(MODES.sandbag.plan(sevens, body({ game: "sevens", seats: ["sandbag", "human", "sandbag"] })).seats).toEqual(["sandbag", "human", "sandbag"]);
    expect(refusal(() => MODES.sandbag.plan(sevens, body({ game: "sevens", seats: ["sandbag", "human", "random"] }))).code).toBe("invalid_seats");
  });

  it("audience: agents only, paced unless the body sets the pace, spectators required", () => {
    const plan = MODES.audience.plan(sevens, body({ game: "sevens", seats: ["random", "random", "random"] }));
    expect(plan.deadlines).toEqual({ botDelayMs: 500 });
    expect(refusal(() => MODES.audience.plan(sevens, body({ game: "sevens", seats: ["human", "random", "random"] }))).code).toBe("invalid_seats");
    expect(refusal(() => MODES.audience.plan(sevens, body({ game: "sevens", seats: ["random", "random", "random"], spectators: false }))).code).toBe(
      "invalid_seats",
    );
  });

  it("learning: not a table; its plan points to the session API", () => {
    const e = refusal(() => MODES.learning.plan(sevens, body({ game: "sevens", facilitator: "learning" })));
    expect(e.code).toBe("unsupported_facilitator");
    expect(e.message).toContain("/v1/sessions");
    expect(PRESETS.learning.drivers).toEqual(["client", "agent"]);
  });
});

describe("replay: a Facilitator driven by a record", () => {
  const recorded = (g: AnyGame, config: { seats: number }, seed: number) =>
    runMatch({ game: g, config, seed, agents: Array.from({ length: config.seats }, (_, i) => new RandomAgent(seed + i)) });

  it("replaying a recorded game reaches the same final hash, every seat driven by the record", async () => {
    for (const [id, config] of [
      ["dcg", { seats: 2 }],
      ["sevens", { seats: 4 }],
      ["blackpoker", { seats: 2 }],
      ["shephy", { seats: 1 }],
    ] as const) {
      const g = game(id);
      const match = await recorded(g, config, 11);
      const played = MODES.replay.play(registry, JSON.parse(JSON.stringify(match.record)));
      expect(played.finalHash).toBe(match.finalHash);
      expect(stateHash(played.states[played.states.length - 1])).toBe(match.finalHash);
      expect(played.steps.map((s) => s.decision)).toEqual(match.record.decisions);
      // Each step was asked of the seat the game named.
      played.steps.forEach((s, i) => expect(s.seat).toBe(g.actor(played.states[i])));
      expect(played.steps.every((s) => !s.byDefault)).toBe(true);
    }
  });

  it("a pending decision's default (sevens' forced pass, not listed as legal) plays back as one", () => {
    const config = sevens.parseConfig({ seats: 3, turnTimeoutSec: 5 });
    if (!config.ok) throw new Error(config.error.message);
    let state = sevens.setup(config.value, 4);
    const decisions: unknown[] = [];
    // Seat by seat: the first legal play, except that every third turn runs out of time (the forced pass).
    for (let i = 0; i < 40 && sevens.actor(state) !== "terminal"; i++) {
      const legal = sevens.legal(state);
      const timedOut = i % 3 === 2;
      const d = timedOut ? sevens.expectation(state)!.defaultDecision : legal[0];
      decisions.push(d);
      const out = sevens.apply(state, d);
      if (!out.ok) throw new Error(out.error.message);
      state = out.state;
    }
    const record: GameRecord = { game: "sevens", version: sevens.info.version, config: config.value, seed: 4, decisions, finalHash: stateHash(state) };
    const played = MODES.replay.play(registry, record);
    expect(played.finalHash).toBe(stateHash(state));
    const defaults = played.steps.filter((s) => s.byDefault).length;
    expect(defaults).toBeGreaterThan(0);
  });

  it("refuses a record that does not play back: an illegal decision, a wrong final hash, a wrong version", async () => {
    const match = await recorded(blackpoker, { seats: 2 }, 5);
    const code = (raw: unknown) => refusal(() => MODES.replay.play(registry, raw)).code;
    const edited = { ...match.record, decisions: match.record.decisions.map((d, i) => (i === 3 ? { kind: "nonsense" } : d)) };
    expect(code(edited)).toBe("invalid_record");
    expect(code({ ...match.record, finalHash: "0" })).toBe("invalid_record");
    expect(code({ ...match.record, version: "0.0.0-old" })).toBe("invalid_record");
    expect(code({ ...match.record, decisions: [...match.record.decisions, match.record.decisions[0]] })).toBe("invalid_record");
    expect(refusal(() => MODES.replay.plan(blackpoker, body({ game: "blackpoker", facilitator: "replay" }))).code).toBe("invalid_record");
  });
});
