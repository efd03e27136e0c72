/**
 * Shared pieces of the browser tests: a real server (tables + the web client) on a loopback port,
 * Debian's Chromium driven by playwright-core, and a console watcher (no console errors allowed).
 */
import { mkdirSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { FastifyInstance } from "fastify";
import { afterAll, beforeAll } from "vitest";
import { chromium, type Browser, type BrowserContext, type Page } from "playwright-core";
import { buildApp } from "../../env/server/index.ts";
import { hangGuard } from "../fixtures/hang-guard.ts";

export const CHROMIUM = process.env.CARDGYM_CHROMIUM ?? "/usr/bin/chromium";
/** The flags every browser test launches with (the project's CI runs as root in a container). */
export const CHROMIUM_FLAGS = [
  "--headless",
  "--no-sandbox",
  "--disable-gpu",
  "--disable-quic",
  "--no-first-run",
  "--disable-background-networking",
  "--disable-component-update",
  "--disable-sync",
];
/**
 * Where the tests' screenshots go with CARDGYM_SCREENSHOTS=1: docs/images/ (shown in the README).
 * Otherwise they are taken and discarded, so a plain test run leaves the checkout and /tmp as they were.
 */
export const IMAGES = process.env.CARDGYM_SCREENSHOTS === "1" ? join(import.meta.dirname, "..", "..", "docs", "images") : null;

export interface Server {
  app: FastifyInstance;
  base: string;
  close(): Promise<void>;
}

export async function startServer(): Promise<Server> {
  const dataDir = mkdtempSync(join(tmpdir(), "cardgym-web-"));
  const app = buildApp({ dataDir });
  const base = await app.listen({ host: "127.0.0.1", port: 0 });
  return {
    app,
    base,
    async close() {
      await app.close();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

export function launch(): Promise<Browser> {
  return chromium.launch({ executablePath: CHROMIUM, args: CHROMIUM_FLAGS, headless: true, timeout: hangGuard() });
}

/** A page whose console errors and uncaught exceptions are collected into `errors`. */
export async function openPage(context: BrowserContext, url: string, errors: string[]): Promise<Page> {
  const page = await context.newPage();
  page.on("console", (m) => {
    if (m.type() === "error") errors.push(`${page.url()}: console: ${m.text()}`);
  });
  page.on("pageerror", (e) => errors.push(`${page.url()}: uncaught: ${e.message}`));
  page.setDefaultTimeout(hangGuard());
  await page.goto(url);
  return page;
}

export async function shot(page: Page, name: string): Promise<void> {
  if (IMAGES === null) {
    await page.screenshot({ fullPage: false });
    return;
  }
  mkdirSync(IMAGES, { recursive: true });
  await page.screenshot({ path: join(IMAGES, `${name}.png`), fullPage: false });
}

export async function api(base: string, method: string, path: string, body?: unknown): Promise<any> {
  const res = await fetch(base + path, {
    method,
    headers: { accept: "application/json", ...(body === undefined ? {} : { "content-type": "application/json" }) },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  const data = await res.json();
  if (!res.ok) throw new Error(`${method} ${path}: ${res.status} ${JSON.stringify(data)}`);
  return data;
}

/** Waits until the table screen shows a frame with a seq other than `seq`, or the seat must decide, or the game is over. */
export async function waitTurn(page: Page): Promise<"mine" | "finished"> {
  await page.waitForSelector('.table-screen[data-my-turn="true"], .table-screen[data-status="finished"]', { timeout: hangGuard() });
  return (await page.getAttribute(".table-screen", "data-status")) === "finished" ? "finished" : "mine";
}

/** The table screen's current seq. */
export async function seqOf(page: Page): Promise<number> {
  return Number(await page.getAttribute(".table-screen", "data-seq"));
}

/** Waits until the table moved past `seq` (the answer was applied) or the game is over. */
export async function moved(page: Page, seq: number): Promise<void> {
  await page.waitForFunction(
    (s) => {
      const el = document.querySelector(".table-screen");
      return !!el && (Number(el.getAttribute("data-seq")) > s || el.getAttribute("data-status") === "finished");
    },
    seq,
    { timeout: hangGuard() },
  );
}

/** One server and one browser for a whole test file: started before its tests, closed after them. */
export function serverAndBrowser(): { readonly server: Server; readonly browser: Browser } {
  let server: Server | undefined;
  let browser: Browser | undefined;
  beforeAll(async () => {
    server = await startServer();
    browser = await launch();
  });
  afterAll(async () => {
    await browser?.close();
    await server?.close();
  });
  return {
    get server() {
      if (!server) throw new Error("the server is not running (use it inside a test)");
      return server;
    },
    get browser() {
      if (!browser) throw new Error("the browser is not running (use it inside a test)");
      return browser;
    },
  };
}
