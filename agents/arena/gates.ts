import { Type, type Static, type TSchema } from "typebox";
import { Value } from "typebox/value";
import { InvariantError, must } from "../../engine/core/index.ts";
import type { ArenaReport } from "./report.ts";

/**
 * Gate files (.ci/gates.json): a JSON array (or {"gates": [...]}) of two kinds of gate, both
 * TypeBox schemas (the TS types, the JSON Schema and the validation come from one definition).
 *
 * Win-rate gate: `agent` must beat `baseline` (multi-seat games) with a win rate whose 95% Wilson
 * lower bound is at least minWinRate, in a round robin (`npm run arena -- --agents ... --gate F`).
 * In a solitaire the agent's own win rate is judged and baseline, if given, is only reported.
 * `game`, if given, limits the gate to that game.
 *
 * SPRT gate (`"kind": "sprt"`): a sequential test between `candidate` and `baseline` on paired
 * games (`npm run arena -- --sprt --gate F`, docs/sprt.md). It passes when the test accepts H1
 * (candidate at elo1 rather than elo0) and fails when it accepts H0, or when maxGames are reached
 * undecided (unless `inconclusive` is "pass"). Non-regression ("not weaker by more than N Elo"):
 * elo0 = -N, elo1 = 0.
 */
const Spec = Type.String({ minLength: 1, maxLength: 512 });

export const WinRateGateSchema = Type.Object(
  {
    kind: Type.Optional(Type.Literal("winrate")),
    agent: Spec,
    baseline: Type.Optional(Spec),
    minWinRate: Type.Number({ minimum: 0, maximum: 1 }),
    game: Type.Optional(Type.String({ minLength: 1, maxLength: 64 })),
  },
  { additionalProperties: false },
);

const Elo = Type.Number({ minimum: -2000, maximum: 2000 });
const ErrorRate = Type.Number({ exclusiveMinimum: 0, exclusiveMaximum: 0.5 });

export const SprtGateSchema = Type.Object(
  {
    kind: Type.Literal("sprt"),
    /** Named in logs and failures. */
    name: Type.String({ minLength: 1, maxLength: 120 }),
    game: Type.String({ minLength: 1, maxLength: 64 }),
    /** Game config (seats and options); the game's defaults when absent. */
    config: Type.Optional(Type.Record(Type.String(), Type.Unknown())),
    candidate: Spec,
    /** An agent spec, or "champion": the game's champion in models/registry.json. */
    baseline: Spec,
    /** Seats other than the two under test (games with more than two seats); default "random". */
    fill: Type.Optional(Spec),
    elo0: Elo,
    elo1: Elo,
    alpha: Type.Optional(ErrorRate),
    beta: Type.Optional(ErrorRate),
    maxGames: Type.Integer({ minimum: 2, maximum: 1_000_000 }),
    seed: Type.Optional(Type.Integer({ minimum: 0, maximum: 2 ** 31 - 1 })),
    /** What an undecided run at maxGames means; default "fail". */
    inconclusive: Type.Optional(Type.Union([Type.Literal("pass"), Type.Literal("fail")])),
  },
  { additionalProperties: false },
);

export type WinRateGate = Static<typeof WinRateGateSchema>;
export type SprtGate = Static<typeof SprtGateSchema>;
export type AnyGate = WinRateGate | SprtGate;
/** The win-rate gate (the kind the round robin evaluates). */
export type Gate = WinRateGate;

export const isSprtGate = (g: AnyGate): g is SprtGate => g.kind === "sprt";

export interface GateResult {
  readonly gate: Gate;
  readonly pass: boolean;
  readonly skipped: boolean;
  readonly winRate: number;
  readonly wilsonLow: number;
  readonly games: number;
  /** One line for logs and reports. */
  readonly line: string;
}

/** What a gate result says in reports: a gate for another game is SKIP (it neither passes nor fails the run's bot). */
export function gateVerdict(result: Pick<GateResult, "pass" | "skipped">): "PASS" | "FAIL" | "SKIP" {
  return result.skipped ? "SKIP" : result.pass ? "PASS" : "FAIL";
}

export class GateFileError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "GateFileError";
  }
}

function firstError(schema: TSchema, value: unknown, at: string): string {
  const [e] = Value.Errors(schema, value);
  if (!e) return `${at} is invalid`;
  const where = e.instancePath === "" ? at : `${at}${e.instancePath.replaceAll("/", ".")}`;
  if (e.keyword === "additionalProperties" || e.keyword === "boolean") {
    const extra = Object.keys(value as object).filter((k) => !Object.hasOwn((schema as { properties: object }).properties, k));
    return `${at} has an unknown field "${extra[0] ?? "?"}" (allowed: ${Object.keys((schema as { properties: object }).properties).join(", ")})`;
  }
  return `${where} ${e.message}`;
}

