import type { CreateTableBody, Hello, LiveEvent, SeatInfo } from "../../env/live/protocol.ts";
import { registry } from "../../engine/games.ts";
import { api, ApiFailure, takeSeat, tokens } from "./api.ts";
import { boardFor, headlineFor, primaryFor, type BoardCtx } from "./boards/index.ts";
import type { DecisionOption } from "./boards/common.ts";
import { ask } from "./dialog.ts";
import { button, h, mount } from "./dom.ts";
import { eventItem } from "./eventlog.ts";
import { invitePanel, takeLabel } from "./lobby.ts";
import { LiveLink, type Frame, type LinkState } from "./live.ts";
import { resultsPanel } from "./results.ts";

export interface TableScreenOptions {
  readonly table: string;
  /** null: watch as a spectator. */
  readonly seat: number | null;
  readonly token: string | null;
}

const SPEEDS: readonly { label: string; ms: number | null }[] = [
  { label: "live", ms: 0 },
  { label: "fast", ms: 250 },
  { label: "normal", ms: 800 },
  { label: "slow", ms: 2000 },
  { label: "paused", ms: null },
];

export function seatTitle(seats: readonly SeatInfo[], seat: number, me: number | null): string {
  const s = seats[seat];
  if (seat === me) return `Seat ${seat} (you)`;
  if (!s) return `Seat ${seat}`;
  if (s.kind === "agent") return `Seat ${seat} · ${s.agent ?? "bot"}`;
  if (s.status === "resigned") return `Seat ${seat} · ${s.agent ?? "bot"} (resigned)`;
  if (s.status === "bot") return `Seat ${seat} · ${s.agent ?? "bot"} (standing in)`;
  return `Seat ${seat} · person`;
}

/** A log line: the decision (as this viewer may read it) and, under it, the events it caused. */
export function eventLine(e: LiveEvent): HTMLElement {
  return eventItem({ seq: e.seq, label: e.label, cause: e.cause, events: e.events }, (c) => CAUSE_WORDS[c as LiveEvent["cause"]] ?? c);
}

/** The action bar's headline while a seat's channel is not open (the status line has the details). */
const LINK_DOWN: Record<Exclude<LinkState, "open">, string> = {
  connecting: "Connecting to the table…",
  closed: "Connection lost: reconnecting…",
  refused: "The table refused this seat's link",
  replaced: "This seat is open in another tab or window",
  resigned: "You resigned from this seat",
  revoked: "This seat's link no longer opens it",
};

/** The own seat's line in the seat list while this page's link is down (the server may still count it connected). */
const SEAT_LINK_DOWN: Record<Exclude<LinkState, "open">, string> = {
  connecting: "○ connecting…",
  closed: "○ connection lost: reconnecting…",
  refused: "○ link refused",
  replaced: "○ open in another tab or window",
  resigned: "⚑ resigned",
  revoked: "○ link no longer valid",
};

/** At most this many decisions in the narrow screen's "since your last move". */
const RECENT = 6;

const CAUSE_WORDS: Record<LiveEvent["cause"], string> = { answer: "", agent: "bot", timeout: "time ran out: default", resign: "resigned" };

/** Whether the game has a decision that gives it up (dcg's forceFinish): then resigning loses at once. */
const concedes = (game: string): boolean => {
  const g = registry.get(game);
  return g.ok && typeof g.value.concede === "function";
};

const secondsOf = (ms: number) => Math.max(0, Math.ceil(ms / 1000));

/** What a seat's status change means, in words (pushed to every channel as a frame). */
export function seatChange(before: SeatInfo, after: SeatInfo, name: string, takeover: string, concede: boolean, now: number): string | null {
  if ((before.status === after.status && before.joins === after.joins) || after.kind === "agent") return null;
  if (after.joins > before.joins) return `A person joined ${name.toLowerCase()}; they play it from now on`;
  const agent = after.agent ?? takeover;
  switch (after.status) {
    case "away":
      return `${name} is away; ${takeover} takes their seat in ${secondsOf((after.takeoverAt ?? now) - now)} s unless they come back`;
    case "bot":
      return before.status === "connected" || before.status === "away" ? `${name} left; ${agent} plays for them` : null;
    case "connected":
      return before.status === "away" || before.status === "bot" ? `${name} is back` : null;
    case "resigned":
      return concede ? `${name} resigned` : `${name} resigned; ${agent} plays for them to the end`;
  }
}

