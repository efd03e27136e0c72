/**
 * A live table's channels and what goes out on them: the legal decisions offered to the seat that
 * decides, the expectation (who decides, until when, and, for that seat only, the default), and
 * the broadcast of a fresh frame to every channel after each change (docs/live.md).
 */
import type { AnyGame, Seat, Viewer } from "../../engine/core/index.ts";
import type { GameAdapter } from "../codec.ts";
import { decisionPoint } from "../decision-point.ts";
import { channelView } from "./channel-config.ts";
import type { DecisionOption, LiveEvent, LiveExpectation, SeatFrame, SeatInfo, SpectatorFrame } from "./protocol.ts";
import type { Channel } from "./table-common.ts";
import { must } from "../../engine/core/index.ts";

/** The seat's legal decisions with their stable ids and labels, computed once per seq. */
export class DecisionOptions {
  private cache: { seq: number; seat: Seat; options: DecisionOption[]; legal: readonly unknown[] } | null = null;

  constructor(
    private readonly game: AnyGame,
    private readonly adapter: GameAdapter,
  ) {}

  of(state: unknown, seq: number, seat: Seat): { options: DecisionOption[]; legal: readonly unknown[] } {
    const c = this.cache;
    if (c && c.seq === seq && c.seat === seat) return c;
    const point = decisionPoint(this.adapter, state, seat);
    const options = point.legal.map((d, k) => ({
      id: must(point.ids[k], "decision point: the id of a legal decision"),
      label: this.game.describe(state, d),
      decision: d,
    }));
    this.cache = { seq, seat, options, legal: point.legal };
    return this.cache;
  }
}

/**
 * Who must decide and until when, as `viewer` sees it: only the deciding seat learns which
 * decision its deadline applies (it is one of its options).
 */
function expectationOf(src: FrameSource, actor: Seat, viewer: Seat | null): LiveExpectation {
  const { game, adapter, state, deadline } = src;
  if (deadline === null || viewer !== actor) return { seat: actor, deadline, defaultId: null, defaultLabel: null };
  const d = src.defaultDecision();
  let id: number | null;
  try {
    id = adapter.actions.encode(game.view(state, actor), d);
  } catch {
    id = null;
  }
  return { seat: actor, deadline, defaultId: id, defaultLabel: game.describe(state, d) };
}

/** A table as its frames show it, at one moment. */
export interface FrameSource {
  readonly id: string;
  readonly game: AnyGame;
  readonly adapter: GameAdapter;
  readonly state: unknown;
  readonly seq: number;
  readonly finished: boolean;
  readonly actor: Seat | "terminal";
  /** The pending decision's deadline (server clock), or null: the table's decision loop sets it. */
  readonly deadline: number | null;
  /** The decision the deadline applies: the decision loop's default. */
  defaultDecision(): unknown;
  /** While the entry window is open: when it closes at the latest (nobody decides until then); else null. */
  readonly startsAt: number | null;
  readonly seats: SeatInfo[];
  readonly returns: number[] | null;
  readonly now: number;
  events(viewer: Viewer, since: number): LiveEvent[];
  options(seat: Seat): DecisionOption[];
}

/** What a seat's and a spectator's frame share, for `viewer`. */
function frameFields(src: FrameSource, viewer: Seat | null, since: number) {
  const expectation = src.actor === "terminal" || src.finished || src.startsAt !== null ? null : expectationOf(src, src.actor, viewer);
  return {
    seq: src.seq,
    status: src.finished ? ("finished" as const) : ("playing" as const),
    actor: src.actor,
    view: channelView(src.game.view(src.state, viewer ?? "spectator")),
    expectation,
    events: src.events(viewer ?? "spectator", since),
    seats: src.seats,
    returns: src.returns,
    now: src.now,
    ...(src.startsAt !== null ? { startsAt: src.startsAt } : {}),
  };
}

/** A seat's frame: its view, its events after `since`, and its legal decisions when it decides now. */
export function seatFrameOf(src: FrameSource, seat: Seat, since: number): SeatFrame {
  const decisions = src.actor === seat && !src.finished && src.startsAt === null ? src.options(seat) : [];
  return { type: "frame", table: src.id, seat, ...frameFields(src, seat, since), decisions };
}

/** A spectator's frame: the spectator view and the events everyone may read. */
export function spectatorFrameOf(src: FrameSource, since: number, viewer: "spectator" = "spectator"): SpectatorFrame {
  return { type: "spectate", table: src.id, viewer, ...frameFields(src, null, since) };
}

/** How the table renders a frame for a channel (JSON text) and whether a seat's channel is to be closed after it. */
export interface FrameRenderer {
  seatFrame(seat: Seat, since: number): unknown;
  spectatorFrame(since: number): unknown;
  seq(): number;
  closeAfterFrame(seat: Seat): boolean;
}

/** Every live channel of a table and every long poll waiting for its next change. */
export class Channels {
  private readonly all = new Set<Channel>();
  private readonly waiters = new Set<() => void>();

  add(c: Channel): void {
    this.all.add(c);
  }

  /** False when the channel was not attached. */
  delete(c: Channel): boolean {
    return this.all.delete(c);
  }

  of(seat: Seat): Channel[] {
    return [...this.all].filter((c) => c.seat === seat);
  }

  get watching(): number {
    let n = 0;
    for (const c of this.all) if (c.seat === null) n++;
    return n;
  }

  /** Sends every channel a frame with the events it has not had yet. Spectator frames are built once per distinct position. */
  broadcast(r: FrameRenderer, closeCode: number): void {
    const spectatorText = new Map<number, string>();
    const seq = r.seq();
    for (const c of this.all) {
      let text: string;
      if (c.seat === null) {
        const cached = spectatorText.get(c.sentSeq);
        text = cached ?? JSON.stringify(r.spectatorFrame(c.sentSeq));
        if (cached === undefined) spectatorText.set(c.sentSeq, text);
      } else {
        text = JSON.stringify(r.seatFrame(c.seat, c.sentSeq));
      }
      c.sentSeq = seq;
      try {
        c.send(text);
      } catch {
        // a dead socket is removed by its close handler
      }
      if (c.seat !== null && r.closeAfterFrame(c.seat)) c.close(closeCode, "seat_resigned");
    }
    this.wake();
  }

  /** Releases every long poll. */
  wake(): void {
    const waiting = [...this.waiters];
    this.waiters.clear();
    for (const w of waiting) w();
  }

  /** Resolves on the next change (long poll), or after ms. */
  waitForChange(ms: number): Promise<void> {
    return new Promise((resolve) => {
      let cancel: () => void = () => undefined;
      const done = () => {
        this.waiters.delete(done);
        cancel();
        resolve();
      };
      this.waiters.add(done);
      // Real time, not the table clock: a long poll is about the HTTP connection.
      const t = setTimeout(done, ms);
      cancel = () => clearTimeout(t);
    });
  }

  /** Closes every channel and releases every long poll. */
  closeAll(reason: string): void {
    for (const c of this.all) c.close(1001, reason);
    this.all.clear();
    for (const w of this.waiters) w();
  }
}
