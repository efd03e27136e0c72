import { Rng, InvariantError } from "../core/index.ts";
import type { Seat } from "./battle-data.ts";
import type { BattleData, Card, Mutable, Player } from "./battle-data.ts";
import type { BattleIndex } from "./battle-index.ts";
import { DcgCache } from "./cache.ts";
import type { Command } from "./command.ts";
import type { Pool } from "./pool.ts";
import type { PoolIndex } from "./pool-index.ts";
import { TRIGGER_KINDS, TRIGGER_NO, type Trigger, type TriggerType } from "./trigger.ts";
import { cardIn } from "./battle-data.ts";

/** Optional observer of what one apply did (tests, the play CLI, events); null in hot paths. */
export interface Trace {
  readonly commands: Command[];
  readonly triggers: Trigger[];
  /**
   * Optional callbacks with the working state at that moment (read it, never keep or write it):
   * a command just before it runs, a trigger just after the change that emitted it. events.ts
   * reads stats and cells from them in the order things happened.
   */
  readonly onCommand?: (c: Command, s: BattleData) => void;
  readonly onTrigger?: (t: Trigger, s: BattleData) => void;
}

// Ownership bits: which parts of the input state this draft has already copied.
const CARDS = 1 << 0;
const CELLS = 1 << 1;
const FEINTS = 1 << 2;
const PLAYERS = 1 << 3;
const PLAYER0 = 1 << 4; // PLAYER0 << seat
const HANDS = 1 << 6;
const HAND0 = 1 << 7; // HAND0 << seat
const BOOKS = 1 << 9;
const BOOK0 = 1 << 10;
const GRAVES = 1 << 12;
const GRAVE0 = 1 << 13;
/** Every bit above, each seat's included: a draft applying in place owns everything from the start. */
const ALL = (1 << 15) - 1;

/**
 * The working copy of BattleData during one apply. Copy-on-write: the input state is never
 * mutated; each array or record is shallow-copied the first time it is written, and only once.
 * Or, made with `inPlace` (applyInPlace in index.ts), the input state itself, written where it
 * is: the caller owns every part of it.
 */
export class Draft {
  readonly s: Mutable<BattleData>;
  readonly pool: Pool;
  /** Memos shared with other applies of the same owner (a fresh one when none is given). */
  readonly cache: DcgCache;
  trace: Trace | null;
  /** Where the running command's triggers go (allocated on the first one). */
  sink: Emitted | null = null;
  /** Ability resolutions in this apply (chain budget). */
  resolutions = 0;
  /** Set by every write; refresh (resolve.ts) skips its work when nothing changed. */
  dirty = false;
  /** Set when what stands where changed (cells, feints, seals): AreaAbility reach must be recomputed. */
  boardDirty = false;
  /** Set when a player record changed (HP, MP, turn...): player-only NightmareAbility conditions. */
  playersDirty = false;
  /** Set when a unit lost life: the destroy sweep has work. */
  maybeDead = false;
  /** Cache of resolve.ts's aura unit list, rebuilt after board changes. */
  auraUnits: number[] | null = null;
  /** The battle's index (battle-index.ts): carried along from the last apply, or made for `base`. */
  readonly index: BattleIndex;
  /**
   * The player state that players-only NightmareAbility conditions read (PLAYER_STATE_READS in
   * resolve.ts: each player's HP and direct damage this turn, and the turn player) as of their last
   * check, when every seal they decide is known to agree with it; NaN when not known. refresh
   * re-checks those seals only when one of these moved, not after every player write (most are
   * MP, operations or attack counts, which no such condition reads).
   */
  sealsHp0 = NaN;
  sealsHp1 = NaN;
  sealsDirect0 = NaN;
  sealsDirect1 = NaN;
  sealsTurnPlayer = NaN;
  /** The pool's lookup tables (pool-index.ts). */
  readonly poolIndex: PoolIndex;
  private rngObj: Rng | null = null;
  private own = 0;
  private ownedCards: number[] = [];
  /** Every card record is this draft's to write (in place). */
  private ownsAllCards = false;

