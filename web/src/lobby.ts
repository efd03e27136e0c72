import type { CreateTableBody, SeatInfo, TableSummary } from "../../env/live/protocol.ts";
import { api, ApiFailure, seatLink, takeSeat, tokens, type GameInfo } from "./api.ts";
import { button, h, mount } from "./dom.ts";

type SeatChoice = "you" | "person" | "open" | "agent";
const AGENTS = [
  "random",
  "computer",
  "sandbag",
  "tutorial",
  "mcts:iters=200",
  "onnx:builtin/dcg-ppo-v3",
  "onnx:builtin/dcg-ppo-v2",
  "onnx:builtin/dcg-exit-v2",
  "onnx:builtin/dcg-ppo-v1",
  "onnx:path=my-model.onnx",
];

/**
 * What a new table's seat links look like: one link per person to invite (it holds their seat's
 * secret), and a way to your own seat (or to watch). Used by the lobby and by Rematch.
 */
export function invitePanel(table: string, tokensBySeat: Record<string, string>, people: readonly number[], mine: number | null): HTMLElement {
  return h(
    "div",
    { class: "made", "data-table": table },
    h(
      "p",
      null,
      `Table ${table} created. Send each person their link (it holds their seat's secret; opening it makes the seat the opener's, so do not open it yourself):`,
    ),
    h(
      "ul",
      null,
      people.map((seat) =>
        h(
          "li",
          null,
          h("label", { for: `link-${seat}` }, `Seat ${seat}: `),
          h("input", {
            id: `link-${seat}`,
            readonly: true,
            value: seatLink(table, seat, tokensBySeat[String(seat)] ?? ""),
            class: "link",
            "data-seat-link": seat,
          }),
        ),
      ),
    ),
    mine !== null
      ? h("p", null, h("a", { href: `#/play/${table}/${mine}`, class: "btn primary" }, "Go to your seat"))
      : h("p", null, h("a", { href: `#/watch/${table}` }, "Watch this table")),
  );
}

/** The lobby form's starting values, from `#/?game=G&seats=you,person,open:random,computer&turn=S&delay=MS` (New table after a game). */
export interface LobbyPrefill {
  readonly game: string | null;
  readonly seats: readonly string[];
  readonly turn: number | null;
  readonly delay: number | null;
}

export function prefillOf(params: URLSearchParams): LobbyPrefill {
  const int = (k: string) => {
    const t = params.get(k);
    const n = t === null || t === "" ? NaN : Number(t);
    return Number.isInteger(n) && n >= 0 ? n : null;
  };
  const seats = (params.get("seats") ?? "")
    .split(",")
    .filter((x) => x.length > 0 && x.length <= 512)
    .slice(0, 8);
  return { game: params.get("game"), seats, turn: int("turn"), delay: int("delay") };
}

type SeatRow = { kind: SeatChoice; agent: string };

const SEAT_CHOICES: Record<SeatChoice, string> = {
  you: "you (this browser)",
  person: "a person (send a link)",
  open: "open (anyone may join; a bot plays until then)",
  agent: "agent",
};

function seatFromSpec(spec: string): SeatRow {
  if (spec === "you" || spec === "person") return { kind: spec, agent: "computer" };
  if (spec === "open") return { kind: "open", agent: "random" };
  if (spec.startsWith("open:")) return { kind: "open", agent: spec.slice(5) };
  return { kind: "agent", agent: spec };
}

/** A seat's agent spec as the create request wants it ("human" for a person, "open:spec" for an open seat). */
function seatSpec(s: SeatRow): string {
  if (s.kind === "you" || s.kind === "person") return "human";
  if (s.kind === "open") return s.agent.trim() ? `open:${s.agent.trim()}` : "open";
  return s.agent.trim() || "random";
}

const errorLine = (err: unknown): HTMLElement => h("p", { class: "err" }, err instanceof ApiFailure ? `${err.code}: ${err.message}` : String(err));

/** One seat's row of the form: who sits there, and the agent spec for a bot or an open seat. */
function seatRow(s: SeatRow, i: number, redraw: () => void): HTMLElement {
  return h(
    "div",
    { class: "seatrow" },
    h("label", { for: `seat-${i}` }, `Seat ${i}`),
    h(
      "select",
      { id: `seat-${i}`, name: `seat-${i}`, onchange: (e) => ((s.kind = (e.target as HTMLSelectElement).value as SeatChoice), redraw()) },
      (["you", "person", "open", "agent"] as const).map((k) => h("option", { value: k, selected: s.kind === k }, SEAT_CHOICES[k])),
    ),
    s.kind === "agent" || s.kind === "open"
      ? h("input", {
          "aria-label": `seat ${i} agent spec`,
          name: `agent-${i}`,
          list: "agent-specs",
          value: s.agent,
          oninput: (e) => (s.agent = (e.target as HTMLInputElement).value),
        })
      : null,
  );
}

