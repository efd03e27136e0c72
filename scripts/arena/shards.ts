/**
 * Part of a run played in one place, merged with the other parts somewhere else (docs/scale.md):
 * `--fixtures A:B` plays games [A, B) of a round robin's schedule and `--groups A:B` groups
 * [A, B) of an SPRT, each writing a results file instead of a report; `--from-results` and
 * `--from-scores` read such files, check that they come from one plan and hold every game of it
 * exactly once, and report as if the games had been played here. Game i's deal and agent seeds
 * come from the run's seed and i alone, so a merged report equals the one-machine report.
 */
import { readFileSync } from "node:fs";
import { Type, type Static, type TSchema } from "typebox";
import { Value } from "typebox/value";
import { deriveSeed } from "../../engine/core/index.ts";
import { schedule, type AgentTiming, type GameResult } from "../../agents/arena/tournament.ts";
import { UsageError } from "../cli.ts";

const Score = Type.Union([Type.Literal(0), Type.Literal(0.5), Type.Literal(1)]);
const Count = Type.Integer({ minimum: 0 });
const Seconds = Type.Number({ minimum: 0 });

export const ArenaPlanSchema = Type.Object({
  game: Type.String({ maxLength: 64 }),
  gameVersion: Type.String({ maxLength: 64 }),
  config: Type.Record(Type.String(), Type.Unknown()),
  agents: Type.Array(Type.String({ maxLength: 512 }), { minItems: 1, maxItems: 64 }),
  games: Type.Integer({ minimum: 1, maximum: 1_000_000 }),
  seed: Type.Integer(),
});

const GameResultSchema = Type.Object({
  seats: Type.Array(Type.Integer({ minimum: -1 }), { maxItems: 64 }),
  pair: Type.Union([Type.Tuple([Count, Count]), Type.Null()]),
  deal: Count,
  seed: Type.Integer(),
  returns: Type.Array(Type.Number(), { maxItems: 64 }),
  decisions: Count,
  score: Score,
});

export const ArenaResultsSchema = Type.Object({
  kind: Type.Literal("cardgym-arena-results"),
  plan: ArenaPlanSchema,
  /** Wall time of the part (or of the whole run, when a driver merged the parts into one file). */
  seconds: Seconds,
  shards: Type.Array(
    Type.Object({
      /** Index of the first game; the results are games from, from + 1, ... */
      from: Count,
      results: Type.Array(GameResultSchema),
      /** Per agent (plan order): decisions made and thinking time. */
      timing: Type.Array(Type.Object({ decisions: Count, seconds: Seconds })),
    }),
  ),
});

export const SprtPlanSchema = Type.Object({
  game: Type.String({ maxLength: 64 }),
  gameVersion: Type.String({ maxLength: 64 }),
  config: Type.Record(Type.String(), Type.Unknown()),
  candidate: Type.String({ maxLength: 512 }),
  baseline: Type.String({ maxLength: 512 }),
  fill: Type.String({ maxLength: 512 }),
  seed: Type.Integer(),
  gamesPerGroup: Type.Integer({ minimum: 1, maximum: 128 }),
});

export const SprtScoresSchema = Type.Object({
  kind: Type.Literal("cardgym-sprt-scores"),
  plan: SprtPlanSchema,
  seconds: Seconds,
  /** scores[k]: the candidate's score in each game of group from + k. */
  shards: Type.Array(Type.Object({ from: Count, scores: Type.Array(Type.Array(Score, { maxItems: 128 })) })),
});

export type ArenaPlan = Static<typeof ArenaPlanSchema>;
export type ArenaResults = Static<typeof ArenaResultsSchema>;
export type SprtPlan = Static<typeof SprtPlanSchema>;
export type SprtScores = Static<typeof SprtScoresSchema>;

/** "A:B" (0 <= A < B <= max) as [A, B). */
export function parseRange(value: string, flag: string, max = Number.MAX_SAFE_INTEGER): [number, number] {
  const m = /^(\d+):(\d+)$/.exec(value);
  const from = Number(m?.[1]);
  const to = Number(m?.[2]);
  if (!m || !Number.isSafeInteger(from) || !Number.isSafeInteger(to) || from >= to)
    throw new UsageError(`--${flag} must be A:B with A < B (games A to B-1), got "${value}"`);
  if (to > max) throw new UsageError(`--${flag} ${value}: the plan has ${max}, so B can be at most ${max}`);
  return [from, to];
}

/**
 * Reads and validates the files of one run (untrusted: one clear line per problem), and the one
 * plan they all name (files of different runs cannot be merged).
 */
