import type { CreateTableBody, Hello, LiveEvent, SeatInfo } from "../../env/live/protocol.ts";
import { registry } from "../../engine/games.ts";
import { api, ApiFailure, tokens } from "./api.ts";
import { boardFor, headlineFor, primaryFor, type BoardCtx } from "./boards/index.ts";
import type { DecisionOption } from "./boards/common.ts";
import { ask } from "./dialog.ts";
import { button, h, mount } from "./dom.ts";
import { eventItem } from "./eventlog.ts";
import { invitePanel } from "./lobby.ts";
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

const CAUSE_WORDS: Record<LiveEvent["cause"], string> = { answer: "", agent: "bot", timeout: "time ran out: default", resign: "resigned" };

/** Whether the game has a decision that gives it up (dcg's forceFinish): then resigning loses at once. */
const concedes = (game: string): boolean => {
  const g = registry.get(game);
  return g.ok && typeof g.value.concede === "function";
};

const secondsOf = (ms: number) => Math.max(0, Math.ceil(ms / 1000));

/** What a seat's status change means, in words (pushed to every channel as a frame). */
export function seatChange(before: SeatInfo, after: SeatInfo, name: string, takeover: string, concede: boolean, now: number): string | null {
  if (before.status === after.status || after.kind === "agent") return null;
  if (before.kind === "open" && after.kind === "human") return `A person joined ${name.toLowerCase()}; they play it from now on`;
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
 * event log in words. Watching plays the frames back at a chosen speed.
 */
export function tableScreen(root: HTMLElement, o: TableScreenOptions): () => void {
  const me = o.seat;
  let game = "";
  let hello: Hello | null = null;
  let frame: Frame | null = null;
  /** Seat status changes in words, placed in the log after the decision they followed. */
  const notices: { afterSeq: number; text: string }[] = [];
  let invite: HTMLElement | null = null;
  let link: LinkState = "connecting";
  let linkDetail = "";
  let errorText = "";
  let offset = 0;
  let answered = -1;
  let choosing: readonly DecisionOption[] = [];
  let speed = me === null ? 0 : 0;
  const queue: Frame[] = [];
  let pump: ReturnType<typeof setTimeout> | null = null;
  const events = new Map<number, LiveEvent>();
  const memo = new Map<string, unknown>();

  const els = {
    head: h("div", { class: "tablehead" }),
    bar: h("div", { class: "actionbar", role: "region", "aria-label": "who acts now, and your main decisions" }),
    now: h("p", { class: "now-acting", role: "status" }),
    primary: h("div", { class: "primary-acts" }),
    banner: h("div", { class: "seat-banner", role: "alert" }),
    news: h("p", { class: "seat-news", role: "status" }),
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
  mount(
    root,
    h(
      "div",
      { class: "table-screen", "data-role": me === null ? "spectator" : "seat" },
      els.head,
      h("div", { class: "actionbar-wrap" }, els.bar),
      els.banner,
      els.news,
      els.status,
      me === null ? els.speed : null,
      els.results,
      h("div", { class: "cols" }, els.board, h("aside", null, els.acts, els.leave, h("h3", null, "Seats"), els.seats, h("h3", null, "Log"), els.log)),
    ),
  );

  const seatName = (seat: number) => (frame ? seatTitle(frame.seats, seat, me) : `Seat ${seat}`);
  const pick = (opts: readonly DecisionOption[]) => {
    if (!frame || frame.type !== "frame") return;
    if (opts.length > 1) {
      choosing = opts;
      draw();
      return;
    }
    const opt = opts[0];
    if (!opt || answered === frame.seq) return;
    if (link !== "open") return;
    refocus = true;
    answered = frame.seq;
    choosing = [];
    memo.clear();
    root.querySelector(".table-screen")?.setAttribute("data-waiting", "true");
    linkSendAnswer(frame.seq, opt.id);
    draw();
  };
  const linkSendAnswer = (seq: number, id: number) => {
    if (!live.send({ type: "answer", seq, decisionId: id })) answered = -1;
  };

  /** After a redraw that dropped the focus (the element it was on is gone), put it back in the hand. */
  let refocus = false;
  const restoreFocus = () => {
    const active = document.activeElement;
    // Only when the focus was lost (the element it was on was redrawn) or parked on the decisions
    // region: never taken from anything the person moved it to (the header, a dialog).
    if (!refocus || (active && active !== document.body && active !== els.acts)) return;
    const target =
      root.querySelector<HTMLElement>(".boardwrap button.hand-card.can") ??
      root.querySelector<HTMLElement>(".boardwrap button.can") ??
      root.querySelector<HTMLElement>(".actionbar button.primary") ??
      root.querySelector<HTMLElement>(".decisions ol.options button") ??
      (me !== null && frame?.status !== "finished" ? els.acts : null);
    target?.focus({ preventScroll: true });
  };

  // The focus moved out of this screen (the header, the address bar): leave it there.
  const onFocusIn = (e: FocusEvent) => {
    if (e.target instanceof Node && !root.contains(e.target)) refocus = false;
  };
  document.addEventListener("focusin", onFocusIn);

  const draw = () => {
    const f = frame;
    const screen = root.querySelector(".table-screen");
    const active = document.activeElement;
    if (active && active !== document.body && root.contains(active)) refocus = true;
    mount(
      els.head,
      h("h2", null, `${game || "table"} · table ${o.table}`, me === null ? " · watching" : ` · seat ${me}`),
      f && f.status === "finished" ? h("p", null, h("b", null, "Game over")) : null,
      f && f.status === "finished" ? h("p", null, h("a", { href: `#/replay/${encodeURIComponent(o.table)}`, class: "replay-link" }, "Replay this game")) : null,
    );
    mount(els.status, `connection: ${link}${linkDetail ? ` (${linkDetail})` : ""}`, errorText ? h("span", { class: "err" }, ` · ${errorText}`) : null);
    screen?.setAttribute("data-link", link);
    drawBanner();
    const latest = notices[notices.length - 1];
    mount(els.news, latest ? latest.text : "");
    if (!f) return;
    // Only a live channel may answer: a replaced or resigned seat shows the board and nothing to click.
    const mine = f.type === "frame" && answered !== f.seq && link === "open" ? f.decisions : [];
    screen?.setAttribute("data-seq", String(f.seq));
    screen?.setAttribute("data-my-turn", mine.length > 0 ? "true" : "false");
    screen?.setAttribute("data-status", f.status);
    if (mine.length > 0) screen?.removeAttribute("data-waiting");
    const ctx: BoardCtx = {
      view: f.view,
      viewer: me === null ? "spectator" : me,
      decisions: mine,
      choose: pick,
      seatName,
      memo,
      redraw: draw,
    };
    mount(els.board, boardFor(game)(ctx));
    drawBar(f, mine);
    const list = choosing.length ? choosing : mine;
    const options = h(
      "ol",
      { class: "options" },
      list.map((opt, i) =>
        h(
          "li",
          null,
          button([i < 9 ? h("kbd", null, String(i + 1)) : null, " ", opt.label], () => pick([opt]), { "data-id": opt.id }),
        ),
      ),
    );
    // A game with an action bar plays by the bar and the board; its full list is there to look things up.
    const secondary = primaryFor(game) !== null && !choosing.length && list.length > 0;
    mount(
      els.acts,
      me === null
        ? null
        : [
            h("h3", null, mine.length ? (choosing.length ? "Choose one" : "Your move") : f.status === "finished" ? "Game over" : "Waiting for the others"),
            secondary ? h("details", { class: "all-decisions" }, h("summary", null, `Every legal decision, as a list (${list.length})`), options) : options,
            choosing.length ? button("back", () => ((choosing = []), draw())) : null,
          ],
    );
    drawSeats();
    mount(
      els.results,
      f.status === "finished" && f.returns
        ? [
            resultsPanel({
              game,
              view: f.view,
              outcome: f.returns,
              me,
              seatName,
              rematch: me !== null && hello ? () => void rematch() : null,
              newTable,
            }),
            invite,
          ]
        : null,
    );
    mount(
      els.leave,
      me !== null && f.status === "playing" && link === "open"
        ? [button("Leave table", () => void leave("#/"), { "data-act": "leave" }), " ", button("Resign", () => void resign(null), { "data-act": "resign" })]
        : null,
    );
    const items: { key: number; el: HTMLElement }[] = [...events.values()].map((e) => ({ key: 2 * e.seq, el: eventLine(e) }));
    for (const n of notices) items.push({ key: 2 * n.afterSeq - 1, el: h("li", { class: "notice" }, "⚑ ", n.text) });
    mount(
      els.log,
      items
        .sort((a, b) => b.key - a.key)
        .slice(0, 200)
        .map((i) => i.el),
    );
    if (me === null) {
      mount(
        els.speed,
        h("span", null, "Speed: "),
        SPEEDS.map((s) =>
          button(s.label, () => ((speed = s.ms === null ? -1 : s.ms), schedule(), draw()), {
            "aria-pressed": (s.ms === null ? speed === -1 : speed === s.ms) ? "true" : "false",
            "data-speed": s.label,
          }),
        ),
        speed === -1 ? button("step ▸", () => step(), { "data-speed": "step" }) : null,
        queue.length ? h("span", { class: "k" }, ` ${queue.length} queued`) : null,
      );
    }
    tick();
    restoreFocus();
  };

  /**
   * The action bar, always in view: who must act now (a reaction window names the reacting seat),
   * the countdown, and the passive decisions (Confirm, End turn, Pass) as buttons.
   */
  const drawBar = (f: Frame, mine: readonly DecisionOption[]) => {
    const headline = headlineFor(game);
    const who = f.status === "finished" ? "Game over" : f.actor === "terminal" ? "" : headline ? headline(f.view) : `${seatName(f.actor)} to decide`;
    mount(els.now, who, f.status === "finished" ? "" : h("span", { class: "k" }, ` · decision ${f.seq + 1}`));
    const primary = primaryFor(game);
    mount(
      els.primary,
      primary && mine.length && !choosing.length
        ? primary(mine).map((p, i) =>
            button([i < 9 ? h("kbd", null, String(i + 1)) : null, " ", p.label], () => pick([p.option]), {
              class: "primary",
              "data-primary": (p.option.decision as { kind: string }).kind,
              "data-id": p.option.id,
            }),
          )
        : null,
    );
    els.bar.setAttribute("data-mine", mine.length ? "true" : "false");
    if (!els.bar.firstChild) mount(els.bar, els.now, els.primary, els.clock);
  };

  const drawBanner = () => {
    if (me === null) return mount(els.banner);
    if (link === "replaced")
      return mount(
        els.banner,
        h("p", null, h("b", null, "This seat is open in another tab or window."), " Moves are made there; nothing here can be clicked. "),
        button("Play here instead", () => live.reopen(), { "data-act": "reclaim" }),
      );
    if (link === "resigned") {
      const spectate = hello?.spectators !== false;
      return mount(
        els.banner,
        h(
          "p",
          null,
          h("b", null, "You resigned from this seat."),
          frame?.status === "finished" || (game && concedes(game)) ? "" : ` ${hello?.deadlines.takeover ?? "A bot"} plays it for the rest of the game.`,
          " ",
          spectate ? h("a", { href: `#/watch/${encodeURIComponent(o.table)}`, "data-act": "watch" }, "Watch the table") : null,
          spectate ? " · " : null,
          h("a", { href: "#/" }, "Lobby"),
        ),
      );
    }
    mount(els.banner);
  };

  const drawSeats = () => {
    const f = frame;
    if (!f) return;
    const now = Date.now() + offset;
    const takeover = hello?.deadlines.takeover ?? "a bot";
    mount(
      els.seats,
      f.seats.map((s) =>
        h(
          "li",
          { "data-seat": s.seat, "data-status": s.status },
          seatName(s.seat),
          " · ",
          s.status === "connected"
            ? "● connected"
            : s.status === "away"
              ? `○ away · ${takeover} takes over in ${secondsOf((s.takeoverAt ?? now) - now)} s`
              : s.status === "resigned"
                ? "⚑ resigned"
                : "⚙ bot",
        ),
      ),
    );
  };

  const tick = () => {
    if (frame?.seats.some((s) => s.status === "away")) drawSeats();
    const f = frame;
    const e = f?.expectation;
    if (!f || !e || f.status === "finished") {
      mount(els.clock);
      return;
    }
    const who = e.seat === me ? "Your" : `${seatName(e.seat)}'s`;
    const what =
      game === "dcg" && (f.view as { state?: { kind?: string } }).state?.kind === "Strategy" ? "strategy timer" : game === "dcg" ? "decision" : "turn";
    if (e.deadline === null) {
      mount(els.clock, `${who} ${what}: no time limit`);
      return;
    }
    const left = Math.max(0, Math.ceil((e.deadline - (Date.now() + offset)) / 1000));
    mount(els.clock, h("span", { class: left <= 5 ? "urgent" : "" }, `${who} ${what}: ${left} s left`), e.defaultLabel ? ` (then: ${e.defaultLabel})` : "");
  };
  const ticker = setInterval(tick, 500);

  const show = (f: Frame) => {
    for (const ev of f.events) events.set(ev.seq, ev);
    offset = f.now - Date.now();
    if (frame) {
      const takeover = hello?.deadlines.takeover ?? "a bot";
      for (const s of f.seats) {
        const before = frame.seats[s.seat];
        // Your own seat changes only by your doing (you see the resign in the banner).
        const text = before && s.seat !== me ? seatChange(before, s, `Seat ${s.seat}`, takeover, concedes(game), f.now) : null;
        if (text) notices.push({ afterSeq: f.seq, text });
      }
    }
    if (!frame || f.seq !== frame.seq) choosing = [];
    frame = f;
    draw();
  };
  const step = () => {
    const f = queue.shift();
    if (f) show(f);
    else draw();
  };
  const schedule = () => {
    if (pump) clearTimeout(pump);
    pump = null;
    if (speed === 0) {
      while (queue.length) step();
      return;
    }
    if (speed < 0 || queue.length === 0) return;
    pump = setTimeout(() => {
      pump = null;
      step();
      schedule();
    }, speed);
  };

  const path = me === null ? `/v1/tables/${encodeURIComponent(o.table)}/spectate` : `/v1/tables/${encodeURIComponent(o.table)}/seats/${me}/ws`;
  const live = new LiveLink(
    path,
    o.token ? { token: o.token } : {},
    {
      hello: (m) => {
        hello = m;
        game = m.game;
        document.title = `cardgym · ${m.game} · ${o.table}`;
      },
      frame: (f) => {
        errorText = "";
        if (me === null) {
          queue.push(f);
          if (!pump) schedule();
          if (speed !== 0) draw();
        } else {
          show(f);
        }
      },
      error: (m) => {
        errorText = m.error.message;
        if (m.error.code === "stale_answer" || m.error.code === "not_your_turn") answered = -1;
        draw();
      },
      state: (s, detail) => {
        link = s;
        linkDetail = detail;
        if (s === "open") answered = -1;
        draw();
      },
    },
    0,
  );

  const live_ = () => me !== null && link === "open" && frame?.status === "playing";

  /** Leaving a live seat asks first and says what follows (the grace period, then the takeover agent). */
  const leave = async (target: string) => {
    if (!live_()) {
      location.hash = target;
      return;
    }
    const d = hello?.deadlines;
    const grace = secondsOf(d?.graceMs ?? 30_000);
    const who = d?.takeover ?? "random";
    const choice = await ask(
      `Leave seat ${me}?`,
      [
        h("p", null, grace > 0 ? `A bot (${who}) takes your seat in ${grace} s unless you come back.` : `A bot (${who}) takes your seat at once.`),
        h("p", null, `The seat stays yours: come back from the lobby (“my seat ${me}”) and you play again from your next decision.`),
        h("p", null, concedes(game) ? "Or resign: you lose the game." : `Or resign: ${who} plays your seat for the rest of the game and you cannot come back.`),
      ],
      [
        { label: "Stay", value: "stay", safe: true },
        { label: "Leave", value: "leave" },
        { label: "Resign", value: "resign", danger: true },
      ],
    );
    if (choice === "leave") location.hash = target;
    else if (choice === "resign") void resign(target, true);
  };

  const resign = async (then: string | null, confirmed = false) => {
    if (!live_()) return;
    if (!confirmed) {
      const who = hello?.deadlines.takeover ?? "random";
      const choice = await ask(
        `Resign from seat ${me}?`,
        h(
          "p",
          null,
          concedes(game)
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
    if (!live.send({ type: "resign" })) {
      errorText = "not connected: could not resign";
      draw();
      return;
    }
    if (then) location.hash = then;
  };

  /** Same seats and settings, a new seed; you take the same seat, other people get links. */
  const rematch = async () => {
    const f = frame;
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
      invite = invitePanel(made.table, made.tokens, people, me);
    } catch (err) {
      invite = h("p", { class: "err" }, err instanceof ApiFailure ? `${err.code}: ${err.message}` : String(err));
    }
    draw();
  };

  /** Back to the lobby's form, filled in with this table's game, seats and times. */
  const newTable = () => {
    const f = frame;
    const params = new URLSearchParams({ game });
    if (f) {
      const seats = f.seats.map((s) =>
        s.seat === me ? "you" : s.kind === "agent" ? (s.agent ?? "random") : s.kind === "open" ? `open:${s.agent ?? "random"}` : "person",
      );
      params.set("seats", seats.join(","));
    }
    const d = hello?.deadlines;
    if (d?.turnMs) params.set("turn", String(Math.round(d.turnMs / 1000)));
    if (d) params.set("delay", String(d.botDelayMs));
    location.hash = `#/?${params.toString()}`;
  };

  /** Links out of a live seat (the header's Lobby, the brand) ask first, like the Leave button. */
  const onNav = (e: MouseEvent) => {
    const a = e.target instanceof Element ? e.target.closest("a[href^='#']") : null;
    if (!a || !live_() || e.defaultPrevented || e.button !== 0 || e.metaKey || e.ctrlKey || e.shiftKey) return;
    const href = a.getAttribute("href") ?? "#/";
    e.preventDefault();
    void leave(href);
  };
  document.addEventListener("click", onNav, true);

  const onKey = (e: KeyboardEvent) => {
    if (e.target instanceof HTMLInputElement || e.target instanceof HTMLSelectElement || e.altKey || e.ctrlKey || e.metaKey) return;
    if (document.querySelector("dialog[open]")) return;
    const n = Number(e.key);
    if (Number.isInteger(n) && n >= 1 && n <= 9) {
      // The keys pick what is in view: the action bar's buttons while the full list is folded away.
      const folded = els.acts.querySelector("details.all-decisions:not([open])") !== null;
      const btn = (folded ? els.primary : els.acts).querySelectorAll<HTMLButtonElement>(folded ? "button.primary" : "ol.options button")[n - 1];
      if (btn) {
        e.preventDefault();
        btn.click();
      }
    } else if (e.key === "Escape" && (choosing.length || memo.size)) {
      choosing = [];
      memo.clear();
      draw();
    }
  };
  document.addEventListener("keydown", onKey);
  draw();
  return () => {
    live.close();
    clearInterval(ticker);
    if (pump) clearTimeout(pump);
    document.removeEventListener("keydown", onKey);
    document.removeEventListener("click", onNav, true);
    document.removeEventListener("focusin", onFocusIn);
  };
}
