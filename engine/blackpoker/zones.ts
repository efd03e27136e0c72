import type { CoreRequest } from "../core/interrupt/index.ts";
import { SPECS, type ActionName } from "./actions.ts";
import { isJoker, isNextGenerationCard, valueOf, type Card } from "./cards.ts";
import { InvariantError } from "../core/errors.ts";
import type { BlackpokerState, BpPayload, PlayerZones, Unit } from "./state.ts";

/** The zones of `seat` (0 or 1); any other seat is a bug. */
export function zonesOf(s: { readonly players: readonly PlayerZones[] }, seat: number): PlayerZones {
  const zones = s.players[seat];
  if (zones === undefined) throw new InvariantError(`blackpoker: no zones for seat ${seat}`);
  return zones;
}

/** Copy-on-write of one player's zones (the input state is never mutated). */
export function withPlayer(s: BlackpokerState, p: number, patch: Partial<PlayerZones>): BlackpokerState {
  const players = s.players.slice();
  players[p] = { ...zonesOf(s, p), ...patch };
  return { ...s, players };
}

export const opponentOf = (p: number): number => 1 - p;

/** Soldier size: summed card values plus Up/Down modifiers. */
export function sizeOf(u: Unit): number {
  let v = u.mod;
  for (const c of u.cards) v += valueOf(c);
  return v;
}

/** <速攻>: an エース, or an 装備兵 that includes an A. */
export const hasHaste = (u: Unit): boolean => !u.bulwark && u.cards.some((c) => valueOf(c) === 1);

/** The unit `uid` and its controller (the seat whose field holds it), or null once it left the field. */
export function findUnit(s: BlackpokerState, uid: number): { controller: number; unit: Unit } | null {
  for (let p = 0; p < s.players.length; p++) {
    for (const unit of zonesOf(s, p).field) if (unit.uid === uid) return { controller: p, unit };
  }
  return null;
}

/** The owner of a unit's `i`-th card: recorded in `owners` when it differs, else the controller. */
export const cardOwner = (u: Unit, i: number, controller: number): number => u.owners?.[i] ?? controller;

/**
 * `card`, owned by `owner`, joins the unit (a Mount). `owners` stays absent while every card is
 * the controller's own, so states where ownership never differs are unchanged.
 */
export function joinCard(u: Unit, controller: number, card: Card, owner: number): Partial<Unit> {
  const cards = u.cards.concat(card);
  if (u.owners === undefined && owner === controller) return { cards };
  return { cards, owners: u.cards.map((_, i) => cardOwner(u, i, controller)).concat(owner) };
}

export function updateUnit(s: BlackpokerState, controller: number, uid: number, patch: Partial<Unit>): BlackpokerState {
  const field = zonesOf(s, controller).field.map((u) => (u.uid === uid ? { ...u, ...patch } : u));
  return withPlayer(s, controller, { field });
}

/** A new character of `seat` from `cards` out of its hand (so it owns and controls them), charged, entering this turn. */
export function addUnit(s: BlackpokerState, seat: number, cards: readonly Card[], bulwark: boolean): BlackpokerState {
  const unit: Unit = { uid: s.nextUid, bulwark, cards, charged: true, mod: 0, entered: s.turn };
  return withPlayer({ ...s, nextUid: s.nextUid + 1 }, seat, { field: zonesOf(s, seat).field.concat(unit) });
}

/**
 * Removes `controller`'s units from its field; each card goes to its owner's Grave. Returns how
 * many Joker/A/J/Q/K cards left the field: the controller's NextGeneration count.
 */
export function destroyUnits(s: BlackpokerState, controller: number, uids: readonly number[]): { state: BlackpokerState; faces: number } {
  if (uids.length === 0) return { state: s, faces: 0 };
  const moved: Card[][] = s.players.map(() => []);
  let faces = 0;
  const field = zonesOf(s, controller).field.filter((u) => {
    if (!uids.includes(u.uid)) return true;
    u.cards.forEach((c, i) => {
      const owner = cardOwner(u, i, controller);
      const grave = moved[owner];
      if (grave === undefined) throw new InvariantError(`blackpoker: a card's owner ${owner} is not a seat`);
      grave.push(c);
      if (isNextGenerationCard(c)) faces++;
    });
    return false;
  });
  let state = withPlayer(s, controller, { field });
  moved.forEach((cards, owner) => (state = toGrave(state, owner, cards)));
  return { state, faces };
}

/** 1 damage = the top of Life to the Grave; applied as far as possible. */
export function damage(s: BlackpokerState, p: number, amount: number): BlackpokerState {
  const z = zonesOf(s, p);
  const n = Math.min(Math.max(amount, 0), z.life.length);
  if (n === 0) return s;
  const moved = z.life.slice(z.life.length - n).reverse();
  return withPlayer(s, p, { life: z.life.slice(0, z.life.length - n), grave: z.grave.concat(moved) });
}

/** Draw: the top of Life into the hand, as far as possible. */
export function draw(s: BlackpokerState, p: number, count: number): BlackpokerState {
  const z = zonesOf(s, p);
  const n = Math.min(count, z.life.length);
  if (n === 0) return s;
  const drawn = z.life.slice(z.life.length - n).reverse();
  return withPlayer(s, p, { life: z.life.slice(0, z.life.length - n), hand: z.hand.concat(drawn) });
}

export function toGrave(s: BlackpokerState, p: number, cards: readonly Card[]): BlackpokerState {
  if (cards.length === 0) return s;
  return withPlayer(s, p, { grave: zonesOf(s, p).grave.concat(cards) });
}

export function removeFromHand(hand: readonly Card[], cards: readonly Card[]): Card[] {
  return hand.filter((c) => !cards.includes(c));
}

/** A new request of `action` with a fresh request id. */
export function newRequest(
  s: BlackpokerState,
  controller: number,
  action: ActionName,
  keys: readonly Card[] = [],
  target = -1,
): { state: BlackpokerState; request: CoreRequest<BpPayload> } {
  const spec = SPECS[action];
  const request: CoreRequest<BpPayload> = { controller, speed: spec.speed, timing: spec.timing, payload: { rid: s.nextRid, action, keys, target } };
  return { state: { ...s, nextRid: s.nextRid + 1 }, request };
}

/**
 * `count` NextGeneration triggers for `controller`, the seat that controlled the units when they
 * left its field (one per Joker/A/J/Q/K card that went to a Grave).
 */
export function nextGenerationTriggers(s: BlackpokerState, controller: number, count: number, out: CoreRequest<BpPayload>[]): BlackpokerState {
  let state = s;
  for (let i = 0; i < count; i++) {
    const made = newRequest(state, controller, "NextGeneration");
    state = made.state;
    out.push(made.request);
  }
  return state;
}

/** A soldier whose base card is not a Joker, of the given suit: a Mount target. */
export const isMountTarget = (u: Unit, suit: number): boolean => {
  const base = u.cards[0];
  return !u.bulwark && base !== undefined && !isJoker(base) && Math.floor(base / 13) === suit;
};
