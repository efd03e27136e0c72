/**
 * node scripts/run-bundled.mjs <script.ts> [args...]
 *
 * Runs a TypeScript entry point of this checkout as one plain-JavaScript bundle: esbuild bundles
 * it (and everything it imports, as `npm run build:wheel` does for the wheel's server) into
 * .bundle/ in the checkout, in a child process (its esbuild binary), and the bundle is imported
 * with the remaining arguments: nothing of the build stays in this process. `npm start` and the Python package's embedded server (from a checkout) run
 * the server this way because running it under tsx costs about twice the memory: tsx keeps its
 * module loader and esbuild's transform service in extra threads of the server process (idle RSS
 * measured side by side in docs/benchmarks.md). Bundling takes well under a second.
 *
 * The bundle sits one folder below the checkout, like agents/paths.ts in the source tree, so the
 * paths derived from it (models/, cards/) are the checkout's. Each run writes its own file and
 * removes it once imported (several servers may start at once).
 */
import { execFileSync } from "node:child_process";
import { mkdirSync, rmSync } from "node:fs";
import { createRequire } from "node:module";
import { basename, dirname, join, resolve } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";

const ROOT = fileURLToPath(new URL("..", import.meta.url));
const [entry, ...rest] = process.argv.slice(2);
if (!entry || !entry.endsWith(".ts")) {
  console.error("usage: node scripts/run-bundled.mjs <script.ts> [args...]");
  process.exit(2);
}
const outdir = join(ROOT, ".bundle");
mkdirSync(outdir, { recursive: true });
const outfile = join(outdir, `${basename(entry, ".ts")}-${process.pid}-${Date.now()}.mjs`);
// esbuild's own command-line program (the package's bin), so the build runs in a child process.
const esbuild = join(dirname(createRequire(import.meta.url).resolve("esbuild/package.json")), "bin", "esbuild");
execFileSync(
  esbuild,
  [
    resolve(entry),
    `--outfile=${outfile}`,
    "--bundle",
    "--platform=node",
    "--format=esm",
    "--target=node20",
    // A native addon (loaded on first use only) and msgpackr's optional native accelerator.
    "--external:onnxruntime-node",
    "--external:msgpackr-extract",
    // Bundled CommonJS dependencies call require(); give the ES module one.
    "--banner:js=import { createRequire as __cgCreateRequire } from 'node:module'; const require = __cgCreateRequire(import.meta.url);",
    "--legal-comments=none",
    "--log-level=warning",
  ],
  { stdio: ["ignore", "inherit", "inherit"] },
);
process.argv = [process.argv[0], outfile, ...rest];
try {
  await import(pathToFileURL(outfile).href);
} finally {
  rmSync(outfile, { force: true });
}
