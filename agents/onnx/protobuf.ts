/**
 * Just enough protobuf to read an ONNX ModelProto's header, graph signature and metadata_props
 * (onnxruntime-node does not expose metadata_props). Wire format: a varint tag (field << 3 | type),
 * then a varint (type 0), 8 bytes (1), a varint length and that many bytes (2) or 4 bytes (5).
 */
export class ProtobufError extends Error {
  constructor(
    message: string,
    /** True when the data ran out before a field ended: the file is cut short. */
    readonly truncated: boolean,
  ) {
    super(message);
    this.name = "ProtobufError";
  }
}

export const WIRE = { varint: 0, fixed64: 1, len: 2, fixed32: 5 } as const;

export interface Field {
  readonly field: number;
  readonly wire: number;
  /** The varint value (wire 0); 0 otherwise. */
  readonly value: number;
  /** The payload (wire 2), a view into the buffer; empty otherwise. */
  readonly bytes: Uint8Array;
}

export class ProtobufReader {
  private pos: number;

  constructor(
    private readonly buf: Uint8Array,
    private readonly end = buf.length,
    start = 0,
    /**
     * Read varints as two's-complement int64 (ONNX's int64 fields: -1 is ten bytes), as the
     * nearest number: exact within 2^53, rounded beyond (only ever compared or clamped).
     */
    private readonly signed64 = false,
  ) {
    this.pos = start;
  }

  atEnd(): boolean {
    return this.pos >= this.end;
  }

  /** Varints up to 2^53 (larger ones are refused: no ONNX field we read needs them). */
  varint(): number {
    if (this.signed64) return this.int64();
    let result = 0;
    let scale = 1;
    for (let i = 0; i < 10; i++) {
      const b = this.varintByte();
      result += (b & 0x7f) * scale;
      if ((b & 0x80) === 0) {
        if (!Number.isSafeInteger(result)) throw new ProtobufError(`varint at byte ${this.pos} is larger than 2^53`, false);
        return result;
      }
      scale *= 128;
    }
    throw new ProtobufError(`varint longer than 10 bytes at byte ${this.pos}`, false);
  }

  /** The next byte of a varint, or the error that it runs past the end of the message. */
  private varintByte(): number {
    const b = this.pos < this.end ? this.buf[this.pos] : undefined;
    if (b === undefined) throw new ProtobufError(`varint runs past the end at byte ${this.pos}`, true);
    this.pos++;
    return b;
  }

  /** A two's-complement int64 varint (see signed64). */
  int64(): number {
    let lo = 0;
    let hi = 0;
    for (let i = 0; i < 10; i++) {
      const b = this.varintByte();
      const bits = b & 0x7f;
      const shift = i * 7;
      if (shift < 28) lo |= bits << shift;
      else if (shift === 28) {
        lo |= (bits & 0x0f) << 28;
        hi |= bits >>> 4;
      } else hi |= bits << (shift - 32); // bits past 64 fall off, as in protobuf
      if ((b & 0x80) === 0) return (hi | 0) * 4294967296 + (lo >>> 0);
    }
    throw new ProtobufError(`varint longer than 10 bytes at byte ${this.pos}`, false);
  }

  next(): Field {
    const at = this.pos;
    const tag = this.varint();
    const field = Math.floor(tag / 8);
    const wire = tag % 8;
    if (field === 0) throw new ProtobufError(`field number 0 at byte ${at}`, false);
    switch (wire) {
      case WIRE.varint:
        return { field, wire, value: this.varint(), bytes: EMPTY };
      case WIRE.fixed64:
        return { field, wire, value: 0, bytes: this.take(8, field) };
      case WIRE.len: {
        const n = this.varint();
        return { field, wire, value: 0, bytes: this.take(n, field) };
      }
      case WIRE.fixed32:
        return { field, wire, value: 0, bytes: this.take(4, field) };
      default:
        throw new ProtobufError(`unsupported wire type ${wire} (field ${field}) at byte ${at}`, false);
    }
  }

  private take(n: number, field: number): Uint8Array {
    if (n > this.end - this.pos) {
      throw new ProtobufError(`field ${field} needs ${n} bytes at byte ${this.pos}, only ${this.end - this.pos} remain`, true);
    }
    const out = this.buf.subarray(this.pos, this.pos + n);
    this.pos += n;
    return out;
  }
}

const EMPTY = new Uint8Array(0);

/** Every field of a message, in order. */
export function readFields(bytes: Uint8Array, signed64 = false): Field[] {
  const r = new ProtobufReader(bytes, bytes.length, 0, signed64);
  const out: Field[] = [];
  while (!r.atEnd()) out.push(r.next());
  return out;
}

const utf8 = new TextDecoder("utf-8", { fatal: false });
export function text(bytes: Uint8Array): string {
  return utf8.decode(bytes);
}

/** A tiny writer, the mirror of the reader: enough to build ONNX models in tests and benches. */
export class ProtobufWriter {
  private chunks: number[] = [];

  varintField(field: number, value: number): this {
    this.rawVarint(field * 8 + WIRE.varint);
    this.rawVarint(value);
    return this;
  }

  /** A signed int64 varint (negative values take ten bytes, as in ONNX's int64 fields). */
  int64Field(field: number, value: number): this {
    this.rawVarint(field * 8 + WIRE.varint);
    if (value >= 0) this.rawVarint(value);
    else {
      let v = BigInt.asUintN(64, BigInt(value));
      while (v >= 0x80n) {
        this.chunks.push(Number(v & 0x7fn) | 0x80);
        v >>= 7n;
      }
      this.chunks.push(Number(v));
    }
    return this;
  }

  /** A float32 (wire type 5). */
  floatField(field: number, value: number): this {
    this.rawVarint(field * 8 + WIRE.fixed32);
    const b = new Uint8Array(4);
    new DataView(b.buffer).setFloat32(0, value, true);
    for (const x of b) this.chunks.push(x);
    return this;
  }

  bytesField(field: number, bytes: Uint8Array): this {
    this.rawVarint(field * 8 + WIRE.len);
    this.rawVarint(bytes.length);
    for (const x of bytes) this.chunks.push(x);
    return this;
  }

  stringField(field: number, value: string): this {
    return this.bytesField(field, new TextEncoder().encode(value));
  }

  messageField(field: number, message: ProtobufWriter): this {
    return this.bytesField(field, message.finish());
  }

  finish(): Uint8Array {
    return Uint8Array.from(this.chunks);
  }

  private rawVarint(value: number): void {
    if (!Number.isSafeInteger(value) || value < 0) throw new RangeError(`protobuf varint must be a non-negative safe integer, got ${value}`);
    while (value >= 0x80) {
      this.chunks.push((value % 0x80) | 0x80);
      value = Math.floor(value / 0x80);
    }
    this.chunks.push(value);
  }
}
