import { unlinkSync } from "node:fs";
import { createServer, type Server, type Socket } from "node:net";
import { Compile } from "typebox/compile";
import { decodeMsgpack, encodeReply } from "./wire.ts";
import { ApiError } from "./api-error.ts";
import { resetBody, type ResetBody } from "./schemas.ts";
import type { HostReply, HostRequest } from "./host-protocol.ts";

/**
 * The fast path: a framed binary protocol that a session worker serves on its own Unix socket,
 * for a trainer on the same machine. It skips what an HTTP step costs besides the game (the
 * event-loop thread's HTTP parsing, the hop to the worker and back, the reply's second write):
 * the worker reads a frame, steps the session and writes the reply itself. A session is created
 * over HTTP as usual; `POST /v1/sessions/:id/fast-path` then returns the socket of the session's
 * worker and a one-session key (docs/protocol.md, "The fast path").
 *
 * Frames (little-endian). Request: u32 n (bytes after this field, 4..maxFrame), u8 op, u8 flags,
 * 2 zero bytes, n - 4 payload bytes. Reply: u32 n, u8 kind (0 ok, 1 error), u8 layout, u16 HTTP
 * status, n - 4 payload bytes: for ok, the same msgpack bytes the HTTP route answers, or with
 * layout 1 the batch in env/reply-layout.ts's layout; for an error, the HTTP error body
 * `{error: {code, message, ...}}` in msgpack. A reset or step with flags bit 0 set asks for the
 * layout; it is given when the session's batches fit it (float32 observations, next-step
 * autoreset), else the reply is msgpack with layout 0. Older clients send flags 0.
 *   op 1 attach: payload = the session's key (UTF-8); binds this connection to that session.
 *   op 2 reset:  payload = the msgpack reset body of the HTTP route (empty: {}).
 *   op 3 step:   payload = one int32 action per env.
 * A frame whose declared length is out of bounds is answered with `frame_too_large` or
 * `malformed_frame` and the connection is closed (the stream cannot be resynchronised); every
 * other bad frame gets its error and the connection goes on.
 */
export const FAST_OP = { attach: 1, reset: 2, step: 3 } as const;
/** Request flags (the byte after the op): bit 0 asks for the reply in env/reply-layout.ts's layout. */
export const FAST_FLAG = { layout: 1 } as const;
export const FRAME_HEADER = 8;

/** What the fast path server needs from its thread: the session host and the bookkeeping hooks. */
export interface FastPathHost {
  /** Runs one reset/step on the host (the same call the HTTP path's messages make). */
  handle(req: HostRequest): Promise<HostReply>;
  /** The session and its watchdog handle an attach key was issued for, or undefined. */
  keyed(key: string): { session: string; handle: number } | undefined;
  /** A connection attached (open) or let go of (closed) a session; a fault quarantined it. */
  event(e: FastEvent): void;
  /** Marks the start (handle) and end (0) of a request, for the owner's budget watchdog. */
  busy(handle: number): void;
  /** A step of `envs` envs succeeded (for the server's /metrics). */
  stepped(envs: number): void;
}

export type FastEvent =
  | { readonly kind: "open" | "closed"; readonly session: string }
  | { readonly kind: "fault"; readonly session: string; readonly code: string; readonly message: string };

export interface FastPathOptions {
  readonly path: string;
  /** Largest frame accepted (bytes after the length field). */
  readonly maxFrame: number;
  readonly maxEnvsPerSession: number;
}

export class FastPathServer {
  private readonly server: Server;
  private readonly open = new Set<string>();
  private readonly quarantined = new Map<string, string>();
  private readonly checkReset;

  constructor(
    private readonly host: FastPathHost,
    private readonly o: FastPathOptions,
  ) {
    this.checkReset = Compile(resetBody(o.maxEnvsPerSession));
    this.server = createServer({ allowHalfOpen: false }, (socket) => this.serve(socket));
  }

  /** Listens on the path (a stale socket file left by a replaced worker is removed first). */
  listen(): Promise<void> {
    try {
      unlinkSync(this.o.path);
    } catch {
      // nothing there
    }
    return new Promise((resolve, reject) => {
      this.server.once("error", reject);
      this.server.listen(this.o.path, () => {
        this.server.off("error", reject);
        this.server.unref();
        resolve();
      });
    });
  }

  close(): void {
    this.server.close();
  }

