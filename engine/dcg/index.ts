import { applyChecked, canonicalJson, type Game, type Result, type Viewer } from "../core/index.ts";
import { asSeat, type BattleData } from "./battle-data.ts";
import { PRESET_BOOKS, STARTER_POOL } from "./cards.ts";
import { generateCardSet } from "./generate.ts";
import { extendCardSet, type CardSet, type CardSetJson } from "./card-set.ts";
import { parseDcgConfig, STRATEGY_SIZE, type DcgConfig, type PresetBook } from "./config.ts";
import type { Decision } from "./decision.ts";
import { determinizeView } from "./determinize.ts";
import { dcgEvents } from "./events.ts";
import { DcgCache } from "./cache.ts";
import { Draft, ownedCopy, type Trace } from "./draft.ts";
import { explainDecision } from "./explain.ts";
import { actorOf, applyDecision } from "./flow.ts";
import { legal as legalOps, sampleLegal as sampleOps, STRATEGY_REMOVES } from "./operation.ts";
import type { Pool } from "./pool.ts";
import { describeDecision, renderBattle } from "./render.ts";
import { instanceDefs, setupBattle, type CardInstance } from "./setup.ts";
import { viewOf, type DcgView } from "./view.ts";

export type { BattleData, CardSet, CardSetJson, DcgConfig, Decision, DcgView, Pool, PresetBook, Trace };
export { PRESET_BOOKS, STARTER_POOL };
export { cardStats, cardText } from "./card-text.ts";

const FORCE_FINISH: Decision = { kind: "forceFinish" };

/** Decisions one operation can cause at most: moveDeclare, a reaction, moveRetry, a feint window. */
const DECISIONS_PER_OP = 4;

export interface DcgGame extends Game<BattleData, Decision, DcgView, DcgConfig> {
  /** The shipped pool and presets (a config's card set extends them: see poolFor). */
  readonly pool: Pool;
  readonly presets: readonly PresetBook[];
  /** The pool a config plays with: the shipped one, extended by `cfg.cardSet` or `cfg.cardPool` if any. */
  poolFor(cfg: DcgConfig): Pool;
  presetsFor(cfg: DcgConfig): readonly PresetBook[];
  /** See Game.sampleLegal: legal(s)[pick(n)] without the list in the Main and Strategy phases. */
  sampleLegal(state: BattleData, pick: (n: number) => number): Decision;
  /** See Game.applyInPlace: for search playouts on a state the caller owns (ownedCopy). */
  applyInPlace(state: BattleData, decision: Decision): BattleData;
  ownedCopy(state: BattleData): BattleData;
  /** applyTrusted that also records the commands and triggers it ran (tests, the play CLI). */
  applyTraced(state: BattleData, decision: Decision): { state: BattleData; trace: Trace };
  /** The same game with its own memo of the last result (compiled card sets and card memos shared): see Game.instance. */
  instance(): DcgGame;
}

/** The dcg game over a card pool (the shipped one, or a test pool). */
export function makeDcg(pool: Pool = STARTER_POOL, presets: readonly PresetBook[] = PRESET_BOOKS): DcgGame {
  const base: CardSet = { pool, presets };
  // Compiled card sets: by the config's cardSet object (the states of one game share it), then by
  // content (a state revived from JSON has a fresh copy). Bounded: a server sees many configs.
  const byObject = new WeakMap<object, CardSet>();
  const byContent = new Map<string, CardSet>();
  const extend = (raw: unknown, bookSize: number): Result<CardSet> => extendCardSet(base, raw, bookSize);
  const setFor = (cfg: DcgConfig): CardSet => {
    const raw = cfg.cardSet ?? cfg.cardPool;
    if (raw === undefined) return base;
    let set = byObject.get(raw);
    if (set !== undefined) return set;
    const key = `${cfg.bookSize}:${canonicalJson(raw)}`;
    set = byContent.get(key);
    if (set === undefined) {
      const source = cfg.cardSet ?? (cfg.cardPool === undefined ? undefined : generateCardSet(cfg.cardPool.generate));
      if (source === undefined) throw new Error("dcg: the state config has neither a cardSet nor a cardPool");
      const r = extend(source, cfg.bookSize);
      // parseConfig validated it; a hand-edited state with a broken card set is a caller error.
      if (!r.ok) throw new Error(`dcg: invalid cardSet in state config: ${r.error.message}`);
      set = r.value;
      const oldest = byContent.keys().next();
      if (byContent.size >= 64 && !oldest.done) byContent.delete(oldest.value);
      byContent.set(key, set);
    }
    byObject.set(raw, set);
    return set;
  };
  return dcgOver(commonOf({ pool, presets, base, extend, setFor }), new DcgCache());
}

/** What every instance of one dcg game shares: the shipped pool and presets, and the compiled card sets of configs. */
interface CardSets {
  readonly pool: Pool;
  readonly presets: readonly PresetBook[];
  readonly base: CardSet;
  extend(raw: unknown, bookSize: number): Result<CardSet>;
  setFor(cfg: DcgConfig): CardSet;
}

/** The functions of a dcg game that use no memo across applies: made once per game, shared by its instances. */
type Common = Omit<
  DcgGame,
  "setup" | "legal" | "sampleLegal" | "apply" | "applyTrusted" | "applyInPlace" | "applyTraced" | "explain" | "events" | "instance"
> & {
  readonly poolOf: (s: BattleData) => Pool;
  readonly sets: CardSets;
};