/**
 * The button that takes a seat a person may join (the server says which: SeatInfo.joinable): an
 * open seat nobody holds, a seat its holder left, or an agent's seat where the table allows it.
 */
export function takeLabel(s: SeatInfo): string {
  if (s.kind === "open" && !s.held) return `join seat ${s.seat}`;
  if (s.kind === "human") return `take seat ${s.seat} (its player left)`;
  return `take seat ${s.seat} from ${s.agent ?? "the bot"}`;
}

/** The tables the server holds, newest first, with the links this browser may use on each. */
function tablesTable(tables: readonly TableSummary[], join: (t: TableSummary, seat: number) => void): HTMLElement {
  if (tables.length === 0) return h("p", null, h("em", null, "No tables yet."));
  const rows = [...tables]
    .sort((a, b) => b.createdAt - a.createdAt)
    .slice(0, 50)
    .map((t) => {
      // A resigned seat's token no longer plays it: no "my seat" link for it.
      const mySeats = t.seats.filter((s) => s.status !== "resigned" && tokens.get(t.table, s.seat) !== null);
      return h(
        "tr",
        { "data-table": t.table },
        h("td", null, h("code", null, t.table)),
        h("td", null, t.game),
        h("td", null, t.status === "finished" ? "finished" : `playing · move ${t.seq + 1}`),
        h("td", null, t.seats.map((s) => `${s.seat}: ${s.kind === "agent" ? s.agent : s.kind}${s.kind !== "agent" ? ` (${s.status})` : ""}`).join(", ")),
        h(
          "td",
          { class: "acts" },
          t.status === "playing" ? mySeats.map((s) => h("a", { href: `#/play/${t.table}/${s.seat}`, class: "btn" }, `my seat ${s.seat}`)) : null,
          t.status === "playing"
            ? t.seats
                .filter((s) => s.joinable && tokens.get(t.table, s.seat) === null)
                .map((s) => button(takeLabel(s), () => join(t, s.seat), { "data-act": "take", "data-seat": s.seat }))
            : null,
          t.spectators ? h("a", { href: `#/watch/${t.table}`, class: "btn" }, "watch") : null,
          t.status === "finished" ? h("a", { href: `#/replay/${t.table}`, class: "btn" }, "replay") : null,
        ),
      );
    });
  const head = h(
    "thead",
    null,
    h(
      "tr",
      null,
      ["table", "game", "status", "seats", ""].map((x) => h("th", null, x)),
    ),
  );
  return h("table", null, head, h("tbody", null, rows));
}

/** The lobby's create form: the game, its seats, the times and the seed, kept across redraws. */
class CreateForm {
  game = "sevens";
  seats: SeatRow[] = [];
  games: GameInfo[] = [];
  private turnValue: string;
  private delayValue: string;

  constructor(
    readonly form: HTMLElement,
    prefill: LobbyPrefill | null,
  ) {
    this.turnValue = prefill?.turn ? String(prefill.turn) : "";
    this.delayValue = String(prefill?.delay ?? 300);
  }

  resetSeats(): void {
    const g = this.games.find((x) => x.id === this.game);
    const n = g ? g.defaultSeats : 2;
    const agent = this.game === "dcg" ? "onnx:builtin/dcg-ppo-v3" : "computer";
    this.seats = Array.from({ length: n }, (_, i) => ({ kind: i === 0 ? "you" : "agent", agent }));
  }

  readonly draw = (): void => {
    const g = this.games.find((x) => x.id === this.game);
    mount(
      this.form,
      h(
        "datalist",
        { id: "agent-specs" },
        AGENTS.map((a) => h("option", { value: a })),
      ),
      this.gameRow(g),
      this.seats.map((s, i) => seatRow(s, i, this.draw)),
      this.timesRow(),
      h("button", { type: "submit", class: "primary" }, "Create table"),
    );
  };

  private gameRow(g: GameInfo | undefined): HTMLElement {
    return h(
      "div",
      { class: "row" },
      h("label", { for: "game" }, "Game "),
      h(
        "select",
        { id: "game", name: "game", onchange: (e) => ((this.game = (e.target as HTMLSelectElement).value), this.resetSeats(), this.draw()) },
        this.games.map((x) => h("option", { value: x.id, selected: x.id === this.game }, `${x.title} (${x.id})`)),
      ),
      g && g.maxSeats > g.minSeats
        ? [
            h("label", { for: "nseats" }, " seats "),
            h("input", {
              id: "nseats",
              type: "number",
              min: g.minSeats,
              max: g.maxSeats,
              value: this.seats.length,
              onchange: (e) => {
                const n = Math.max(g.minSeats, Math.min(g.maxSeats, Number((e.target as HTMLInputElement).value) || g.defaultSeats));
                while (this.seats.length < n) this.seats.push({ kind: "agent", agent: "computer" });
                this.seats.length = n;
                this.draw();
              },
            }),
          ]
        : null,
    );
  }