/**
 * Play (a seat, with its token) or Watch (a spectator): the board from the channel's view, the
 * legal decisions as clicks on the board and as a labelled list, the deadline as a countdown, the
 * event log in words. Watching plays the frames back at a chosen speed. Returns the screen's
 * teardown (closes the link, stops the timers, removes the document listeners).
 */
export function tableScreen(root: HTMLElement, o: TableScreenOptions): () => void {
  const screen = new TableScreen(root, o);
  return () => screen.dispose();
}

/** The screen's parts, made once and filled on each draw. */
function tableElements() {
  return {
    head: h("div", { class: "tablehead" }),
    bar: h("div", { class: "actionbar", role: "region", "aria-label": "who acts now, and your main decisions" }),
    now: h("p", { class: "now-acting", role: "status" }),
    primary: h("div", { class: "primary-acts" }),
    banner: h("div", { class: "seat-banner", role: "alert" }),
    news: h("p", { class: "seat-news", role: "status" }),
    // Below 760 px the log sits under the board and the hand: this repeats its newest lines up top.
    recent: h("details", { class: "recent", open: true }),
    results: h("div", { class: "results-wrap" }),
    leave: h("div", { class: "seat-controls" }),
    status: h("p", { class: "linkstate", role: "status" }),
    clock: h("p", { class: "deadline", "aria-live": "off" }),
    board: h("div", { class: "boardwrap" }),
    acts: h("div", { class: "decisions", "aria-label": "your decisions", tabindex: -1 }),
    log: h("ol", { class: "log", "aria-label": "what happened" }),
    seats: h("ul", { class: "seatlist" }),
    speed: h("div", { class: "speed" }),
  };
}

/** One table screen: the channel's latest frame and the person's pending choice, drawn on change. */
class TableScreen {
  private readonly me: number | null;
  private game = "";
  private hello: Hello | null = null;
  private frame: Frame | null = null;
  /** Seat status changes in words, placed in the log after the decision they followed. */
  private readonly notices: { afterSeq: number; text: string }[] = [];
  /** Seats a person joined who has not connected yet. */
  private readonly newcomers = new Set<number>();
  private invite: HTMLElement | null = null;
  private link: LinkState = "connecting";
  private linkDetail = "";
  private errorText = "";
  /** Server time minus local time, from the latest frame. */
  private offset = 0;
  private answered = -1;
  private choosing: readonly DecisionOption[] = [];
  /** Spectator playback: 0 live, -1 paused (step by hand), else ms between frames. */
  private speed = 0;
  private readonly queue: Frame[] = [];
  private pump: ReturnType<typeof setTimeout> | null = null;
  private readonly events = new Map<number, LiveEvent>();
  private readonly memo = new Map<string, unknown>();
  /** After a redraw that dropped the focus (the element it was on is gone), put it back in the hand. */
  private refocus = false;
  private readonly els = tableElements();
  private readonly live: LiveLink;
  private readonly ticker: ReturnType<typeof setInterval>;

  constructor(
    private readonly root: HTMLElement,
    private readonly o: TableScreenOptions,
  ) {
    this.me = o.seat;
    const els = this.els;
    mount(
      root,
      h(
        "div",
        { class: "table-screen", "data-role": this.me === null ? "spectator" : "seat" },
        els.head,
        h("div", { class: "actionbar-wrap" }, els.bar),
        els.banner,
        els.news,
        els.status,
        this.me === null ? els.speed : null,
        // The results first: who won is the news once the game is over.
        els.results,
        els.recent,
        h("div", { class: "cols" }, els.board, h("aside", null, els.acts, els.leave, h("h3", null, "Seats"), els.seats, h("h3", null, "Log"), els.log)),
      ),
    );
    document.addEventListener("focusin", this.onFocusIn);
    this.ticker = setInterval(() => this.tick(), 500);
    this.live = this.connect();
    document.addEventListener("click", this.onNav, true);
    document.addEventListener("keydown", this.onKey);
    this.draw();
  }

