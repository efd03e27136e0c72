import { CARD_COPIES, CARD_TYPES, RANK_COUNT, RANKS, shephy, SHEEP_PER_RANK, unseenCounts } from "../../engine/shephy/index.ts";
import type { ShephyDecision, ShephyView } from "../../engine/shephy/index.ts";
import { checkLayout, type ActionCodec, type GameAdapter, type ObservationEncoder, type ObservationField } from "../codec.ts";

/**
 * Shephy's RL face. Legal choices are offered once per distinct card (one per sheep rank, one per
 * event-card type), so actions are encoded by what is chosen, not where it sits: a policy sees
 * "play Storm" or "release a 30" as the same id whatever the hand or field order.
 */
const PLAY = 0; // 0..18: play the hand card of type t
const CHOOSE_FIELD = PLAY + CARD_TYPES; // 19..25: choose the field card of rank index k
const SELECT = CHOOSE_FIELD + RANK_COUNT; // 26..32: select (next) field card of rank index k
const CONFIRM = SELECT + RANK_COUNT; // 33
const GAIN_ONE = CONFIRM + 1; // 34
const STOP = GAIN_ONE + 1; // 35
const CHOOSE_HAND = STOP + 1; // 36..54: choose the hand card of type t
const CHOOSE_DECK = CHOOSE_HAND + CARD_TYPES; // 55..73: choose the deck card of type t
const ACTIONS = CHOOSE_DECK + CARD_TYPES; // 74

const actions: ActionCodec<ShephyDecision, ShephyView> = {
  size: ACTIONS,
  layout:
    `${PLAY}..${CHOOSE_FIELD - 1} play card type t (0 Multiply .. 18 Wolves); ` +
    `${CHOOSE_FIELD}..${SELECT - 1} choose field card of rank index k (1,3,10,30,100,300,1000); ` +
    `${SELECT}..${CONFIRM - 1} select the next field card of rank index k; ${CONFIRM} confirm; ${GAIN_ONE} gain a 1; ${STOP} stop; ` +
    `${CHOOSE_HAND}..${CHOOSE_DECK - 1} choose hand card type t; ${CHOOSE_DECK}..${ACTIONS - 1} choose deck card type t`,
  encode(view, d) {
    switch (d.kind) {
      case "play":
        return PLAY + view.hand[d.index]!;
      case "chooseField":
        return CHOOSE_FIELD + view.field[d.index]!;
      case "select":
        return SELECT + view.field[d.index]!;
      case "confirm":
        return CONFIRM;
      case "gainOne":
        return GAIN_ONE;
      case "stop":
        return STOP;
      case "chooseHand":
        return CHOOSE_HAND + view.hand[d.index]!;
      case "chooseDeck":
        return CHOOSE_DECK + view.deck![d.index]!;
    }
  },
};

const STEP_KINDS = ["play", "chooseField", "select", "gainOrStop", "chooseHand", "chooseDeck"] as const;
const ENEMIES = [1, 10, 100, 1000] as const;

