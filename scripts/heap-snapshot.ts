/**
 * A V8 heap snapshot (`v8.writeHeapSnapshot`) read for the benches that ask what holds memory:
 * objects' own sizes summed by kind, and the retained size of every object (what would be freed
 * with it: the bytes of the objects it dominates) from the dominator tree of the strong edges,
 * broken down by the property paths under a set of objects. Benchmark tooling, not a test.
 */
import { readFileSync } from "node:fs";

/** The parts of a snapshot file this reads. */
interface SnapshotFile {
  snapshot: { meta: { node_fields: string[]; node_types: [string[], ...unknown[]]; edge_fields: string[]; edge_types: [string[], ...unknown[]] } };
  nodes: number[];
  edges: number[];
  strings: string[];
}

/** One path's bytes under the objects a breakdown starts from: summed over them, with how many objects it was found under. */
export interface PathBytes {
  readonly path: string;
  /** What the objects at this path retain, and their own sizes, summed over the starting objects. */
  readonly retained: number;
  readonly own: number;
  /** Objects found at this path, summed over the starting objects. */
  readonly objects: number;
  /** The kind of (the first) object found there. */
  readonly kind: string;
}

export class HeapGraph {
  private readonly file: SnapshotFile;
  private readonly nodeWidth: number;
  private readonly edgeWidth: number;
  private readonly at: { type: number; name: number; size: number; edgeCount: number; edgeType: number; edgeName: number; to: number };
  /** Each node's first edge (offset into `edges`); node i's edges end where node i + 1's begin. */
  private readonly firstEdge: Uint32Array;
  private readonly idom: Int32Array;
  private readonly retainedSize: Float64Array;
  private readonly dominated: Map<number, number[]>;

  constructor(path: string) {
    this.file = JSON.parse(readFileSync(path, "utf8")) as SnapshotFile;
    const meta = this.file.snapshot.meta;
    this.nodeWidth = meta.node_fields.length;
    this.edgeWidth = meta.edge_fields.length;
    this.at = {
      type: meta.node_fields.indexOf("type"),
      name: meta.node_fields.indexOf("name"),
      size: meta.node_fields.indexOf("self_size"),
      edgeCount: meta.node_fields.indexOf("edge_count"),
      edgeType: meta.edge_fields.indexOf("type"),
      edgeName: meta.edge_fields.indexOf("name_or_index"),
      to: meta.edge_fields.indexOf("to_node"),
    };
    const n = this.count;
    this.firstEdge = new Uint32Array(n + 1);
    for (let i = 0, e = 0; i < n; i++) {
      this.firstEdge[i] = e;
      e += this.file.nodes[i * this.nodeWidth + this.at.edgeCount]! * this.edgeWidth;
      this.firstEdge[i + 1] = e;
    }
    this.idom = this.dominators();
    this.retainedSize = new Float64Array(n);
    this.dominated = new Map();
    const order = this.postorder();
    for (const v of order) this.retainedSize[v]! += this.ownSize(v);
    for (const v of order) {
      const d = this.idom[v]!;
      if (v === 0 || d < 0) continue;
      this.retainedSize[d]! += this.retainedSize[v]!;
      let list = this.dominated.get(d);
      if (list === undefined) this.dominated.set(d, (list = []));
      list.push(v);
    }
  }

  get count(): number {
    return this.file.nodes.length / this.nodeWidth;
  }

  type(v: number): string {
    return this.file.snapshot.meta.node_types[0][this.file.nodes[v * this.nodeWidth + this.at.type]!] ?? "?";
  }

  name(v: number): string {
    return this.file.strings[this.file.nodes[v * this.nodeWidth + this.at.name]!] ?? "?";
  }

  ownSize(v: number): number {
    return this.file.nodes[v * this.nodeWidth + this.at.size]!;
  }

  retained(v: number): number {
    return this.retainedSize[v]!;
  }

  /** An object's kind: "type:name" for objects, closures, arrays and V8's internals, the type alone for strings and numbers (their name is their value). */
  kind(v: number): string {
    const type = this.type(v);
    return type === "string" || type === "concatenated string" || type === "sliced string" || type === "number" ? type : `${type}:${this.name(v)}`;
  }

  /** Own sizes summed by kind over the whole heap. */
  sizesByKind(): Map<string, number> {
    const out = new Map<string, number>();
    for (let v = 0; v < this.count; v++) {
      const k = this.kind(v);
      out.set(k, (out.get(k) ?? 0) + this.ownSize(v));
    }
    return out;
  }

  /** The first node of `type` named `name` (a constructor's name for objects). */
  find(type: string, name: string): number | null {
    for (let v = 0; v < this.count; v++) if (this.type(v) === type && this.name(v) === name) return v;
    return null;
  }

