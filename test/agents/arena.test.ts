import { describe, expect, it } from "vitest";
import { bradleyTerry, ratingsWithIntervals, wilson } from "../../agents/arena/stats.ts";
import { FILLER, pairScore, runArena, schedule, timed } from "../../agents/arena/tournament.ts";
import { summarise, markdownReport } from "../../agents/arena/report.ts";
import { checkGateAgents, evaluateGates, GateFileError, gateVerdict, parseGates } from "../../agents/arena/gates.ts";
import { games } from "./fixtures/games.ts";

describe("arena statistics", () => {
  it("Wilson intervals match known values and stay inside [0, 1]", () => {
    const a = wilson(90, 100);
    expect(a.low).toBeCloseTo(0.8256, 3);
    expect(a.high).toBeCloseTo(0.9448, 3);
    expect(wilson(0, 10).low).toBe(0);
    expect(wilson(10, 10).high).toBe(1);
    expect(wilson(10, 10).low).toBeCloseTo(0.7225, 3);
  });

  it("Bradley-Terry recovers the order and a 75% edge as about +191 Elo", () => {
    const elo = bradleyTerry(
      [
        [0, 25],
        [75, 0],
      ],
      0,
    );
    expect(elo[0]).toBe(0);
    // With one virtual draw of prior: (75.5 / 25.5) -> 400 log10 = 188.6.
    expect(elo[1]).toBeCloseTo(400 * Math.log10(75.5 / 25.5), 1);
    const three = bradleyTerry([
      [0, 30, 45],
      [70, 0, 60],
      [55, 40, 0],
    ]);
    expect(three[1]).toBeGreaterThan(three[2]!);
    expect(three[2]).toBeGreaterThan(three[0]!);
    expect(three.reduce((s, x) => s + x, 0)).toBeCloseTo(0, 6);
  });

  it("bootstrap intervals contain the estimate and are reproducible", () => {
    const pairs = [{ a: 0, b: 1, outcomes: Array.from({ length: 60 }, (_, i) => (i % 3 === 0 ? 0 : 1)) }];
    const r = ratingsWithIntervals(2, pairs, 0, 5, 100);
    expect(r[1]!.low).toBeLessThan(r[1]!.elo);
    expect(r[1]!.high).toBeGreaterThan(r[1]!.elo);
    expect(ratingsWithIntervals(2, pairs, 0, 5, 100)).toEqual(r);
  });
});

describe("arena schedule", () => {
  it("2 seats: seats swap on the same deal", () => {
    const f = schedule(2, 2, 4);
    expect(f.map((x) => x.seats)).toEqual([
      [0, 1],
      [1, 0],
      [0, 1],
      [1, 0],
    ]);
    expect(f.map((x) => x.deal)).toEqual([0, 0, 1, 1]);
  });

  it("N seats: the pair visits every position, swapping on each deal, fillers elsewhere", () => {
    const f = schedule(2, 4, 8);
    expect(f[0]!.seats).toEqual([0, 1, FILLER, FILLER]);
    expect(f[1]!.seats).toEqual([1, 0, FILLER, FILLER]);
    expect(f[2]!.seats).toEqual([FILLER, 0, 1, FILLER]);
    expect(f[7]!.seats).toEqual([0, FILLER, FILLER, 1]);
    const teams = schedule(2, 3, 2, false);
    expect(teams.map((x) => x.seats)).toEqual([
      [0, 1, 0],
      [1, 0, 1],
    ]);
  });

  it("solitaire: every agent plays the same deals", () => {
    const f = schedule(3, 1, 2);
    expect(f.map((x) => [x.seats[0], x.deal])).toEqual([
      [0, 0],
      [0, 1],
      [1, 0],
      [1, 1],
      [2, 0],
      [2, 1],
    ]);
  });

  it("scores a game by the pair's own returns, ignoring fillers", () => {
    expect(pairScore([0, 1, FILLER], [-1, 0, 1], 0)).toBe(0);
    expect(pairScore([1, 0, FILLER], [-1, 0, 1], 0)).toBe(1);
    expect(pairScore([0, 1, 0], [0.5, 0, -0.5], 0)).toBe(0.5);
  });
});

