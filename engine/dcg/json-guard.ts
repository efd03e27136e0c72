/**
 * A first pass over untrusted card JSON, before any compiler reads it: plain JSON values only,
 * no prototype-poisoning keys, bounded nesting and size. Iterative (an absurdly deep document
 * cannot overflow the stack) and it stops at the first problem, naming its JSON path.
 */
export const FORBIDDEN_KEYS: readonly string[] = ["__proto__", "constructor", "prototype"];

export interface JsonLimits {
  /** Deepest nesting of arrays and objects. */
  readonly depth: number;
  /** Values (objects, arrays, scalars) in all. */
  readonly nodes: number;
  /** Longest string. */
  readonly string: number;
  /** Longest array, most keys in an object. */
  readonly items: number;
}

/** Generous for real cards (a card nests about 10 deep), small enough to refuse abuse quickly. */
export const CARD_LIMITS: JsonLimits = { depth: 32, nodes: 200_000, string: 1_000, items: 1_000 };

const key = (k: string) => (/^[A-Za-z_$][\w$]*$/.test(k) ? `.${k}` : `[${JSON.stringify(k)}]`);

export function guardJson(root: unknown, rootPath: string, limits: JsonLimits = CARD_LIMITS): string | null {
  const stack: [unknown, string, number][] = [[root, rootPath, 0]];
  let nodes = 0;
  for (let top = stack.pop(); top !== undefined; top = stack.pop()) {
    const [v, path, depth] = top;
    if (++nodes > limits.nodes) return `${rootPath}: more than ${limits.nodes} JSON values`;
    if (v === null || typeof v === "boolean") continue;
    if (typeof v === "number") {
      if (!Number.isFinite(v)) return `${path}: not a finite number`;
      continue;
    }
    if (typeof v === "string") {
      if (v.length > limits.string) return `${path}: string longer than ${limits.string} characters`;
      continue;
    }
    if (typeof v !== "object") return `${path}: not a JSON value (${typeof v})`;
    if (depth >= limits.depth) return `${path}: nested deeper than ${limits.depth} levels`;
    if (Array.isArray(v)) {
      if (v.length > limits.items) return `${path}: array longer than ${limits.items} items`;
      for (let i = v.length - 1; i >= 0; i--) stack.push([v[i], `${path}[${i}]`, depth + 1]);
      continue;
    }
    const proto = Object.getPrototypeOf(v);
    if (proto !== Object.prototype && proto !== null) return `${path}: not a plain JSON object`;
    const keys = Object.keys(v);
    if (keys.length > limits.items) return `${path}: more than ${limits.items} keys`;
    for (const k of keys) if (FORBIDDEN_KEYS.includes(k)) return `${path}${key(k)}: forbidden key ${JSON.stringify(k)} (prototype poisoning)`;
    for (const k of keys.reverse()) stack.push([(v as Record<string, unknown>)[k], `${path}${key(k)}`, depth + 1]);
  }
  return null;
}