  dispose(): void {
    this.live.close();
    clearInterval(this.ticker);
    if (this.pump) clearTimeout(this.pump);
    document.removeEventListener("keydown", this.onKey);
    document.removeEventListener("click", this.onNav, true);
    document.removeEventListener("focusin", this.onFocusIn);
  }

  private connect(): LiveLink {
    const { o, me } = this;
    const path = me === null ? `/v1/tables/${encodeURIComponent(o.table)}/spectate` : `/v1/tables/${encodeURIComponent(o.table)}/seats/${me}/ws`;
    return new LiveLink(
      path,
      o.token ? { token: o.token } : {},
      {
        hello: (m) => {
          this.hello = m;
          this.game = m.game;
          document.title = `cardgym · ${m.game} · ${o.table}`;
        },
        frame: (f) => {
          this.errorText = "";
          if (me === null) {
            this.queue.push(f);
            if (!this.pump) this.schedule();
            if (this.speed !== 0) this.draw();
          } else {
            this.show(f);
          }
        },
        error: (m) => {
          this.errorText = m.error.message;
          if (m.error.code === "stale_answer" || m.error.code === "not_your_turn") this.answered = -1;
          this.draw();
        },
        state: (s, detail) => {
          // The token this page used is dead for good: forget it (unless another tab has since
          // stored a newer one), so the lobby stops offering "my seat" for a seat that is not ours.
          if (s === "revoked" && me !== null && o.token !== null && tokens.get(o.table, me) === o.token) tokens.forget(o.table, me);
          this.link = s;
          this.linkDetail = detail;
          if (s === "open") this.answered = -1;
          this.draw();
        },
      },
      0,
    );
  }

  private readonly seatName = (seat: number): string => (this.frame ? seatTitle(this.frame.seats, seat, this.me) : `Seat ${seat}`);

  private readonly pick = (opts: readonly DecisionOption[]): void => {
    const f = this.frame;
    if (!f || f.type !== "frame") return;
    if (opts.length > 1) {
      this.choosing = opts;
      this.draw();
      return;
    }
    const opt = opts[0];
    if (!opt || this.answered === f.seq) return;
    if (this.link !== "open") return;
    this.refocus = true;
    this.answered = f.seq;
    this.choosing = [];
    this.memo.clear();
    this.root.querySelector(".table-screen")?.setAttribute("data-waiting", "true");
    if (!this.live.send({ type: "answer", seq: f.seq, decisionId: opt.id })) this.answered = -1;
    this.draw();
  };

  private restoreFocus(): void {
    const { root, els } = this;
    const active = document.activeElement;
    // Only when the focus was lost (the element it was on was redrawn) or parked on the decisions
    // region: never taken from anything the person moved it to (the header, a dialog).
    if (!this.refocus || (active && active !== document.body && active !== els.acts)) return;
    const target =
      root.querySelector<HTMLElement>(".boardwrap button.hand-card.can") ??
      root.querySelector<HTMLElement>(".boardwrap button.can") ??
      root.querySelector<HTMLElement>(".actionbar button.primary") ??
      root.querySelector<HTMLElement>(".decisions ol.options button") ??
      (this.me !== null && this.frame?.status !== "finished" ? els.acts : null);
    target?.focus({ preventScroll: true });
  }

  /** The focus moved out of this screen (the header, the address bar): leave it there. */
  private readonly onFocusIn = (e: FocusEvent): void => {
    if (e.target instanceof Node && !this.root.contains(e.target)) this.refocus = false;
  };

