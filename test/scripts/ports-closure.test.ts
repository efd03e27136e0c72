/**
 * env/live reaches env/server only through its port (env/live/ports.ts), also by way of other
 * files: the `cardgym/ports` lint rule sees one file's own imports, so an env/live file importing
 * an env/ file that imports env/server (env/inprocess.ts does) would pass it and still depend on
 * the server's internals. This test follows every import (types and `import()` included) from
 * each env/live file through the tree and fails on any chain that ends in env/server.
 */
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";
import ts from "typescript";
import { describe, expect, it } from "vitest";
import { repoRoot } from "./run-script.ts";

const root = repoRoot.replace(/\/$/, "");
const LIVE = "env/live";
const SERVER = "env/server";

const rel = (abs: string) => relative(root, abs).split("\\").join("/");

/** The repository files a source text imports (relative specifiers that name an existing file). */
function importsOf(abs: string, text: string): string[] {
  return ts
    .preProcessFile(text, true, true)
    .importedFiles.map((f) => f.fileName)
    .filter((spec) => spec.startsWith("."))
    .map((spec) => resolve(dirname(abs), spec))
    .filter((target) => existsSync(target));
}

/**
 * Every chain of imports from `start` (relative to the root; `text` in place of its file on disk)
 * that reaches a file of env/server, shortest first per target, as "a -> b -> c".
 */
function chainsToServer(start: string, text?: string): string[] {
  const first = resolve(root, start);
  const seen = new Set<string>([first]);
  const queue: string[][] = [[first]];
  const found: string[] = [];
  while (queue.length > 0) {
    const chain = queue.shift()!;
    const file = chain[chain.length - 1]!;
    const source = file === first && text !== undefined ? text : readFileSync(file, "utf8");
    for (const target of importsOf(file, source)) {
      if (seen.has(target)) continue;
      seen.add(target);
      const next = [...chain, target];
      // The port itself is the way through; the server's files are where a chain must not end.
      if (rel(target).startsWith(`${SERVER}/`)) found.push(next.map(rel).join(" -> "));
      else queue.push(next);
    }
  }
  return found;
}

describe("env/live reaches env/server only through its port, directly or by way of other files", () => {
  it("no env/live file has a chain of imports that ends in env/server", () => {
    const files = readdirSync(join(root, LIVE), { recursive: true, encoding: "utf8" }).filter((f) => f.endsWith(".ts"));
    expect(files.length).toBeGreaterThan(10);
    expect(files.flatMap((f) => chainsToServer(`${LIVE}/${f}`))).toEqual([]);
  });

  it("finds a chain planted through another env/ file, and a type-only one", () => {
    const path = `${LIVE}/routes.ts`;
    const real = readFileSync(join(root, path), "utf8");
    expect(chainsToServer(path, real)).toEqual([]);
    const through = `${real}\nimport { api } from "../inprocess.ts";\nexport { api };\n`;
    expect(chainsToServer(path, through)).toContain(`${path} -> env/inprocess.ts -> env/server/host-error.ts`);
    const typeOnly = `${real}\nexport type Planted = import("../server/runtime.ts").Runtime;\n`;
    expect(chainsToServer(path, typeOnly)).toContain(`${path} -> env/server/runtime.ts`);
  });
});
