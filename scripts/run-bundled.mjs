/**
 * node scripts/run-bundled.mjs <script.ts> [args...]
 *
 * Runs a TypeScript entry point of this checkout as one plain-JavaScript bundle: esbuild bundles
 * it (and everything it imports, as `npm run build:wheel` does for the wheel's server) into
 * .bundle/ in the checkout, in a child process (its esbuild binary), and the bundle is imported
 * with the remaining arguments: nothing of the build stays in this process. `npm start` and the Python package's embedded server (from a checkout) run
 * the server this way because running it under tsx costs about twice the memory: tsx keeps its
 * module loader and esbuild's transform service in extra threads of the server process (idle RSS
 * measured side by side in docs/benchmarks.md). Bundling takes most of a second.
 *
 * The bundle sits one folder below the checkout, like agents/paths.ts in the source tree, so the
 * paths derived from it (models/, cards/) are the checkout's. Each run writes its own files,
 * tagged with its pid (several servers may start at once): the entry and, beside it, the server's
 * session-worker module (workers start from it while the program runs), and for scripts/arena.ts
 * the arena's pool worker (its --workers N). They are removed at exit;
 * files of killed runs are removed by the next run. Builds are cached in .bundle/cache/ (see the
 * build cache below): a start with nothing changed skips esbuild.
 */