function readRun<T extends { plan: unknown }>(files: readonly string[], flag: string, schema: TSchema, kind: string): { parsed: T[]; plan: T["plan"] } {
  if (files.length === 0) throw new UsageError(`--${flag} needs at least one file`);
  const parsed = files.map((file) => {
    let raw: unknown;
    try {
      raw = JSON.parse(readFileSync(file, "utf8"));
    } catch (e) {
      throw new UsageError(`--${flag}: cannot read ${file} as JSON (${(e as Error).message.split("\n")[0]})`);
    }
    if ((raw as { kind?: unknown } | null)?.kind !== kind) throw new UsageError(`--${flag}: ${file} is not a ${kind} file`);
    if (!Value.Check(schema, raw)) {
      const [e] = Value.Errors(schema, raw);
      throw new UsageError(`--${flag}: ${file}: ${e ? `${e.instancePath || "/"} ${e.message}` : "invalid"}`);
    }
    return raw as T;
  });
  const first = JSON.stringify(parsed[0]!.plan);
  parsed.forEach((p, i) => {
    if (JSON.stringify(p.plan) !== first) throw new UsageError(`--${flag}: ${files[i]} is from another run than ${files[0]} (its plan differs)`);
  });
  return { parsed, plan: parsed[0]!.plan };
}

/** Marks indices [from, from + n) as covered; an index covered twice is an error. */
function cover(seen: Uint8Array, from: number, n: number, what: string, flag: string): void {
  if (from + n > seen.length) throw new UsageError(`--${flag}: ${what}s ${from}..${from + n - 1} are past the plan's ${seen.length}`);
  for (let i = from; i < from + n; i++) {
    if (seen[i]) throw new UsageError(`--${flag}: ${what} ${i} is in the files twice`);
    seen[i] = 1;
  }
}

export interface MergedArena {
  readonly plan: ArenaPlan;
  readonly results: GameResult[];
  readonly timing: AgentTiming[];
  readonly seconds: number;
}

/**
 * Merges round-robin results files of one plan: every scheduled game exactly once, each result
 * played on the seating, deal and seed the schedule gives its index. Seconds: the longest file's.
 */
export function mergeArenaResults(files: readonly string[], seats: (plan: ArenaPlan) => number): MergedArena {
  const flag = "from-results";
  const { parsed, plan } = readRun<ArenaResults>(files, flag, ArenaResultsSchema, "cardgym-arena-results");
  const fixtures = schedule(plan.agents.length, seats(plan), plan.games);
  const seen = new Uint8Array(fixtures.length);
  const results = new Array<GameResult>(fixtures.length);
  const timing = plan.agents.map(() => ({ decisions: 0, seconds: 0 }));
  for (const shard of parsed.flatMap((p) => p.shards)) {
    cover(seen, shard.from, shard.results.length, "game", flag);
    shard.results.forEach((r, k) => {
      const f = fixtures[shard.from + k]!;
      const expected = { seats: f.seats, pair: f.pair, deal: f.deal, seed: deriveSeed(plan.seed, `deal:${f.deal}`) };
      const got = { seats: r.seats, pair: r.pair, deal: r.deal, seed: r.seed };
      if (JSON.stringify(got) !== JSON.stringify(expected) || r.returns.length !== f.seats.length)
        throw new UsageError(`--${flag}: game ${f.index} was not played as the plan schedules it`);
      results[f.index] = r;
    });
    if (shard.timing.length !== plan.agents.length) throw new UsageError(`--${flag}: a part's timing does not list the plan's ${plan.agents.length} agents`);
    shard.timing.forEach((t, i) => {
      timing[i]!.decisions += t.decisions;
      timing[i]!.seconds += t.seconds;
    });
  }
  const missing = seen.indexOf(0);
  if (missing >= 0) throw new UsageError(`--${flag}: game ${missing} of ${fixtures.length} is in none of the files`);
  return { plan, results, timing, seconds: Math.max(...parsed.map((p) => p.seconds)) };
}

export interface MergedSprt {
  readonly plan: SprtPlan;
  /** Group scores by group index, from 0 up to the first group no file holds. */
  readonly groups: readonly (readonly number[])[];
  readonly seconds: number;
}

/** Merges SPRT scores files of one plan: each group at most once, kept from group 0 up to the first gap. */
export function mergeSprtScores(files: readonly string[]): MergedSprt {
  const flag = "from-scores";
  const { parsed, plan } = readRun<SprtScores>(files, flag, SprtScoresSchema, "cardgym-sprt-scores");
  const byGroup = new Map<number, readonly number[]>();
  for (const shard of parsed.flatMap((p) => p.shards)) {
    shard.scores.forEach((s, k) => {
      const g = shard.from + k;
      if (byGroup.has(g)) throw new UsageError(`--${flag}: group ${g} is in the files twice`);
      if (s.length !== plan.gamesPerGroup) throw new UsageError(`--${flag}: group ${g} has ${s.length} games, the plan ${plan.gamesPerGroup}`);
      byGroup.set(g, s);
    });
  }
  const groups: (readonly number[])[] = [];
  while (byGroup.has(groups.length)) groups.push(byGroup.get(groups.length)!);
  return { plan, groups, seconds: Math.max(...parsed.map((p) => p.seconds)) };
}