  /**
   * A draft of `base`. `inPlace`: `base` itself is written (it must share no part with any other
   * state: see applyInPlace in index.ts) and finish() returns it.
   */
  constructor(base: BattleData, pool: Pool, trace: Trace | null = null, cache: DcgCache = new DcgCache(), inPlace = false) {
    // A hand-written copy keeps one hidden class for every draft (faster than a spread here).
    this.s = inPlace
      ? (base as Mutable<BattleData>)
      : {
          cfg: base.cfg,
          rng: base.rng,
          state: base.state,
          cards: base.cards,
          cells: base.cells,
          feints: base.feints,
          players: base.players,
          hands: base.hands,
          books: base.books,
          graves: base.graves,
          turn: base.turn,
          turnPlayer: base.turnPlayer,
          first: base.first,
          finished: base.finished,
          winner: base.winner,
        };
    this.pool = pool;
    this.trace = trace;
    this.cache = cache;
    // The aura list is a function of the state alone and states are immutable, so the list the
    // last apply left is valid for its very result (a hand-built board is settled: resolve.ts's
    // settle drops it).
    if (base === cache.auraResult && base.cells === cache.auraCells) {
      this.auraUnits = cache.auraUnits;
      // The last apply's result: refresh ran after its every write, so its seals agree with its players.
      this.sealsHp0 = base.players[0].hp;
      this.sealsHp1 = base.players[1].hp;
      this.sealsDirect0 = base.players[0].directDamage;
      this.sealsDirect1 = base.players[1].directDamage;
      this.sealsTurnPlayer = base.turnPlayer;
    }
    // This draft adds to the index as it attaches: the cache forgets it until finish() hands it
    // on (an apply that throws leaves nothing half-updated behind).
    this.index = cache.indexOf(base, pool, true);
    this.poolIndex = cache.poolIndex(pool);
    if (inPlace) {
      this.own = ALL;
      this.ownsAllCards = true;
      // A new cells array (after the memo checks above): memos anywhere that are keyed by this
      // state object and its cells (another cache's last result) no longer match what it becomes.
      this.s.cells = base.cells.slice();
    }
  }

  get rng(): Rng {
    if (this.rngObj === null) this.rngObj = Rng.load(this.s.rng);
    return this.rngObj;
  }

  /**
   * Emits a trigger of the kind numbered `no` (TRIGGER_NO); one no ability could match is not even
   * built (unless traced).
   */
  emit(no: number, type: TriggerType, actor: number, target: number, player: Seat | -1, amount: number): void {
    if (this.trace === null && this.poolIndex.listens[no] === 0) return;
    const kind = TRIGGER_KINDS[no];
    if (kind === undefined) throw new InvariantError(`dcg: no trigger kind ${no}`);
    this.push({ kind, type, actor, target, player, amount }, no);
  }

  /** Emits a trigger built by the caller (whatever could match it). */
  emitTrigger(t: Trigger): void {
    this.push(t, TRIGGER_NO[t.kind]);
  }

  private push(t: Trigger, no: number): void {
    const sink = (this.sink ??= { triggers: [], nos: [] });
    sink.triggers.push(t);
    sink.nos.push(no);
    if (this.trace) traceTrigger(this.trace, t, this.s);
  }

  /** Tells the battle index that `ability` was just attached to card `id` (`area`: by an AreaAbility). */
  noteAttached(id: number, ability: number, area: boolean): void {
    const cell = cardIn(this.s, id).cell;
    const standing = cell >= 0 && this.s.cells[cell] === id ? cell : -1;
    this.index.noteAttached(id, ability, area, this.poolIndex, standing);
  }

  /** A writable copy of card `id`. */
  card(id: number): Mutable<Card> {
    this.dirty = true;
    if (!(this.own & CARDS)) {
      this.s.cards = this.s.cards.slice();
      this.own |= CARDS;
    }
    const cards = this.s.cards as Card[];
    if (!this.ownsAllCards && !owns(this.ownedCards, id)) {
      cards[id] = copyCard(cardIn(this.s, id));
      this.ownedCards.push(id);
    }
    return cards[id] as Mutable<Card>;
  }

  player(seat: Seat): Mutable<Player> {
    this.dirty = true;
    this.playersDirty = true;
    if (!(this.own & PLAYERS)) {
      this.s.players = [this.s.players[0], this.s.players[1]];
      this.own |= PLAYERS;
    }
    const ps = this.s.players as [Player, Player];
    const bit = PLAYER0 << seat;
    if (!(this.own & bit)) {
      ps[seat] = copyPlayer(ps[seat]);
      this.own |= bit;
    }
    return ps[seat] as Mutable<Player>;
  }

  setCell(cell: number, id: number): void {
    this.dirty = true;
    this.boardDirty = true;
    if (!(this.own & CELLS)) {
      this.s.cells = this.s.cells.slice();
      this.own |= CELLS;
    }
    const cells = this.s.cells as number[];
    const was = cells[cell];
    if (was === undefined) throw new InvariantError(`dcg: no board cell ${cell}`);
    this.index.noteCell(cell, was, id);
    cells[cell] = id;
  }

