/**
 * node scripts/build/inprocess.mjs [--out FILE]
 *
 * Bundles env/inprocess.ts (the engine and the server's learning sessions) into one plain script
 * for a JavaScript engine embedded in another process: the Python package's in-process runtime.
 * The script defines one global, `CardgymInProcess`, whose `api` the host calls.
 *
 * Without --out the bundle goes to .bundle/inprocess-<sha256 of its text>.js in this checkout
 * (written once, atomically, so concurrent builds agree) and its path is printed: the Python
 * package runs this at first use, so what it loads is always built from the checkout's engine.
 * `npm run build:wheel` calls bundleInProcess() to ship the bundle inside the wheel.
 *
 * The embedded engine is not Node: imports of node:* modules and of onnxruntime (reached only by
 * the onnx agents, which in-process sessions refuse) resolve to modules whose every function
 * throws, agents/paths.ts to empty resource folders, and the few host objects the bundle uses
 * (TextEncoder, performance) are provided by scripts/build/inprocess-globals.js.
 */
import { build } from "esbuild";
import { createHash } from "node:crypto";
import { mkdirSync, renameSync, writeFileSync, existsSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";

const ROOT = fileURLToPath(new URL("../..", import.meta.url));

/** Stands in for what exists only under Node (see the comment above). */
const notInProcess = {
  name: "not-in-process",
  setup(b) {
    b.onResolve({ filter: /^node:|^onnxruntime/ }, (a) => ({ path: a.path, namespace: "not-in-process" }));
    b.onLoad({ filter: /.*/, namespace: "not-in-process" }, (a) => ({
      contents: `const why = ${JSON.stringify(`${a.path} is not available in process`)};
module.exports = new Proxy({}, { get: (_, key) => (key === "__esModule" ? false : () => { throw new Error(why); }) });`,
      loader: "js",
    }));
    b.onResolve({ filter: /[/\\]paths\.ts$/ }, (a) => (a.resolveDir.replace(/\\/g, "/").endsWith("/agents") ? { path: "agents-paths", namespace: "no-resources" } : undefined));
    b.onLoad({ filter: /.*/, namespace: "no-resources" }, () => ({
      contents: ["PACKAGE_ROOT", "BUILTIN_MODEL_DIR", "DEFAULT_MODEL_DIR", "DEFAULT_CARD_SET_DIR"].map((n) => `export const ${n} = "";`).join("\n"),
      loader: "js",
    }));
  },
};

/** The bundle's text. */
export async function bundleInProcess() {
  const result = await build({
    entryPoints: [join(ROOT, "env", "inprocess.ts")],
    bundle: true,
    write: false,
    format: "iife",
    globalName: "CardgymInProcess",
    platform: "neutral",
    mainFields: ["module", "main"],
    target: "es2022",
    inject: [join(ROOT, "scripts", "build", "inprocess-globals.js")],
    plugins: [notInProcess],
    logLevel: "error",
    legalComments: "none",
  });
  return result.outputFiles[0].text;
}

async function main() {
  const { values } = parseArgs({ options: { out: { type: "string" } } });
  const text = await bundleInProcess();
  let out = values.out;
  if (out === undefined) {
    const folder = join(ROOT, ".bundle");
    mkdirSync(folder, { recursive: true });
    out = join(folder, `inprocess-${createHash("sha256").update(text).digest("hex").slice(0, 16)}.js`);
    if (existsSync(out)) {
      console.log(out);
      return;
    }
  }
  const tmp = `${out}.${process.pid}.tmp`;
  writeFileSync(tmp, text);
  renameSync(tmp, out);
  console.log(out);
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) await main();