  private readonly draw = (): void => {
    const f = this.frame;
    const screen = this.root.querySelector(".table-screen");
    const active = document.activeElement;
    if (active && active !== document.body && this.root.contains(active)) this.refocus = true;
    this.drawHead(f);
    mount(
      this.els.status,
      `connection: ${this.link}${this.linkDetail ? ` (${this.linkDetail})` : ""}`,
      this.errorText ? h("span", { class: "err" }, ` · ${this.errorText}`) : null,
    );
    screen?.setAttribute("data-link", this.link);
    this.drawBanner();
    const latest = this.notices[this.notices.length - 1];
    mount(this.els.news, latest ? latest.text : "");
    if (!f) return;
    // Only a live channel may answer: a replaced or resigned seat shows the board and nothing to click.
    const mine = f.type === "frame" && this.answered !== f.seq && this.link === "open" ? f.decisions : [];
    screen?.setAttribute("data-seq", String(f.seq));
    screen?.setAttribute("data-my-turn", mine.length > 0 ? "true" : "false");
    screen?.setAttribute("data-status", f.status);
    if (mine.length > 0) screen?.removeAttribute("data-waiting");
    const ctx: BoardCtx = {
      view: f.view,
      viewer: this.me === null ? "spectator" : this.me,
      decisions: mine,
      choose: this.pick,
      seatName: this.seatName,
      memo: this.memo,
      redraw: this.draw,
    };
    mount(this.els.board, boardFor(this.game)(ctx));
    this.drawBar(f, mine);
    this.drawActs(f, mine);
    this.drawSeats();
    this.drawResults(f);
    mount(
      this.els.leave,
      this.me !== null && f.status === "playing" && this.link === "open"
        ? [
            button("Leave table", () => void this.leave("#/"), { "data-act": "leave" }),
            " ",
            button("Resign", () => void this.resign(null), { "data-act": "resign" }),
          ]
        : null,
    );
    this.drawLog();
    this.drawRecent();
    this.drawSpeed();
    this.tick();
    this.restoreFocus();
  };

  private drawHead(f: Frame | null): void {
    mount(
      this.els.head,
      h("h2", null, `${this.game || "table"} · table ${this.o.table}`, this.me === null ? " · watching" : ` · seat ${this.me}`),
      f && f.status === "finished" ? h("p", null, h("b", null, "Game over")) : null,
      f && f.status === "finished"
        ? h("p", null, h("a", { href: `#/replay/${encodeURIComponent(this.o.table)}`, class: "replay-link" }, "Replay this game"))
        : null,
    );
  }

  /** The decisions as a numbered list (folded away where the game plays by its action bar), or a pending multi-choice. */
  private drawActs(f: Frame, mine: readonly DecisionOption[]): void {
    const list = this.choosing.length ? this.choosing : mine;
    const options = h(
      "ol",
      { class: "options" },
      list.map((opt, i) =>
        h(
          "li",
          null,
          button([i < 9 ? h("kbd", null, String(i + 1)) : null, " ", opt.label], () => this.pick([opt]), { "data-id": opt.id }),
        ),
      ),
    );
    // A game with an action bar plays by the bar and the board; its full list is there to look things up.
    const secondary = primaryFor(this.game) !== null && !this.choosing.length && list.length > 0;
    mount(
      this.els.acts,
      this.me === null
        ? null
        : [
            h("h3", null, mine.length ? (this.choosing.length ? "Choose one" : "Your move") : f.status === "finished" ? "Game over" : "Waiting for the others"),
            secondary ? h("details", { class: "all-decisions" }, h("summary", null, `Every legal decision, as a list (${list.length})`), options) : options,
            this.choosing.length ? button("back", () => ((this.choosing = []), this.draw())) : null,
          ],
    );
  }

  private drawResults(f: Frame): void {
    mount(
      this.els.results,
      f.status === "finished" && f.returns
        ? [
            resultsPanel({
              game: this.game,
              view: f.view,
              outcome: f.returns,
              me: this.me,
              seatName: this.seatName,
              rematch: this.me !== null && this.hello ? () => void this.rematch() : null,
              newTable: () => this.newTable(),
            }),
            this.invite,
          ]
        : null,
    );
  }

  /** The event log, newest first, with the seat notices placed after the decision they followed. */
  private drawLog(): void {
    const items: { key: number; el: HTMLElement }[] = [...this.events.values()].map((e) => ({ key: 2 * e.seq, el: eventLine(e) }));
    for (const n of this.notices) items.push({ key: 2 * n.afterSeq - 1, el: h("li", { class: "notice" }, "⚑ ", n.text) });
    mount(
      this.els.log,
      items
        .sort((a, b) => b.key - a.key)
        .slice(0, 200)
        .map((i) => i.el),
    );
  }

