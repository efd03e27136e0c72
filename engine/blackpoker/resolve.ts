import { Rng } from "../core/index.ts";
import { finishResolution, passTurn, type CoreRequest, type InterruptRules, type Resolution } from "../core/interrupt/index.ts";
import { isJoker, valueOf, type Card } from "./cards.ts";
import { judgeBlackpoker } from "./judge.ts";
import type { BlackpokerState, BpPayload, Unit } from "./state.ts";
import {
  addUnit,
  damage,
  destroyUnits,
  draw,
  findUnit,
  hasHaste,
  isMountTarget,
  joinCard,
  newRequest,
  nextGenerationTriggers,
  opponentOf,
  sizeOf,
  toGrave,
  updateUnit,
  withPlayer,
} from "./zones.ts";

type Req = CoreRequest<BpPayload>;
type Out = Resolution<BlackpokerState, BpPayload>;
const HAND_LIMIT = 7;

const done = (state: BlackpokerState, triggered: Req[] = []): Out => ({ suspended: false, state, triggered });
const wait = (state: BlackpokerState): Out => ({ suspended: true, state });

/** Step [8] for every BlackPoker action: the effect, re-validating targets at resolution. */
export function resolveBlackpoker(s: BlackpokerState, req: Req): Out {
  // The request's controller decides for it; its keys came from that player's hand, so it owns them.
  const p = req.controller;
  const { keys, target } = req.payload;
  switch (req.payload.action) {
    case "End":
      if (s.players[p]!.hand.length > HAND_LIMIT) return wait({ ...s, pending: { kind: "endDiscard", seat: p } });
      return done(...finishEnd(s, p));
    case "Charge": {
      const field = s.players[p]!.field.map((u) => (u.charged ? u : { ...u, charged: true }));
      const made = newRequest(withPlayer(s, p, { field }), p, "Draw");
      return done(made.state, [made.request]);
    }
    case "Draw": {
      const life = s.players[p]!.life.length;
      if (s.config.drawRule === "sixth") {
        const after = draw(s, p, 1);
        return after.players[p]!.life.length > 0 ? wait({ ...after, pending: { kind: "drawMore", seat: p } }) : done(after);
      }
      return done(draw(s, p, life <= 2 ? 1 : 2));
    }
    case "Attack":
      if (eligibleAttackers(s, p).length === 0) return done(s);
      return wait({ ...s, pending: { kind: "attackers", seat: p, chosen: [] } });
    case "Block":
      if (blockOptions(s, p, [], []).length === 0) return done(...finishBlock(s, p, [], []));
      return wait({ ...s, pending: { kind: "blockers", seat: p, blockers: [], blocked: [] } });
    case "DamageJudge":
      return done(...damageJudge(s, p));
    case "NextGeneration":
      return done(nextGeneration(s, p));
    case "SetBulwark":
      return done(addUnit(s, p, keys, true));
    case "SummonSoldier":
    case "SummonHero":
    case "SummonAce":
      return done(addUnit(s, p, keys, false));
    case "Mount": {
      const key = keys[0]!;
      const found = findUnit(s, target);
      // A soldier p controls (whoever owns it); the key, from p's hand, stays p's own.
      if (found === null || found.controller !== p || !isMountTarget(found.unit, Math.floor(key / 13))) return done(toGrave(s, p, keys));
      return done(updateUnit(s, p, target, joinCard(found.unit, p, key, p)));
    }
    case "Up": {
      const found = findUnit(s, target);
      if (found === null || found.unit.bulwark) return done(toGrave(s, p, keys));
      const next = updateUnit(s, found.controller, target, { mod: found.unit.mod + valueOf(keys[0]!) });
      return done(withPlayer(next, p, { fog: next.players[p]!.fog.concat(keys) }));
    }
    case "Down": {
      const found = findUnit(s, target);
      if (found === null || found.unit.bulwark) return done(toGrave(s, p, keys));
      const mod = found.unit.mod - valueOf(keys[0]!);
      const next = updateUnit(s, found.controller, target, { mod });
      if (sizeOf({ ...found.unit, mod }) > 0) return done(withPlayer(next, p, { fog: next.players[p]!.fog.concat(keys) }));
      const out = destroyUnits(next, found.controller, [target]);
      const triggered: Req[] = [];
      const state = nextGenerationTriggers(toGrave(out.state, p, keys), found.controller, out.faces, triggered);
      return done(state, triggered);
    }
    case "Twist":
      if (findUnit(s, target) === null) return done(toGrave(s, p, keys));
      return wait({ ...s, pending: { kind: "twist", seat: p, uid: target } });
    case "Counter":
      return done(counter(s, p, keys[0]!, target));
    case "DestroyBulwark": {
      const found = findUnit(s, target);
      if (found === null || !found.unit.bulwark) return done(toGrave(s, p, keys));
      const out = destroyUnits(toGrave(s, p, keys), found.controller, [target]);
      const triggered: Req[] = [];
      return done(nextGenerationTriggers(out.state, found.controller, out.faces, triggered), triggered);
    }
    case "Throwing":
      return done(damage(toGrave(s, p, keys), opponentOf(p), valueOf(keys[0]!)));
    case "Search":
      if (s.players[p]!.life.length === 0) return done(toGrave(s, p, keys));
      return wait({ ...s, pending: { kind: "search", seat: p } });
  }
}

