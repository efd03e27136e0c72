import { connect, type Socket } from "node:net";
import { Packr, Unpackr } from "msgpackr";

/** A test client of the fast path (env/server/fast-path.ts): raw frames in, decoded replies out. */
const packr = new Packr({ useRecords: false });
const unpackr = new Unpackr({ useRecords: false, mapsAsObjects: true });

export interface FastReply {
  kind: number;
  status: number;
  raw: Buffer;
  body: any;
}

export class FastClient {
  private buf = Buffer.alloc(0);
  private waiting: ((r: FastReply | null) => void) | null = null;
  private ended = false;

  private constructor(private readonly socket: Socket) {
    socket.on("data", (chunk: Buffer) => {
      this.buf = Buffer.concat([this.buf, chunk]);
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

  /** Sends raw bytes (whatever they are) and waits for the next reply. */
  async raw(bytes: Buffer): Promise<FastReply | null> {
    this.socket.write(bytes);
    return this.next();
  }

  frame(op: number, payload: Uint8Array = new Uint8Array()): Promise<FastReply | null> {
    const head = Buffer.alloc(8);
    head.writeUInt32LE(4 + payload.length, 0);
    head[4] = op;
    return this.raw(Buffer.concat([head, payload]));
  }

  attach(key: string): Promise<FastReply | null> {
    return this.frame(1, Buffer.from(key, "utf8"));
  }

  reset(body?: unknown): Promise<FastReply | null> {
    return this.frame(2, body === undefined ? new Uint8Array() : packr.pack(body));
  }

  step(actions: readonly number[]): Promise<FastReply | null> {
    return this.frame(3, new Uint8Array(Int32Array.from(actions).buffer));
  }

  get closed(): boolean {
    return this.ended;
  }

  close(): void {
    this.socket.destroy();
  }

  private deliver(): void {
    if (!this.waiting) return;
    if (this.buf.length >= 8) {
      const n = this.buf.readUInt32LE(0);
      if (this.buf.length >= 4 + n) {
        const raw = this.buf.subarray(8, 4 + n);
        const reply = { kind: this.buf[4]!, status: this.buf.readUInt16LE(6), raw: Buffer.from(raw), body: unpackr.unpack(raw) };
        this.buf = this.buf.subarray(4 + n);
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
