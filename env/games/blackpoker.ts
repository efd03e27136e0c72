import {
  ACTIONS,
  ACTION_INDEX,
  CARD_CODES,
  DECLARABLE,
  ENTRY16,
  MAX_UNITS,
  blackpoker,
  hasHaste,
  sizeOf,
  type BlackpokerDecision,
  type BlackpokerView,
  type PendingKind,
  type UnitView,
} from "../../engine/blackpoker/index.ts";
import { checkLayout, fieldOffsets, type ActionCodec, type GameAdapter, type ObservationEncoder, type ObservationField } from "../codec.ts";

const SLOTS = MAX_UNITS; // field slots per player
const STAGE_SLOTS = 32; // stage positions a Counter can target (depth is <= 17 in Entry16)

// Action-id ranges, in order. "own"/"opp" slots are field positions relative to the acting seat.
const RANGES: [string, number][] = [
  ["pass", 1],
  ["declare", DECLARABLE.length],
  ["chooseCard", CARD_CODES],
  ["targetUnit", 2 * SLOTS],
  ["targetRequest", STAGE_SLOTS],
  ["payBulwark", SLOTS],
  ["payDiscard", CARD_CODES],
  ["selectAttacker", SLOTS],
  ["finishAttack", 1],
  ["assignBlocker", SLOTS * SLOTS],
  ["finishBlock", 1],
  ["discard", CARD_CODES],
  ["twist", 2],
  ["drawMore", 2],
  ["searchTake", CARD_CODES],
  ["chooseTrigger", ACTIONS.length],
];
const BASE: Record<string, number> = {};
let actionCount = 0;
for (const [name, n] of RANGES) {
  BASE[name] = actionCount;
  actionCount += n;
}

function slotOf(view: BlackpokerView, side: number, uid: number): number {
  const i = view.players[side]!.field.findIndex((u) => u.uid === uid);
  if (i < 0 || i >= SLOTS) throw new Error(`blackpoker codec: unit #${uid} is not on seat ${side}'s field`);
  return i;
}

function actingSeat(view: BlackpokerView): number {
  if (view.actor === null) throw new Error("blackpoker codec: no decision at a terminal state");
  return view.actor;
}

const layoutText = RANGES.map(([name, n]) => `${BASE[name]}..${BASE[name]! + n - 1} ${name}`).join("; ");

/**
 * Card codes are suit*13 + rank-1 (♠♡♢♣, A..K), Jokers 52/53. declare: index in DECLARABLE
 * (End, Attack, SetBulwark, SummonSoldier, SummonHero, SummonAce, Mount, Up, Down, Twist, Counter,
 * DestroyBulwark, Throwing, Search). targetUnit: side*16 + slot (side 0 = the actor's field, 1 = the
 * opponent's). targetRequest: stage position from the bottom. payBulwark/selectAttacker: the actor's
 * slot. assignBlocker: ownSlot*16 + attacker's slot on the opponent's field. twist: 0 driven, 1
 * charged. drawMore: 0 stop, 1 draw.
 */