/** Charged soldiers of `p` that may attack: entered before this turn, or with <速攻>. */
export function eligibleAttackers(s: BlackpokerState, p: number): Unit[] {
  return s.players[p]!.field.filter((u) => !u.bulwark && u.charged && (u.entered < s.turn || hasHaste(u)));
}

/**
 * Blocker assignments still open to the defender: a charged character of its own not yet blocking,
 * taken in ascending uid (so each assignment set has exactly one decision sequence), onto a live
 * attacker. Several soldiers may block one attacker; a bulwark blocks alone.
 */
export function blockOptions(s: BlackpokerState, defender: number, blockers: readonly number[], blocked: readonly number[]): [number, number][] {
  const combat = s.combat;
  if (combat === null) return [];
  const last = blockers.length === 0 ? -1 : blockers[blockers.length - 1]!;
  const attackerSide = opponentOf(defender);
  const live = combat.attackers.filter((a) => s.players[attackerSide]!.field.some((u) => u.uid === a));
  const out: [number, number][] = [];
  for (const b of s.players[defender]!.field) {
    if (!b.charged || b.uid <= last) continue;
    for (const a of live) {
      const on = blockers.filter((_, i) => blocked[i] === a);
      const bulwarkThere = on.some((uid) => findUnit(s, uid)?.unit.bulwark === true);
      if (b.bulwark ? on.length === 0 : !bulwarkThere) out.push([b.uid, a]);
    }
  }
  return out;
}

/** End's effect after the hand limit: Fog to Grave, modifiers gone, the turn to the opponent, Charge triggers. */
export function finishEnd(s: BlackpokerState, p: number): [BlackpokerState, Req[]] {
  let state = s;
  for (let q = 0; q < state.players.length; q++) {
    const z = state.players[q]!;
    const field = z.field.map((u) => (u.mod === 0 ? u : { ...u, mod: 0 }));
    state = withPlayer(state, q, { field, fog: [], grave: z.fog.length ? z.grave.concat(z.fog) : z.grave });
  }
  const next = opponentOf(p);
  if (s.turn >= s.config.maxTurns) return [{ ...state, result: [0, 0] }, []]; // turn cap: a draw
  state = passTurn({ ...state, turn: s.turn + 1, attacked: false, bulwarkSet: false }, next);
  const made = newRequest(state, next, "Charge");
  return [made.state, [made.request]];
}

/** Block's effect: record the assignment; DamageJudge triggers for the defender. */
export function finishBlock(s: BlackpokerState, defender: number, blockers: readonly number[], blocked: readonly number[]): [BlackpokerState, Req[]] {
  const combat = s.combat === null ? null : { ...s.combat, blockers, blocked };
  const made = newRequest({ ...s, combat, pending: null }, defender, "DamageJudge");
  return [made.state, [made.request]];
}

/** Attack's effect: drive the chosen attackers; Block triggers for the defender if there is one. */
export function finishAttack(s: BlackpokerState, p: number, chosen: readonly number[]): [BlackpokerState, Req[]] {
  if (chosen.length === 0) return [{ ...s, pending: null }, []];
  const field = s.players[p]!.field.map((u) => (chosen.includes(u.uid) ? { ...u, charged: false } : u));
  const state = withPlayer({ ...s, pending: null, combat: { attackers: chosen, blockers: [], blocked: [] } }, p, { field });
  const made = newRequest(state, opponentOf(p), "Block");
  return [made.state, [made.request]];
}

/**
 * DamageJudge, per attacker still on the field: unblocked -> the defender takes its size as damage;
 * blocked by soldiers -> the smaller side (by summed size) goes to the Grave, both on a tie; blocked
 * by a bulwark -> the bulwark is revealed and goes to the Grave, and the attacker too if the bulwark
 * is a Joker or its rank appears among the attacker's cards. An attacker whose blockers all left the
 * field stays blocked and deals nothing (the rules are silent; see docs).
 */
