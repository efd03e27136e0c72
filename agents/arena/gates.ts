import type { ArenaReport } from "./report.ts";

/**
 * A strength gate: `agent` must beat `baseline` (multi-seat games) with a win rate whose 95%
 * Wilson lower bound is at least minWinRate. In a solitaire the agent's own win rate is judged
 * and baseline, if given, is only reported. `game`, if given, limits the gate to that game.
 */
export interface Gate {
  readonly agent: string;
  readonly baseline?: string;
  readonly minWinRate: number;
  readonly game?: string;
}

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

export class GateFileError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "GateFileError";
  }
}

const KEYS = ["agent", "baseline", "minWinRate", "game"];

/** Validates a parsed gates document (an array of gates, or {"gates": [...]}). */
export function parseGates(raw: unknown): Gate[] {
  const list = raw !== null && typeof raw === "object" && !Array.isArray(raw) && "gates" in raw ? (raw as { gates: unknown }).gates : raw;
  if (!Array.isArray(list)) throw new GateFileError('the gate file must hold a JSON array of {"agent", "baseline", "minWinRate"} objects');
  return list.map((g: unknown, i) => {
    const at = `gates[${i}]`;
    if (g === null || typeof g !== "object" || Array.isArray(g)) throw new GateFileError(`${at} must be an object`);
    const o = g as Record<string, unknown>;
    for (const k of Object.keys(o)) if (!KEYS.includes(k)) throw new GateFileError(`${at} has an unknown field "${k}" (allowed: ${KEYS.join(", ")})`);
    if (typeof o.agent !== "string" || o.agent === "") throw new GateFileError(`${at}.agent must be an agent spec string`);
    if (o.baseline !== undefined && (typeof o.baseline !== "string" || o.baseline === "")) throw new GateFileError(`${at}.baseline must be an agent spec string`);
    if (typeof o.minWinRate !== "number" || !(o.minWinRate >= 0 && o.minWinRate <= 1)) throw new GateFileError(`${at}.minWinRate must be a number between 0 and 1`);
    if (o.game !== undefined && typeof o.game !== "string") throw new GateFileError(`${at}.game must be a game id`);
    return {
      agent: o.agent,
      minWinRate: o.minWinRate,
      ...(o.baseline === undefined ? {} : { baseline: o.baseline as string }),
      ...(o.game === undefined ? {} : { game: o.game as string }),
    };
  });
}

/** Finds an agent by exact spec, or by its name when exactly one listed spec has that name. */
export function resolveAgent(agents: readonly string[], wanted: string): string | null {
  if (agents.includes(wanted)) return wanted;
  const byName = agents.filter((a) => a.split(":")[0] === wanted);
  return byName.length === 1 ? byName[0]! : null;
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

export function evaluateGates(gates: readonly Gate[], report: ArenaReport): GateResult[] {
  return gates.map((gate) => {
    if (gate.game !== undefined && gate.game !== report.game) {
      return { gate, pass: true, skipped: true, winRate: 0, wilsonLow: 0, games: 0, line: `${gate.agent}: skipped (gate is for ${gate.game})` };
    }
    const agent = resolveAgent(report.agents.map((a) => a.agent), gate.agent)!;
    const need = `>= ${(gate.minWinRate * 100).toFixed(1)}%`;
    if (report.seats === 1) {
      const s = report.solo.find((x) => x.agent === agent)!;
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
    const baseline = resolveAgent(report.agents.map((a) => a.agent), gate.baseline!)!;
    const m = report.matrix.find((x) => x.agent === agent && x.opponent === baseline)!;
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