  private serve(socket: Socket): void {
    const conn = new FastConnection(socket, this);
    socket.on("data", (chunk: Buffer) => conn.receive(chunk));
    socket.on("error", () => socket.destroy());
    socket.on("close", () => conn.closed());
  }

  /** @internal one frame of a connection; returns the reply frame. */
  async answer(conn: FastConnection, op: number, flags: number, payload: Buffer): Promise<Buffer[]> {
    try {
      if (op === FAST_OP.attach) return this.attach(conn, payload);
      const bound = conn.session;
      if (bound === null) throw new ApiError(409, "not_attached", "send an attach frame with the session's key first");
      const gone = this.quarantined.get(bound.session);
      if (gone !== undefined)
        throw new ApiError(409, "session_quarantined", `session ${bound.session} is quarantined: ${gone}; delete it and create a new one`);
      let req: HostRequest;
      const layout = (flags & FAST_FLAG.layout) !== 0;
      if (op === FAST_OP.reset) req = { op: "reset", session: bound.session, body: this.resetBodyOf(payload), format: "msgpack", digest: false, layout };
      else if (op === FAST_OP.step)
        req = { op: "step", session: bound.session, body: { actions: actionsOf(payload, this.o.maxEnvsPerSession) }, format: "msgpack", digest: false, layout };
      else throw new ApiError(400, "unknown_op", `unknown fast-path op ${op} (1 attach, 2 reset, 3 step)`);
      this.host.busy(bound.handle);
      let r: HostReply;
      try {
        r = await this.host.handle(req);
      } finally {
        this.host.busy(0);
      }
      if (r.error) {
        if (r.error.fault) {
          this.quarantined.set(bound.session, `${r.error.code}: ${r.error.message}`);
          this.host.event({ kind: "fault", session: bound.session, code: r.error.code, message: r.error.message });
        }
        return errorFrame(r.error.status, { code: r.error.code, message: r.error.message, ...(r.error.details ?? {}) });
      }
      const p = r.payload;
      if (!(p instanceof Uint8Array)) throw new ApiError(500, "internal_error", "the session host gave no binary reply");
      if (req.op === "step") this.host.stepped(req.body.actions.length);
      return frame(0, r.status, p, r.layout === true ? 1 : 0);
    } catch (e) {
      const api = e instanceof ApiError ? e : new ApiError(500, "internal_error", e instanceof Error ? e.message : String(e));
      return errorFrame(api.status, { code: api.code, message: api.message, ...(api.details ?? {}) });
    }
  }

  private attach(conn: FastConnection, payload: Buffer): Buffer[] {
    if (conn.session !== null) throw new ApiError(409, "already_attached", `this connection is attached to session ${conn.session.session}`);
    const found = payload.length <= 256 ? this.host.keyed(payload.toString("utf8")) : undefined;
    if (!found) throw new ApiError(401, "unknown_key", "no session has this fast-path key (ask POST /v1/sessions/:id/fast-path for one)");
    if (this.open.has(found.session)) throw new ApiError(409, "session_busy", `session ${found.session} is attached to another fast-path connection`);
    this.open.add(found.session);
    conn.session = found;
    this.host.event({ kind: "open", session: found.session });
    return frame(0, 200, encodeReply({ session: found.session }, "msgpack") as Buffer);
  }

  /** @internal */
  released(session: string): void {
    this.open.delete(session);
    this.host.event({ kind: "closed", session });
  }

  private resetBodyOf(payload: Buffer): ResetBody {
    const body = payload.length === 0 ? {} : decodeMsgpack(payload);
    if (!this.checkReset.Check(body)) {
      const first = this.checkReset.Errors(body)[0];
      throw new ApiError(400, "invalid_body", `reset body ${first ? `${first.instancePath || "/"} ${first.message}` : "does not match the schema"}`);
    }
    return body;
  }

  /** @internal */
  get maxFrame(): number {
    return this.o.maxFrame;
  }
}

/** One client connection: reassembles frames from the byte stream and answers them in order. */
class FastConnection {
  session: { session: string; handle: number } | null = null;
  private chunks: Buffer[] = [];
  private buffered = 0;
  private busy = false;
  private ended = false;
  /** Replies wait in the socket's buffer for a client that does not read them: nothing more is answered until they drain. */
  private draining = false;

  constructor(
    private readonly socket: Socket,
    private readonly server: FastPathServer,
  ) {}