function damageJudge(s: BlackpokerState, defender: number): [BlackpokerState, Req[]] {
  const combat = s.combat;
  let state: BlackpokerState = { ...s, combat: null };
  if (combat === null) return [state, []];
  const attacker = opponentOf(defender);
  const faces = [0, 0];
  for (const a of combat.attackers) {
    const att = state.players[attacker]!.field.find((u) => u.uid === a);
    if (att === undefined) continue;
    const assigned = combat.blockers.filter((_, i) => combat.blocked[i] === a);
    if (assigned.length === 0) {
      state = damage(state, defender, sizeOf(att));
      continue;
    }
    const blockers = state.players[defender]!.field.filter((u) => assigned.includes(u.uid));
    if (blockers.length === 0) continue;
    const losers: [number[], number[]] = [[], []]; // by controller: [attacker side, defender side]
    if (blockers[0]!.bulwark) {
      const card = blockers[0]!.cards[0]!;
      const hit = isJoker(card) || att.cards.some((c) => valueOf(c) === valueOf(card));
      if (hit) losers[0].push(a);
      losers[1].push(blockers[0]!.uid);
    } else {
      const mine = sizeOf(att);
      let theirs = 0;
      for (const b of blockers) theirs += sizeOf(b);
      if (mine <= theirs) losers[0].push(a);
      if (theirs <= mine) losers[1].push(...blockers.map((b) => b.uid));
    }
    const x = destroyUnits(state, attacker, losers[0]);
    const y = destroyUnits(x.state, defender, losers[1]);
    state = y.state;
    faces[attacker]! += x.faces;
    faces[defender]! += y.faces;
  }
  const triggered: Req[] = [];
  for (const seat of [0, 1]) state = nextGenerationTriggers(state, seat, faces[seat]!, triggered);
  return [state, triggered];
}

/** NextGeneration: reveal Life from the top, each card to the Grave, until a Joker/A/J/Q/K, which goes to the hand. */
function nextGeneration(s: BlackpokerState, p: number): BlackpokerState {
  const z = s.players[p]!;
  const life = z.life.slice();
  const grave = z.grave.slice();
  const hand = z.hand.slice();
  while (life.length > 0) {
    const c = life.pop()!;
    const v = valueOf(c);
    if (v === 0 || v === 1 || v >= 11) {
      hand.push(c);
      break;
    }
    grave.push(c);
  }
  return withPlayer(s, p, { life, grave, hand });
}

/**
 * Counter: negate the target request if it has one key of value <= the counter's, or two keys
 * (it leaves the stage, its keys to their owner's Grave: the player who put it there). The counter's key goes to the Grave.
 */
function counter(s: BlackpokerState, p: number, key: Card, rid: number): BlackpokerState {
  let state = toGrave(s, p, [key]);
  const stage = state.flow.stage;
  const at = stage.findIndex((r) => r.payload.rid === rid);
  if (at < 0) return state;
  const victim = stage[at]!;
  const ks = victim.payload.keys;
  const negated = ks.length >= 2 || (ks.length === 1 && valueOf(ks[0]!) <= valueOf(key));
  if (!negated) return state;
  state = { ...state, flow: { ...state.flow, stage: stage.slice(0, at).concat(stage.slice(at + 1)) } };
  return toGrave(state, victim.controller, ks);
}

/** Finishes the resolution that was waiting on a decision (step [8] done -> [9] and on). */
export function resume(s: BlackpokerState, triggered: readonly Req[] = []): BlackpokerState {
  return finishResolution({ ...s, pending: null }, triggered, rulesFor(s));
}

/** The keys of the request being resolved go to their owner's Grave (its controller: they came from its hand). */
export function discardResolvingKeys(s: BlackpokerState): BlackpokerState {
  const r = s.flow.resolving;
  return r === null ? s : toGrave(s, r.controller, r.payload.keys);
}

/** Search's choice: the card goes to the hand, then Life is shuffled. */
export function searchTake(s: BlackpokerState, p: number, card: Card): BlackpokerState {
  const z = s.players[p]!;
  const rng = Rng.load(s.rng);
  const life = rng.shuffle(z.life.filter((c) => c !== card));
  return { ...withPlayer(s, p, { life, hand: z.hand.concat(card) }), rng: rng.save() };
}

/**
 * Two buffered requests are the same for the order choice when they differ only in their request id
 * (in Entry16 play this holds for every pair a player can hold, so the choice never arises there).
 */
function sameTrigger(a: Req, b: Req): boolean {
  const x = a.payload;
  const y = b.payload;
  return x.action === y.action && x.target === y.target && x.keys.length === y.keys.length && x.keys.every((k, i) => k === y.keys[i]);
}

const RULES_PASS: InterruptRules<BlackpokerState, BpPayload> = {
  passAfterNormalRequest: true,
  chooseTriggerOrder: true,
  sameTrigger,
  resolve: resolveBlackpoker,
  judge: judgeBlackpoker,
};
const RULES_KEEP: InterruptRules<BlackpokerState, BpPayload> = { ...RULES_PASS, passAfterNormalRequest: false };

/** The core-flow hooks for this state's config. */
export function rulesFor(s: BlackpokerState): InterruptRules<BlackpokerState, BpPayload> {
  return s.config.chanceAfterRequest === "opponent" ? RULES_PASS : RULES_KEEP;
}
