/**
 * Canonical serialisation and a stable 64-bit state hash.
 *
 * canonicalJson sorts object keys and refuses values JSON cannot carry faithfully (NaN, Infinity,
 * functions, undefined inside arrays), so the same state gives the same text in any process and on
 * any platform. The hashes are two independent 32-bit FNV-1a/murmur lanes, printed as 16 hex
 * digits: fingerprints for determinism checks, not cryptographic hashes.
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

/**
 * Why canonicalJson would refuse `value` (its message), or null when it can be written: the same
 * walk and the same refusals, without building the text. A checked apply validates untrusted input
 * with it and writes the text only for an error message.
 */
export function canonicalProblem(value: unknown, depth = 0): string | null {
  if (depth > 256) return "canonicalJson: nesting deeper than 256";
  if (value === null) return null;
  switch (typeof value) {
    case "number":
      return Number.isFinite(value) ? null : `canonicalJson: non-finite number ${value}`;
    case "string":
    case "boolean":
      return null;
    case "object": {
      if (Array.isArray(value)) {
        for (let i = 0; i < value.length; i++) {
          const item: unknown = value[i];
          if (item === undefined) return "canonicalJson: undefined inside an array";
          const problem = canonicalProblem(item, depth + 1);
          if (problem !== null) return problem;
        }
        return null;
      }
      if (ArrayBuffer.isView(value)) return canonicalProblem(Array.from(value as unknown as ArrayLike<number>), depth + 1);
      const obj = value as Record<string, unknown>;
      for (const k of Object.keys(obj)) {
        const item = obj[k];
        if (item === undefined) continue;
        const problem = canonicalProblem(item, depth + 1);
        if (problem !== null) return problem;
      }
      return null;
    }
    default:
      return `canonicalJson: cannot serialise a ${typeof value}`;
  }
}

/**
 * Whether two values have the same canonicalJson, without building either text: the membership
 * test of a checked apply (an untrusted decision against each legal one). Mirrors canonicalJson
 * exactly: object keys in any order, fields whose value is undefined ignored, -0 equal to 0, a typed
 * array equal to the array of its numbers, an array never equal to an object. A value
 * canonicalJson refuses (non-finite numbers, undefined inside an array, functions, nesting deeper
 * than 256) is equal to nothing.
 */
export function canonicalEqual(a: unknown, b: unknown): boolean {
  return sameCanonical(a, b, 0);
}

function sameCanonical(a: unknown, b: unknown, depth: number): boolean {
  if (depth > 256) return false;
  if (a === null || b === null) return a === b;
  switch (typeof a) {
    case "number":
      return typeof b === "number" && a === b && Number.isFinite(a);
    case "string":
    case "boolean":
      return a === b;
    case "object": {
      if (typeof b !== "object") return false;
      const listA = asList(a);
      const listB = asList(b);
      // canonicalJson writes a typed array's numbers one level deeper (the nesting bound counts it).
      const typed = ArrayBuffer.isView(a) || ArrayBuffer.isView(b) ? 1 : 0;
      if (listA !== null || listB !== null) return listA !== null && listB !== null && sameItems(listA, listB, depth + typed);
      return sameFields(a as Record<string, unknown>, b as Record<string, unknown>, depth);
    }
    default:
      return false;
  }
}

/** An array, or a typed array's numbers (canonicalJson writes both as a JSON array); null for an object. */
function asList(v: object): readonly unknown[] | null {
  if (Array.isArray(v)) return v;
  return ArrayBuffer.isView(v) ? Array.from(v as unknown as ArrayLike<number>) : null;
}

function sameItems(a: readonly unknown[], b: readonly unknown[], depth: number): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) {
    // An undefined item (refused by canonicalJson) is equal to nothing: sameCanonical says so.
    if (!sameCanonical(a[i], b[i], depth + 1)) return false;
  }
  return true;
}

/** The same own enumerable keys with a defined value, each with the same canonical value. */
function sameFields(a: Record<string, unknown>, b: Record<string, unknown>, depth: number): boolean {
  const keysB = Object.keys(b);
  let definedB = 0;
  for (const k of keysB) if (b[k] !== undefined) definedB++;

  let definedA = 0;
  for (const k of Object.keys(a)) {
    const va = a[k];
    if (va === undefined) continue;
    definedA++;
    if (!keysB.includes(k) || !sameCanonical(va, b[k], depth + 1)) return false;
  }
  return definedA === definedB;
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

/**
 * The canonical hash of any plain-data value (a game state, a view, a record): 16 hex digits.
 *
 * Walks the value directly instead of building its canonical JSON text (a dcg state is ~7 KB and
 * is hashed after every step in the conformance suite), feeding two 32-bit lanes with a tagged
 * encoding: small integers as one word, other numbers as their shortest decimal text, strings by
 * length and char codes, arrays by length, objects by sorted keys (undefined fields skipped).
 * Equal canonical JSON gives an equal hash; the same refusals as canonicalJson apply.
 */
export function stateHash(value: unknown): string {
  const h = new LaneHasher();
  h.value(value, 0);
  return h.digest();
}

class LaneHasher {
  private h1 = 0x811c9dc5;
  private h2 = 0x9747b28c;
  private n = 0;

  word(x: number): void {
    this.h1 = Math.imul(this.h1 ^ x, 0x01000193);
    let k = Math.imul(x, 0xcc9e2d51);
    k = (k << 15) | (k >>> 17);
    this.h2 ^= Math.imul(k, 0x1b873593);
    this.h2 = (this.h2 << 13) | (this.h2 >>> 19);
    this.h2 = (Math.imul(this.h2, 5) + 0xe6546b64) | 0;
    this.n++;
  }

  text(s: string): void {
    this.word(s.length);
    for (let i = 0; i < s.length; i++) this.word(s.charCodeAt(i));
  }

  value(v: unknown, depth: number): void {
    if (depth > 256) throw new TypeError("stateHash: nesting deeper than 256");
    if (v === null) return this.word(0x6e756c6c);
    switch (typeof v) {
      case "number":
        if (Number.isInteger(v) && v >= -0x80000000 && v <= 0x7fffffff) {
          this.word(1);
          this.word(v | 0);
        } else {
          if (!Number.isFinite(v)) throw new TypeError(`stateHash: non-finite number ${v}`);
          this.word(2);
          this.text(String(v));
        }
        return;
      case "string":
        this.word(3);
        return this.text(v);
      case "boolean":
        return this.word(v ? 5 : 4);
      case "object": {
        if (Array.isArray(v)) {
          this.word(6);
          this.word(v.length);
          for (let i = 0; i < v.length; i++) {
            const item = v[i];
            if (item === undefined) throw new TypeError("stateHash: undefined inside an array");
            this.value(item, depth + 1);
          }
          return;
        }
        if (ArrayBuffer.isView(v)) return this.value(Array.from(v as unknown as ArrayLike<number>), depth);
        const obj = v as Record<string, unknown>;
        const keys = Object.keys(obj).sort();
        this.word(7);
        for (const k of keys) {
          const item = obj[k];
          if (item === undefined) continue;
          this.text(k);
          this.value(item, depth + 1);
        }
        this.word(8);
        return;
      }
      default:
        throw new TypeError(`stateHash: cannot hash a ${typeof v}`);
    }
  }

  digest(): string {
    const a = fmix32(this.h1 ^ this.n);
    const b = fmix32(this.h2 ^ Math.imul(this.n, 0x9e3779b1));
    return a.toString(16).padStart(8, "0") + b.toString(16).padStart(8, "0");
  }
}