const actions: ActionCodec<BlackpokerDecision, BlackpokerView> = {
  size: actionCount,
  layout:
    `${layoutText}. Cards: suit*13+rank-1 (♠♡♢♣), Jokers 52/53; declare: index in [${DECLARABLE.join(", ")}]; ` +
    "targetUnit: side*16+slot (side 0 = the actor's field, 1 = the opponent's); targetRequest: stage position from the bottom; " +
    "payBulwark/selectAttacker: actor's slot; assignBlocker: ownSlot*16 + attacker's slot; twist: 0 driven, 1 charged; drawMore: 0 stop, 1 draw; " +
    `chooseTrigger: the action, index in [${ACTIONS.join(", ")}], of the triggered request to take first`,
  encode(view, d) {
    const me = actingSeat(view);
    const opp = 1 - me;
    switch (d.kind) {
      case "pass":
        return BASE.pass!;
      case "declare":
        return BASE.declare! + DECLARABLE.indexOf(d.action);
      case "chooseCard":
        return BASE.chooseCard! + d.card;
      case "targetUnit": {
        const mine = view.players[me]!.field.some((u) => u.uid === d.unit);
        return BASE.targetUnit! + (mine ? 0 : SLOTS) + slotOf(view, mine ? me : opp, d.unit);
      }
      case "targetRequest": {
        const i = view.flow.stage.findIndex((r) => r.payload.rid === d.request);
        if (i < 0 || i >= STAGE_SLOTS) throw new Error(`blackpoker codec: request r${d.request} is not targetable on the stage`);
        return BASE.targetRequest! + i;
      }
      case "payBulwark":
        return BASE.payBulwark! + slotOf(view, me, d.unit);
      case "payDiscard":
        return BASE.payDiscard! + d.card;
      case "selectAttacker":
        return BASE.selectAttacker! + slotOf(view, me, d.unit);
      case "finishAttack":
        return BASE.finishAttack!;
      case "assignBlocker":
        return BASE.assignBlocker! + slotOf(view, me, d.unit) * SLOTS + slotOf(view, opp, d.attacker);
      case "finishBlock":
        return BASE.finishBlock!;
      case "discard":
        return BASE.discard! + d.card;
      case "twist":
        return BASE.twist! + (d.charged ? 1 : 0);
      case "drawMore":
        return BASE.drawMore! + (d.more ? 1 : 0);
      case "searchTake":
        return BASE.searchTake! + d.card;
      case "chooseTrigger": {
        // Options differ in more than their request id; triggered requests carry no keys or target, so the action tells them apart.
        const r = view.flow.buffer.find((x) => x.payload.rid === d.request);
        if (r === undefined) throw new Error(`blackpoker codec: request r${d.request} is not in the trigger buffer`);
        return BASE.chooseTrigger! + ACTION_INDEX[r.payload.action];
      }
    }
  },
};

const PENDING_KINDS: readonly (PendingKind | "chance" | "triggerOrder")[] = [
  "chance",
  "compose",
  "attackers",
  "blockers",
  "endDiscard",
  "twist",
  "drawMore",
  "search",
  "triggerOrder",
];
const UNIT_FEATURES = 11;
const STAGE_VIEW = 8;
const STAGE_FEATURES = ACTIONS.length + 5;

// Blocks are relative to the viewer: "my" = the viewing seat, "opp" = the other one. The field-card
// planes go by owner (a card code is a card of its owner's deck); in play every card on a field is
// its controller's own, so they hold exactly the described cards. The texts stay as they are: they
// are part of the action-spec hash the goldens are recorded against.
const fields: [string, number, string][] = [
  ["myHand", CARD_CODES, "1 per card code in the viewer's hand"],
  ["myGrave", CARD_CODES, "viewer's Grave"],
  ["myFog", CARD_CODES, "viewer's Fog"],
  ["myFieldCards", CARD_CODES, "cards in the viewer's characters (its own bulwarks included: it knows them)"],
  ["myUnseen", CARD_CODES, "viewer's deck cards in no visible place (its Life as a set, unordered)"],
  ["oppGrave", CARD_CODES, "opponent's Grave"],
  ["oppFog", CARD_CODES, "opponent's Fog"],
  ["oppFieldCards", CARD_CODES, "face-up cards in the opponent's soldiers"],
  ["oppUnseen", CARD_CODES, "opponent's deck cards the viewer cannot see (hand, Life, face-down bulwarks)"],
  [
    "myUnits",
    SLOTS * UNIT_FEATURES,
    "per field slot: present, bulwark, charged, size/20, mod/10, enteredThisTurn, haste, cards/4, attacking, blocking, markedByPendingChoice",
  ],
  ["oppUnits", SLOTS * UNIT_FEATURES, "same for the opponent's field (a face-down bulwark's size is 0)"],
  [
    "stage",
    STAGE_VIEW * STAGE_FEATURES,
    "top 8 stage requests, top first: action one-hot (19), mine, keys/2, key value sum/26, targets my unit or request, targets a request",
  ],
  ["stageSize", 1, "stage depth / 16"],
  [
    "scalars",
    13,
    "myLife/16, oppLife/16, myHand/16, oppHand/16, myTurn, myChance, iPassed, oppPassed, iDecide, turn/maxTurns, attackUsed, setBulwarkUsed, gameOver",
  ],
  [
    "pendingKind",
    PENDING_KINDS.length,
    "one-hot: chance, compose, attackers, blockers, endDiscard, twist, drawMore, search, triggerOrder (what the actor decides now)",
  ],
  ["resolving", ACTIONS.length, "one-hot action of the request being resolved (in-resolution choices)"],
  ["composing", ACTIONS.length, "one-hot action being composed"],
  ["composeProgress", 4, "keys chosen/2, target chosen, bulwarks paid/2, discards paid"],
  ["configFlags", 3, "bothLivesZero=draw, drawRule=sixth, chanceAfterRequest=requester"],
];
const obsLayout: ObservationField[] = [];
let obsSize = 0;
// Declared ranges (codec.ts), all finite: [0, 1], but unit features lie in [-UNIT_CLIP, UNIT_CLIP]
// (a turn's modifiers stack with no rule cap and can be negative: size/20 and mod/10 are clipped
// there) and the stage depth / 16 is clipped to 1 (no rule caps how many requests stack).
const UNIT_CLIP = 2;
const UNIT_FIELDS = new Set(["myUnits", "oppUnits"]);
const clip = (v: number, low: number, high: number) => (v < low ? low : v > high ? high : v);
for (const [name, length, description] of fields) {
  obsLayout.push({ name, offset: obsSize, length, description, ...(UNIT_FIELDS.has(name) ? { low: -UNIT_CLIP, high: UNIT_CLIP } : { low: 0, high: 1 }) });
  obsSize += length;
}
checkLayout(obsSize, obsLayout);
const at = fieldOffsets(obsLayout, [
  "composeProgress",
  "composing",
  "configFlags",
  "myFieldCards",
  "myFog",
  "myGrave",
  "myHand",
  "myUnits",
  "myUnseen",
  "oppFieldCards",
  "oppFog",
  "oppGrave",
  "oppUnits",
  "oppUnseen",
  "pendingKind",
  "resolving",
  "scalars",
  "stage",
  "stageSize",
]);

