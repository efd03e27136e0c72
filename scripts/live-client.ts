/**
 * The terminal table client (docs/live.md, "Clients"): plays one seat of a live table over its
 * WebSocket, showing numbered legal decisions and the board after each move. Used by
 * `npm run play -- <game> --agents human,...` (a table on an in-process server) and by
 * `npm run play -- --connect URL --table ID --seat N --token T` (a remote table).
 */
import { createInterface } from "node:readline";
import WebSocket from "ws";
import { Rng, type AnyGame } from "../engine/core/index.ts";
import { registry } from "../engine/games.ts";
import { dcg, type DcgView } from "../engine/dcg/index.ts";
import { whoActs } from "../engine/dcg/render.ts";
import { cardInfo, dcgMenu, dcgMenuText, readCell, readMenuLine, type MenuAnswer, type MenuEntry, type MenuOption } from "./dcg-menu.ts";
import type { LiveEvent } from "../env/live/protocol.ts";

/**
 * Lines from stdin, handed out one per question (works with a terminal and with piped input).
 * Lines read ahead of the questions are held up to MAX_AHEAD, then the input is paused until half
 * of them are used: endless input (`yes 1 | npm run play -- ...`) cannot fill the heap.
 */
export class LineSource {
  static readonly MAX_AHEAD = 1000;
  private readonly lines: string[] = [];
  private readonly waiting: ((line: string | null) => void)[] = [];
  private ended = false;
  private paused = false;
  private readonly rl;

  constructor(input: NodeJS.ReadableStream = process.stdin) {
    this.rl = createInterface({ input, terminal: false });
    this.rl.on("line", (l) => {
      const w = this.waiting.shift();
      if (w) w(l);
      else this.lines.push(l);
      if (!this.paused && this.lines.length >= LineSource.MAX_AHEAD) {
        this.paused = true;
        this.rl.pause();
      }
    });
    this.rl.on("close", () => {
      this.ended = true;
      for (const w of this.waiting.splice(0)) w(null);
    });
  }

  /** Lines read and not yet handed out. */
  get ahead(): number {
    return this.lines.length;
  }

  next(): Promise<string | null> {
    const l = this.lines.shift();
    if (this.paused && this.lines.length <= LineSource.MAX_AHEAD / 2) {
      this.paused = false;
      this.rl.resume();
    }
    if (l !== undefined) return Promise.resolve(l);
    if (this.ended) return Promise.resolve(null);
    return new Promise((resolve) => this.waiting.push(resolve));
  }

  close(): void {
    this.rl.close();
  }
}

/**
 * The board as this viewer may see it: the game's own picture of a state sampled from the view,
 * with what the viewer cannot know (other hands, face-down cards) blanked out again.
 */
export function boardText(game: AnyGame, view: unknown, seat: number | null): string {
  if (seat === null) return "";
  let text: string;
  try {
    text = game.render(game.determinize(view, seat, Rng.seeded(1)));
  } catch {
    return JSON.stringify(view);
  }
  switch (game.info.id) {
    case "dcg": {
      const mine = seat === 0 ? "Host" : "Guest";
      return text
        .split("\n")
        .map((l) => (/^(Host|Guest) hand:/.test(l) && !l.startsWith(`${mine} hand:`) ? `${l.split(":")[0]}: (hidden)` : l))
        .join("\n");
    }
    case "blackpoker": {
      let section = -1;
      return text
        .split("\n")
        .map((l) => {
          const m = /^seat (\d+):/.exec(l);
          if (m) section = Number(m[1]);
          else if (!l.startsWith("  ")) section = -1;
          if (section < 0 || section === seat) return l;
          return l.replace(/hand\((\d+)\)[^\n]*/, "hand($1) (hidden)").replace(/bulwark\[[^\]]*\]/g, "bulwark[?]");
        })
        .join("\n");
    }
    default:
      return text;
  }
}

/**
 * One applied decision as this channel received it, in lines: the decision as this viewer may
 * read it, then what it did (the projected events the server sent; nothing else is shown).
 */
export function eventLines(e: LiveEvent): string[] {
  const head = `#${String(e.seq + 1).padStart(4)}  seat ${e.seat}: ${e.label}${e.cause === "timeout" ? " (time ran out: default applied)" : ""}`;
  const rest = e.events[0]?.kind === "decision" ? e.events.slice(1) : e.events;
  return [head, ...rest.map((x) => `         ${x.text}`)];
}

export interface SeatClientOptions {
  readonly url: string;
  readonly lines: LineSource;
  readonly out?: (line: string) => void;
  /** Prefix for prompts when several seats share one terminal. */
  readonly name?: string;
}

