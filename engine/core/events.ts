import type { Seat, Viewer } from "./game.ts";

/**
 * Events: what one applied decision did, in words and small data, each tagged with who may know
 * it. They are the one source of every text a channel, a log, a replay or a client shows about a
 * game; a viewer only ever receives their projection (`projectEvents`), the way a view hides cards.
 */

/** Who may read an event's full face: every viewer (spectators included), or only these seats. */
export type Audience = "all" | readonly Seat[];

/**
 * What happened. `decision` is always first in a decision's list: the decision itself, whose full
 * text is the game's `describe` label. The rest is what it caused, in the order it happened.
 */
export type EventKind =
  "decision" | "play" | "move" | "attack" | "damage" | "heal" | "death" | "stat" | "trigger" | "draw" | "reveal" | "phase" | "result" | "info";

/**
 * Small values a client may draw with (a damage amount, a cell, a card name); they obey the same
 * audience as the text beside them, so they must never hold more than that text may say.
 */
export type EventData = Readonly<Record<string, number | string | boolean | null>>;

/** One side of an event: its sentence and optional data. */
export interface EventFace {
  readonly text: string;
  readonly data?: EventData;
}

export interface GameEvent {
  readonly kind: EventKind;
  /** The seat that acted or is concerned, or null (the game itself: a phase, a result). */
  readonly seat: Seat | null;
  /** Who may read `face`. */
  readonly to: Audience;
  readonly face: EventFace;
  /** What every other viewer reads instead ("Guest sets a feint face down"), or null: they learn nothing. */
  readonly others: EventFace | null;
}

/** An event as one viewer receives it: the face that viewer may read, nothing else. */
export interface SeenEvent {
  readonly kind: EventKind;
  readonly seat: Seat | null;
  readonly text: string;
  readonly data?: EventData;
}

/** True when `viewer` may read the event's full face. Spectators read only events for everyone. */
export function mayRead(to: Audience, viewer: Viewer | "owner"): boolean {
  if (viewer === "owner" || to === "all") return true;
  if (viewer === "spectator") return false;
  return to.includes(viewer);
}

/**
 * One event as `viewer` sees it, or null when that viewer learns nothing of it. `"owner"` is the
 * record's owner (audit, `--verify`): every full face.
 */
export function projectEvent(e: GameEvent, viewer: Viewer | "owner"): SeenEvent | null {
  const face = mayRead(e.to, viewer) ? e.face : e.others;
  if (face === null) return null;
  return face.data === undefined ? { kind: e.kind, seat: e.seat, text: face.text } : { kind: e.kind, seat: e.seat, text: face.text, data: face.data };
}

/** A decision's events as `viewer` sees them (those the viewer learns nothing of are left out). */
export function projectEvents(events: readonly GameEvent[], viewer: Viewer | "owner"): SeenEvent[] {
  const out: SeenEvent[] = [];
  for (const e of events) {
    const seen = projectEvent(e, viewer);
    if (seen !== null) out.push(seen);
  }
  return out;
}

/** An event everyone may read. */
export function publicEvent(kind: EventKind, seat: Seat | null, text: string, data?: EventData): GameEvent {
  return { kind, seat, to: "all", face: data === undefined ? { text } : { text, data }, others: null };
}

/** An event only `seats` may read in full; the others read `others` (or nothing when null). */
export function privateEvent(kind: EventKind, seat: Seat | null, seats: readonly Seat[], face: EventFace, others: EventFace | null): GameEvent {
  return { kind, seat, to: seats, face, others };
}

/**
 * A decision's own event (always first): the actor's label to `to` (everyone by default), and a
 * face for every other viewer, so that every channel shows a line for every decision: `others`
 * when the label says more than they may know ("Guest sets a feint face down at C4"), else the
 * label itself.
 */
export function decisionEvent(seat: Seat | null, text: string, hidden?: { readonly to: readonly Seat[]; readonly others: EventFace }): GameEvent {
  const face: EventFace = { text };
  return hidden === undefined
    ? { kind: "decision", seat, to: "all", face, others: face }
    : { kind: "decision", seat, to: hidden.to, face, others: hidden.others };
}

/**
 * The events of a game whose decisions are all public and report nothing beyond themselves: the
 * decision's label, to everyone. A starting point for a new game; a game with hidden decisions
 * must write its own.
 */
export function decisionOnlyEvents<S, D>(
  actor: (s: S) => Seat | "terminal",
  describe: (s: S, d: D) => string,
): (before: S, decision: D, after: S) => readonly GameEvent[] {
  return (before, decision) => {
    const seat = actor(before);
    return [decisionEvent(seat === "terminal" ? null : seat, describe(before, decision))];
  };
}
