import { Tensor } from "./tensor.ts";

/**
 * A small msgpack encoder for replies: plain data only (nil, bool, number, string, array, plain
 * object, Uint8Array as bin). Replies are a dozen small maps around a few large bins; sizing
 * first and writing once into one exact buffer costs a fraction of a general encoder's per-call
 * overhead. Integers use the smallest msgpack int format; other numbers are float64. A Tensor is
 * written as the map {dtype, shape, data: bin of its bytes} (wire.ts).
 */
export function encodeMsgpack(value: unknown): Buffer {
  const out = Buffer.allocUnsafe(sizeOf(value, 0));
  const end = write(value, out, 0);
  if (end !== out.length) throw new Error(`msgpack writer: sized ${out.length} bytes, wrote ${end}`);
  return out;
}

const MAX_DEPTH = 64;

function sizeOf(v: unknown, depth: number): number {
  if (depth > MAX_DEPTH) throw new Error("msgpack writer: nesting too deep");
  if (v === null || v === undefined || typeof v === "boolean") return 1;
  if (typeof v === "number") return numberSize(v);
  if (typeof v === "string") return encodedString(v).length;
  if (v instanceof Uint8Array) return binHeader(v.length) + v.length;
  if (v instanceof Tensor) return tensorHead(v).length + v.values.byteLength;
  if (Array.isArray(v)) {
    let n = lenHeader(v.length);
    for (const x of v) n += sizeOf(x, depth + 1);
    return n;
  }
  if (typeof v === "object") {
    let n = 0;
    let count = 0;
    for (const k in v) {
      const x = (v as Record<string, unknown>)[k];
      if (x === undefined) continue;
      count++;
      n += encodedString(k).length + sizeOf(x, depth + 1);
    }
    return n + lenHeader(count);
  }
  throw new TypeError(`msgpack writer: cannot encode a ${typeof v}`);
}

function numberSize(v: number): number {
  if (Number.isInteger(v) && Math.abs(v) <= Number.MAX_SAFE_INTEGER) {
    if (v >= 0) return v < 128 ? 1 : v < 256 ? 2 : v < 65536 ? 3 : v < 4294967296 ? 5 : 9;
    return v >= -32 ? 1 : v >= -128 ? 2 : v >= -32768 ? 3 : v >= -2147483648 ? 5 : 9;
  }
  return 9;
}

/**
 * Keys, dtypes and labels repeat in every reply: their encodings (header + UTF-8) are cached, so a
 * reply costs no per-string native calls. Bounded: long or too many distinct strings are not kept.
 */
const stringCache = new Map<string, Uint8Array>();
const CACHE_MAX = 4096;

function encodedString(s: string): Uint8Array {
  const hit = stringCache.get(s);
  if (hit) return hit;
  const n = Buffer.byteLength(s);
  const header = n < 32 ? 1 : n < 256 ? 2 : n < 65536 ? 3 : 5;
  const out = Buffer.allocUnsafe(header + n);
  writeStringRaw(s, n, out, 0);
  if (n <= 64 && stringCache.size < CACHE_MAX) stringCache.set(s, out);
  return out;
}
const binHeader = (n: number): number => (n < 256 ? 2 : n < 65536 ? 3 : 5);
const lenHeader = (n: number): number => (n < 16 ? 1 : n < 65536 ? 3 : 5);

/**
 * A tensor's encoding up to its data: the map header, the dtype, shape and data keys, the dtype
 * and shape values and the bin header. A session's replies hold the same few tensor kinds at
 * every step, so these bytes are cached by dtype and shape (a number key: no string is built per
 * tensor), with the data length they were made for (checked: a tensor whose data length differs
 * gets a head made for it). Bounded like the strings; shapes the key cannot hold are not cached.
 * Writing a tensor is then one copy of its head and one of its data, not a dozen small writes.
 */
const headCache = new Map<number, { readonly bytes: number; readonly head: Uint8Array }>();
const DTYPE_KEY: Readonly<Record<string, number>> = { float32: 0, float16: 1, uint8: 2, int32: 3, bool: 4 };

function headKey(v: Tensor): number {
  const shape = v.shape;
  const d = DTYPE_KEY[v.dtype];
  if (d === undefined || shape.length === 0 || shape.length > 3) return -1;
  // 4 bits of dtype and rank, 15 bits per dimension: at most 49 bits, exact as a double.
  let key = d * 3 + shape.length - 1;
  for (const dim of shape) {
    if (!(dim >= 0 && dim < 32768 && Number.isInteger(dim))) return -1;
    key = key * 32768 + dim;
  }
  return key;
}

function tensorHead(v: Tensor): Uint8Array {
  const bytes = v.values.byteLength;
  const key = headKey(v);
  const hit = key < 0 ? undefined : headCache.get(key);
  if (hit !== undefined && hit.bytes === bytes) return hit.head;
  const size = 1 + ["dtype", "shape", "data", v.dtype].reduce((n, k) => n + encodedString(k).length, 0) + sizeOf(v.shape, 1) + binHeader(bytes);
  const head = Buffer.allocUnsafe(size);
  let p = 0;
  head[p++] = 0x83;
  p = writeString("dtype", head, p);
  p = writeString(v.dtype, head, p);
  p = writeString("shape", head, p);
  p = write(v.shape, head, p);
  p = writeString("data", head, p);
  p = writeBinHeader(bytes, head, p);
  if (p !== size) throw new Error(`msgpack writer: a tensor head sized ${size} bytes, wrote ${p}`);
  if (key >= 0 && hit === undefined && headCache.size < CACHE_MAX) headCache.set(key, { bytes, head });
  return head;
}