export interface SeatClientResult {
  readonly returns: number[] | null;
  readonly seq: number;
}

/** Plays a seat until the game ends (or the connection drops); resolves with the final returns. */
export function playSeat(o: SeatClientOptions): Promise<SeatClientResult> {
  const out = o.out ?? ((l: string) => console.log(l));
  return new Promise((resolve, reject) => {
    const socket = new WebSocket(o.url);
    let game: AnyGame | null = null;
    let seat: number | null = null;
    let asking = -1;
    let last: { seq: number; returns: number[] | null } = { seq: 0, returns: null };
    socket.on("error", (e) => reject(new Error(`cannot connect to ${o.url.split("?")[0]}: ${e.message}`)));
    socket.on("close", () => resolve({ returns: last.returns, seq: last.seq }));
    socket.on("message", (data) => {
      const m = JSON.parse(String(data));
      if (m.type === "hello") {
        const found = registry.get(m.game);
        game = found.ok ? found.value : null;
        seat = m.seat;
        out(`table ${m.table}: ${m.game} v${m.gameVersion} (${m.facilitator}), you are ${m.role === "seat" ? `seat ${m.seat}` : "a spectator"}`);
        return;
      }
      if (m.type === "error") {
        out(`server: ${m.error.code}: ${m.error.message}`);
        return;
      }
      if (m.type !== "frame" && m.type !== "spectate") return;
      last = { seq: m.seq, returns: m.returns };
      for (const e of m.events as LiveEvent[]) for (const line of eventLines(e)) out(line);
      if (m.events.length > 0 || m.status === "finished" || m.decisions?.length > 0) {
        if (game) out(boardText(game, m.view, seat));
        // dcg: who must act now (a reaction window is the other seat's, not the turn player's).
        if (game?.info.id === "dcg" && !(m.decisions?.length > 0)) out(`>> ${whoActs(m.view as DcgView, dcg.poolFor((m.view as DcgView).cfg))}`);
      }
      if (m.status === "finished") {
        out(`game over after ${m.seq} decisions: ${m.returns.map((r: number, i: number) => `seat ${i}: ${r > 0 ? "+" : ""}${r}`).join(", ")}`);
        socket.close();
        return;
      }
      if (m.decisions?.length > 0 && asking !== m.seq) {
        asking = m.seq;
        void ask(m);
      }
    });

    const ask = async (f: { seq: number; view: unknown; decisions: MenuOption[]; expectation: { deadline: number | null } | null }) => {
      const left = f.expectation?.deadline ? ` (${Math.max(0, Math.round((f.expectation.deadline - Date.now()) / 1000))} s left)` : "";
      out(`${o.name ?? "you"}: your decision${left}:`);
      if (game?.info.id === "dcg") return askMenu(f.seq, f.view as DcgView, f.decisions);
      f.decisions.forEach((d, i) => out(`  ${String(i + 1).padStart(3)}. ${d.label}`));
      for (;;) {
        out(`choose 1-${f.decisions.length}:`);
        const line = await o.lines.next();
        if (line === null) {
          out("input ended; leaving the seat (an agent plays it)");
          socket.send(JSON.stringify({ type: "leave" }));
          return;
        }
        const n = Number(line.trim());
        if (Number.isInteger(n) && n >= 1 && n <= f.decisions.length) {
          socket.send(JSON.stringify({ type: "answer", seq: f.seq, decisionId: f.decisions[n - 1]!.id }));
          return;
        }
        out(`"${line.trim()}" is not a number from 1 to ${f.decisions.length}`);
      }
    };

    /** dcg: the grouped menu (dcg-menu.ts): primary decisions first, a card's cells on one line. */
    const askMenu = async (seq: number, view: DcgView, options: MenuOption[]) => {
      const entries = dcgMenu(view, options);
      for (const l of dcgMenuText(view, entries)) out(l);
      let pending: MenuEntry | null = null;
      for (;;) {
        out(pending ? "cell:" : `choose 1-${entries.length}:`);
        const line = await o.lines.next();
        if (line === null) {
          out("input ended; leaving the seat (an agent plays it)");
          socket.send(JSON.stringify({ type: "leave" }));
          return;
        }
        if (pending && line.trim().toLowerCase() === "back") {
          pending = null;
          continue;
        }
        const a: MenuAnswer = pending ? readCell(pending, line) : readMenuLine(entries, line);
        if (a.kind === "answer") {
          socket.send(JSON.stringify({ type: "answer", seq, decisionId: a.option.id }));
          return;
        }
        if (a.kind === "info") for (const l of cardInfo(view)) out(l);
        else if (a.kind === "cell") {
          pending = a.entry;
          out(a.prompt);
        } else out(a.message);
      }
    };
  });
}
