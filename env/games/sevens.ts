import { sevens, type SevensDecision, type SevensView } from "../../engine/sevens/index.ts";
import { DEAD, PLACED } from "../../engine/sevens/index.ts";
import { checkLayout, fieldOffsets, type ActionCodec, type GameAdapter, type ObservationEncoder, type ObservationField } from "../codec.ts";

const CARDS = 52;
const MAX_SEATS = 6;
const PASS_ID = 52;

/** 0..51 play card (suit*13 + rank-1, suits ♠♥♦♣); 52 pass (also the forced pass on timeout). */
const actions: ActionCodec<SevensDecision, SevensView> = {
  size: 53,
  layout: "0..51 play card id = suit*13 + rank-1 (suits ♠=0 ♥=1 ♦=2 ♣=3, rank A=1..K=13); 52 pass",
  encode: (_view, d) => (d.kind === "play" ? d.card : PASS_ID),
  decode: (_view, id) => (id === PASS_ID ? { kind: "pass" } : Number.isInteger(id) && id >= 0 && id < CARDS ? { kind: "play", card: id } : null),
};

// Per-seat blocks are relative to the viewer: slot i is seat (viewer + i) % seats; unused slots stay 0.
const fields: [string, number, string][] = [
  ["cellInHand", CARDS, "1 where the card is still in some hand (its cell is Empty)"],
  ["cellMine", CARDS, "1 where the card is in the viewer's hand"],
  ["cellPlayable", CARDS, "1 where the viewer's card may be played (8-adjacent to a filled cell)"],
  ["cellPlaced", CARDS, "1 where the cell holds a Placed card (opening sevens included)"],
  ["cellPlacedByMe", CARDS, "1 where the viewer placed the card"],
  ["cellDead", CARDS, "1 where the cell is Dead (killed)"],
  ["cellDeadMine", CARDS, "1 where the Dead card was held by the viewer"],
  ["seatPresent", MAX_SEATS, "1 for slots that are seats in this game"],
  ["handSize", MAX_SEATS, "hand size / 13"],
  ["killed", MAX_SEATS, "killed cards / 13"],
  ["kills", MAX_SEATS, "opponent cards killed by the seat's moves / 13"],
  ["passes", MAX_SEATS, "passes / (passLimit+1), or min(passes,10)/10 without a limit"],
  ["finished", MAX_SEATS, "1 if the seat went out"],
  ["finishPosition", MAX_SEATS, "(position in finish order + 1) / seats, 0 if not out"],
  ["eliminated", MAX_SEATS, "1 if the seat was eliminated"],
  ["turn", MAX_SEATS, "one-hot: the seat to move"],
  ["myTurn", 1, "1 when the viewer is to move (pending decision: play a card or pass)"],
  ["canPass", 1, "1 when the viewer may pass now"],
  ["gameOver", 1, "1 at the end"],
  ["passLimitSet", 1, "1 if config.passLimit is an integer"],
  ["passLimit", 1, "config.passLimit / 20 (0 if unlimited)"],
  ["voluntaryPass", 1, "config.voluntaryPass"],
  ["diamond7", 1, "1 if config.startPlayer is 'diamond7'"],
  ["seatCount", 1, "seats / 6"],
];
// Declared ranges (codec.ts): every float is in [0, 1] but these counts / 13. A hand never holds
// more than the 18 cards a 3-seat 'diamond7' deal gives (so neither can its killed cards), and a
// seat cannot kill more than the 52 cards there are.
const RANGES: Record<string, number> = { handSize: 18 / 13, killed: 18 / 13, kills: 52 / 13 };
const layout: ObservationField[] = [];
let size = 0;
for (const [name, length, description] of fields) {
  layout.push({ name, offset: size, length, description, low: 0, high: RANGES[name] ?? 1 });
  size += length;
}
checkLayout(size, layout);
const at = fieldOffsets(layout, [
  "canPass",
  "cellDead",
  "cellDeadMine",
  "cellInHand",
  "cellMine",
  "cellPlaced",
  "cellPlacedByMe",
  "cellPlayable",
  "diamond7",
  "eliminated",
  "finishPosition",
  "finished",
  "gameOver",
  "handSize",
  "killed",
  "kills",
  "myTurn",
  "passLimit",
  "passLimitSet",
  "passes",
  "seatCount",
  "seatPresent",
  "turn",
  "voluntaryPass",
]);
// Offsets as plain constants: the encoder runs once per env-step and record lookups showed up.
const [IN_HAND, MINE, PLAYABLE, PLACED_AT, PLACED_BY_ME, DEAD_AT, DEAD_MINE] = [
  at.cellInHand,
  at.cellMine,
  at.cellPlayable,
  at.cellPlaced,
  at.cellPlacedByMe,
  at.cellDead,
  at.cellDeadMine,
];
const [SEAT_PRESENT, HAND_SIZE, KILLED, KILLS, PASSES, FINISHED, FINISH_POSITION, ELIMINATED, TURN] = [
  at.seatPresent,
  at.handSize,
  at.killed,
  at.kills,
  at.passes,
  at.finished,
  at.finishPosition,
  at.eliminated,
  at.turn,
];
const [MY_TURN, CAN_PASS, GAME_OVER, PASS_LIMIT_SET, PASS_LIMIT, VOLUNTARY_PASS, DIAMOND7, SEAT_COUNT] = [
  at.myTurn,
  at.canPass,
  at.gameOver,
  at.passLimitSet,
  at.passLimit,
  at.voluntaryPass,
  at.diamond7,
  at.seatCount,
];

