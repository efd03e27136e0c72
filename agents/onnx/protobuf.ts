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
  ) {
    this.pos = start;
  }

  atEnd(): boolean {
    return this.pos >= this.end;
  }

  /** Varints up to 2^53 (larger ones are refused: no ONNX field we read needs them). */
  varint(): number {
    let result = 0;
    let scale = 1;
    for (let i = 0; i < 10; i++) {
      if (this.pos >= this.end) throw new ProtobufError(`varint runs past the end at byte ${this.pos}`, true);
      const b = this.buf[this.pos++]!;
      result += (b & 0x7f) * scale;
      if ((b & 0x80) === 0) {
        if (!Number.isSafeInteger(result)) throw new ProtobufError(`varint at byte ${this.pos} is larger than 2^53`, false);
        return result;
      }
      scale *= 128;
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
export function readFields(bytes: Uint8Array): Field[] {
  const r = new ProtobufReader(bytes);
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

  bytesField(field: number, bytes: Uint8Array): this {
    this.rawVarint(field * 8 + WIRE.len);
    this.rawVarint(bytes.length);
    for (let i = 0; i < bytes.length; i++) this.chunks.push(bytes[i]!);
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