function markUnits(view: BlackpokerView): Set<number> {
  const p = view.pending;
  const marked = new Set<number>();
  if (p === null) return marked;
  if (p.kind === "attackers") p.chosen.forEach((u) => marked.add(u));
  else if (p.kind === "blockers") p.blockers.forEach((u) => marked.add(u));
  else if (p.kind === "twist") marked.add(p.uid);
  else if (p.kind === "compose") {
    p.bulwarks.forEach((u) => marked.add(u));
    if (p.target >= 0 && p.action !== "Counter") marked.add(p.target);
  }
  return marked;
}

function writeUnits(view: BlackpokerView, units: readonly UnitView[], out: Float32Array, base: number, marked: Set<number>): void {
  const combat = view.combat;
  for (let i = 0; i < units.length && i < SLOTS; i++) {
    const u = units[i]!;
    const o = base + i * UNIT_FEATURES;
    const unit = { ...u, cards: u.cards };
    out[o] = 1;
    out[o + 1] = u.bulwark ? 1 : 0;
    out[o + 2] = u.charged ? 1 : 0;
    out[o + 3] = u.bulwark ? 0 : clip(sizeOf(unit) / 20, -UNIT_CLIP, UNIT_CLIP);
    out[o + 4] = clip(u.mod / 10, -UNIT_CLIP, UNIT_CLIP);
    out[o + 5] = u.entered === view.turn ? 1 : 0;
    out[o + 6] = hasHaste(unit) ? 1 : 0;
    out[o + 7] = clip(u.cards.length / 4, 0, UNIT_CLIP);
    if (combat) {
      out[o + 8] = combat.attackers.includes(u.uid) ? 1 : 0;
      out[o + 9] = combat.blockers.includes(u.uid) ? 1 : 0;
    }
    out[o + 10] = marked.has(u.uid) ? 1 : 0;
  }
}

