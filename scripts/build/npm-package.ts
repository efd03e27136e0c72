/**
 * `npm run build:npm`: builds the npm package in build/npm (compiled JavaScript, type declarations,
 * the shipped models) and, with --pack, packs it into build/cardgym-<version>.tgz with `npm pack`.
 * Development keeps running the TypeScript sources through tsx; only this script compiles.
 *
 * The package's root mirrors the source tree (engine/, agents/, env/, scripts/, models/), so every
 * resource path derived from agents/paths.ts resolves the same way in both (docs/api.md).
 */
import { execFileSync } from "node:child_process";
import { chmodSync, copyFileSync, cpSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { main, parseCli } from "../cli.ts";
import { copyWebClient } from "./web-client.ts";

const ROOT = fileURLToPath(new URL("../..", import.meta.url));
const OUT = join(ROOT, "build", "npm");

/** The public entry points: each is a subpath of the package's exports map (docs/api.md). */
export const ENTRY_POINTS = {
  ".": "env/api",
  "./engine": "engine/index",
  "./agents": "agents/index",
  "./server": "env/server/index",
} as const;

/** The programs behind the `cardgym` bin (scripts/cardgym.ts dispatches to them), and the server's session-worker entry (started by file). */
const PROGRAMS = ["scripts/cardgym.ts", "scripts/serve.ts", "scripts/play.ts", "scripts/arena.ts", "scripts/replay.ts", "env/server/session-worker.ts"];

function tsc(files: readonly string[], declaration: boolean): void {
  const config = join(ROOT, "build", `tsconfig.${declaration ? "lib" : "bin"}.json`);
  const compilerOptions = { noEmit: false, outDir: OUT, rootDir: ROOT, declaration, rewriteRelativeImportExtensions: true, sourceMap: false };
  writeFileSync(config, JSON.stringify({ extends: join(ROOT, "tsconfig.json"), compilerOptions, include: [], files: files.map((f) => join(ROOT, f)) }, null, 2));
  execFileSync(process.execPath, [join(ROOT, "node_modules", "typescript", "bin", "tsc"), "-p", config], { stdio: "inherit" });
}

main(() => {
  const { values } = parseCli("npm run build:npm [-- --pack]", { pack: { type: "boolean" } });
  const root = JSON.parse(readFileSync(join(ROOT, "package.json"), "utf8")) as { version: string; description: string; engines: Record<string, string>; dependencies: Record<string, string> };
  rmSync(OUT, { recursive: true, force: true });
  mkdirSync(OUT, { recursive: true });
  tsc(Object.values(ENTRY_POINTS).map((e) => `${e}.ts`), true);
  tsc(PROGRAMS, false);
  chmodSync(join(OUT, "scripts", "cardgym.js"), 0o755);
  cpSync(join(ROOT, "models", "builtin"), join(OUT, "models", "builtin"), { recursive: true });
  copyWebClient(OUT);
  mkdirSync(join(OUT, "cards"), { recursive: true });
  // The card-set directory with its README and the shipped sets (cards/*.json: the vocabulary set).
  for (const f of readdirSync(join(ROOT, "cards")).filter((f) => f === "README.md" || f.endsWith(".json")))
    copyFileSync(join(ROOT, "cards", f), join(OUT, "cards", f));
  copyFileSync(join(ROOT, "docs", "api.md"), join(OUT, "README.md"));
  const exportsMap: Record<string, unknown> = {};
  for (const [subpath, entry] of Object.entries(ENTRY_POINTS)) exportsMap[subpath] = { types: `./${entry}.d.ts`, default: `./${entry}.js` };
  exportsMap["./package.json"] = "./package.json";
  const pkg = {
    name: "cardgym",
    version: root.version,
    description: root.description,
    type: "module",
    engines: root.engines,
    main: "./env/api.js",
    types: "./env/api.d.ts",
    exports: exportsMap,
    bin: { cardgym: "./scripts/cardgym.js" },
    files: ["engine", "agents", "env", "scripts", "models", "cards", "web", "README.md"],
    dependencies: root.dependencies,
    license: "UNLICENSED",
  };
  writeFileSync(join(OUT, "package.json"), JSON.stringify(pkg, null, 2) + "\n");
  rmSync(join(ROOT, "build", "tsconfig.lib.json"));
  rmSync(join(ROOT, "build", "tsconfig.bin.json"));
  console.log(`built the npm package in ${OUT}`);
  if (values.pack) {
    const name = execFileSync("npm", ["pack", "--silent", "--pack-destination", join(ROOT, "build")], { cwd: OUT, encoding: "utf8" }).trim().split("\n").pop();
    console.log(`packed build/${name}`);
  }
});