// Denominators of the fractional fields (the rest are 0/1): see ObservationEncoder.steps.
const FIXED_STEPS: Record<string, number> = { handSize: 13, killed: 13, kills: 13, passLimit: 20, seatCount: MAX_SEATS };

const observation: ObservationEncoder<SevensView> = {
  version: "sevens-obs-v1",
  size,
  layout,
  steps(config) {
    const c = config as { seats: number; passLimit: number | null };
    const of = (name: string) => {
      if (name === "passes") return c.passLimit === null ? 10 : c.passLimit + 1; // passes <= passLimit + 1
      if (name === "finishPosition") return c.seats;
      return FIXED_STEPS[name] ?? 1;
    };
    return layout.map((f) => of(f.name));
  },
  encode(view, out) {
    const n = view.config.seats;
    const me = view.viewer === "spectator" ? -1 : view.viewer;
    const base = me < 0 ? 0 : me;
    const cells = view.cells;
    // Every cell slot of the first six blocks is written (no fill needed there), without branches:
    // a cell's category is as good as random, and mispredicted branches cost more than the writes.
    // A spectator (me = -1) owns nothing: values no cell holds, not PLACED - 1 (HIDDEN) or DEAD - 1.
    const placedMe = me < 0 ? -1 : PLACED + me;
    const deadMe = me < 0 ? -1 : DEAD + me;
    for (let card = 0; card < CARDS; card++) {
      const v = cells[card]!;
      const dead = +(v >= DEAD);
      const filled = +(v >= PLACED);
      out[IN_HAND + card] = 1 - filled;
      out[MINE + card] = +(v === me);
      out[PLACED_AT + card] = filled - dead;
      out[PLACED_BY_ME + card] = +(v === placedMe);
      out[DEAD_AT + card] = dead;
      out[DEAD_MINE + card] = +(v === deadMe);
      out[PLAYABLE + card] = 0;
    }
    out.fill(0, SEAT_PRESENT, size);
    const playable = view.playable;
    for (let k = 0; k < playable.length; k++) out[PLAYABLE + playable[k]!] = 1;
    const limit = view.config.passLimit;
    for (let i = 0; i < n; i++) {
      const seat = (base + i) % n;
      out[SEAT_PRESENT + i] = 1;
      out[HAND_SIZE + i] = view.handSize[seat]! / 13;
      out[KILLED + i] = view.killed[seat]! / 13;
      out[KILLS + i] = view.kills[seat]! / 13;
      const p = view.passes[seat]!;
      out[PASSES + i] = limit === null ? Math.min(p, 10) / 10 : p / (limit + 1);
      const fin = view.finishOrder.indexOf(seat);
      if (fin >= 0) {
        out[FINISHED + i] = 1;
        out[FINISH_POSITION + i] = (fin + 1) / n;
      }
      if (view.eliminated.includes(seat)) out[ELIMINATED + i] = 1;
      if (view.turn === seat) out[TURN + i] = 1;
    }
    if (me >= 0 && view.turn === me) out[MY_TURN] = 1;
    if (view.canPass) out[CAN_PASS] = 1;
    if (view.turn === null) out[GAME_OVER] = 1;
    if (limit !== null) {
      out[PASS_LIMIT_SET] = 1;
      out[PASS_LIMIT] = limit / 20;
    }
    if (view.config.voluntaryPass) out[VOLUNTARY_PASS] = 1;
    if (view.config.startPlayer === "diamond7") out[DIAMOND7] = 1;
    out[SEAT_COUNT] = n / MAX_SEATS;
  },
};

export const sevensAdapter: GameAdapter<SevensDecision, SevensView> = { game: sevens, actions, observation };