  /** The edges of `v` as (label, target): property names, "[]" for elements, "#n" for V8's hidden ones. */
  *edges(v: number): Generator<[string, number]> {
    const types = this.file.snapshot.meta.edge_types[0];
    for (let e = this.firstEdge[v]!; e < this.firstEdge[v + 1]!; e += this.edgeWidth) {
      const type = types[this.file.edges[e + this.at.edgeType]!];
      const nameOrIndex = this.file.edges[e + this.at.edgeName]!;
      const label = type === "element" ? "[]" : type === "hidden" ? `#${nameOrIndex}` : (this.file.strings[nameOrIndex] ?? "?");
      yield [label, this.file.edges[e + this.at.to]! / this.nodeWidth];
    }
  }

  /** The target of `v`'s edge labelled `label`, or null. */
  child(v: number, label: string): number | null {
    for (const [l, w] of this.edges(v)) if (l === label) return w;
    return null;
  }

  /**
   * What `starts` retain, broken down along the dominator tree to `depth` levels: each object an
   * object dominates, at the path of the edge that leads there from it (or "~kind" when it is
   * reached through objects it also dominates, as something shared by two of its fields), with
   * element indices written "[]" so the same path of every start adds up.
   */
  breakdown(starts: readonly number[], depth: number): PathBytes[] {
    const sums = new Map<string, { retained: number; own: number; objects: number; kind: string }>();
    const walk = (v: number, path: string, level: number): void => {
      let s = sums.get(path);
      if (s === undefined) sums.set(path, (s = { retained: 0, own: 0, objects: 0, kind: this.kind(v) }));
      s.retained += this.retained(v);
      s.own += this.ownSize(v);
      s.objects++;
      if (level >= depth) return;
      const labels = new Map<number, string>();
      for (const [l, w] of this.edges(v)) if (!labels.has(w)) labels.set(w, l);
      for (const w of this.dominated.get(v) ?? []) walk(w, `${path}.${labels.get(w) ?? `~${this.kind(w).slice(0, 40)}`}`, level + 1);
    };
    for (const v of starts) walk(v, "", 0);
    return [...sums].map(([path, s]) => ({ path, ...s }));
  }

  /** Nodes in postorder of a depth-first walk of the strong edges from the root (node 0). */
  private postorder(): number[] {
    const n = this.count;
    const seen = new Uint8Array(n);
    const next = new Uint32Array(n);
    const out: number[] = [];
    const stack = [0];
    seen[0] = 1;
    next[0] = this.firstEdge[0]!;
    while (stack.length > 0) {
      const v = stack[stack.length - 1]!;
      let pushed = false;
      while (next[v]! < this.firstEdge[v + 1]!) {
        const e = next[v]!;
        next[v] = e + this.edgeWidth;
        if (!this.strong(e)) continue;
        const w = this.file.edges[e + this.at.to]! / this.nodeWidth;
        if (seen[w]) continue;
        seen[w] = 1;
        next[w] = this.firstEdge[w]!;
        stack.push(w);
        pushed = true;
        break;
      }
      if (!pushed) {
        stack.pop();
        out.push(v);
      }
    }
    return out;
  }

  /** Weak and shortcut edges retain nothing. */
  private strong(e: number): boolean {
    const type = this.file.snapshot.meta.edge_types[0][this.file.edges[e + this.at.edgeType]!];
    return type !== "weak" && type !== "shortcut";
  }

  /** Immediate dominators (Cooper, Harvey and Kennedy's iterative algorithm over reverse postorder); -1 where unreachable. */
  private dominators(): Int32Array {
    const n = this.count;
    const post = this.postorder();
    const rank = new Int32Array(n).fill(-1);
    post.forEach((v, i) => (rank[v] = i));
    const predStart = new Uint32Array(n + 1);
    for (let v = 0; v < n; v++)
      for (let e = this.firstEdge[v]!; e < this.firstEdge[v + 1]!; e += this.edgeWidth)
        if (this.strong(e)) predStart[this.file.edges[e + this.at.to]! / this.nodeWidth + 1]!++;
    for (let i = 0; i < n; i++) predStart[i + 1]! += predStart[i]!;
    const preds = new Uint32Array(predStart[n]!);
    const fill = predStart.slice();
    for (let v = 0; v < n; v++)
      for (let e = this.firstEdge[v]!; e < this.firstEdge[v + 1]!; e += this.edgeWidth)
        if (this.strong(e)) preds[fill[this.file.edges[e + this.at.to]! / this.nodeWidth]!++] = v;
    const idom = new Int32Array(n).fill(-1);
    idom[0] = 0;
    const intersect = (a: number, b: number): number => {
      while (a !== b) {
        while (rank[a]! < rank[b]!) a = idom[a]!;
        while (rank[b]! < rank[a]!) b = idom[b]!;
      }
      return a;
    };
    for (let changed = true; changed;) {
      changed = false;
      for (let k = post.length - 2; k >= 0; k--) {
        const v = post[k]!;
        let d = -1;
        for (let p = predStart[v]!; p < predStart[v + 1]!; p++) {
          const u = preds[p]!;
          if (rank[u]! < 0 || idom[u]! < 0) continue;
          d = d < 0 ? u : intersect(u, d);
        }
        if (d >= 0 && idom[v] !== d) {
          idom[v] = d;
          changed = true;
        }
      }
    }
    return idom;
  }
}
