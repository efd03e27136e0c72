import type { LiveEvent, SeatInfo } from "../../env/live/protocol.ts";
import { boardFor, type BoardCtx } from "./boards/index.ts";
import type { DecisionOption } from "./boards/common.ts";
import { button, h, mount } from "./dom.ts";
import { LiveLink, type Frame, type LinkState } from "./live.ts";

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
  if (s.status === "bot") return `Seat ${seat} · ${s.agent ?? "bot"} (standing in)`;
  return `Seat ${seat} · person`;
}

export function eventLine(e: LiveEvent): HTMLElement {
  return h(
    "li",
    { "data-seq": e.seq },
    h("span", { class: "seq" }, `${e.seq + 1}.`),
    " ",
    e.label,
    e.cause === "answer" ? "" : h("span", { class: "cause" }, ` (${e.cause === "timeout" ? "time ran out: default" : "bot"})`),
  );
}

/**
 * Play (a seat, with its token) or Watch (a spectator): the board from the channel's view, the
 * legal decisions as clicks on the board and as a labelled list, the deadline as a countdown, the
 * event log in words. Watching plays the frames back at a chosen speed.
 */
export function tableScreen(root: HTMLElement, o: TableScreenOptions): () => void {
  const me = o.seat;
  let game = "";
  let frame: Frame | null = null;
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
    status: h("p", { class: "linkstate", role: "status" }),
    clock: h("p", { class: "deadline", "aria-live": "off" }),
    board: h("div", { class: "boardwrap" }),
    acts: h("div", { class: "decisions", "aria-label": "your decisions" }),
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
      els.status,
      me === null ? els.speed : null,
      els.clock,
      h("div", { class: "cols" }, els.board, h("aside", null, els.acts, h("h3", null, "Seats"), els.seats, h("h3", null, "Log"), els.log)),
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

  const draw = () => {
    const f = frame;
    const screen = root.querySelector(".table-screen");
    mount(
      els.head,
      h("h2", null, `${game || "table"} · table ${o.table}`, me === null ? " · watching" : ` · seat ${me}`),
      f
        ? h(
            "p",
            null,
            f.status === "finished"
              ? h("b", { class: "result", "data-finished": "true" }, resultText(f, seatName))
              : f.actor === "terminal"
                ? ""
                : `${seatName(f.actor)} to decide · decision ${f.seq + 1}`,
          )
        : null,
      f && f.status === "finished" ? h("p", null, h("a", { href: `#/replay/${encodeURIComponent(o.table)}`, class: "replay-link" }, "Replay this game")) : null,
    );
    mount(els.status, `connection: ${link}${linkDetail ? ` (${linkDetail})` : ""}`, errorText ? h("span", { class: "err" }, ` · ${errorText}`) : null);
    screen?.setAttribute("data-link", link);
    if (!f) return;
    const mine = f.type === "frame" && answered !== f.seq ? f.decisions : [];
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
    const list = choosing.length ? choosing : mine;
    mount(
      els.acts,
      me === null
        ? null
        : [
            h("h3", null, mine.length ? (choosing.length ? "Choose one" : "Your move") : f.status === "finished" ? "Game over" : "Waiting for the others"),
            h(
              "ol",
              { class: "options" },
              list.map((opt, i) =>
                h(
                  "li",
                  null,
                  button([i < 9 ? h("kbd", null, String(i + 1)) : null, " ", opt.label], () => pick([opt]), { "data-id": opt.id }),
                ),
              ),
            ),
            choosing.length ? button("back", () => ((choosing = []), draw())) : null,
          ],
    );
    mount(
      els.seats,
      f.seats.map((s) =>
        h(
          "li",
          { "data-seat": s.seat },
          seatName(s.seat),
          " · ",
          s.status === "connected" ? "● connected" : s.status === "away" ? "○ away" : "⚙ bot",
          f.returns ? ` · return ${f.returns[s.seat]}` : "",
        ),
      ),
    );
    const sorted = [...events.values()].sort((a, b) => b.seq - a.seq).slice(0, 200);
    mount(els.log, sorted.map(eventLine));
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
  };

  const tick = () => {
    const f = frame;
    const e = f?.expectation;
    if (!f || !e || f.status === "finished") {
      mount(els.clock);
      return;
    }
    const who = e.seat === me ? "Your" : `${seatName(e.seat)}'s`;
    const what = game === "dcg" && (f.view as { state?: { kind?: string } }).state?.kind === "Strategy" ? "strategy timer" : "turn";
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

  const onKey = (e: KeyboardEvent) => {
    if (e.target instanceof HTMLInputElement || e.target instanceof HTMLSelectElement || e.altKey || e.ctrlKey || e.metaKey) return;
    const n = Number(e.key);
    if (Number.isInteger(n) && n >= 1 && n <= 9) {
      const btn = els.acts.querySelectorAll<HTMLButtonElement>("ol.options button")[n - 1];
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
  };
}

function resultText(f: Frame, seatName: (s: number) => string): string {
  const r = f.returns ?? [];
  if (r.length === 1) return `Game over: ${(r[0] ?? 0) > 0 ? "won" : "lost"} · return ${r[0]}`;
  const best = Math.max(...r);
  const winners = r.map((x, i) => (x === best ? i : -1)).filter((i) => i >= 0);
  if (r.length > 1 && winners.length === r.length) return "Game over: a draw";
  return `Game over: ${winners.map(seatName).join(" and ")} ${winners.length > 1 ? "win" : "wins"} · returns ${r.map((x) => (Math.round(x * 100) / 100).toString()).join(" / ")}`;
}
