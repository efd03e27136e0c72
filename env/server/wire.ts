import { Unpackr } from "msgpackr";
import { endianness } from "node:os";
import { ApiError } from "./api-error.ts";
import { encodeMsgpack } from "./msgpack-writer.ts";
import { Tensor } from "./tensor.ts";

/**
 * The wire format. Bodies and replies are msgpack (JSON accepted for debugging). Arrays of numbers
 * travel as tensors: `{dtype, shape, data}` where data is a msgpack bin holding the raw
 * little-endian bytes, so Python reads them with `numpy.frombuffer(data, dtype).reshape(shape)`
 * without a copy. (msgpackr's own typed-array extension is not used: other msgpack libraries
 * cannot read it.) In JSON, data is a plain array of numbers instead.
 */
export { Tensor, type Dtype } from "./tensor.ts";

export type WireFormat = "msgpack" | "json";

export const MSGPACK_TYPES = ["application/msgpack", "application/x-msgpack", "application/vnd.msgpack"] as const;

if (endianness() !== "LE") throw new Error("cardgym's wire format sends little-endian tensors; this host is big-endian");

/** Plain-data decoding only: no records/structures, maps as plain objects, no BigInt. */
const unpackr = new Unpackr({ useRecords: false, mapsAsObjects: true, int64AsType: "number" });

/** Limits applied to every decoded body, msgpack or JSON. */
export const MAX_DEPTH = 32;

/**
 * Walks a msgpack document without building it and refuses anything but plain data: extension
 * types (records, structured clone, typed arrays, timestamps...), the reserved 0xc1 byte, 64-bit
 * integers outside the safe range, nesting deeper than MAX_DEPTH, declared lengths that overrun
 * the body, and trailing bytes. Run before msgpackr decodes, so its extensions never fire.
 */
export function checkPlainMsgpack(buf: Uint8Array): void {
  new PlainMsgpackWalk(buf).run();
}

/** One walk of checkPlainMsgpack: a cursor, and how many items the open containers still hold. */
class PlainMsgpackWalk {
  private readonly view: DataView;
  private pos = 0;
  /** Items left in the innermost open container (the document itself is one item). */
  private remaining = 1;
  /** `remaining` of each enclosing container. */
  private readonly stack: number[] = [];

  constructor(private readonly buf: Uint8Array) {
    this.view = new DataView(buf.buffer, buf.byteOffset, buf.byteLength);
  }

  run(): void {
    const { buf, view } = this;
    for (;;) {
      while (this.remaining === 0) {
        const outer = this.stack.pop();
        if (outer === undefined) {
          if (this.pos !== buf.length) this.bad("trailing bytes after the document");
          return;
        }
        this.remaining = outer;
      }
      this.remaining--;
      this.need(1);
      const b = view.getUint8(this.pos++);
      if (b <= 0x7f || b >= 0xe0) continue;
      if (b <= 0x8f) this.open(2 * (b & 0x0f));
      else if (b <= 0x9f) this.open(b & 0x0f);
      else if (b <= 0xbf) this.skip(b & 0x1f);
      else this.typed(b);
    }
  }

  /** An item whose first byte is 0xc0..0xdf: nil, bool, bin, str, numbers, arrays and maps with lengths; never ext or 0xc1. */
  private typed(b: number): void {
    const { view } = this;
    switch (b) {
      case 0xc0:
      case 0xc2:
      case 0xc3:
        break;
      case 0xc4:
      case 0xd9:
        this.need(1);
        this.skip(view.getUint8(this.pos++));
        break;
      case 0xc5:
      case 0xda:
        this.need(2);
        this.pos += 2;
        this.skip(view.getUint16(this.pos - 2));
        break;
      case 0xc6:
      case 0xdb:
        this.need(4);
        this.pos += 4;
        this.skip(view.getUint32(this.pos - 4));
        break;
      case 0xca:
        this.skip(4);
        break;
      case 0xcb:
        this.skip(8);
        break;
      case 0xcc:
      case 0xd0:
        this.skip(1);
        break;
      case 0xcd:
      case 0xd1:
        this.skip(2);
        break;
      case 0xce:
      case 0xd2:
        this.skip(4);
        break;
      case 0xcf: {
        this.need(8);
        const v = view.getBigUint64(this.pos);
        if (v > BigInt(Number.MAX_SAFE_INTEGER)) this.bad("uint64 beyond 2^53-1");
        this.pos += 8;
        break;
      }
      case 0xd3: {
        this.need(8);
        const v = view.getBigInt64(this.pos);
        if (v > BigInt(Number.MAX_SAFE_INTEGER) || v < BigInt(-Number.MAX_SAFE_INTEGER)) this.bad("int64 beyond +-(2^53-1)");
        this.pos += 8;
        break;
      }
      case 0xdc:
        this.need(2);
        this.pos += 2;
        this.open(view.getUint16(this.pos - 2));
        break;
      case 0xdd:
        this.need(4);
        this.pos += 4;
        this.open(view.getUint32(this.pos - 4));
        break;
      case 0xde:
        this.need(2);
        this.pos += 2;
        this.open(2 * view.getUint16(this.pos - 2));
        break;
      case 0xdf:
        this.need(4);
        this.pos += 4;
        this.open(2 * view.getUint32(this.pos - 4));
        break;
      case 0xc1:
        this.pos--;
        this.bad("reserved byte 0xc1");
        break;
      default:
        // 0xc7-0xc9 ext 8/16/32 and 0xd4-0xd8 fixext.
        this.pos--;
        this.bad(`extension type 0x${b.toString(16)} is not accepted (plain data only)`);
    }
  }