  receive(chunk: Buffer): void {
    this.chunks.push(chunk);
    this.buffered += chunk.length;
    // A client that sends more than one frame ahead is not read further until it is answered.
    if (this.buffered > 2 * (this.server.maxFrame + FRAME_HEADER)) this.socket.pause();
    void this.pump();
  }

  closed(): void {
    this.ended = true;
    if (this.session) this.server.released(this.session.session);
  }

  private async pump(): Promise<void> {
    if (this.busy) return;
    this.busy = true;
    try {
      for (;;) {
        if (this.ended || this.draining || this.buffered < 4) break;
        const head = this.peek(4);
        const n = head.readUInt32LE(0);
        if (n < 4 || n > this.server.maxFrame) {
          const why =
            n < 4
              ? new ApiError(400, "malformed_frame", `a frame declares ${n} bytes; the op and its padding alone take 4`)
              : new ApiError(413, "frame_too_large", `a frame declares ${n} bytes; the limit is ${this.server.maxFrame}`);
          this.ended = true;
          this.socket.end(Buffer.concat(errorFrame(why.status, { code: why.code, message: why.message })));
          break;
        }
        if (this.buffered < 4 + n) break;
        const whole = this.take(4 + n);
        const reply = await this.server.answer(this, whole.readUInt8(4), whole.readUInt8(5), whole.subarray(FRAME_HEADER));
        if (this.ended) break;
        const [only] = reply;
        if (reply.length === 1 && only !== undefined) this.socket.write(only);
        else {
          this.socket.cork();
          for (const part of reply) this.socket.write(part);
          this.socket.uncork();
        }
        if (this.socket.writableNeedDrain) this.waitForDrain();
      }
    } finally {
      this.busy = false;
    }
    if (!this.ended && !this.draining && this.socket.isPaused() && this.buffered <= this.server.maxFrame + FRAME_HEADER) this.socket.resume();
  }

  /** Stops reading and answering until the client has read the replies already written (bounds what it can make us hold). */
  private waitForDrain(): void {
    this.draining = true;
    this.socket.pause();
    this.socket.once("drain", () => {
      this.draining = false;
      if (this.buffered <= this.server.maxFrame + FRAME_HEADER) this.socket.resume();
      void this.pump();
    });
  }

  private peek(n: number): Buffer {
    const first = this.chunks[0];
    if (first !== undefined && first.length >= n) return first;
    const whole = Buffer.concat(this.chunks);
    this.chunks = [whole];
    return whole;
  }

  private take(n: number): Buffer {
    let first = this.peek(n);
    const out = first.length === n ? first : first.subarray(0, n);
    if (first.length === n) this.chunks.shift();
    else {
      first = first.subarray(n);
      this.chunks[0] = first;
    }
    this.buffered -= n;
    return out;
  }
}

function actionsOf(payload: Buffer, maxEnvs: number): Int32Array {
  if (payload.length % 4 !== 0)
    throw new ApiError(400, "malformed_frame", `a step frame carries int32 actions; ${payload.length} bytes is not a multiple of 4`);
  if (payload.length / 4 > maxEnvs)
    throw new ApiError(400, "invalid_body", `${payload.length / 4} actions is more than the ${maxEnvs} envs a session may have`);
  // Copied: the frame's bytes may sit at any offset of a pooled buffer.
  const out = new Int32Array(payload.length / 4);
  for (let i = 0; i < out.length; i++) out[i] = payload.readInt32LE(4 * i);
  return out;
}

/** Replies up to this size are copied behind their header (one buffer); larger ones go out as two (one writev). */
const COPY_BELOW = 16_384;

function frame(kind: number, status: number, payload: Uint8Array, layout = 0): Buffer[] {
  const small = payload.length < COPY_BELOW;
  const out = Buffer.allocUnsafe(small ? FRAME_HEADER + payload.length : FRAME_HEADER);
  out.writeUInt32LE(4 + payload.length, 0);
  out[4] = kind;
  out[5] = layout;
  out.writeUInt16LE(status, 6);
  if (!small) return [out, Buffer.from(payload.buffer, payload.byteOffset, payload.byteLength)];
  out.set(payload, FRAME_HEADER);
  return [out];
}

function errorFrame(status: number, error: Record<string, unknown>): Buffer[] {
  return frame(1, status, encodeReply({ error }, "msgpack") as Buffer);
}
