import { Rng, type Seat, type Viewer } from "../core/index.ts";
import type { CoreRequest, FlowState } from "../core/interrupt/index.ts";
import { ENTRY16, type Card } from "./cards.ts";
import type { BlackpokerConfig } from "./config.ts";
import type { BlackpokerState, BpPayload, Combat, Pending, PlayerZones, Unit } from "./state.ts";
import { cardOwner, zonesOf } from "./zones.ts";

export interface UnitView {
  readonly uid: number;
  readonly bulwark: boolean;
  /** [] for a bulwark the viewer does not control (face down). */
  readonly cards: readonly Card[];
  readonly charged: boolean;
  readonly mod: number;
  readonly entered: number;
  /** Public: each card's owner, only when some card is not owned by the controller (see `Unit`). */
  readonly owners?: readonly number[];
}

export interface PlayerView {
  readonly life: number;
  /** The cards, for the viewer's own hand; null for a hidden hand. */
  readonly hand: readonly Card[] | null;
  readonly handSize: number;
  readonly grave: readonly Card[];
  readonly fog: readonly Card[];
  readonly field: readonly UnitView[];
}

/**
 * One seat's (or a spectator's) view. Hidden: the other hand, the order (and for the opponent the
 * content) of every Life, the cards of face-down bulwarks the viewer does not control (even its own
 * cards), and the rng. Public: who owns and who controls each unit, the whole
 * core flow (stage, pass record, chance, turn; key cards are face up), counts, graves, fogs, the
 * pending choice and its partial choices.
 */
export interface BlackpokerView {
  readonly config: BlackpokerConfig;
  readonly viewer: Viewer;
  readonly turn: number;
  readonly flow: FlowState<BpPayload>;
  /** Who decides now (null at the end) and what: "chance" (pass or declare) or a pending choice kind. */
  readonly actor: number | null;
  /** "triggerOrder": the actor picks which of its triggered requests (`flow.choice`) to take first. */
  readonly pendingKind: Pending["kind"] | "chance" | "triggerOrder" | null;
  readonly pending: Pending | null;
  readonly attacked: boolean;
  readonly bulwarkSet: boolean;
  readonly combat: Combat | null;
  readonly players: readonly PlayerView[];
  /** The viewer's Life contents (ascending), only while it is choosing a Search card. */
  readonly searchLife: readonly Card[] | null;
  readonly result: readonly number[] | null;
  /** Public id counters (units created, requests made so far). */
  readonly nextUid: number;
  readonly nextRid: number;
}

function hideRequest(r: CoreRequest<BpPayload>, viewer: Viewer): CoreRequest<BpPayload> {
  // SetBulwark's card is face down; it never waits on the stage, but never show it to others.
  if (r.payload.action !== "SetBulwark" || r.controller === viewer) return r;
  return { ...r, payload: { ...r.payload, keys: [] } };
}

function flowView(f: FlowState<BpPayload>, viewer: Viewer): FlowState<BpPayload> {
  const hide = (r: CoreRequest<BpPayload>) => hideRequest(r, viewer);
  return {
    ...f,
    stage: f.stage.map(hide),
    passed: f.passed.slice(),
    buffer: f.buffer.map(hide),
    resolving: f.resolving && hide(f.resolving),
    requested: f.requested && hide(f.requested),
  };
}

function unitView(u: Unit, controlled: boolean): UnitView {
  const cards = controlled || !u.bulwark ? u.cards.slice() : [];
  const view: UnitView = { uid: u.uid, bulwark: u.bulwark, cards, charged: u.charged, mod: u.mod, entered: u.entered };
  return u.owners === undefined ? view : { ...view, owners: u.owners.slice() };
}

export function blackpokerView(s: BlackpokerState, viewer: Viewer): BlackpokerView {
  const players = s.players.map((z, p): PlayerView => ({
    life: z.life.length,
    hand: p === viewer ? z.hand.slice() : null,
    handSize: z.hand.length,
    grave: z.grave.slice(),
    fog: z.fog.slice(),
    field: z.field.map((u) => unitView(u, p === viewer)),
  }));
  let pending = s.pending;
  if (pending !== null && pending.kind === "compose" && pending.action === "SetBulwark" && pending.seat !== viewer) pending = { ...pending, keys: [] };
  const searching = s.pending !== null && s.pending.kind === "search" && s.pending.seat === viewer;
  const over = s.result !== null;
  return {
    config: s.config,
    viewer,
    turn: s.turn,
    flow: flowView(s.flow, viewer),
    actor: over ? null : s.pending !== null ? s.pending.seat : (s.flow.choice?.seat ?? s.flow.chancePlayer),
    pendingKind: over ? null : s.pending !== null ? s.pending.kind : s.flow.choice !== undefined ? "triggerOrder" : "chance",
    pending,
    attacked: s.attacked,
    bulwarkSet: s.bulwarkSet,
    combat: s.combat,
    players,
    searchLife: searching
      ? zonesOf(s, viewer as number)
          .life.slice()
          .sort((a, b) => a - b)
      : null,
    result: s.result === null ? null : s.result.slice(),
    nextUid: s.nextUid,
    nextRid: s.nextRid,
  };
}

