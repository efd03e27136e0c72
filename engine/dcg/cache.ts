import type { BattleData } from "./battle-data.ts";
import { BattleIndex } from "./battle-index.ts";
import { DecisionTable } from "./decision-table.ts";
import { SampleScratch } from "./operation.ts";
import { buildPoolIndex, type PoolIndex } from "./pool-index.ts";
import type { Pool } from "./pool.ts";
import type { Plan, Targeting } from "./targeting.ts";

/**
 * Derived data an apply may reuse from earlier applies, owned by whoever runs them (a game made
 * by makeDcg keeps one for its lifetime) and handed to each Draft. engine/ keeps nothing at module
 * level, so this object is the only place such memos live; every entry is a function of immutable
 * inputs (pools, card sentences, states), so sharing one between interleaved games is safe. It is
 * not fast, though: the aura memo remembers only the last result, so a caller that steps many
 * games in turn (a learning session's envs) gives each its own cache (`fork`).
 */
export class DcgCache {
  /**
   * A one-entry memo of refresh's aura unit list (resolve.ts): the result of the last apply, its
   * cells and its list. A playout feeds each result straight back in, and most applies change
   * nothing the list depends on; a Draft whose input is that very result (same object, same cells)
   * starts from the list instead of rebuilding it from the board.
   */
  auraResult: BattleData | null = null;
  auraCells: readonly number[] | null = null;
  auraUnits: number[] | null = null;
  /** The last result's BattleIndex (battle-index.ts), or null when that apply had none. */
  auraIndex: BattleIndex | null = null;
  /**
   * The BattleIndex made for a state that was not the last apply's result (a search's sample, a
   * hand-built board) when legal() asked, so that the apply that follows from that very state (same
   * object, same cells) takes it over instead of making it again. Only the index: none of the last
   * result's other memos hold for such a state.
   */
  private madeFor: BattleData | null = null;
  private madeCells: readonly number[] | null = null;
  private made: BattleIndex | null = null;
  /** The interned (card, cell) decisions legal() hands out (decision-table.ts). */
  readonly decisions: DecisionTable;
  /**
   * Scratch lists of resolve.ts's area refresh (its wanted triples, one reach's cards), cleared at
   * each use and read only within it: the refresh runs after every board change and would
   * otherwise allocate both each time. Shared with the cache this one was forked from, as nothing
   * is left in them between refreshes (a learning session holds a fork per env).
   */
  readonly areaWant: number[];
  readonly areaTargets: number[];
  /** sampleLegal's scratch (operation.ts), likewise written and read within one call only: shared with forks too. */
  readonly sample: SampleScratch;
  /** Each card sentence's targeting plan (targeting.ts), keyed by the sentence object. */
  readonly plans: WeakMap<Targeting, Plan>;
  private readonly indexes: WeakMap<Pool, PoolIndex>;
  // Most applies use one pool: a one-entry memo in front of the WeakMap.
  private lastPool: Pool | null = null;
  private lastIndex: PoolIndex | null = null;

  /** A new cache; with `shared`, its memos of card data (decisions, plans, pool indexes) and its scratch lists are that cache's. */
  constructor(shared?: DcgCache) {
    this.decisions = shared?.decisions ?? new DecisionTable();
    this.areaWant = shared?.areaWant ?? [];
    this.areaTargets = shared?.areaTargets ?? [];
    this.sample = shared?.sample ?? new SampleScratch();
    this.plans = shared?.plans ?? new WeakMap<Targeting, Plan>();
    this.indexes = shared?.indexes ?? new WeakMap<Pool, PoolIndex>();
  }

  /**
   * A cache with its own memo of the last result (so a playout stepped in turn with others keeps
   * its battle index) and this one's memos of card data, which depend on nothing but the cards.
   */
  fork(): DcgCache {
    return new DcgCache(this);
  }

  /**
   * The BattleIndex of `s`: the one carried along when `s` is the last apply's result, else the
   * one the last call made for `s` (legal() then an apply from the same state, as a search does
   * with each sample), else a fresh one. `adopt`: the caller (a Draft starting from `s`) takes it
   * over and will add to it, so the cache forgets it until that apply's finish hands the result's
   * index back.
   */
  indexOf(s: BattleData, pool: Pool, adopt: boolean): BattleIndex {
    if (s !== this.auraResult || s.cells !== this.auraCells) return this.indexMadeFor(s, pool, adopt);
    const index = (this.auraIndex ??= new BattleIndex(s, pool, this.poolIndex(pool)));
    if (adopt) {
      this.auraResult = null;
      this.auraIndex = null;
    }
    return index;
  }

  /** indexOf for a state that is not the last apply's result: the one made for it last, or a new one. */
  private indexMadeFor(s: BattleData, pool: Pool, adopt: boolean): BattleIndex {
    let index = s === this.madeFor && s.cells === this.madeCells ? this.made : null;
    index ??= new BattleIndex(s, pool, this.poolIndex(pool));
    // An adopting draft will add to it: forget it (its finish hands the result's index on).
    this.madeFor = adopt ? null : s;
    this.madeCells = adopt ? null : s.cells;
    this.made = adopt ? null : index;
    return index;
  }

  /** The lookup tables of a pool (pool-index.ts), built once per pool. */
  poolIndex(pool: Pool): PoolIndex {
    if (pool === this.lastPool && this.lastIndex !== null) return this.lastIndex;
    let idx = this.indexes.get(pool);
    if (idx === undefined) {
      idx = buildPoolIndex(pool);
      this.indexes.set(pool, idx);
    }
    this.lastPool = pool;
    this.lastIndex = idx;
    return idx;
  }
}
