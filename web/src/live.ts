import type { Ack, ErrorMessage, Hello, SeatFrame, SpectatorFrame } from "../../env/live/protocol.ts";

export type Frame = SeatFrame | SpectatorFrame;
export type ServerMessage = Hello | SeatFrame | SpectatorFrame | Ack | ErrorMessage;
/**
 * replaced: another tab or window opened this seat with its token (close code 4000); resigned: the
 * seat was resigned (4002); revoked: the token this page holds no longer opens the seat (4001: the
 * seat was re-keyed, by the person its invitation link was for, or taken by another person).
 * None of them reconnects by itself.
 */
export type LinkState = "connecting" | "open" | "closed" | "refused" | "replaced" | "resigned" | "revoked";

export interface LiveHandlers {
  hello(m: Hello): void;
  frame(f: Frame): void;
  error(m: ErrorMessage): void;
  state(s: LinkState, detail: string): void;
}

/**
 * One live channel (a seat's or a spectator's WebSocket, docs/live.md) that reconnects by itself:
 * after a drop it comes back with `since=<last seq seen>`, so the first frame brings the events it
 * missed. Refusals (wrong token, unknown table) are final.
 */
export class LiveLink {
  private ws: WebSocket | null = null;
  private lastSeq: number;
  private stopped = false;
  private retry = 0;
  private timer: ReturnType<typeof setTimeout> | null = null;

  constructor(
    private readonly path: string,
    private readonly params: Record<string, string>,
    private readonly on: LiveHandlers,
    since = 0,
  ) {
    this.lastSeq = since;
    this.open();
  }

  private open(): void {
    const url = new URL(this.path, location.href);
    url.protocol = location.protocol === "https:" ? "wss:" : "ws:";
    for (const [k, v] of Object.entries(this.params)) url.searchParams.set(k, v);
    url.searchParams.set("since", String(this.lastSeq));
    this.on.state("connecting", "");
    const ws = new WebSocket(url.href);
    this.ws = ws;
    let refused = false;
    ws.onopen = () => {
      this.retry = 0;
      this.on.state("open", "");
    };
    ws.onmessage = (e) => {
      let m: ServerMessage;
      try {
        m = JSON.parse(String(e.data)) as ServerMessage;
      } catch {
        return;
      }
      if (m.type === "hello") this.on.hello(m);
      else if (m.type === "frame" || m.type === "spectate") {
        this.lastSeq = m.seq;
        this.on.frame(m);
      } else if (m.type === "error") {
        if (m.seq === null) refused = true;
        this.on.error(m);
      }
    };
    ws.onclose = (e) => {
      if (this.ws !== ws) return;
      this.ws = null;
      if (this.stopped) return;
      // Final: a newer tab holds the seat (reconnecting would take it back, and that tab would
      // do the same: a tug of war), the seat was resigned, or the server refused the channel.
      if (e.code === 4000) return this.on.state("replaced", "this seat is open in another tab or window");
      if (e.code === 4002) return this.on.state("resigned", "the seat was resigned");
      if (e.code === 4001) return this.on.state("revoked", e.reason || "the seat's token was replaced");
      if (refused || e.code === 4003 || e.code === 4004) return this.on.state("refused", e.reason || "refused");
      const wait = Math.min(8000, 250 * 2 ** this.retry++);
      this.on.state("closed", `reconnecting in ${Math.round(wait / 100) / 10} s`);
      this.timer = setTimeout(() => this.open(), wait);
    };
  }

  /** Opens the channel again after a final close (the person chose to play in this tab again). */
  reopen(): void {
    if (this.stopped || this.ws) return;
    if (this.timer) clearTimeout(this.timer);
    this.retry = 0;
    this.open();
  }

  send(msg: object): boolean {
    if (!this.ws || this.ws.readyState !== WebSocket.OPEN) return false;
    this.ws.send(JSON.stringify(msg));
    return true;
  }

  close(): void {
    this.stopped = true;
    if (this.timer) clearTimeout(this.timer);
    this.ws?.close(1000, "page closed");
    this.ws = null;
  }
}
