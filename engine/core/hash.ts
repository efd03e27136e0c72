/**
 * Canonical serialisation and a stable 64-bit state hash.
 *
 * canonicalJson sorts object keys and refuses values JSON cannot carry faithfully (NaN, Infinity,
 * functions, undefined inside arrays), so the same state gives the same text in any process and on
 * any platform. The hash is two independent 32-bit FNV-1a/murmur-finalised lanes over that text,
 * printed as 16 hex digits. It is a fingerprint for determinism checks, not a cryptographic hash.
 */
export function canonicalJson(value: unknown): string {
  const parts: string[] = [];
  write(value, parts, 0);
  return parts.join("");
}

function write(value: unknown, out: string[], depth: number): void {
  if (depth > 256) throw new TypeError("canonicalJson: nesting deeper than 256");
  if (value === null) {
    out.push("null");
    return;
  }
  switch (typeof value) {
    case "number":
      if (!Number.isFinite(value)) throw new TypeError(`canonicalJson: non-finite number ${value}`);
      out.push(Object.is(value, -0) ? "0" : String(value));
      return;
    case "string":
      out.push(JSON.stringify(value));
      return;
    case "boolean":
      out.push(value ? "true" : "false");
      return;
    case "object": {
      if (Array.isArray(value)) {
        out.push("[");
        for (let i = 0; i < value.length; i++) {
          if (i > 0) out.push(",");
          const item = value[i];
          if (item === undefined) throw new TypeError("canonicalJson: undefined inside an array");
          write(item, out, depth + 1);
        }
        out.push("]");
        return;
      }
      if (ArrayBuffer.isView(value)) {
        write(Array.from(value as unknown as ArrayLike<number>), out, depth + 1);
        return;
      }
      const obj = value as Record<string, unknown>;
      const keys = Object.keys(obj)
        .filter((k) => obj[k] !== undefined)
        .sort();
      out.push("{");
      keys.forEach((k, i) => {
        if (i > 0) out.push(",");
        out.push(JSON.stringify(k), ":");
        write(obj[k], out, depth + 1);
      });
      out.push("}");
      return;
    }
    default:
      throw new TypeError(`canonicalJson: cannot serialise a ${typeof value}`);
  }
}

function fmix32(h: number): number {
  h ^= h >>> 16;
  h = Math.imul(h, 0x85ebca6b);
  h ^= h >>> 13;
  h = Math.imul(h, 0xc2b2ae35);
  h ^= h >>> 16;
  return h >>> 0;
}

/** 64-bit fingerprint of a string, as 16 lowercase hex digits. */
export function hashString(text: string): string {
  let h1 = 0x811c9dc5;
  let h2 = 0x9747b28c;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    h1 = Math.imul(h1 ^ c, 0x01000193);
    h2 = Math.imul(h2 ^ c, 0x5bd1e995);
    h2 ^= h2 >>> 15;
  }
  h1 = fmix32(h1 ^ text.length);
  h2 = fmix32(h2 ^ Math.imul(text.length, 0x9e3779b1));
  return h1.toString(16).padStart(8, "0") + h2.toString(16).padStart(8, "0");
}

/** The canonical hash of any plain-data value (a game state, a view, a record). */
export function stateHash(value: unknown): string {
  return hashString(canonicalJson(value));
}