  /**
   * What happened since this seat's last decision (a spectator: the newest decisions), newest
   * first, at most RECENT of them: shown only where the log is out of sight (narrow screens).
   */
  private drawRecent(): void {
    const all = [...this.events.values()].sort((a, b) => b.seq - a.seq);
    const mine = this.me === null ? -1 : all.findIndex((e) => e.seat === this.me && e.cause === "answer");
    const since = mine < 0 ? all.slice(0, this.me === null ? 3 : all.length) : mine === 0 ? all.slice(0, 1) : all.slice(0, mine);
    const shown = since.slice(0, RECENT);
    const what = this.me === null ? "Latest" : mine === 0 ? "Your last move" : "Since your last move";
    mount(
      this.els.recent,
      shown.length
        ? [
            h("summary", null, `${what} (${since.length})`),
            h("ol", { class: "recent-log" }, shown.map(eventLine)),
            since.length > shown.length ? h("p", { class: "k" }, `and ${since.length - shown.length} earlier: see the Log below`) : null,
          ]
        : null,
    );
  }

  /** A spectator's playback speed. */
  private drawSpeed(): void {
    if (this.me !== null) return;
    mount(
      this.els.speed,
      h("span", null, "Speed: "),
      SPEEDS.map((s) =>
        button(s.label, () => ((this.speed = s.ms === null ? -1 : s.ms), this.schedule(), this.draw()), {
          "aria-pressed": (s.ms === null ? this.speed === -1 : this.speed === s.ms) ? "true" : "false",
          "data-speed": s.label,
        }),
      ),
      this.speed === -1 ? button("step ▸", () => this.step(), { "data-speed": "step" }) : null,
      this.queue.length ? h("span", { class: "k" }, ` ${this.queue.length} queued`) : null,
    );
  }

  /**
   * The action bar, always in view: who must act now (a reaction window names the reacting seat),
   * the countdown, and the passive decisions (Confirm, End turn, Pass) as buttons.
   */
  private drawBar(f: Frame, mine: readonly DecisionOption[]): void {
    const { els, game } = this;
    const headline = headlineFor(game);
    // A seat whose channel is down can decide nothing: saying "Your turn" over no buttons would puzzle.
    const down = this.me !== null && f.status !== "finished" && this.link !== "open" ? LINK_DOWN[this.link] : null;
    const who =
      f.status === "finished" ? "Game over" : down ? down : f.actor === "terminal" ? "" : headline ? headline(f.view) : `${this.seatName(f.actor)} to decide`;
    mount(els.now, who, f.status === "finished" ? "" : h("span", { class: "k" }, ` · decision ${f.seq + 1}`));
    const primary = primaryFor(game);
    mount(
      els.primary,
      primary && mine.length && !this.choosing.length
        ? primary(mine).map((p, i) =>
            button([i < 9 ? h("kbd", null, String(i + 1)) : null, " ", p.label], () => this.pick([p.option]), {
              class: "primary",
              "data-primary": (p.option.decision as { kind: string }).kind,
              "data-id": p.option.id,
            }),
          )
        : null,
    );
    els.bar.setAttribute("data-mine", mine.length ? "true" : "false");
    if (!els.bar.firstChild) mount(els.bar, els.now, els.primary, els.clock);
  }

