import { mayAct, request } from "../core/interrupt/index.ts";
import { DECLARABLE, SPECS, matchesKey, type ActionName, type ActionSpec } from "./actions.ts";
import { suitOf, type Card } from "./cards.ts";
import { rulesFor } from "./resolve.ts";
import type { BlackpokerDecision, BlackpokerState, Pending } from "./state.ts";
import { damage, isMountTarget, newRequest, removeFromHand, withPlayer, zonesOf } from "./zones.ts";

type Compose = Extract<Pending, { kind: "compose" }>;
export type ComposeStep = "key" | "target" | "bulwark" | "discard" | "done";

/** Which choice a request being composed needs next: keys, then target, then B and D costs (L is automatic). */
export function composeStep(p: Compose): ComposeStep {
  const spec = SPECS[p.action];
  if (p.keys.length < spec.keys.length) return "key";
  if (spec.target !== "none" && p.target < 0) return "target";
  if (p.bulwarks.length < spec.costB) return "bulwark";
  if (p.discards.length < spec.costD) return "discard";
  return "done";
}

function keyCandidates(s: BlackpokerState, seat: number, spec: ActionSpec, index: number, chosen: readonly Card[]): Card[] {
  const pattern = spec.keys[index];
  if (pattern === undefined) return [];
  const field = zonesOf(s, seat).field;
  const out: Card[] = [];
  for (const c of zonesOf(s, seat).hand) {
    if (chosen.includes(c) || !matchesKey(c, pattern)) continue;
    // Mount needs a soldier you control of the key's suit (its target) at request time.
    if (spec.target === "ownSoldierSameSuit" && !field.some((u) => isMountTarget(u, suitOf(c)))) continue;
    out.push(c);
  }
  return out.sort((a, b) => a - b);
}

/** Legal targets, in a stable order: units by owner (seat 0 first) and field order; requests bottom first. */
function targetCandidates(s: BlackpokerState, seat: number, spec: ActionSpec, keys: readonly Card[]): number[] {
  const out: number[] = [];
  switch (spec.target) {
    case "none":
      return out;
    case "keyedRequest":
      for (const r of s.flow.stage) if (r.payload.keys.length > 0) out.push(r.payload.rid);
      return out;
    case "ownSoldierSameSuit": {
      const first = keys[0];
      const suit = first === undefined ? -1 : suitOf(first);
      for (const u of zonesOf(s, seat).field) if (isMountTarget(u, suit)) out.push(u.uid);
      return out;
    }
    default:
      for (const z of s.players) {
        for (const u of z.field) {
          if (spec.target === "character" || (spec.target === "soldier" && !u.bulwark) || (spec.target === "bulwark" && u.bulwark)) out.push(u.uid);
        }
      }
      return out;
  }
}

function chargedBulwarks(s: BlackpokerState, seat: number): number[] {
  return zonesOf(s, seat)
    .field.filter((u) => u.bulwark && u.charged)
    .map((u) => u.uid);
}

/**
 * Whether `seat` may declare `action` now: timing (main/quick via the core flow), usage limits, and
 * that a whole request can be composed (keys in hand, a target, payable B and D costs). L is
 * always payable (it may kill you).
 */
export function canDeclare(s: BlackpokerState, seat: number, action: ActionName): boolean {
  const spec = SPECS[action];
  if (spec.trigger !== "direct" || !mayAct(s.flow, seat, spec.timing)) return false;
  if (action === "Attack" && s.attacked) return false;
  if (action === "SetBulwark" && s.bulwarkSet) return false;
  const chosen: Card[] = [];
  for (let i = 0; i < spec.keys.length; i++) {
    const c = keyCandidates(s, seat, spec, i, chosen)[0];
    if (c === undefined) return false;
    chosen.push(c); // key slots of one action never compete for a card (disjoint suits or one slot)
  }
  if (spec.target !== "none" && spec.target !== "ownSoldierSameSuit" && targetCandidates(s, seat, spec, chosen).length === 0) return false;
  if (chargedBulwarks(s, seat).length < spec.costB) return false;
  if (zonesOf(s, seat).hand.length < spec.keys.length + spec.costD) return false;
  return true;
}

