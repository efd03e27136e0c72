import { applyChecked, type Game, type Seat, type Viewer } from "../core/index.ts";
import type { BattleData } from "./battle-data.ts";
import { PRESET_BOOKS, STARTER_POOL } from "./cards.ts";
import { parseDcgConfig, STRATEGY_SIZE, type DcgConfig, type PresetBook } from "./config.ts";
import type { Decision } from "./decision.ts";
import { determinizeView } from "./determinize.ts";
import { Draft, type Trace } from "./draft.ts";
import { actorOf, applyDecision } from "./flow.ts";
import { legal as legalOps, STRATEGY_REMOVES } from "./operation.ts";
import type { Pool } from "./pool.ts";
import { describeDecision, renderBattle } from "./render.ts";
import { setupBattle } from "./setup.ts";
import { viewOf, type DcgView } from "./view.ts";

export type { BattleData, DcgConfig, Decision, DcgView, Pool, PresetBook, Trace };
export { PRESET_BOOKS, STARTER_POOL };

const FORCE_FINISH: Decision = { kind: "forceFinish" };

/** Decisions one operation can cause at most: moveDeclare, a reaction, moveRetry, a feint window. */
const DECISIONS_PER_OP = 4;

export interface DcgGame extends Game<BattleData, Decision, DcgView, DcgConfig> {
  readonly pool: Pool;
  readonly presets: readonly PresetBook[];
  /** applyTrusted that also records the commands and triggers it ran (tests, the play CLI). */
  applyTraced(state: BattleData, decision: Decision): { state: BattleData; trace: Trace };
}

/** The dcg game over a card pool (the shipped one, or a test pool). */
export function makeDcg(pool: Pool = STARTER_POOL, presets: readonly PresetBook[] = PRESET_BOOKS): DcgGame {
  const actor = (s: BattleData): Seat | "terminal" => (s.finished ? "terminal" : actorOf({ s }));
  const legal = (s: BattleData): Decision[] => (s.finished ? [] : legalOps(s, pool));
  const applyTrusted = (s: BattleData, decision: Decision): BattleData => {
    const d = new Draft(s, pool);
    applyDecision(d, decision);
    return d.finish();
  };
  const expectation = (s: BattleData) => {
    if (s.finished) return null;
    const seat = actorOf({ s });
    return s.cfg.timeoutMs === null ? { seat, defaultDecision: FORCE_FINISH } : { seat, timeoutMs: s.cfg.timeoutMs, defaultDecision: FORCE_FINISH };
  };
  return {
    info: { id: "dcg", version: "1", title: "DCG (seed 000's grid battle)", minSeats: 2, maxSeats: 2, defaultSeats: 2, zeroSum: true },
    pool,
    presets,
    parseConfig: (raw) => parseDcgConfig(raw, pool, presets),
    setup: (config, seed) => setupBattle(config, seed, pool, presets),
    config: (s) => s.cfg,
    actor,
    legal,
    apply: (s, decision) => applyChecked(s, decision, actor, legal, applyTrusted, expectation),
    applyTrusted,
    applyTraced(s, decision) {
      const trace: Trace = { commands: [], triggers: [] };
      const d = new Draft(s, pool, trace);
      applyDecision(d, decision);
      return { state: d.finish(), trace };
    },
    returns: (s) => (!s.finished || s.winner < 0 ? [0, 0] : s.winner === 0 ? [1, -1] : [-1, 1]),
    view: (s, viewer: Viewer) => viewOf(s, pool, viewer),
    expectation,
    maxDecisions: (c) => {
      // Strategy: 5 placements + STRATEGY_REMOVES moves + a confirm, per player. Each turn: a
      // DrawOrCharge, at most opsPerTurn operations of at most 4 decisions each, a turnFinish.
      const strategy = 2 * (STRATEGY_SIZE + STRATEGY_REMOVES + 1);
      return strategy + c.turnLimit * (2 + DECISIONS_PER_OP * c.opsPerTurn);
    },
    determinize: (view, seat, rng) => determinizeView(view, seat, rng, pool, presets),
    describe: (s, decision) => describeDecision(s, pool, decision, actorOf({ s })),
    render: (s) => renderBattle(s, pool),
  };
}

export const dcg: DcgGame = makeDcg();