  private bad(why: string): never {
    throw new ApiError(400, "malformed_body", `msgpack body refused at byte ${this.pos}: ${why}`);
  }

  private need(n: number): void {
    if (this.pos + n > this.buf.length) this.bad("truncated");
  }

  private skip(n: number): void {
    this.need(n);
    this.pos += n;
  }

  private open(items: number): void {
    if (this.stack.length + 1 > MAX_DEPTH) this.bad(`nesting deeper than ${MAX_DEPTH}`);
    if (items > this.buf.length - this.pos) this.bad("container longer than the body");
    this.stack.push(this.remaining);
    this.remaining = items;
  }
}

/** An empty body decodes to undefined (no body): routes whose body is optional accept it, others fail their schema. */
export function decodeMsgpack(buf: Buffer): unknown {
  if (buf.length === 0) return undefined;
  checkPlainMsgpack(buf);
  try {
    return unpackr.unpack(buf);
  } catch (e) {
    throw new ApiError(400, "malformed_body", `msgpack body could not be decoded: ${(e as Error).message}`);
  }
}

/** Refuses JSON bodies nested deeper than MAX_DEPTH (msgpack ones are checked while scanning). */
export function checkDepth(value: unknown, depth = 0): void {
  if (value === null || typeof value !== "object") return;
  if (depth >= MAX_DEPTH) throw new ApiError(400, "malformed_body", `body nested deeper than ${MAX_DEPTH}`);
  if (Array.isArray(value)) {
    for (const v of value) checkDepth(v, depth + 1);
  } else {
    for (const k in value) checkDepth((value as Record<string, unknown>)[k], depth + 1);
  }
}

/** The number an IEEE half-precision bit pattern stands for (JSON replies carry numbers). */
export function float16Value(h: number): number {
  const sign = h & 0x8000 ? -1 : 1;
  const exp = (h >> 10) & 0x1f;
  const mant = h & 0x3ff;
  if (exp === 0) return sign * mant * 2 ** -24;
  if (exp === 0x1f) return mant ? NaN : sign * Infinity;
  return sign * (1 + mant / 1024) * 2 ** (exp - 15);
}

function toWire(value: unknown, format: WireFormat): unknown {
  if (value instanceof Tensor) {
    const t = value.values;
    return {
      dtype: value.dtype,
      shape: value.shape,
      data:
        format === "msgpack" ? new Uint8Array(t.buffer, t.byteOffset, t.byteLength) : value.dtype === "float16" ? Array.from(t, float16Value) : Array.from(t),
    };
  }
  if (value === null || typeof value !== "object") return value;
  if (Array.isArray(value)) return value.map((v) => toWire(v, format));
  const out: Record<string, unknown> = {};
  for (const k of Object.keys(value)) {
    const v = (value as Record<string, unknown>)[k];
    if (v !== undefined) out[k] = toWire(v, format);
  }
  return out;
}

export function encodeReply(value: unknown, format: WireFormat): Buffer | string {
  // Replies: standard msgpack only (maps, arrays, bin), readable by every msgpack library. The
  // msgpack writer encodes tensors in place (the same bytes as toWire's objects would give).
  return format === "msgpack" ? encodeMsgpack(value) : JSON.stringify(toWire(value, format));
}

export function contentTypeOf(format: WireFormat): string {
  return format === "msgpack" ? "application/msgpack" : "application/json; charset=utf-8";
}

/**
 * The format the client asked for: an Accept naming a msgpack type gets msgpack, one naming
 * application/json (and no msgpack type) gets JSON; with no preference stated (no Accept, or
 * `*` `/` `*` as curl sends) a JSON request body gets JSON, and anything else `unstated`: msgpack on the
 * RL routes, JSON on the probes a person or a monitor reads (/healthz, /metrics).
 */
export function replyFormat(accept: string | undefined, contentType: string | undefined, unstated: WireFormat = "msgpack"): WireFormat {
  if (accept && accept !== "*/*") {
    const a = accept.toLowerCase();
    if (a.includes("msgpack")) return "msgpack";
    if (a.includes("application/json")) return "json";
  }
  if (contentType && contentType.toLowerCase().startsWith("application/json")) return "json";
  return unstated;
}
