import type { FastifyInstance } from "fastify";
import { Packr, Unpackr } from "msgpackr";

/** A test client speaking the wire protocol: msgpack bodies, tensors decoded to typed arrays. */
const packr = new Packr({ useRecords: false });
const unpackr = new Unpackr({ useRecords: false, mapsAsObjects: true });

export interface WireReply {
  status: number;
  contentType: string;
  raw: Buffer;
  body: any;
}

export type Transport = (
  method: string,
  url: string,
  body?: Buffer,
  headers?: Record<string, string>,
) => Promise<{ status: number; contentType: string; raw: Buffer }>;

export function injectTransport(app: FastifyInstance): Transport {
  return async (method, url, body, headers = {}) => {
    const r = await app.inject({
      method: method as "GET",
      url,
      payload: body,
      headers: { ...(body ? { "content-type": "application/msgpack" } : {}), accept: "application/msgpack", ...headers },
    });
    return { status: r.statusCode, contentType: String(r.headers["content-type"] ?? ""), raw: r.rawPayload };
  };
}

export function fetchTransport(base: string): Transport {
  return async (method, url, body, headers = {}) => {
    const r = await fetch(base + url, {
      method,
      body: body ? new Uint8Array(body) : undefined,
      headers: { ...(body ? { "content-type": "application/msgpack" } : {}), accept: "application/msgpack", ...headers },
    });
    return { status: r.status, contentType: r.headers.get("content-type") ?? "", raw: Buffer.from(await r.arrayBuffer()) };
  };
}

export class Client {
  constructor(private readonly transport: Transport) {}

  async call(method: string, url: string, body?: unknown, headers?: Record<string, string>): Promise<WireReply> {
    const r = await this.transport(method, url, body === undefined ? undefined : packr.pack(body), headers);
    const decoded = r.raw.length > 0 && r.contentType.startsWith("application/msgpack") ? unpackr.unpack(r.raw) : r.raw.toString();
    return { ...r, body: decoded };
  }

  async ok(method: string, url: string, body?: unknown): Promise<any> {
    const r = await this.call(method, url, body);
    if (r.status >= 300) throw new Error(`${method} ${url} -> ${r.status} ${JSON.stringify(r.body)}`);
    return r.body;
  }

  async create(body: Record<string, unknown>): Promise<string> {
    return (await this.ok("POST", "/v1/sessions", body)).session as string;
  }
}

export type Typed = Float32Array | Uint8Array | Int32Array;

/** A wire tensor {dtype, shape, data: bin} as a typed array (copied, so alignment never matters). */
export function tensor(t: { dtype: string; shape: number[]; data: Uint8Array }): Typed {
  const bytes = new Uint8Array(t.data).slice().buffer;
  const n = t.shape.reduce((a, b) => a * b, 1);
  const out = t.dtype === "float32" ? new Float32Array(bytes) : t.dtype === "int32" ? new Int32Array(bytes) : new Uint8Array(bytes);
  if (out.length !== n) throw new Error(`tensor of shape ${t.shape} holds ${out.length} values`);
  return out;
}

/** A seeded chooser of legal actions from a [N, A] mask (xorshift; the test's own stream). */
export function maskedPicker(seed: number): (mask: Uint8Array, numEnvs: number, size: number) => number[] {
  let x = seed | 0 || 1;
  const next = () => {
    x ^= x << 13;
    x ^= x >>> 17;
    x ^= x << 5;
    return x >>> 0;
  };
  return (mask, numEnvs, size) => {
    const out: number[] = [];
    for (let i = 0; i < numEnvs; i++) {
      const legal: number[] = [];
      for (let a = 0; a < size; a++) if (mask[i * size + a]) legal.push(a);
      out.push(legal.length ? legal[next() % legal.length]! : 0);
    }
    return out;
  };
}
