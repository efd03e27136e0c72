/**
 * `npm run build:npm`: builds the npm package in build/npm (compiled JavaScript, type declarations,
 * the shipped models) and, with --pack, packs it into build/cardgym-<version>.tgz with `npm pack`.
 * Development keeps running the TypeScript sources through tsx; only this script compiles.
 *
 * The package's root mirrors the source tree (engine/, agents/, env/, scripts/, models/), so every
 * resource path derived from agents/paths.ts resolves the same way in both (docs/api.md).
 *
 * onnxruntime-node travels inside the package (bundleDependencies) without its install script: that
 * script downloads CUDA libraries from NuGet on Linux x64 (a CPU-only user never needs them) and
 * fails where only the npm registry is reachable, which failed `npm install` of the whole package on
 * every npm that runs dependencies' install scripts. Its CPU binaries are in its package anyway.
 */
import { execFileSync } from "node:child_process";
import { chmodSync, copyFileSync, cpSync, existsSync, mkdirSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join, relative, resolve, sep } from "node:path";
import { fileURLToPath } from "node:url";
import { main, parseCli, printUsage } from "../cli.ts";
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

/** Dependencies that travel inside the package, copied from node_modules (see the header). */
const BUNDLED = ["onnxruntime-node", "onnxruntime-common"] as const;
/** What of onnxruntime-node runs: its JavaScript and every platform's binaries, not its install script. */
const ORT_RUNTIME_FILES = ["README.md", "dist", "bin"];

/**
 * The programs behind the `cardgym` bin (scripts/cardgym.ts dispatches to them), and the worker
 * entries that are started by file, which no import reaches: the server's session worker and the
 * arena's `--workers` worker.
 */
const PROGRAMS = [
  "scripts/cardgym.ts",
  "scripts/serve.ts",
  "scripts/play.ts",
  "scripts/arena.ts",
  "scripts/replay.ts",
  "env/server/session-worker.ts",
  "scripts/arena/worker.ts",
];

function tsc(files: readonly string[], declaration: boolean): void {
  const config = join(ROOT, "build", `tsconfig.${declaration ? "lib" : "bin"}.json`);
  const compilerOptions = { noEmit: false, outDir: OUT, rootDir: ROOT, declaration, rewriteRelativeImportExtensions: true, sourceMap: false };
  writeFileSync(config, JSON.stringify({ extends: join(ROOT, "tsconfig.json"), compilerOptions, include: [], files: files.map((f) => join(ROOT, f)) }, null, 2));
  execFileSync(process.execPath, [join(ROOT, "node_modules", "typescript", "bin", "tsc"), "-p", config], { stdio: "inherit" });
}

interface Manifest {
  readonly version: string;
  readonly scripts?: Record<string, string>;
  readonly devDependencies?: Record<string, string>;
}

/** A bundled dependency's manifest as it travels: no lifecycle scripts, only the dependencies it runs with. */
function writeManifest(dir: string, manifest: Manifest, dependencies: Record<string, string>): void {
  const { scripts: _scripts, devDependencies: _dev, ...kept } = manifest;
  writeFileSync(join(dir, "package.json"), JSON.stringify({ ...kept, dependencies }, null, 2) + "\n");
}

/**
 * Copies onnxruntime-node and onnxruntime-common into the package's own node_modules. Neither copy
 * keeps lifecycle scripts; onnxruntime-node keeps no dependency but onnxruntime-common (its other
 * two, global-agent and adm-zip, serve only the install script's download).
 */
function bundleOnnxRuntime(): Record<string, string> {
  const from = (name: string) => join(ROOT, "node_modules", name);
  const to = (name: string) => join(OUT, "node_modules", name);
  const manifest = (name: string) => JSON.parse(readFileSync(join(from(name), "package.json"), "utf8")) as Manifest;
  const ort = manifest("onnxruntime-node");
  const common = manifest("onnxruntime-common");
  for (const f of ORT_RUNTIME_FILES) cpSync(join(from("onnxruntime-node"), f), join(to("onnxruntime-node"), f), { recursive: true, filter: (p) => !p.endsWith(".map") });
  writeManifest(to("onnxruntime-node"), ort, { "onnxruntime-common": common.version });
  cpSync(join(from("onnxruntime-common"), "dist"), join(to("onnxruntime-common"), "dist"), { recursive: true, filter: (p) => !p.endsWith(".map") });
  copyFileSync(join(from("onnxruntime-common"), "README.md"), join(to("onnxruntime-common"), "README.md"));
  writeManifest(to("onnxruntime-common"), common, {});
  return { "onnxruntime-node": ort.version, "onnxruntime-common": common.version };
}

/**
 * The package README is docs/api.md: its relative links are rewritten to point into the package,
 * and a link to a file the package does not ship fails the build (a README must not link nothing).
 */
function packageReadme(): string {
  const docs = join(ROOT, "docs");
  return readFileSync(join(docs, "api.md"), "utf8").replace(/\]\(([^)#\s]+)\)/g, (link, target: string) => {
    if (/^[a-z]+:/i.test(target)) return link;
    const inPackage = relative(ROOT, resolve(docs, target));
    if (!existsSync(join(OUT, inPackage))) throw new Error(`docs/api.md links ${target}, which the npm package does not ship`);
    return `](${inPackage.split(sep).join("/")})`;
  });
}

main(() => {
  // `npm run build:npm` passes --pack itself: `npm run build:npm -- --help` arrives as `--pack --help`.
  const usage = "npm run build:npm (builds build/npm and packs it)  |  tsx scripts/build/npm-package.ts [--pack]";
  const { values } = parseCli(usage, { pack: { type: "boolean" } });
  if (values.help) return printUsage(usage);
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
  mkdirSync(join(OUT, "scripts", "examples"), { recursive: true });
  copyFileSync(join(ROOT, "scripts", "examples", "game-loop.mjs"), join(OUT, "scripts", "examples", "game-loop.mjs"));
  writeFileSync(join(OUT, "README.md"), packageReadme());
  const bundled = bundleOnnxRuntime();
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
    dependencies: { ...root.dependencies, ...bundled },
    bundleDependencies: [...BUNDLED],
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