/** Validates a parsed gates document (an array of gates, or {"gates": [...]}). */
export function parseAllGates(raw: unknown): AnyGate[] {
  const list = raw !== null && typeof raw === "object" && !Array.isArray(raw) && "gates" in raw ? (raw as { gates: unknown }).gates : raw;
  if (!Array.isArray(list))
    throw new GateFileError('the gate file must hold a JSON array of gates ({"agent", "baseline", "minWinRate"} or {"kind": "sprt", ...})');
  return list.map((g: unknown, i) => {
    const at = `gates[${i}]`;
    if (g === null || typeof g !== "object" || Array.isArray(g)) throw new GateFileError(`${at} must be an object`);
    const kind = (g as { kind?: unknown }).kind;
    if (kind !== undefined && kind !== "sprt" && kind !== "winrate") throw new GateFileError(`${at}.kind must be "winrate" or "sprt"`);
    const schema = kind === "sprt" ? SprtGateSchema : WinRateGateSchema;
    if (!Value.Check(schema, g)) throw new GateFileError(firstError(schema, g, at));
    if (kind === "sprt") {
      const s = g as SprtGate;
      if (!(s.elo0 < s.elo1)) throw new GateFileError(`${at}: elo0 must be below elo1`);
      return s;
    }
    return g as WinRateGate;
  });
}

/** The win-rate gates of a gate file (SPRT gates are run by `arena --sprt`). */
export function parseGates(raw: unknown): Gate[] {
  return parseAllGates(raw).filter((g): g is WinRateGate => !isSprtGate(g));
}

/** Finds an agent by exact spec, or by its name when exactly one listed spec has that name. */
export function resolveAgent(agents: readonly string[], wanted: string): string | null {
  if (agents.includes(wanted)) return wanted;
  const byName = agents.filter((a) => a.split(":")[0] === wanted);
  return byName.length === 1 ? (byName[0] ?? null) : null;
}

/** Checks the gates' agents exist before any game is played (a typo should not cost a run). */
export function checkGateAgents(gates: readonly Gate[], agents: readonly string[], game: string, seats: number): void {
  gates.forEach((g, i) => {
    if (g.game !== undefined && g.game !== game) return;
    if (resolveAgent(agents, g.agent) === null) throw new GateFileError(`gates[${i}]: agent "${g.agent}" is not among --agents (${agents.join(", ")})`);
    if (seats > 1 && g.baseline === undefined) throw new GateFileError(`gates[${i}]: a baseline is needed in a ${seats}-seat game`);
    if (g.baseline !== undefined && resolveAgent(agents, g.baseline) === null) {
      throw new GateFileError(`gates[${i}]: baseline "${g.baseline}" is not among --agents (${agents.join(", ")})`);
    }
    if (g.baseline !== undefined && seats > 1 && resolveAgent(agents, g.baseline) === resolveAgent(agents, g.agent)) {
      throw new GateFileError(`gates[${i}]: agent and baseline are the same agent`);
    }
  });
}

/** The report's spec for a gate's agent or baseline: checkGateAgents has made sure, before any game, that there is one. */
function reportedAgent(report: ArenaReport, wanted: string | undefined, role: "agent" | "baseline"): string {
  const names = report.agents.map((a) => a.agent);
  const found = wanted === undefined ? null : resolveAgent(names, wanted);
  if (found === null) throw new InvariantError(`arena gates: the gate's ${role} ${wanted ?? "(none)"} is not among the report's agents`);
  return found;
}

export function evaluateGates(gates: readonly Gate[], report: ArenaReport): GateResult[] {
  return gates.map((gate) => {
    if (gate.game !== undefined && gate.game !== report.game) {
      return { gate, pass: true, skipped: true, winRate: 0, wilsonLow: 0, games: 0, line: `${gate.agent}: not judged, the gate is for ${gate.game}` };
    }
    const agent = reportedAgent(report, gate.agent, "agent");
    const need = `>= ${(gate.minWinRate * 100).toFixed(1)}%`;
    if (report.seats === 1) {
      const s = must(
        report.solo.find((x) => x.agent === agent),
        `arena gates: the solitaire results of ${agent}`,
      );
      const pass = s.wilsonLow >= gate.minWinRate;
      return {
        gate,
        pass,
        skipped: false,
        winRate: s.winRate,
        wilsonLow: s.wilsonLow,
        games: s.games,
        line: `${agent} wins ${s.wins}/${s.games} (${(100 * s.winRate).toFixed(1)}%, Wilson low ${(100 * s.wilsonLow).toFixed(1)}%), needs ${need}`,
      };
    }
    const baseline = reportedAgent(report, gate.baseline, "baseline");
    const m = must(
      report.matrix.find((x) => x.agent === agent && x.opponent === baseline),
      `arena gates: the pairing of ${agent} against ${baseline}`,
    );
    const pass = m.wilsonLow >= gate.minWinRate;
    return {
      gate,
      pass,
      skipped: false,
      winRate: m.winRate,
      wilsonLow: m.wilsonLow,
      games: m.games,
      line: `${agent} vs ${baseline}: ${m.wins}-${m.draws}-${m.losses} of ${m.games} (${(100 * m.winRate).toFixed(1)}%, Wilson low ${(100 * m.wilsonLow).toFixed(1)}%), needs ${need}`,
    };
  });
}