  private drawBanner(): void {
    const { els, hello, o } = this;
    if (this.me === null) return mount(els.banner);
    if (this.link === "replaced")
      return mount(
        els.banner,
        h("p", null, h("b", null, "This seat is open in another tab or window."), " Moves are made there; nothing here can be clicked. "),
        button("Play here instead", () => this.live.reopen(), { "data-act": "reclaim" }),
      );
    // A seat this page can no longer play (its token is dead, or it was resigned): say why, then where to go.
    const gone =
      this.link === "revoked"
        ? [
            h("b", null, "This seat's link no longer opens it."),
            " The seat was given a new token: the person its invitation link was for opened it, or another person took the seat. ",
            "This browser has forgotten the old token.",
          ]
        : this.link === "resigned"
          ? [
              h("b", null, "You resigned from this seat."),
              this.frame?.status === "finished" || (this.game && concedes(this.game))
                ? ""
                : ` ${hello?.deadlines.takeover ?? "A bot"} plays it for the rest of the game.`,
            ]
          : null;
    if (gone) {
      const spectate = hello?.spectators !== false;
      return mount(
        els.banner,
        h(
          "p",
          null,
          ...gone,
          " ",
          spectate ? h("a", { href: `#/watch/${encodeURIComponent(o.table)}`, "data-act": "watch" }, "Watch the table") : null,
          spectate ? " · " : null,
          h("a", { href: "#/" }, "Lobby"),
        ),
      );
    }
    mount(els.banner);
  }

  private drawSeats(): void {
    const f = this.frame;
    if (!f) return;
    const now = Date.now() + this.offset;
    const takeover = this.hello?.deadlines.takeover ?? "a bot";
    mount(
      this.els.seats,
      f.seats.map((s) =>
        h(
          "li",
          { "data-seat": s.seat, "data-status": s.status },
          this.seatName(s.seat),
          " · ",
          s.seat === this.me && this.link !== "open" && f.status !== "finished"
            ? SEAT_LINK_DOWN[this.link]
            : s.status === "connected"
              ? "● connected"
              : s.status === "away"
                ? `○ away · ${takeover} takes over in ${secondsOf((s.takeoverAt ?? now) - now)} s`
                : s.status === "resigned"
                  ? "⚑ resigned"
                  : "⚙ bot",
          // Watching: a seat a person may take (open, left by its player, or an agent's where the table allows it).
          this.me === null && f.status === "playing" && s.joinable
            ? [" ", button(`Take seat ${s.seat}`, () => void this.take(s.seat), { "data-act": "take", "data-seat": s.seat, title: takeLabel(s) })]
            : null,
        ),
      ),
    );
  }

  /** Takes a seat from the spectator's view; a refusal (somebody was faster) is shown like any error. */
  private async take(seat: number): Promise<void> {
    try {
      await takeSeat(this.o.table, seat);
    } catch (err) {
      this.errorText = err instanceof ApiFailure ? `${err.code}: ${err.message}` : String(err);
      this.draw();
    }
  }

  private tick(): void {
    const { frame: f, game, els } = this;
    if (f?.seats.some((s) => s.status === "away")) this.drawSeats();
    const e = f?.expectation;
    if (!f || !e || f.status === "finished") {
      mount(els.clock);
      return;
    }
    const who = e.seat === this.me ? "Your" : `${this.seatName(e.seat)}'s`;
    const what =
      game === "dcg" && (f.view as { state?: { kind?: string } }).state?.kind === "Strategy" ? "strategy timer" : game === "dcg" ? "decision" : "turn";
    if (e.deadline === null) {
      mount(els.clock, `${who} ${what}: no time limit`);
      return;
    }
    const left = Math.max(0, Math.ceil((e.deadline - (Date.now() + this.offset)) / 1000));
    mount(els.clock, h("span", { class: left <= 5 ? "urgent" : "" }, `${who} ${what}: ${left} s left`), e.defaultLabel ? ` (then: ${e.defaultLabel})` : "");
  }

  private show(f: Frame): void {
    for (const ev of f.events) this.events.set(ev.seq, ev);
    this.offset = f.now - Date.now();
    const before = this.frame;
    if (before) {
      const takeover = this.hello?.deadlines.takeover ?? "a bot";
      for (const s of f.seats) {
        const was = before.seats[s.seat];
        // Your own seat changes only by your doing (you see the resign in the banner).
        const text = was && s.seat !== this.me ? this.newcomerAware(was, s, seatChange(was, s, `Seat ${s.seat}`, takeover, concedes(this.game), f.now)) : null;
        if (text) this.notices.push({ afterSeq: f.seq, text });
      }
    }
    if (!before || f.seq !== before.seq) this.choosing = [];
    this.frame = f;
    this.draw();
  }