describe("arena runs and gates", () => {
  const game = games.sevens!;
  const parsed = game.parseConfig({ seats: 3 });
  if (!parsed.ok) throw new Error("config");
  const config = parsed.value as never;

  it("gives the same results whatever the concurrency, and a report with matrix and ratings", async () => {
    const agents = ["random", "computer:dets=2", "sandbag"];
    const one = await runArena({ game, config, agents, games: 4, seed: 3, concurrency: 1 });
    const many = await runArena({ game, config, agents, games: 4, seed: 3, concurrency: 5 });
    expect(many.results).toEqual(one.results);
    const report = summarise({ game: "sevens", gameVersion: "1", config, seats: 3, seed: 3, games: 4, agents, run: one });
    expect(report.matrix).toHaveLength(6);
    for (const m of report.matrix) expect(m.wins + m.draws + m.losses).toBe(4);
    const ab = report.matrix.find((m) => m.agent === "random" && m.opponent === "sandbag")!;
    const ba = report.matrix.find((m) => m.agent === "sandbag" && m.opponent === "random")!;
    expect([ab.wins, ab.draws, ab.losses]).toEqual([ba.losses, ba.draws, ba.wins]);
    expect(report.agents[0]!.rating!.elo).toBe(0); // anchored on random
    // A gate for another game is neither a pass nor a fail: the report says SKIP.
    const gates = parseGates([
      { agent: "sandbag", baseline: "random", minWinRate: 0, game: "sevens" },
      { agent: "computer", baseline: "random", minWinRate: 0.6, game: "blackpoker" },
    ]);
    const results = evaluateGates(gates, report);
    expect(results.map(gateVerdict)).toEqual(["PASS", "SKIP"]);
    const md = markdownReport(report, results);
    expect(md).toContain("| **computer:dets=2** |");
    expect(md).toContain("Elo (Bradley-Terry, random = 0)");
    expect(md).toMatch(/^- PASS: sandbag vs random: /m);
    expect(md).toMatch(/^- SKIP: computer: not judged, the gate is for blackpoker$/m);
  });

  it("prints every pairing's win rate with its 95% Wilson interval", async () => {
    const agents = ["random", "computer:dets=2", "sandbag"];
    const run = await runArena({ game, config, agents, games: 6, seed: 5 });
    const report = summarise({ game: "sevens", gameVersion: "1", config, seats: 3, seed: 5, games: 6, agents, run });
    const md = markdownReport(report);
    const pct = (x: number) => `${(100 * x).toFixed(1)}%`;
    for (const [a, b] of [
      ["random", "computer:dets=2"],
      ["random", "sandbag"],
      ["computer:dets=2", "sandbag"],
    ] as const) {
      const m = report.matrix.find((x) => x.agent === a && x.opponent === b)!;
      const ci = wilson(m.wins, m.games);
      expect(md).toContain(`| ${a} | ${b} | 6 | ${m.wins}-${m.draws}-${m.losses} | ${pct(m.wins / 6)} | ${pct(ci.low)} .. ${pct(ci.high)} |`);
    }
  });

  it("prints no upper bound for the Elo of an agent that won every game, nor a lower one for an agent that lost every game", () => {
    // Four games, all won by "strong": resampling them cannot vary the result, and the bootstrap
    // interval was the point estimate on both sides (191 .. 191).
    const results = [0, 1, 2, 3].map((deal) => ({
      seats: deal % 2 === 0 ? [0, 1] : [1, 0],
      pair: [0, 1] as const,
      deal,
      seed: deal,
      returns: [0, 0],
      decisions: 10,
      score: 0,
    }));
    const timing = [
      { decisions: 20, seconds: 1 },
      { decisions: 20, seconds: 1 },
    ];
    const reportOf = (agents: readonly string[]) =>
      summarise({ game: "dcg", gameVersion: "1", config: {}, seats: 2, seed: 1, games: 4, agents, run: { results, timing, seconds: 1 } });
    const two = reportOf(["random", "strong"]);
    const strong = two.agents.find((a) => a.agent === "strong")!.rating!;
    expect(strong.low).toBe(strong.high); // what the bootstrap gives here
    const md = markdownReport(two);
    expect(md).toContain(`| strong | ${strong.elo.toFixed(0)} | ${strong.low.toFixed(0)} .. none (won every game) |`);
    expect(md).toContain("| random | 0 | 0 .. 0 |"); // the anchor
    // Without random the ratings are anchored on their mean: the loser has no lower bound.
    const mean = reportOf(["weak", "strong"]);
    const weak = mean.agents.find((a) => a.agent === "weak")!.rating!;
    expect(markdownReport(mean)).toContain(`| weak | ${weak.elo.toFixed(0)} | none (lost every game) .. ${weak.high.toFixed(0)} |`);
  });

  it("times an agent by the work it reports per decision, not by how long its decide waited", async () => {
    let release: () => void = () => {};
    const gate = new Promise<void>((r) => (release = r));
    const agent = {
      name: "batched",
      decide: () => 0,
      async decideTimed() {
        await gate; // as a decision queued behind other games' model runs
        return { index: 1, seconds: 0.25 };
      },
    };
    const t = { decisions: 0, seconds: 0 };
    const wrapped = timed(agent, t);
    const request = { game, seat: 0, view: null, legal: [0, 1], step: 0 };
    const answers = Promise.all([wrapped.decide(request), wrapped.decide(request)]);
    await new Promise((r) => setTimeout(r, 20));
    release();
    expect(await answers).toEqual([1, 1]);
    expect(t).toEqual({ decisions: 2, seconds: 0.5 });
  });

  it("a solitaire reports a win rate per agent", async () => {
    const shephy = games.shephy!;
    const cfg = shephy.parseConfig({});
    if (!cfg.ok) throw new Error("config");
    const agents = ["random", "tutorial"];
    const run = await runArena({ game: shephy, config: cfg.value as never, agents, games: 3, seed: 1 });
    const report = summarise({ game: "shephy", gameVersion: "1", config: cfg.value, seats: 1, seed: 1, games: 3, agents, run });
    expect(report.matrix).toEqual([]);
    expect(report.solo.map((s) => s.games)).toEqual([3, 3]);
    expect(markdownReport(report)).toContain("| agent | games | wins | win rate |");
  });

  it("validates gate files with errors naming the entry, and judges on the Wilson lower bound", () => {
    expect(() => parseGates({})).toThrow(GateFileError);
    expect(() => parseGates([{ agent: "computer", minWinRate: 2 }])).toThrow(/gates\[0\]\.minWinRate must be <= 1/);
    expect(() => parseGates([{ agent: "computer", minWinRate: 0.5, speed: 1 }])).toThrow(/unknown field "speed"/);
    const gates = parseGates([{ agent: "computer", baseline: "random", minWinRate: 0.6 }]);
    expect(() => checkGateAgents(gates, ["random", "mcts"], "sevens", 2)).toThrow(/agent "computer" is not among --agents/);
    expect(() => checkGateAgents(parseGates([{ agent: "computer", minWinRate: 0.6 }]), ["random", "computer"], "sevens", 2)).toThrow(/a baseline is needed/);
    checkGateAgents(gates, ["random", "computer:dets=8"], "sevens", 2); // matched by name

    const report = (wins: number, losses: number) =>
      ({
        game: "sevens",
        seats: 2,
        agents: [{ agent: "random" }, { agent: "computer:dets=8" }],
        matrix: [
          {
            agent: "computer:dets=8",
            opponent: "random",
            games: wins + losses,
            wins,
            draws: 0,
            losses,
            winRate: wins / (wins + losses),
            wilsonLow: wilson(wins, wins + losses).low,
            wilsonHigh: 1,
          },
        ],
        solo: [],
      }) as never;
    // 16/20 = 80% but the Wilson lower bound is 58.4%: fails a 0.6 gate; 80/100 passes it.
    expect(evaluateGates(gates, report(16, 4))[0]!.pass).toBe(false);
    expect(evaluateGates(gates, report(80, 20))[0]!.pass).toBe(true);
    expect(evaluateGates(gates, report(80, 20))[0]!.line).toMatch(/computer:dets=8 vs random: 80-0-20 of 100 \(80\.0%, Wilson low 71\.1%\), needs >= 60\.0%/);
  });
});