  setFeint(cell: number, id: number): void {
    this.dirty = true;
    this.boardDirty = true;
    if (!(this.own & FEINTS)) {
      this.s.feints = this.s.feints.slice();
      this.own |= FEINTS;
    }
    (this.s.feints as number[])[cell] = id;
  }

  // One method per list, each reading its own field: a lookup by a field name that varies
  // (this.s[key]) is a slow (megamorphic) property read.
  hand(seat: Seat): number[] {
    if (!(this.own & HANDS)) {
      this.s.hands = [this.s.hands[0], this.s.hands[1]];
      this.own |= HANDS;
    }
    return this.ownList(this.s.hands as [number[], number[]], HAND0, seat);
  }

  book(seat: Seat): number[] {
    if (!(this.own & BOOKS)) {
      this.s.books = [this.s.books[0], this.s.books[1]];
      this.own |= BOOKS;
    }
    return this.ownList(this.s.books as [number[], number[]], BOOK0, seat);
  }

  grave(seat: Seat): number[] {
    if (!(this.own & GRAVES)) {
      this.s.graves = [this.s.graves[0], this.s.graves[1]];
      this.own |= GRAVES;
    }
    return this.ownList(this.s.graves as [number[], number[]], GRAVE0, seat);
  }

  /** `pair[seat]`, copied the first time this draft writes it (`first`: the seat-0 ownership bit of that pair). */
  private ownList(pair: [number[], number[]], first: number, seat: Seat): number[] {
    const bit = first << seat;
    if (!(this.own & bit)) {
      pair[seat] = pair[seat].slice();
      this.own |= bit;
    }
    return pair[seat];
  }

  finish(): BattleData {
    if (this.rngObj !== null) this.s.rng = this.rngObj.save();
    // Only a list refresh brought up to date with every write is handed on.
    this.cache.auraResult = this.s;
    this.cache.auraCells = this.s.cells;
    this.cache.auraUnits = this.dirty ? null : this.auraUnits;
    this.cache.auraIndex = this.index;
    return this.s;
  }
}

/** Triggers in the order they were emitted, and each one's kind number (TRIGGER_NO) at the same index. */
export interface Emitted {
  readonly triggers: Trigger[];
  readonly nos: number[];
}

/**
 * A copy of `s` that shares no part a Draft writes in place (the state record, its card and
 * player records, and every array of them) with `s`: the parts it does share (the config, the
 * State, each card's attached and activation lists, the saved RNG) are only ever replaced, never
 * written into.
 */
export function ownedCopy(s: BattleData): BattleData {
  return {
    cfg: s.cfg,
    rng: s.rng,
    state: s.state,
    cards: s.cards.map(copyCard),
    cells: s.cells.slice(),
    feints: s.feints.slice(),
    players: [copyPlayer(s.players[0]), copyPlayer(s.players[1])],
    hands: [s.hands[0].slice(), s.hands[1].slice()],
    books: [s.books[0].slice(), s.books[1].slice()],
    graves: [s.graves[0].slice(), s.graves[1].slice()],
    turn: s.turn,
    turnPlayer: s.turnPlayer,
    first: s.first,
    finished: s.finished,
    winner: s.winner,
  };
}

/** Records a trigger in a trace and tells its observer. */
export function traceTrigger(trace: Trace, t: Trigger, s: BattleData): void {
  trace.triggers.push(t);
  trace.onTrigger?.(t, s);
}

/** Records a command in a trace (just before it runs) and tells its observer. */
export function traceCommand(trace: Trace, c: Command, s: BattleData): void {
  trace.commands.push(c);
  trace.onCommand?.(c, s);
}

/** `ids` holds `id` (a loop: a handful of ids, where includes is a builtin call). */
function owns(ids: readonly number[], id: number): boolean {
  for (let i = 0; i < ids.length; i++) if (ids[i] === id) return true;
  return false;
}

// Hand-written copies (same key order as setup.ts creates them): one hidden class, faster than a spread.
function copyCard(c: Card): Card {
  return {
    def: c.def,
    owner: c.owner,
    layer: c.layer,
    cell: c.cell,
    life: c.life,
    ailment: c.ailment,
    summoned: c.summoned,
    attacked: c.attacked,
    attached: c.attached,
    sealed: c.sealed,
    acts: c.acts,
    actsTurn: c.actsTurn,
  };
}

function copyPlayer(p: Player): Player {
  return {
    hp: p.hp,
    mp: p.mp,
    attacks: p.attacks,
    draws: p.draws,
    ops: p.ops,
    directDamage: p.directDamage,
    strategyMoves: p.strategyMoves,
    confirmed: p.confirmed,
    feint: p.feint,
  };
}