  /** A person who joined a seat shows away until their page connects: that first connection is no return. */
  private newcomerAware(before: SeatInfo, after: SeatInfo, text: string | null): string | null {
    if (after.joins > before.joins) {
      if (after.status !== "connected") this.newcomers.add(after.seat);
      return text;
    }
    return after.status === "connected" && this.newcomers.delete(after.seat) ? null : text;
  }

  private step(): void {
    const f = this.queue.shift();
    if (f) this.show(f);
    else this.draw();
  }

  private schedule(): void {
    if (this.pump) clearTimeout(this.pump);
    this.pump = null;
    if (this.speed === 0) {
      while (this.queue.length) this.step();
      return;
    }
    if (this.speed < 0 || this.queue.length === 0) return;
    this.pump = setTimeout(() => {
      this.pump = null;
      this.step();
      this.schedule();
    }, this.speed);
  }

  private playing(): boolean {
    return this.me !== null && this.link === "open" && this.frame?.status === "playing";
  }

  /** Leaving a live seat asks first and says what follows (the grace period, then the takeover agent). */
  private async leave(target: string): Promise<void> {
    if (!this.playing()) {
      location.hash = target;
      return;
    }
    const { me, game } = this;
    const d = this.hello?.deadlines;
    const grace = secondsOf(d?.graceMs ?? 30_000);
    const who = d?.takeover ?? "random";
    const choice = await ask(
      `Leave seat ${me}?`,
      [
        h("p", null, grace > 0 ? `A bot (${who}) takes your seat in ${grace} s unless you come back.` : `A bot (${who}) takes your seat at once.`),
        ...this.timeoutBeforeTakeover(grace).map((text) => h("p", null, h("strong", null, text))),
        h("p", null, `The seat stays yours: come back from the lobby (“my seat ${me}”) and you play again from your next decision.`),
        h("p", null, `Or open the seat: ${who} plays it at once, anybody may take it from the lobby, and until somebody does you may still come back.`),
        h("p", null, concedes(game) ? "Or resign: you lose the game." : `Or resign: ${who} plays your seat for the rest of the game and you cannot come back.`),
      ],
      [
        { label: "Stay", value: "stay", safe: true },
        { label: "Leave", value: "leave" },
        { label: "Open the seat", value: "open" },
        { label: "Resign", value: "resign", danger: true },
      ],
    );
    if (choice === "leave") location.hash = target;
    else if (choice === "open") this.openSeat(target);
    else if (choice === "resign") void this.resign(target, true);
  }

  /**
   * What happens before the takeover when a deadline falls inside the grace period: the seat's
   * deadline runs while its person is away (docs/live.md), so the default decision is applied
   * first (in dcg, leaving the battle: the game is lost). Empty when nothing comes first.
   */
  private timeoutBeforeTakeover(grace: number): string[] {
    const e = this.frame?.expectation;
    const lose = concedes(this.game) ? ", and you lose the game" : "";
    if (e && e.seat === this.me && e.deadline !== null) {
      const left = secondsOf(e.deadline - (Date.now() + this.offset));
      if (left < grace)
        return [
          `But your decision's time runs out in ${left} s, before a bot can take your seat: then ${e.defaultLabel ?? "its default decision is applied"}${lose}.`,
        ];
    }
    const turn = this.hello?.deadlines.turnMs ?? null;
    if (turn !== null && secondsOf(turn) < grace) {
      return [`But a decision of yours that comes up before then runs out of time after ${secondsOf(turn)} s: then its default decision is applied${lose}.`];
    }
    return [];
  }

  /** Gives the seat up for now ({"type": "leave"}): the takeover agent plays it until its holder comes back or somebody takes it. */
  private openSeat(then: string): void {
    if (!this.live.send({ type: "leave" })) {
      this.errorText = "not connected: could not open the seat";
      this.draw();
      return;
    }
    location.hash = then;
  }

