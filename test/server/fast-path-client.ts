import { connect, type Socket } from "node:net";
import { Packr, Unpackr } from "msgpackr";

/** A test client of the fast path (env/server/fast-path.ts): raw frames in, decoded replies out. */
const packr = new Packr({ useRecords: false });
const unpackr = new Unpackr({ useRecords: false, mapsAsObjects: true });

export interface FastReply {
  kind: number;
  /** The reply's layout byte: 1 when the payload is in env/reply-layout.ts's layout (then `body` is undefined), else 0 (msgpack). */
  layout: number;
  status: number;
  raw: Buffer;
  body: any;
}

export class FastClient {
  private chunks: Buffer[] = [];
  private buffered = 0;
  private waiting: ((r: FastReply | null) => void) | null = null;
  private ended = false;

  private constructor(private readonly socket: Socket) {
    socket.on("data", (chunk: Buffer) => {
      this.chunks.push(chunk);
      this.buffered += chunk.length;
      this.deliver();
    });
    socket.on("close", () => {
      this.ended = true;
      this.deliver();
    });
    socket.on("error", () => undefined);
  }

  static open(path: string): Promise<FastClient> {
    return new Promise((resolve, reject) => {
      const s = connect({ path }, () => resolve(new FastClient(s)));
      s.once("error", reject);
    });
  }

  /** Resolves with the next reply, or null once the server closed the connection. */
  next(): Promise<FastReply | null> {
    return new Promise((resolve) => {
      this.waiting = resolve;
      this.deliver();
    });
  }

  /** Stops reading from the socket (replies stay in the kernel's buffers) until resume(). */
  pause(): void {
    this.socket.pause();
  }

  resume(): void {
    this.socket.resume();
  }

  /** Sends raw bytes without waiting for anything. */
  send(bytes: Buffer): void {
    this.socket.write(bytes);
  }

  /** Sends raw bytes (whatever they are) and waits for the next reply. */
  async raw(bytes: Buffer): Promise<FastReply | null> {
    this.socket.write(bytes);
    return this.next();
  }

  frame(op: number, payload: Uint8Array = new Uint8Array(), flags = 0): Promise<FastReply | null> {
    const head = Buffer.alloc(8);
    head.writeUInt32LE(4 + payload.length, 0);
    head[4] = op;
    head[5] = flags;
    return this.raw(Buffer.concat([head, payload]));
  }

  attach(key: string): Promise<FastReply | null> {
    return this.frame(1, Buffer.from(key, "utf8"));
  }

  /** `flags` 1 asks for the reply in env/reply-layout.ts's layout. */
  reset(body?: unknown, flags = 0): Promise<FastReply | null> {
    return this.frame(2, body === undefined ? new Uint8Array() : packr.pack(body), flags);
  }

  step(actions: readonly number[], flags = 0): Promise<FastReply | null> {
    return this.frame(3, new Uint8Array(Int32Array.from(actions).buffer), flags);
  }

  get closed(): boolean {
    return this.ended;
  }

  close(): void {
    this.socket.destroy();
  }

  /** The first chunk, made at least `n` bytes long by joining only as many chunks as that takes. */
  private front(n: number): Buffer {
    let have = this.chunks[0]!.length;
    let k = 1;
    while (have < n) have += this.chunks[k++]!.length;
    if (k > 1) this.chunks.splice(0, k, Buffer.concat(this.chunks.slice(0, k)));
    return this.chunks[0]!;
  }

  private deliver(): void {
    if (!this.waiting) return;
    if (this.buffered >= 8) {
      const head = this.front(8);
      const n = head.readUInt32LE(0);
      if (this.buffered >= 4 + n) {
        const whole = this.front(4 + n);
        const raw = whole.subarray(8, 4 + n);
        const layout = whole[5]!;
        const reply = { kind: whole[4]!, layout, status: whole.readUInt16LE(6), raw: Buffer.from(raw), body: layout === 1 ? undefined : unpackr.unpack(raw) };
        this.chunks[0] = whole.subarray(4 + n);
        this.buffered -= 4 + n;
        const w = this.waiting;
        this.waiting = null;
        w(reply);
        return;
      }
    }
    if (this.ended) {
      const w = this.waiting;
      this.waiting = null;
      w(null);
    }
  }
}