function commonOf(sets: CardSets): Common {
  const { pool, presets, base, extend, setFor } = sets;
  const poolOf = (s: BattleData): Pool => (s.cfg.cardSet === undefined && s.cfg.cardPool === undefined ? pool : setFor(s.cfg).pool);
  // The card instances of a config (read only), by config object: every sample a search draws
  // from one view has that view's very config, and the list is the same every time.
  const instancesByConfig = new WeakMap<DcgConfig, readonly CardInstance[]>();
  return {
    info: { id: "dcg", version: "1", title: "DCG (grid battle)", minSeats: 2, maxSeats: 2, defaultSeats: 2, zeroSum: true },
    pool,
    presets,
    poolFor: (cfg) => setFor(cfg).pool,
    presetsFor: (cfg) => setFor(cfg).presets,
    parseConfig: (raw) => parseDcgConfig(raw, base, extend),
    config: (s) => s.cfg,
    actor: (s) => (s.finished ? "terminal" : actorOf({ s })),
    // forceFinish makes the actor lose (docs/rules/dcg.md): the one way to give a battle up.
    concede: (s, seat) => (!s.finished && actorOf({ s }) === seat ? FORCE_FINISH : null),
    returns: (s) => (!s.finished || s.winner < 0 ? [0, 0] : s.winner === 0 ? [1, -1] : [-1, 1]),
    view: (s, viewer: Viewer) => viewOf(s, poolOf(s), viewer),
    expectation: (s) => {
      if (s.finished) return null;
      const seat = actorOf({ s });
      return s.cfg.timeoutMs === null ? { seat, defaultDecision: FORCE_FINISH } : { seat, timeoutMs: s.cfg.timeoutMs, defaultDecision: FORCE_FINISH };
    },
    maxDecisions: (c) => {
      // Strategy: 5 placements + STRATEGY_REMOVES moves + a confirm, per player. Each turn: a
      // DrawOrCharge, at most opsPerTurn operations of at most 4 decisions each, a turnFinish.
      const strategy = 2 * (STRATEGY_SIZE + STRATEGY_REMOVES + 1);
      return strategy + c.turnLimit * (2 + DECISIONS_PER_OP * c.opsPerTurn);
    },
    determinize: (view, seat, rng) => {
      const set = setFor(view.cfg);
      let insts = instancesByConfig.get(view.cfg);
      if (insts === undefined) {
        insts = instanceDefs(view.cfg, set.pool, set.presets);
        instancesByConfig.set(view.cfg, insts);
      }
      return determinizeView(view, asSeat(seat), rng, set.pool, insts);
    },
    describe: (s, decision) => describeDecision(s, poolOf(s), decision, actorOf({ s })),
    render: (s) => renderBattle(s, poolOf(s)),
    ownedCopy,
    poolOf,
    sets,
  };
}

/**
 * The dcg game with `cache` as its memos across applies (pool indexes, targeting plans, the last
 * result's battle index): `common`'s functions and its own for what reads the cache. A learning
 * session holds an instance per env, so an instance holds no more than those (a few hundred bytes
 * beside its cache's battle index).
 */
function dcgOver(common: Common, cache: DcgCache): DcgGame {
  const { poolOf, sets, actor, expectation } = common;
  const legal = (s: BattleData): Decision[] => {
    if (s.finished) return [];
    const pool = poolOf(s);
    return legalOps(s, pool, cache.decisions, cache.indexOf(s, pool, false));
  };
  const sampleLegal = (s: BattleData, pick: (n: number) => number): Decision => {
    if (s.finished) throw new RangeError("dcg sampleLegal: the battle is over (no legal decision)");
    const pool = poolOf(s);
    return sampleOps(s, pool, cache.decisions, cache.indexOf(s, pool, false), pick, cache.sample);
  };
  const applyTrusted = (s: BattleData, decision: Decision): BattleData => {
    const d = new Draft(s, poolOf(s), null, cache);
    applyDecision(d, decision);
    return d.finish();
  };
  const applyInPlace = (s: BattleData, decision: Decision): BattleData => {
    const d = new Draft(s, poolOf(s), null, cache, true);
    applyDecision(d, decision);
    return d.finish();
  };
  const explain = (s: BattleData, decision: unknown): string | null => explainDecision(s, poolOf(s), decision, cache);
  return {
    info: common.info,
    pool: common.pool,
    presets: common.presets,
    poolFor: common.poolFor,
    presetsFor: common.presetsFor,
    parseConfig: common.parseConfig,
    setup: (config, seed) => {
      const set = sets.setFor(config);
      return setupBattle(config, seed, set.pool, set.presets, null, cache);
    },
    config: common.config,
    actor,
    legal,
    sampleLegal,
    apply: (s, decision) => applyChecked(s, decision, actor, legal, applyTrusted, expectation, explain),
    explain,
    concede: common.concede,
    applyTrusted,
    applyInPlace,
    ownedCopy: common.ownedCopy,
    applyTraced: (s, decision) => {
      const trace: Trace = { commands: [], triggers: [] };
      const d = new Draft(s, poolOf(s), trace, cache);
      applyDecision(d, decision);
      return { state: d.finish(), trace };
    },
    returns: common.returns,
    view: common.view,
    expectation,
    maxDecisions: common.maxDecisions,
    determinize: common.determinize,
    describe: common.describe,
    // Re-runs the decision with a trace: events are for logs and channels, never for hot paths.
    events: (s, decision) =>
      dcgEvents(s, poolOf(s), decision, actorOf({ s }), (trace) => {
        const d = new Draft(s, poolOf(s), trace, cache);
        applyDecision(d, decision);
        return d.finish();
      }),
    render: common.render,
    instance: () => dcgOver(common, cache.fork()),
  };
}

export const dcg: DcgGame = makeDcg();