  private timesRow(): HTMLElement {
    return h(
      "div",
      { class: "row" },
      h("label", { for: "turn" }, "Turn time (s, empty: none) "),
      h("input", {
        id: "turn",
        name: "turn",
        type: "number",
        min: 1,
        max: 3600,
        inputmode: "numeric",
        value: this.turnValue,
        oninput: (e) => (this.turnValue = (e.target as HTMLInputElement).value),
      }),
      h("label", { for: "delay" }, " bot delay (ms) "),
      h("input", {
        id: "delay",
        name: "delay",
        type: "number",
        min: 0,
        max: 60000,
        value: this.delayValue,
        oninput: (e) => (this.delayValue = (e.target as HTMLInputElement).value),
      }),
      h("label", { for: "seed" }, " seed "),
      h("input", { id: "seed", name: "seed", type: "number", min: 0, placeholder: "random" }),
    );
  }

  private num(id: string): number | null {
    const el = this.form.querySelector<HTMLInputElement>(`#${id}`);
    if (!el || el.value.trim() === "") return null;
    const n = Number(el.value);
    return Number.isInteger(n) && n >= 0 ? n : null;
  }

  /** The create request the form describes. */
  body(): CreateTableBody {
    const turn = this.num("turn");
    const body: CreateTableBody = {
      game: this.game,
      seats: this.seats.map(seatSpec),
      deadlines: { botDelayMs: Math.min(60000, this.num("delay") ?? 0), ...(turn ? { turnMs: turn * 1000 } : {}) },
    };
    const seed = this.num("seed");
    if (seed !== null) body.seed = seed;
    if (this.seats.every((s) => s.kind === "agent")) body.facilitator = "audience";
    return body;
  }

  /** Starts on the prefilled game and seats when they fit a known game. */
  start(games: GameInfo[], prefill: LobbyPrefill | null): void {
    this.games = games;
    if (prefill?.game && games.some((g) => g.id === prefill.game)) this.game = prefill.game;
    if (!games.some((g) => g.id === this.game)) this.game = games[0]?.id ?? "sevens";
    this.resetSeats();
    const g = games.find((x) => x.id === this.game);
    if (prefill && g && prefill.seats.length >= g.minSeats && prefill.seats.length <= g.maxSeats) this.seats = prefill.seats.map(seatFromSpec);
    this.draw();
  }
}

/**
 * The lobby: create a table (a game, who sits at each seat: you, a person you send a link to, an
 * open seat anybody may join, or any agent spec), list the server's tables, join an open seat,
 * watch, replay a finished game.
 */
export function lobbyScreen(root: HTMLElement, prefill: LobbyPrefill | null = null): () => void {
  const form = new CreateForm(h("form", { class: "create", "aria-label": "create a table" }), prefill);
  const list = h("div", { class: "tables" });
  const note = h("div", { class: "note", role: "status" });
  mount(
    root,
    h(
      "div",
      { class: "lobby" },
      h("h2", null, "New table"),
      form.form,
      note,
      h("h2", null, "Tables"),
      list,
      h("p", null, "Or ", h("a", { href: "#/replay" }, "replay a GameRecord file"), "."),
    ),
  );

  const create = async () => {
    const { seats } = form;
    try {
      const made = await api.create(form.body());
      for (const [seat, token] of Object.entries(made.tokens)) tokens.set(made.table, Number(seat), token);
      const mine = seats.findIndex((s) => s.kind === "you");
      const people = seats.map((s, i) => (s.kind === "person" ? i : -1)).filter((i) => i >= 0);
      if (people.length === 0) {
        location.hash = mine >= 0 ? `#/play/${made.table}/${mine}` : `#/watch/${made.table}`;
        return;
      }
      mount(note, invitePanel(made.table, made.tokens, people, mine >= 0 ? mine : null));
      void refresh();
    } catch (err) {
      mount(note, errorLine(err));
    }
  };
  form.form.addEventListener("submit", (e) => {
    e.preventDefault();
    void create();
  });

  const join = async (t: TableSummary, seat: number) => {
    try {
      await takeSeat(t.table, seat);
    } catch (err) {
      mount(note, errorLine(err));
    }
  };
  const refresh = async () => {
    try {
      mount(
        list,
        tablesTable(await api.tables(), (t, seat) => void join(t, seat)),
      );
    } catch (err) {
      mount(list, h("p", { class: "err" }, String(err)));
    }
  };
  const timer = setInterval(() => void refresh(), 3000);
  void (async () => {
    let games: GameInfo[];
    try {
      games = await api.games();
    } catch (err) {
      mount(form.form, h("p", { class: "err" }, `cannot reach the server: ${String(err)}`));
      return;
    }
    form.start(games, prefill);
    await refresh();
    root.querySelector(".lobby")?.setAttribute("data-ready", "true");
  })();
  return () => clearInterval(timer);
}
