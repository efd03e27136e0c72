/**
 * node scripts/build-web.mjs [--quiet]
 *
 * Bundles the browser client (web/src/main.ts, which imports the engine directly) into
 * web/dist/app.js with esbuild's command-line program, minified, for the browsers of the last few
 * years (es2020). `npm start` runs it before the server starts (about 0.2 s), and the browser
 * tests run it once in their setup. The server serves the result at `/` (env/server/plugins/web.ts).
 */
import { execFileSync } from "node:child_process";
import { mkdirSync, renameSync, statSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const ROOT = fileURLToPath(new URL("..", import.meta.url));
if (process.argv.includes("--help") || process.argv.includes("-h")) {
  console.log("usage: node scripts/build-web.mjs [--quiet]   (npm run build:web; npm start runs it first)");
  process.exit(0);
}
const quiet = process.argv.includes("--quiet");
const outfile = join(ROOT, "web", "dist", "app.js");
mkdirSync(dirname(outfile), { recursive: true });
const esbuild = join(dirname(createRequire(import.meta.url).resolve("esbuild/package.json")), "bin", "esbuild");
const started = Date.now();
// Built beside it, then renamed into place: a server serving app.js, or another build copying it
// (npm start, the npm package and wheel builds, the tests run several at once), never reads half a file.
const building = `${outfile}.${process.pid}.tmp`;
execFileSync(
  esbuild,
  [
    join(ROOT, "web", "src", "main.ts"),
    `--outfile=${building}`,
    "--bundle",
    "--minify",
    "--platform=browser",
    "--format=esm",
    "--target=es2020",
    "--legal-comments=none",
    "--log-level=warning",
  ],
  { stdio: ["ignore", "inherit", "inherit"] },
);
renameSync(building, outfile);
if (!quiet) console.error(`web client built: web/dist/app.js, ${Math.round(statSync(outfile).size / 1024)} KiB in ${Date.now() - started} ms`);
