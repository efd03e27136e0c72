import { decisionEvent, privateEvent, publicEvent, type GameEvent } from "../core/index.ts";
import type { CoreRequest, FlowState } from "../core/interrupt/index.ts";
import { cardLabel, type Card } from "./cards.ts";
import { blackpokerActor } from "./legal.ts";
import { describeBlackpoker, requestLabel } from "./render.ts";
import type { BlackpokerDecision, BlackpokerState, BpPayload, Unit } from "./state.ts";
import { sizeOf, zonesOf } from "./zones.ts";

/**
 * BlackPoker events (docs/events.md), derived from the states before and after the decision.
 * Audiences follow the view (docs/rules/blackpoker.md, "View"): hands, the content of
 * Life and a face-down bulwark's card are hidden from the opponent (and spectators); everything on
 * the stage (key cards are face up), the field's soldiers, Graves, Fogs and counts is public.
 * - `decision`: the actor's label; a Search's card goes from Life to a hidden hand, so the others
 *   read only that a card was taken (a bulwark's card is never in a label).
 * - `draw` {count, cards}: cards from Life into the hand, named to their owner only; the others
 *   read {count}.
 * - `damage` {amount, life, cards}: Life cards to the Grave (damage, an L cost, NextGeneration's
 *   dig); `life` is the Life left, `cards` the labels (they are face up in the Grave now).
 * - `play` {uid, bulwark, cards?, size?}: a unit enters the field; a bulwark's card (`cards`) only
 *   to its controller.
 * - `death` {uid, bulwark, cards}: a unit leaves the field for the Grave (a bulwark's card is seen
 *   there).
 * - `stat` {uid, stat: "size", from, to} or {stat: "charged" | "driven", units}: a soldier's size
 *   changed (Mount, Up, Down); units were charged or driven (uids as "#3 #5").
 * - `info` {rid, action}: a request goes onto the stage (its label, keys included: they are face
 *   up, except a bulwark's, which the label hides).
 * - `trigger` {rid, action, negated}: a request left the stage: it resolved, or a Counter negated it.
 * - `phase` {turn}: a new turn, `seat` its turn player.
 * - `result` {winner}: the game is over; `winner` a seat, or null for a draw.
 */
export function blackpokerEvents(before: BlackpokerState, decision: BlackpokerDecision, after: BlackpokerState): GameEvent[] {
  const actor = blackpokerActor(before);
  const seat = actor === "terminal" ? null : actor;
  const text = describeBlackpoker(before, decision);
  const out: GameEvent[] =
    decision.kind === "searchTake" && seat !== null
      ? [decisionEvent(seat, text, { to: [seat], others: { text: `seat ${seat} takes a card from Life into the hand` } })]
      : [decisionEvent(seat, text)];
  requestEvents(before, after, out);
  for (let p = 0; p < after.players.length; p++) {
    lifeEvents(before, after, p, out);
    unitEvents(before, after, p, out);
  }
  if (after.turn !== before.turn) {
    const tp = after.flow.turnPlayer;
    out.push(publicEvent("phase", tp, `Turn ${after.turn}: seat ${tp}'s turn`, { turn: after.turn }));
  }
  if (after.result !== null && before.result === null) {
    const best = after.result.indexOf(Math.max(...after.result));
    const draw = after.result.every((r) => r === 0);
    out.push(publicEvent("result", draw ? null : best, draw ? "The game is a draw" : `seat ${best} wins`, { winner: draw ? null : best }));
  }
  return out;
}

function requestsOf(f: FlowState<BpPayload>): CoreRequest<BpPayload>[] {
  const out = f.stage.concat(f.buffer);
  if (f.resolving) out.push(f.resolving);
  if (f.requested) out.push(f.requested);
  return out;
}

/** Requests that left the stage (resolved or negated), then those that went onto it. */
function requestEvents(before: BlackpokerState, after: BlackpokerState, out: GameEvent[]): void {
  const now = new Set(requestsOf(after.flow).map((r) => r.payload.rid));
  const gone = requestsOf(before.flow).filter((r) => !now.has(r.payload.rid));
  for (const r of gone) {
    const negated = gone.some((c) => c.payload.action === "Counter" && c.payload.target === r.payload.rid);
    const what = `${r.payload.action} (r${r.payload.rid}) by seat ${r.controller}`;
    out.push(publicEvent("trigger", r.controller, `${what} ${negated ? "is negated" : "resolves"}`, { rid: r.payload.rid, action: r.payload.action, negated }));
  }
  const was = new Set(before.flow.stage.map((r) => r.payload.rid));
  for (const r of after.flow.stage) {
    if (was.has(r.payload.rid)) continue;
    out.push(publicEvent("info", r.controller, `${requestLabel(after, r)} goes onto the stage`, { rid: r.payload.rid, action: r.payload.action }));
  }
}