import { spawnSync } from "node:child_process";
import { createHash } from "node:crypto";
import { existsSync, linkSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from "node:fs";
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

/**
 * Stops with one line on stderr and exit 1. A build folder that cannot be written (a read-only
 * checkout, a file in its place) or a build esbuild refused is the user's to fix, not a stack
 * trace to read: the Python package and `npm start` show this line as the reason the server
 * did not start.
 */
function stop(what, e) {
  const code = e !== null && typeof e === "object" && typeof e.code === "string" ? `${e.code}: ` : "";
  console.error(`run-bundled: ${what}${e === undefined ? "" : `: ${code}${e instanceof Error ? e.message : String(e)}`}`);
  process.exit(1);
}

try {
  mkdirSync(bundles, { recursive: true });
} catch (e) {
  stop(`cannot make the build folder ${bundles}`, e);
}
// Files left by runs that were killed (their process is gone) are removed first.
for (const name of readdirSync(bundles)) {
  const pid = Number(/\.run-(\d+)-\d+\.(mjs|json)$/.exec(name)?.[1]);
  if (!Number.isInteger(pid) || pid === process.pid) continue;
  let alive = true;
  try {
    process.kill(pid, 0);
  } catch (e) {
    alive = e.code === "EPERM";
  }
  if (!alive) {
    try {
      rmSync(join(bundles, name), { force: true });
    } catch {
      // Best effort: a folder this user may not write into fails at the build, with its reason.
    }
  }
}
// <entry>.<tag>.mjs and session-worker.<tag>.mjs side by side, one folder below the checkout.
const tag = `run-${process.pid}-${Date.now()}`;
const outdir = bundles;
const main = basename(entry, ".ts");
const outfile = join(outdir, `${main}.${tag}.mjs`);
// esbuild's own command-line program (the package's bin), so the build runs in a child process.
const esbuildPackage = createRequire(import.meta.url).resolve("esbuild/package.json");
const esbuild = join(dirname(esbuildPackage), "bin", "esbuild");
// Worker modules, bundled beside the entry under names of their own: the server's session worker
// for every entry, and the arena's pool worker (scripts/arena/pool.ts, --workers N) for the arena.
const workers = [["session-worker", join(ROOT, "env", "server", "session-worker.ts")]];
if (resolve(entry) === join(ROOT, "scripts", "arena.ts")) workers.push(["arena-worker", join(ROOT, "scripts", "arena", "worker.ts")]);
const entries = [`${main}=${resolve(entry)}`, ...workers.map(([name, file]) => `${name}=${file}`)];
const options = [
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
];
const outputs = [outfile, ...workers.map(([name]) => join(outdir, `${name}.${tag}.mjs`))];

/**
 * The build cache: a bundle is reused while none of its inputs changed. .bundle/<entry>.cache.json
 * names the inputs esbuild read (its metafile: sources and node_modules files) with their size and
 * mtime when built, the esbuild command and version, and the cached outputs. A run whose inputs
 * all still match links the cached outputs under its own tagged names (a hard link: a later
 * rebuild replaces the cache files, never the inode a running server loads); any difference, a
 * missing file or an unreadable record rebuilds. Saves the build (most of a second) on each start.
 */
const cacheDir = join(bundles, "cache");
const record = join(cacheDir, `${main}.json`);
const command = JSON.stringify({ entries, options, esbuild: readFileSync(esbuildPackage, "utf8").length + ":" + statSync(esbuild).size });

function fingerprint(inputs) {
  const parts = [command];
  for (const input of inputs) {
    const st = statSync(resolve(ROOT, input));
    parts.push(`${input}:${st.size}:${st.mtimeMs}`);
  }
  return createHash("sha256").update(parts.join("\n")).digest("hex").slice(0, 16);
}

function fromCache() {
  try {
    const cached = JSON.parse(readFileSync(record, "utf8"));
    if (fingerprint(cached.inputs) !== cached.key) return false;
    cached.files.forEach((file, i) => linkSync(join(cacheDir, file), outputs[i]));
    return true;
  } catch {
    for (const file of outputs) rmSync(file, { force: true });
    return false;
  }
}

function build() {
  const metafile = join(bundles, `.meta.${tag}.json`);
  try {
    // esbuild's messages (warnings, errors) are passed on; on a failure its bin/esbuild launcher
    // adds its own Node stack trace after them, which is cut (it says nothing about the build).
    const args = [...entries, `--outdir=${outdir}`, `--entry-names=[name].${tag}`, "--out-extension:.js=.mjs", `--metafile=${metafile}`, ...options];
    const ran = spawnSync(esbuild, args, { cwd: ROOT, stdio: ["ignore", "inherit", "pipe"], encoding: "utf8" });
    const said = ran.stderr ?? "";
    const launcherTrace = said.search(/^node:(internal|child_process)/m);
    process.stderr.write(launcherTrace < 0 ? said : said.slice(0, launcherTrace).trimEnd() + "\n");
    if (ran.error) throw ran.error;
    if (ran.status !== 0) throw Object.assign(new Error(`esbuild exited ${ran.status ?? ran.signal}`), { status: ran.status });
    // Cache what was built, under names of their own, then the record (renamed into place last).
    const inputs = Object.keys(JSON.parse(readFileSync(metafile, "utf8")).inputs);
    const key = fingerprint(inputs);
    const files = [`${main}.${key}.mjs`, ...workers.map(([name]) => `${main}.${key}.${name}.mjs`)];
    mkdirSync(cacheDir, { recursive: true });
    files.forEach((file, i) => {
      if (!existsSync(join(cacheDir, file))) linkSync(outputs[i], join(cacheDir, file));
    });
    const tmp = join(bundles, `.record.${tag}.json`);
    writeFileSync(tmp, JSON.stringify({ key, inputs, files }));
    renameSync(tmp, record);
    // Older builds of this entry: running programs hold links of their own, so these can go.
    for (const name of readdirSync(cacheDir)) {
      if (name.startsWith(`${main}.`) && name.endsWith(".mjs") && !files.includes(name)) rmSync(join(cacheDir, name), { force: true });
    }
  } catch (e) {
    // The cache is an optimisation: a build that ran is used even if it could not be cached.
    if (!outputs.every((file) => existsSync(file))) throw e;
  } finally {
    rmSync(metafile, { force: true });
  }
}

try {
  if (!fromCache()) build();
} catch (e) {
  // esbuild's own message is already on stderr (inherited); anything else is the folder's.
  if (e !== null && typeof e === "object" && "status" in e) stop(`esbuild could not bundle ${entry} into ${bundles} (its message is above)`);
  stop(`cannot write the bundle of ${entry} into ${bundles}`, e);
}
// Workers start from these files while the program runs: they are removed when it exits.
process.on("exit", () => {
  for (const name of outputs) rmSync(name, { force: true });
});
process.argv = [process.argv[0], outfile, ...rest];
await import(pathToFileURL(outfile).href);