function requestsOf(f: FlowState<BpPayload>): CoreRequest<BpPayload>[] {
  const out = f.stage.concat(f.buffer);
  if (f.resolving) out.push(f.resolving);
  if (f.requested) out.push(f.requested);
  return out;
}

/**
 * A full state consistent with `view`: per deck (a player's own cards, wherever they are), the
 * cards not visible to the viewer (deck minus hand if seen, grave, fog, face-up field cards it
 * owns on either side, its requests' keys, the partial choices of a request it is composing) are
 * shuffled with `rng` into the hidden places: face-down bulwarks (from their owner's deck), the
 * unseen part of the hand, and Life.
 */
export function determinizeBlackpoker(view: BlackpokerView, _seat: Seat, rng: Rng): BlackpokerState {
  const requests = requestsOf(view.flow);
  const hiddenKeys = new Map<number, Card>();
  const used = view.players.map((pv, p) => new Set<Card>([...pv.grave, ...pv.fog, ...(pv.hand ?? knownHidden(view, pv, p))]));
  const see = (owner: number, c: Card): void => {
    const seen = used[owner];
    if (seen === undefined) throw new Error(`determinize: a card is owned by player ${owner}, who is not in the view`);
    seen.add(c);
  };
  view.players.forEach((pv, p) => {
    for (const u of pv.field) u.cards.forEach((c, i) => see(cardOwner(u, i, p), c));
    for (const r of requests) if (r.controller === p) for (const c of r.payload.keys) see(p, c);
  });
  const pools = used.map((u) => rng.shuffle(ENTRY16.filter((c) => !u.has(c))));
  const placed = view.players.map((pv, p) => {
    const field: Unit[] = pv.field.map((u) => ({ ...u, cards: u.cards.length ? u.cards.slice() : [takeUnseen(pools, cardOwner(u, 0, p))] }));
    // A SetBulwark request whose face-down card the view hid (only at a game decided by its L cost).
    for (const r of requests)
      if (r.controller === p && r.payload.action === "SetBulwark" && r.payload.keys.length === 0) hiddenKeys.set(r.payload.rid, takeUnseen(pools, p));
    const seen = knownHidden(view, pv, p);
    const hand = pv.hand ? pv.hand.slice() : seen.concat(pools[p]?.splice(0, pv.handSize - seen.length) ?? []);
    return { field, hand };
  });
  const players: PlayerZones[] = view.players.map((pv, p) => {
    const life = pools[p] ?? [];
    const { hand, field } = placed[p] ?? { hand: [], field: [] };
    if (life.length !== pv.life) throw new Error(`determinize: player ${p} has ${life.length} unseen cards for a Life of ${pv.life}`);
    return { life, hand, grave: pv.grave.slice(), fog: pv.fog.slice(), field };
  });
  return {
    config: view.config,
    flow: hiddenKeys.size === 0 ? view.flow : refillFlow(view.flow, hiddenKeys),
    players,
    turn: view.turn,
    attacked: view.attacked,
    bulwarkSet: view.bulwarkSet,
    combat: view.combat,
    pending: view.pending,
    nextUid: view.nextUid,
    nextRid: view.nextRid,
    result: view.result === null ? null : view.result.slice(),
    rng: Rng.seeded(rng.nextU32()).save(),
  };
}

function refillFlow(f: FlowState<BpPayload>, keys: Map<number, Card>): FlowState<BpPayload> {
  const fill = (r: CoreRequest<BpPayload>): CoreRequest<BpPayload> => {
    const card = keys.get(r.payload.rid);
    return card === undefined || r.payload.action !== "SetBulwark" ? r : { ...r, payload: { ...r.payload, keys: [card] } };
  };
  return {
    ...f,
    stage: f.stage.map(fill),
    buffer: f.buffer.map(fill),
    resolving: f.resolving && fill(f.resolving),
    requested: f.requested && fill(f.requested),
  };
}

/** The cards of seat `p`'s hidden hand the view still shows: the keys and discards of a request it is composing. */
function knownHidden(view: BlackpokerView, pv: BlackpokerView["players"][number], p: number): Card[] {
  return pv.hand === null && view.pending !== null && view.pending.kind === "compose" && view.pending.seat === p
    ? view.pending.keys.concat(view.pending.discards)
    : [];
}

/** The next unseen card of seat `p`'s pool; none left means the view's counts do not add up. */
function takeUnseen(pools: readonly Card[][], p: number): Card {
  const card = pools[p]?.pop();
  if (card === undefined) throw new Error(`determinize: no unseen card left for player ${p}`);
  return card;
}