/** Life cards that went to the hand (draws, private) or to the Grave (damage, public). */
function lifeEvents(before: BlackpokerState, after: BlackpokerState, p: number, out: GameEvent[]): void {
  const b = zonesOf(before, p);
  const a = zonesOf(after, p);
  if (a.life.length >= b.life.length) return;
  const left = b.life.filter((c) => !a.life.includes(c));
  // In the order they arrived (a draw takes the top of Life first).
  const drawn = a.hand.filter((c) => left.includes(c) && !b.hand.includes(c));
  const graved = a.grave.filter((c) => left.includes(c) && !b.grave.includes(c));
  if (graved.length > 0) {
    const cards = labels(graved);
    out.push(
      publicEvent("damage", p, `seat ${p} loses ${graved.length} Life (${b.life.length} -> ${a.life.length}): ${cards} to the Grave`, {
        amount: graved.length,
        life: a.life.length,
        cards,
      }),
    );
  }
  if (drawn.length > 0) {
    const n = drawn.length;
    const cards = labels(drawn);
    out.push(
      privateEvent(
        "draw",
        p,
        [p],
        { text: `seat ${p} draws ${cards}`, data: { count: n, cards } },
        { text: `seat ${p} draws ${n === 1 ? "a card" : `${n} cards`}`, data: { count: n } },
      ),
    );
  }
}

/** Units that entered, left, changed size, or were charged or driven, on seat `p`'s field. */
function unitEvents(before: BlackpokerState, after: BlackpokerState, p: number, out: GameEvent[]): void {
  const b = zonesOf(before, p).field;
  const a = zonesOf(after, p).field;
  const byUid = new Map(b.map((u) => [u.uid, u]));
  const still = new Set(a.map((u) => u.uid));
  for (const u of b) {
    if (still.has(u.uid)) continue;
    const cards = labels(u.cards);
    out.push(
      publicEvent("death", p, `seat ${p}'s ${u.bulwark ? "bulwark" : "soldier"} #${u.uid} [${cards}] goes to the Grave`, {
        uid: u.uid,
        bulwark: u.bulwark,
        cards,
      }),
    );
  }
  const charged: number[] = [];
  const driven: number[] = [];
  for (const u of a) {
    const old = byUid.get(u.uid);
    if (old === undefined) {
      out.push(entered(u, p));
      continue;
    }
    if (!u.bulwark && sizeOf(u) !== sizeOf(old)) {
      out.push(
        publicEvent("stat", p, `seat ${p}'s soldier #${u.uid} size ${sizeOf(old)} -> ${sizeOf(u)}`, {
          uid: u.uid,
          stat: "size",
          from: sizeOf(old),
          to: sizeOf(u),
        }),
      );
    }
    if (u.charged !== old.charged) (u.charged ? charged : driven).push(u.uid);
  }
  for (const [stat, uids] of [["charged", charged] as const, ["driven", driven] as const]) {
    if (uids.length === 0) continue;
    const units = uids.map((uid) => `#${uid}`).join(" ");
    out.push(
      publicEvent("stat", p, `seat ${p}'s ${uids.length === 1 ? "unit" : "units"} ${units} ${uids.length === 1 ? "is" : "are"} ${stat}`, { stat, units }),
    );
  }
}

function entered(u: Unit, p: number): GameEvent {
  if (!u.bulwark) {
    const cards = labels(u.cards);
    return publicEvent("play", p, `seat ${p}'s soldier #${u.uid} [${cards}] enters the field (size ${sizeOf(u)})`, {
      uid: u.uid,
      bulwark: false,
      cards,
      size: sizeOf(u),
    });
  }
  const cards = labels(u.cards);
  return privateEvent(
    "play",
    p,
    [p],
    { text: `seat ${p}'s bulwark #${u.uid} [${cards}] enters the field face down`, data: { uid: u.uid, bulwark: true, cards } },
    { text: `seat ${p}'s bulwark #${u.uid} enters the field face down`, data: { uid: u.uid, bulwark: true } },
  );
}

const labels = (cards: readonly Card[]): string => cards.map(cardLabel).join(" ");