const observation: ObservationEncoder<BlackpokerView> = {
  version: "blackpoker-obs-v2",
  size: obsSize,
  layout: obsLayout,
  encode(view, out) {
    out.fill(0, 0, obsSize);
    const me = view.viewer === "spectator" ? 0 : view.viewer;
    const opp = 1 - me;
    const mine = view.players[me]!;
    const theirs = view.players[opp]!;
    const seenMine = new Set<number>();
    const seenTheirs = new Set<number>();
    for (const c of mine.hand ?? []) {
      out[at.myHand + c] = 1;
      seenMine.add(c);
    }
    for (const c of mine.grave) {
      out[at.myGrave + c] = 1;
      seenMine.add(c);
    }
    for (const c of mine.fog) {
      out[at.myFog + c] = 1;
      seenMine.add(c);
    }
    for (const c of theirs.grave) {
      out[at.oppGrave + c] = 1;
      seenTheirs.add(c);
    }
    for (const c of theirs.fog) {
      out[at.oppFog + c] = 1;
      seenTheirs.add(c);
    }
    // Field cards by owner (a card code names a card of its owner's deck), on whichever side they are.
    view.players.forEach((side, controller) => {
      for (const u of side.field)
        u.cards.forEach((c, i) => {
          const owner = u.owners?.[i] ?? controller;
          out[(owner === me ? at.myFieldCards : at.oppFieldCards) + c] = 1;
          (owner === me ? seenMine : seenTheirs).add(c);
        });
    });
    const f = view.flow;
    const requests = f.stage.concat(f.buffer, f.resolving ? [f.resolving] : [], f.requested ? [f.requested] : []);
    for (const r of requests) for (const c of r.payload.keys) (r.controller === me ? seenMine : seenTheirs).add(c);
    if (view.pending?.kind === "compose" && view.pending.seat === opp) for (const c of view.pending.keys.concat(view.pending.discards)) seenTheirs.add(c);
    for (const c of ENTRY16) {
      if (!seenMine.has(c)) out[at.myUnseen + c] = 1;
      if (!seenTheirs.has(c)) out[at.oppUnseen + c] = 1;
    }
    const marked = markUnits(view);
    writeUnits(view, mine.field, out, at.myUnits, marked);
    writeUnits(view, theirs.field, out, at.oppUnits, marked);
    for (let k = 0; k < STAGE_VIEW && k < f.stage.length; k++) {
      const r = f.stage[f.stage.length - 1 - k]!;
      const o = at.stage + k * STAGE_FEATURES;
      out[o + ACTION_INDEX[r.payload.action]] = 1;
      out[o + ACTIONS.length] = r.controller === me ? 1 : 0;
      out[o + ACTIONS.length + 1] = r.payload.keys.length / 2;
      let sum = 0;
      for (const c of r.payload.keys) sum += c >= 52 ? 0 : (c % 13) + 1;
      out[o + ACTIONS.length + 2] = sum / 26;
      const t = r.payload.target;
      if (r.payload.action === "Counter") {
        out[o + ACTIONS.length + 4] = 1;
        out[o + ACTIONS.length + 3] = f.stage.some((x) => x.payload.rid === t && x.controller === me) ? 1 : 0;
      } else if (t >= 0) {
        out[o + ACTIONS.length + 3] = mine.field.some((u) => u.uid === t) ? 1 : 0;
      }
    }
    out[at.stageSize] = Math.min(1, f.stage.length / 16);
    const s = at.scalars;
    out[s] = mine.life / 16;
    out[s + 1] = theirs.life / 16;
    out[s + 2] = mine.handSize / 16;
    out[s + 3] = theirs.handSize / 16;
    out[s + 4] = f.turnPlayer === me ? 1 : 0;
    out[s + 5] = f.chancePlayer === me ? 1 : 0;
    out[s + 6] = f.passed.includes(me) ? 1 : 0;
    out[s + 7] = f.passed.includes(opp) ? 1 : 0;
    out[s + 8] = view.actor === me ? 1 : 0;
    out[s + 9] = Math.min(view.turn / view.config.maxTurns, 1);
    out[s + 10] = view.attacked ? 1 : 0;
    out[s + 11] = view.bulwarkSet ? 1 : 0;
    out[s + 12] = view.result !== null ? 1 : 0;
    if (view.pendingKind !== null) out[at.pendingKind + PENDING_KINDS.indexOf(view.pendingKind)] = 1;
    if (f.resolving) out[at.resolving + ACTION_INDEX[f.resolving.payload.action]] = 1;
    const p = view.pending;
    if (p?.kind === "compose") {
      out[at.composing + ACTION_INDEX[p.action]] = 1;
      out[at.composeProgress] = p.keys.length / 2;
      out[at.composeProgress + 1] = p.target >= 0 ? 1 : 0;
      out[at.composeProgress + 2] = p.bulwarks.length / 2;
      out[at.composeProgress + 3] = Math.min(1, p.discards.length);
    }
    if (view.config.bothLivesZero === "draw") out[at.configFlags] = 1;
    if (view.config.drawRule === "sixth") out[at.configFlags + 1] = 1;
    if (view.config.chanceAfterRequest === "requester") out[at.configFlags + 2] = 1;
  },
};

export const blackpokerAdapter: GameAdapter<BlackpokerDecision, BlackpokerView> = { game: blackpoker, actions, observation };