export function declarable(s: BlackpokerState, seat: number): ActionName[] {
  return DECLARABLE.filter((a) => canDeclare(s, seat, a));
}

/** The options of the composing player's next choice (every one leads to a complete request). */
export function composeOptions(s: BlackpokerState, p: Compose): BlackpokerDecision[] {
  const spec = SPECS[p.action];
  switch (composeStep(p)) {
    case "key":
      return keyCandidates(s, p.seat, spec, p.keys.length, p.keys).map((card) => ({ kind: "chooseCard", card }));
    case "target":
      return targetCandidates(s, p.seat, spec, p.keys).map((t) =>
        spec.target === "keyedRequest" ? { kind: "targetRequest", request: t } : { kind: "targetUnit", unit: t },
      );
    case "bulwark": {
      // ascending uids, so a pair of bulwarks is paid by exactly one sequence
      const last = p.bulwarks.at(-1) ?? -1;

      const need = spec.costB - p.bulwarks.length;
      const free = chargedBulwarks(s, p.seat).filter((u) => u > last);
      return free.slice(0, free.length - need + 1).map((unit) => ({ kind: "payBulwark", unit }));
    }
    case "discard": {
      const hand = zonesOf(s, p.seat).hand;
      return hand
        .filter((c) => !p.keys.includes(c) && !p.discards.includes(c))
        .sort((a, b) => a - b)
        .map((card) => ({ kind: "payDiscard", card }));
    }
    case "done":
      return [];
  }
}

/** Adds one choice to the request being composed; a complete request is made at once. */
export function composeWith(s: BlackpokerState, p: Compose, d: BlackpokerDecision): BlackpokerState {
  let next: Compose;
  switch (d.kind) {
    case "chooseCard":
      next = { ...p, keys: p.keys.concat(d.card) };
      break;
    case "targetUnit":
      next = { ...p, target: d.unit };
      break;
    case "targetRequest":
      next = { ...p, target: d.request };
      break;
    case "payBulwark":
      next = { ...p, bulwarks: p.bulwarks.concat(d.unit) };
      break;
    case "payDiscard":
      next = { ...p, discards: p.discards.concat(d.card) };
      break;
    default:
      return s;
  }
  return composeStep(next) === "done" ? makeRequest(s, next) : { ...s, pending: next };
}

/** Starts composing `action` (End and Attack need no choice and are requested at once). */
export function declare(s: BlackpokerState, seat: number, action: ActionName): BlackpokerState {
  const p: Compose = { kind: "compose", seat, action, keys: [], target: -1, bulwarks: [], discards: [] };
  return composeStep(p) === "done" ? makeRequest(s, p) : { ...s, pending: p };
}

/**
 * Steps [4]-[5]: pay the costs (B drive, D discard, L damage), take the keys out of the hand onto
 * the request, count the usage, and hand the request to the core flow.
 */
function makeRequest(s: BlackpokerState, p: Compose): BlackpokerState {
  const spec = SPECS[p.action];
  const seat = p.seat;
  const z = zonesOf(s, seat);
  const field = p.bulwarks.length ? z.field.map((u) => (p.bulwarks.includes(u.uid) ? { ...u, charged: false } : u)) : z.field;
  let state = withPlayer({ ...s, pending: null }, seat, {
    hand: removeFromHand(z.hand, p.keys.concat(p.discards)),
    grave: p.discards.length ? z.grave.concat(p.discards) : z.grave,
    field,
  });
  if (spec.costL > 0) state = damage(state, seat, spec.costL);
  if (p.action === "Attack") state = { ...state, attacked: true };
  if (p.action === "SetBulwark") state = { ...state, bulwarkSet: true };
  const made = newRequest(state, seat, p.action, p.keys, p.target);
  return request(made.state, made.request, [], rulesFor(made.state));
}
