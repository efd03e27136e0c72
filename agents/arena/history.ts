/**
 * Arena history: one JSON object per line (JSONL), appended by `npm run arena -- ... --history F`
 * and read by `npm run arena:report` and `npm run promote`. Each line is an SPRT result or a round
 * robin's ratings, with the commit and the models' sha256 that produced it.
 */
import { Type, type Static } from "typebox";
import { Value } from "typebox/value";

const Num = Type.Number();
const Str = (max = 512) => Type.String({ maxLength: max });

/** An agent as it played: its spec, and for a model the file's sha256 (what identifies it). */
export const PlayerSchema = Type.Object({
  spec: Str(),
  sha256: Type.Optional(Type.String({ pattern: "^[0-9a-f]{64}$" })),
  /** The registry name, when the model is registered. */
  model: Type.Optional(Str(64)),
});

const Common = {
  time: Str(40),
  /** `git rev-parse --short HEAD` of the checkout that ran it ("unknown" outside git). */
  commit: Str(64),
  game: Str(64),
  gameVersion: Str(64),
  config: Type.Unknown(),
  seed: Type.Integer(),
  seconds: Num,
};

export const SprtEntrySchema = Type.Object({
  kind: Type.Literal("sprt"),
  ...Common,
  /** A gate's name when the run was a gate. */
  gate: Type.Optional(Str(120)),
  candidate: PlayerSchema,
  baseline: PlayerSchema,
  fill: Type.Optional(Str()),
  elo0: Num,
  elo1: Num,
  alpha: Num,
  beta: Num,
  maxGames: Type.Integer(),
  result: Type.Union([Type.Literal("H0"), Type.Literal("H1"), Type.Literal("inconclusive")]),
  llr: Num,
  lower: Num,
  upper: Num,
  games: Type.Integer(),
  gamesPerGroup: Type.Integer(),
  /** Group outcome counts: counts[j] groups where the candidate scored j half-points. */
  counts: Type.Array(Type.Integer()),
  elo: Num,
  eloLow: Num,
  eloHigh: Num,
  /** LLR and Elo after each counted group (thinned to at most 500 points). */
  trajectory: Type.Array(Type.Object({ games: Type.Integer(), llr: Num, elo: Num }), { maxItems: 2000 }),
});

export const RoundRobinEntrySchema = Type.Object({
  kind: Type.Literal("roundrobin"),
  ...Common,
  players: Type.Array(PlayerSchema),
  /** Bradley-Terry Elo with 95% bootstrap interval, per player (same order). */
  ratings: Type.Array(Type.Object({ elo: Num, low: Num, high: Num })),
  anchor: Type.Union([Str(64), Type.Null()]),
  /** wins[i][j]: games i won against j (draws count half). */
  wins: Type.Array(Type.Array(Num)),
  games: Type.Array(Type.Array(Type.Integer())),
});

export type SprtEntry = Static<typeof SprtEntrySchema>;
export type RoundRobinEntry = Static<typeof RoundRobinEntrySchema>;
export type HistoryEntry = SprtEntry | RoundRobinEntry;
export type Player = Static<typeof PlayerSchema>;

export class HistoryError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "HistoryError";
  }
}

/** Parses JSONL history text; a bad line is an error naming `source` (the file) and its line number. */
export function parseHistory(text: string, source = "history"): HistoryEntry[] {
  const out: HistoryEntry[] = [];
  text.split("\n").forEach((line, i) => {
    if (line.trim() === "") return;
    let raw: unknown;
    try {
      raw = JSON.parse(line);
    } catch {
      throw new HistoryError(`${source} line ${i + 1} is not JSON`);
    }
    const kind = (raw as { kind?: unknown } | null)?.kind;
    const schema = kind === "sprt" ? SprtEntrySchema : kind === "roundrobin" ? RoundRobinEntrySchema : null;
    if (schema === null) throw new HistoryError(`${source} line ${i + 1}: kind must be "sprt" or "roundrobin"`);
    if (!Value.Check(schema, raw)) {
      const [e] = Value.Errors(schema, raw);
      throw new HistoryError(`${source} line ${i + 1}: ${e ? `${e.instancePath || "/"} ${e.message}` : "invalid"}`);
    }
    out.push(raw as HistoryEntry);
  });
  return out;
}

/** At most `max` points, always keeping the first and the last. */
export function thin<T>(points: readonly T[], max = 500): T[] {
  if (points.length <= max) return [...points];
  // The step between kept indices is above 1, so the max rounded indices are distinct.
  const kept = new Set(Array.from({ length: max }, (_, i) => Math.round((i * (points.length - 1)) / (max - 1))));
  return points.filter((_, j) => kept.has(j));
}