const fields: [string, number, string][] = [
  ["field", RANK_COUNT, "sheep of rank index k on the field / 7"],
  ["stock", RANK_COUNT, "sheep of rank index k left in the stock / 7"],
  ["hand", CARD_TYPES, "hand cards of type t / copies of t"],
  ["deck", CARD_TYPES, "deck cards of type t / copies of t (public: all 22 minus hand, discard, exile)"],
  ["discard", CARD_TYPES, "discarded cards of type t / copies of t"],
  ["exile", CARD_TYPES, "exiled cards of type t / copies of t"],
  ["deckSize", 1, "deck size / 22"],
  ["handSize", 1, "hand size / 5"],
  ["fieldSize", 1, "field size / 7"],
  ["fieldSum", 1, "sum of the field's sheep / 7000"],
  ["enemy", ENEMIES.length, "one-hot enemy sheep 1, 10, 100, 1000"],
  ["mode", 2, "one-hot basic, challenge"],
  ["decision", STEP_KINDS.length, "one-hot pending decision: play, chooseField, select, gainOrStop, chooseHand, chooseDeck (all 0 at the end)"],
  ["pendingCard", CARD_TYPES, "one-hot effect being resolved (all 0 when none)"],
  ["viaAllPurpose", 1, "1 when All-purpose Sheep is resolving the pending effect"],
  ["left", 1, "sheep still to release / 7"],
  ["selected", RANK_COUNT, "selected field cards of rank index k / 7"],
  ["toAct", 1, "1 when seat 0 must decide (0 at the end)"],
  ["result", 3, "one-hot win, loss, over (challenge end)"],
];
const layout: ObservationField[] = [];
let at = 0;
for (const [name, length, description] of fields) {
  // Every float is in [0, 1]: counts are divided by their maxima (7 field cards, 5 in hand, 22 in
  // the deck, copies per card type, 7 x 1000 for the field sum).
  layout.push({ name, offset: at, length, description, low: 0, high: 1 });
  at += length;
}
const SIZE = at;
checkLayout(SIZE, layout);
const off = (name: string): number => layout.find((f) => f.name === name)!.offset;
const O = {
  field: off("field"),
  stock: off("stock"),
  hand: off("hand"),
  deck: off("deck"),
  discard: off("discard"),
  exile: off("exile"),
  deckSize: off("deckSize"),
  handSize: off("handSize"),
  fieldSize: off("fieldSize"),
  fieldSum: off("fieldSum"),
  enemy: off("enemy"),
  mode: off("mode"),
  decision: off("decision"),
  pendingCard: off("pendingCard"),
  via: off("viaAllPurpose"),
  left: off("left"),
  selected: off("selected"),
  toAct: off("toAct"),
  result: off("result"),
};

function cardCounts(out: Float32Array, base: number, cards: readonly number[]): void {
  for (const c of cards) out[base + c]! += 1 / CARD_COPIES[c]!;
}

const observation: ObservationEncoder<ShephyView> = {
  version: "shephy-obs-v1",
  size: SIZE,
  layout,
  encode(v, out) {
    out.fill(0, 0, SIZE);
    let sum = 0;
    for (const r of v.field) {
      out[O.field + r]! += 1 / 7;
      sum += RANKS[r]!;
    }
    for (let k = 0; k < RANK_COUNT; k++) out[O.stock + k] = v.stock[k]! / SHEEP_PER_RANK;
    cardCounts(out, O.hand, v.hand);
    const unseen = unseenCounts(v);
    for (let t = 0; t < CARD_TYPES; t++) out[O.deck + t] = unseen[t]! / CARD_COPIES[t]!;
    cardCounts(out, O.discard, v.discard);
    cardCounts(out, O.exile, v.exile);
    out[O.deckSize] = v.deckSize / 22;
    out[O.handSize] = v.hand.length / 5;
    out[O.fieldSize] = v.field.length / 7;
    out[O.fieldSum] = sum / 7000;
    const e = ENEMIES.indexOf(v.enemy as (typeof ENEMIES)[number]);
    if (e >= 0) out[O.enemy + e] = 1;
    out[O.mode + (v.mode === "basic" ? 0 : 1)] = 1;
    const k = STEP_KINDS.indexOf(v.decision as (typeof STEP_KINDS)[number]);
    if (k >= 0) out[O.decision + k] = 1;
    if (v.pending !== null) {
      out[O.pendingCard + v.pending.card] = 1;
      if (v.pending.source !== v.pending.card) out[O.via] = 1;
      out[O.left] = v.pending.left / 7;
      for (const i of v.pending.selected) out[O.selected + v.field[i]!]! += 1 / 7;
    }
    if (v.actor === 0) out[O.toAct] = 1;
    if (v.result !== null) out[O.result + (v.result === "win" ? 0 : v.result === "loss" ? 1 : 2)] = 1;
  },
};

export const shephyAdapter: GameAdapter<ShephyDecision, ShephyView> = { game: shephy, actions, observation };