function write(v: unknown, b: Buffer, p: number): number {
  if (v === null || v === undefined) {
    b[p] = 0xc0;
    return p + 1;
  }
  if (typeof v === "boolean") {
    b[p] = v ? 0xc3 : 0xc2;
    return p + 1;
  }
  if (typeof v === "number") return writeNumber(v, b, p);
  if (typeof v === "string") return writeString(v, b, p);
  if (v instanceof Uint8Array) return writeBin(v, b, p);
  if (v instanceof Tensor) {
    p = copyInto(tensorHead(v), b, p);
    const t = v.values;
    return copyInto(new Uint8Array(t.buffer, t.byteOffset, t.byteLength), b, p);
  }
  if (Array.isArray(v)) {
    p = writeLen(v.length, 0x90, 0xdc, b, p);
    for (const x of v) p = write(x, b, p);
    return p;
  }
  const obj = v as Record<string, unknown>;
  let count = 0;
  for (const k in obj) if (obj[k] !== undefined) count++;
  p = writeLen(count, 0x80, 0xde, b, p);
  for (const k in obj) {
    const x = obj[k];
    if (x === undefined) continue;
    p = writeString(k, b, p);
    p = write(x, b, p);
  }
  return p;
}

function writeBin(v: Uint8Array, b: Buffer, p: number): number {
  return copyInto(v, b, writeBinHeader(v.length, b, p));
}

function writeBinHeader(n: number, b: Buffer, p: number): number {
  if (n < 256) {
    b[p++] = 0xc4;
    b[p++] = n;
  } else if (n < 65536) {
    b[p++] = 0xc5;
    b.writeUInt16BE(n, p);
    p += 2;
  } else {
    b[p++] = 0xc6;
    b.writeUInt32BE(n, p);
    p += 4;
  }
  return p;
}

/** Copies `v` to `b` at `p`: a loop for a few bytes (set() is a native call that costs more than that), set() beyond. */
function copyInto(v: Uint8Array, b: Buffer, p: number): number {
  const n = v.length;
  if (n <= 32) {
    let i = p;
    for (const byte of v) b[i++] = byte;
  } else b.set(v, p);
  return p + n;
}

function writeLen(n: number, fix: number, wide: number, b: Buffer, p: number): number {
  if (n < 16) {
    b[p] = fix | n;
    return p + 1;
  }
  if (n < 65536) {
    b[p] = wide;
    b.writeUInt16BE(n, p + 1);
    return p + 3;
  }
  b[p] = wide + 1;
  b.writeUInt32BE(n, p + 1);
  return p + 5;
}

function writeString(s: string, b: Buffer, p: number): number {
  return copyInto(encodedString(s), b, p);
}

function writeStringRaw(s: string, n: number, b: Buffer, p: number): number {
  if (n < 32) b[p++] = 0xa0 | n;
  else if (n < 256) {
    b[p++] = 0xd9;
    b[p++] = n;
  } else if (n < 65536) {
    b[p++] = 0xda;
    b.writeUInt16BE(n, p);
    p += 2;
  } else {
    b[p++] = 0xdb;
    b.writeUInt32BE(n, p);
    p += 4;
  }
  b.write(s, p, n, "utf8");
  return p + n;
}

function writeNumber(v: number, b: Buffer, p: number): number {
  if (Number.isInteger(v) && Math.abs(v) <= Number.MAX_SAFE_INTEGER) {
    if (v >= 0) {
      if (v < 128) {
        b[p] = v;
        return p + 1;
      }
      if (v < 256) {
        b[p] = 0xcc;
        b[p + 1] = v;
        return p + 2;
      }
      if (v < 65536) {
        b[p] = 0xcd;
        b.writeUInt16BE(v, p + 1);
        return p + 3;
      }
      if (v < 4294967296) {
        b[p] = 0xce;
        b.writeUInt32BE(v, p + 1);
        return p + 5;
      }
      b[p] = 0xcf;
      b.writeBigUInt64BE(BigInt(v), p + 1);
      return p + 9;
    }
    if (v >= -32) {
      b[p] = v & 0xff;
      return p + 1;
    }
    if (v >= -128) {
      b[p] = 0xd0;
      b.writeInt8(v, p + 1);
      return p + 2;
    }
    if (v >= -32768) {
      b[p] = 0xd1;
      b.writeInt16BE(v, p + 1);
      return p + 3;
    }
    if (v >= -2147483648) {
      b[p] = 0xd2;
      b.writeInt32BE(v, p + 1);
      return p + 5;
    }
    b[p] = 0xd3;
    b.writeBigInt64BE(BigInt(v), p + 1);
    return p + 9;
  }
  b[p] = 0xcb;
  b.writeDoubleBE(v, p + 1);
  return p + 9;
}
