import { InvariantError, type RngState } from "../core/index.ts";

/** A dcg seat: the game has exactly two, so per-seat pairs index without a check. */
export type Seat = 0 | 1;

export function isSeat(n: number): n is Seat {
  return n === 0 || n === 1;
}

/** A number that must be a dcg seat (a viewer, a player item): anything else is a caller's bug. */
export function asSeat(n: number): Seat {
  if (n !== 0 && n !== 1) throw new RangeError(`dcg has seats 0 and 1, not ${n}`);
  return n;
}

export function other(seat: Seat): Seat {
  return seat === 0 ? 1 : 0;
}
import type { DcgConfig } from "./config.ts";
import type { State } from "./state.ts";

/** Where a card instance is (docs/rules/dcg.md: every instance lives in one collection; the layer says where). */
export type LayerKind = "Book" | "Hand" | "Strategy" | "Field" | "Grave";
export type Ailment = "none" | "poison";

/** An ability attached to a card: its own ParameterAbilities, AttachAbility results and area buffs. */
export interface Attached {
  /** Index into the pool's ability table. */
  readonly ability: number;
  /** Instance id of the card that produced it (the card itself for its own abilities). */
  readonly producer: number;
  /** True when an AreaAbility attached it (IsAttached in the dcg design's worked example 2): removed when out of reach. */
  readonly area: boolean;
}

/** One card instance. Its instance id is its index in BattleData.cards. */
export interface Card {
  /** Index into the card pool. */
  readonly def: number;
  readonly owner: Seat;
  readonly layer: LayerKind;
  /** Cell on the board (Field, or placed Strategy card), else -1. */
  readonly cell: number;
  /** Current life (may exceed the printed life after recovery, as in the dcg design's worked example 1). */
  readonly life: number;
  readonly ailment: Ailment;
  /** Turn count when it entered the Field (0 = strategy placement), -1 before. */
  readonly summoned: number;
  /** Turn count of its last attack, -1 never. */
  readonly attacked: number;
  readonly attached: readonly Attached[];
  /** NightmareAbility: true while its condition is false (its own abilities are sealed). */
  readonly sealed: boolean;
  /** Activations this turn: flat [abilityId, count, ...] pairs, valid while actsTurn == turn. */
  readonly acts: readonly number[];
  readonly actsTurn: number;
}

/** Host (seat 0) or Guest (seat 1). */
export interface Player {
  readonly hp: number;
  readonly mp: number;
  /** Attacks left this turn (the player's attack count). */
  readonly attacks: number;
  /** Cards drawn so far (draw count). */
  readonly draws: number;
  /** Main-phase operations used this turn (bounded by config.opsPerTurn). */
  readonly ops: number;
  /** Direct damage taken this turn (FilterPlayerDirectDamageInThisTurn). */
  readonly directDamage: number;
  /** StrategyMoves of already placed cards (bounded by STRATEGY_REMOVES). */
  readonly strategyMoves: number;
  readonly confirmed: boolean;
  /** Instance id of this player's face-down feint on the field, or -1. */
  readonly feint: number;
}

/** The battle data (docs/rules/dcg.md): the whole game state, plain JSON. */
export interface BattleData {
  readonly cfg: DcgConfig;
  readonly rng: RngState;
  /** The pending State (an input state, or BattleFinish). */
  readonly state: State;
  readonly cards: readonly Card[];
  /** Unit (rubric or object) instance id per cell, or -1. */
  readonly cells: readonly number[];
  /** Face-down feint instance id per cell, or -1. */
  readonly feints: readonly number[];
  readonly players: readonly [Player, Player];
  /** Order of each player's Hand layer (instance ids, oldest first). */
  readonly hands: readonly [readonly number[], readonly number[]];
  /** Order of each player's Book layer (the next draw is the last element). */
  readonly books: readonly [readonly number[], readonly number[]];
  /** Order of each player's Grave layer (arrival order). */
  readonly graves: readonly [readonly number[], readonly number[]];
  readonly turn: number;
  readonly turnPlayer: Seat;
  /** Chosen by the CointossCommand. */
  readonly first: Seat;
  readonly finished: boolean;
  /** Winner seat, or -1 (draw, or not finished). */
  readonly winner: Seat | -1;
}

export type Mutable<T> = { -readonly [K in keyof T]: T[K] };

/** Card instance `id` of a battle; an id outside the battle's cards is a bug. */
export function cardIn(s: { readonly cards: readonly Card[] }, id: number): Card {
  const card = s.cards[id];
  if (card === undefined) throw new InvariantError(`dcg: no card instance ${id} in the battle`);
  return card;
}