  private async resign(then: string | null, confirmed = false): Promise<void> {
    if (!this.playing()) return;
    if (!confirmed) {
      const who = this.hello?.deadlines.takeover ?? "random";
      const choice = await ask(
        `Resign from seat ${this.me}?`,
        h(
          "p",
          null,
          concedes(this.game)
            ? "You lose the game: at once if it is your decision, else at your next one. This cannot be undone."
            : `${who} plays your seat for the rest of the game, and this seat's link stops working. This cannot be undone.`,
        ),
        [
          { label: "Keep playing", value: "stay", safe: true },
          { label: "Resign", value: "resign", danger: true },
        ],
      );
      if (choice !== "resign") return;
    }
    if (!this.live.send({ type: "resign" })) {
      this.errorText = "not connected: could not resign";
      this.draw();
      return;
    }
    if (then) location.hash = then;
  }

  /** Same seats and settings, a new seed; you take the same seat, other people get links. */
  private async rematch(): Promise<void> {
    const { frame: f, hello, me, game } = this;
    if (!f || !hello || me === null) return;
    const seats = f.seats.map((s) => (s.kind === "agent" ? (s.agent ?? "random") : s.kind === "open" ? `open:${s.agent ?? "random"}` : "human"));
    const body: CreateTableBody = {
      game,
      seats,
      config: hello.config as Record<string, unknown>,
      deadlines: hello.deadlines,
      facilitator: hello.facilitator,
      spectators: hello.spectators,
    };
    try {
      const made = await api.create(body);
      for (const [seat, token] of Object.entries(made.tokens)) tokens.set(made.table, Number(seat), token);
      const people = seats.map((k, i) => (k === "human" && i !== me ? i : -1)).filter((i) => i >= 0);
      if (people.length === 0) {
        location.hash = `#/play/${made.table}/${me}`;
        return;
      }
      this.invite = invitePanel(made.table, made.tokens, people, me);
    } catch (err) {
      this.invite = h("p", { class: "err" }, err instanceof ApiFailure ? `${err.code}: ${err.message}` : String(err));
    }
    this.draw();
  }

  /** Back to the lobby's form, filled in with this table's game, seats and times. */
  private newTable(): void {
    const { frame: f, me } = this;
    const params = new URLSearchParams({ game: this.game });
    if (f) {
      const seats = f.seats.map((s) =>
        s.seat === me ? "you" : s.kind === "agent" ? (s.agent ?? "random") : s.kind === "open" ? `open:${s.agent ?? "random"}` : "person",
      );
      params.set("seats", seats.join(","));
    }
    const d = this.hello?.deadlines;
    if (d?.turnMs) params.set("turn", String(Math.round(d.turnMs / 1000)));
    if (d) params.set("delay", String(d.botDelayMs));
    location.hash = `#/?${params.toString()}`;
  }

  /** Links out of a live seat (the header's Lobby, the brand) ask first, like the Leave button. */
  private readonly onNav = (e: MouseEvent): void => {
    const a = e.target instanceof Element ? e.target.closest("a[href^='#']") : null;
    if (!a || !this.playing() || e.defaultPrevented || e.button !== 0 || e.metaKey || e.ctrlKey || e.shiftKey) return;
    const href = a.getAttribute("href") ?? "#/";
    e.preventDefault();
    void this.leave(href);
  };

  private readonly onKey = (e: KeyboardEvent): void => {
    if (e.target instanceof HTMLInputElement || e.target instanceof HTMLSelectElement || e.altKey || e.ctrlKey || e.metaKey) return;
    if (document.querySelector("dialog[open]")) return;
    const n = Number(e.key);
    const { els } = this;
    if (Number.isInteger(n) && n >= 1 && n <= 9) {
      // The keys pick what is in view: the action bar's buttons while the full list is folded away.
      const folded = els.acts.querySelector("details.all-decisions:not([open])") !== null;
      const btn = (folded ? els.primary : els.acts).querySelectorAll<HTMLButtonElement>(folded ? "button.primary" : "ol.options button")[n - 1];
      if (btn) {
        e.preventDefault();
        btn.click();
      }
    } else if (e.key === "Escape" && (this.choosing.length || this.memo.size)) {
      this.choosing = [];
      this.memo.clear();
      this.draw();
    }
  };
}
