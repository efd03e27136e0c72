import { explainFromLegal, type AnyGame, type Seat, must } from "../engine/core/index.ts";
import type { GameAdapter } from "./codec.ts";
import { EnvFault, describeThrown } from "./errors.ts";

/**
 * A seat's pending decision, seen through the action codec: the legal decisions in the engine's
 * order and the action id of each. The mask is derived from it and decoding an id means finding
 * the legal decision with that id, so legality has a single home (game.legal).
 */
export interface DecisionPoint {
  readonly seat: Seat;
  readonly view: unknown;
  readonly legal: readonly unknown[];
  /** ids[k] is the action id of legal[k] (an array: a typed array costs several times as much to make, once per decision). */
  readonly ids: readonly number[];
}

/** What decisionPoint may be given besides the adapter, the state and the seat. */
export interface PointOptions {
  /** The env index a fault names. */
  readonly env?: number;
  /** The adapter's game or an instance of it (Game.instance) that plays this state; default the adapter's. */
  readonly game?: AnyGame;
  /** Scratch for the distinct-ids check, reused by a caller that builds many points (default: a fresh one). */
  readonly seen?: SeenIds;
}

/**
 * The action ids seen since the last `clear`, for decisionPoint's check that a codec gives
 * distinct ids: one read and one write per id instead of comparing every pair (a dcg strategy
 * phase lists 60-75 decisions). Clearing is a new stamp, not a pass over the ids.
 */
export class SeenIds {
  private readonly stamps: Uint16Array;
  private stamp = 0;

  constructor(size: number) {
    this.stamps = new Uint16Array(size);
  }

  clear(): void {
    if (++this.stamp === 0x10000) {
      this.stamps.fill(0);
      this.stamp = 1;
    }
  }

  /** Adds `id` (in [0, size)); false when it was already there. */
  add(id: number): boolean {
    if (this.stamps[id] === this.stamp) return false;
    this.stamps[id] = this.stamp;
    return true;
  }
}

/** Builds the decision point of `seat`, checking the codec's contract (ids in range, distinct). */
export function decisionPoint(adapter: GameAdapter, state: unknown, seat: Seat, options: PointOptions = {}): DecisionPoint {
  const game = options.game ?? adapter.game;
  const env = options.env;
  const view = game.view(state, seat);
  const legal = game.legal(state);
  const size = adapter.actions.size;
  const seen = options.seen ?? new SeenIds(size);
  seen.clear();
  const ids = new Array<number>(legal.length);
  for (let k = 0; k < legal.length; k++) {
    let id: number;
    try {
      id = adapter.actions.encode(view, legal[k]);
    } catch (e) {
      throw new EnvFault("codec_fault", `${game.info.id} action codec threw while encoding a legal decision: ${describeThrown(e)}`, env, e);
    }
    if (!Number.isInteger(id) || id < 0 || id >= size) {
      throw new EnvFault("codec_fault", `${game.info.id} action codec encoded a legal decision as ${id}, outside [0, ${size})`, env);
    }
    if (!seen.add(id)) throw new EnvFault("codec_fault", `${game.info.id} action codec gave two legal decisions the same id ${id}`, env);
    ids[k] = id;
  }
  return { seat, view, legal, ids };
}

/** Index into point.legal of the decision with action id `id`, or -1. */
export function findAction(point: DecisionPoint, id: number): number {
  const ids = point.ids;
  for (let k = 0; k < ids.length; k++) if (ids[k] === id) return k;
  return -1;
}

/** Sets mask[offset + id] = 1 for every legal id (the caller provides a zeroed row). */
export function writeMask(point: DecisionPoint, mask: Uint8Array, offset: number): void {
  for (const id of point.ids) mask[offset + id] = 1;
}

/** A readable label per legal action, in id order. */
export function actionLabels(game: AnyGame, state: unknown, point: DecisionPoint): { id: number; label: string }[] {
  const out = point.legal.map((d, k) => ({ id: must(point.ids[k], "decision point: the id of a legal decision"), label: game.describe(state, d) }));
  out.sort((a, b) => a.id - b.id);
  return out;
}

/**
 * Why action id `id` is refused at this decision point, in words, or null when the game's codec
 * cannot say what the id means. Reads only what the acting seat may know (its view, and the game's
 * explain of its own decision), so the answer never reveals hidden cards.
 */
export function explainAction(adapter: GameAdapter, state: unknown, point: DecisionPoint, id: number): string | null {
  const decode = adapter.actions.decode;
  if (decode === undefined) return null;
  const decision = decode(point.view, id);
  if (decision === null) return `action ${id} names no decision in this position (an empty hand slot or no unit on that cell)`;
  return adapter.game.explain?.(state, decision) ?? explainFromLegal(point.legal, decision);
}
