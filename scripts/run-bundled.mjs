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
 * paths derived from it (models/, cards/) are the checkout's. Each run writes its own files,
 * tagged with its pid (several servers may start at once): the entry and, beside it, the server's
 * session-worker module (workers start from it while the program runs). They are removed at exit;
 * files of killed runs are removed by the next run.
 */
import { execFileSync } from "node:child_process";
import { mkdirSync, readdirSync, rmSync } from "node:fs";
import { createRequire } from "node:module";
import { basename, dirname, join, resolve } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";

const ROOT = fileURLToPath(new URL("..", import.meta.url));
const [entry, ...rest] = process.argv.slice(2);
if (!entry || !entry.endsWith(".ts")) {
  console.error("usage: node scripts/run-bundled.mjs <script.ts> [args...]");
  process.exit(2);
}
const bundles = join(ROOT, ".bundle");
mkdirSync(bundles, { recursive: true });
// Files left by runs that were killed (their process is gone) are removed first.
for (const name of readdirSync(bundles)) {
  const pid = Number(/\.run-(\d+)-\d+\.mjs$/.exec(name)?.[1]);
  if (!Number.isInteger(pid) || pid === process.pid) continue;
  let alive = true;
  try {
    process.kill(pid, 0);
  } catch (e) {
    alive = e.code === "EPERM";
  }
  if (!alive) rmSync(join(bundles, name), { force: true });
}
// <entry>.<tag>.mjs and session-worker.<tag>.mjs side by side, one folder below the checkout.
const tag = `run-${process.pid}-${Date.now()}`;
const outdir = bundles;
const main = basename(entry, ".ts");
const outfile = join(outdir, `${main}.${tag}.mjs`);
// esbuild's own command-line program (the package's bin), so the build runs in a child process.
const esbuild = join(dirname(createRequire(import.meta.url).resolve("esbuild/package.json")), "bin", "esbuild");
execFileSync(
  esbuild,
  [
    `${main}=${resolve(entry)}`,
    // The server's session workers load this module from beside the main bundle (env/server/runtime.ts).
    `session-worker=${join(ROOT, "env", "server", "session-worker.ts")}`,
    `--outdir=${outdir}`,
    `--entry-names=[name].${tag}`,
    "--out-extension:.js=.mjs",
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
    // Whitespace and syntax only (names stay, so stack traces read): the bundle's source is held in
    // the server's heap, and this makes it a third smaller (docs/benchmarks.md, idle memory).
    "--minify-whitespace",
    "--minify-syntax",
    "--log-level=warning",
  ],
  { stdio: ["ignore", "inherit", "inherit"] },
);
// Workers start from these files while the program runs: they are removed when it exits.
process.on("exit", () => {
  for (const name of [outfile, join(outdir, `session-worker.${tag}.mjs`)]) rmSync(name, { force: true });
});
process.argv = [process.argv[0], outfile, ...rest];
await import(pathToFileURL(outfile).href);
