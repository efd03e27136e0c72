/**
 * npm run bench:web [-- --loads N]
 *
 * The browser client's weight and first paint: builds the bundle, serves it from a real server on a
 * loopback port, loads the lobby N times in fresh Chromium contexts (Debian's chromium via
 * playwright-core; scripts/browser-env.sh installs it) and prints the bundle size (raw, gzip) and
 * the first-contentful-paint and lobby-ready times (median, min, max). Figures: docs/benchmarks.md.
 */
import { execFileSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { gzipSync } from "node:zlib";
import { chromium } from "playwright-core";
import { buildApp } from "../env/server/index.ts";
import { intArg, main, parseCli, printUsage } from "./cli.ts";

const FLAGS = [
  "--headless",
  "--no-sandbox",
  "--disable-gpu",
  "--disable-quic",
  "--no-first-run",
  "--disable-background-networking",
  "--disable-component-update",
  "--disable-sync",
];

main(async () => {
  const usage = "npm run bench:web -- [--loads N]";
  const { values } = parseCli(usage, { loads: { type: "string" } });
  if (values.help) return printUsage(usage);
  const loads = intArg(values.loads, "loads", 7, 1, 100);
  const root = join(import.meta.dirname, "..");
  execFileSync(process.execPath, [join(root, "scripts", "build-web.mjs"), "--quiet"], { stdio: "inherit" });
  const bundle = readFileSync(join(root, "web", "dist", "app.js"));
  const css = readFileSync(join(root, "web", "style.css"));
  const dataDir = mkdtempSync(join(tmpdir(), "cardgym-bench-web-"));
  const app = buildApp({ dataDir });
  const base = await app.listen({ host: "127.0.0.1", port: 0 });
  const browser = await chromium.launch({ executablePath: process.env.CARDGYM_CHROMIUM ?? "/usr/bin/chromium", args: FLAGS, headless: true });
  const fcp: number[] = [];
  const ready: number[] = [];
  try {
    for (let i = 0; i < loads; i++) {
      const context = await browser.newContext({ viewport: { width: 1000, height: 720 } });
      const page = await context.newPage();
      await page.goto(base + "/");
      await page.waitForSelector('.lobby[data-ready="true"]');
      const t = await page.evaluate(() => ({
        fcp: performance.getEntriesByName("first-contentful-paint")[0]?.startTime ?? NaN,
        ready: performance.now(),
      }));
      fcp.push(t.fcp);
      ready.push(t.ready);
      await context.close();
    }
  } finally {
    await browser.close();
    await app.close();
    rmSync(dataDir, { recursive: true, force: true });
  }
  const kib = (n: number) => `${(n / 1024).toFixed(1)} KiB`;
  const stats = (xs: number[]) => {
    const s = [...xs].sort((a, b) => a - b);
    return `median ${Math.round(s[Math.floor(s.length / 2)]!)} ms (min ${Math.round(s[0]!)}, max ${Math.round(s[s.length - 1]!)})`;
  };
  console.log(`bundle web/dist/app.js: ${kib(bundle.length)} raw, ${kib(gzipSync(bundle).length)} gzip; style.css ${kib(css.length)}`);
  console.log(`lobby, ${loads} cold loads in fresh contexts: first contentful paint ${stats(fcp)}; lobby ready (games and tables listed) ${stats(ready)}`);
  return 0;
});
