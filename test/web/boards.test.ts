/**
 * The other boards, played by clicking (Shephy's field and hand, BlackPoker's zones), and Watch:
 * a bot-only table at a phone's width, paused, stepped and played live.
 */
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { Browser, Page } from "playwright-core";
import { api, launch, moved, openPage, seqOf, shot, startServer, waitTurn, type Server } from "./browser.ts";

let server: Server;
let browser: Browser;
const errors: string[] = [];

beforeAll(async () => {
  server = await startServer();
  browser = await launch();
});
afterAll(async () => {
  await browser?.close();
  await server?.close();
});

/** Clicks a board element that offers a decision (a one-option button), else the list's first option. */
async function clickSomething(page: Page, board: string, avoid: RegExp | null = null): Promise<"board" | "list"> {
  const spots = page.locator(`${board} button.can:not([aria-pressed])`);
  const n = await spots.count();
  for (let i = 0; i < n; i++) {
    const title = (await spots.nth(i).getAttribute("title")) ?? "";
    if (avoid && avoid.test(title)) continue;
    await spots.nth(i).click();
    return "board";
  }
  const texts = await page.locator("ol.options button").allTextContents();
  const k = avoid ? Math.max(0, texts.findIndex((t) => !avoid.test(t))) : 0;
  await page.locator("ol.options button").nth(k).click();
  return "list";
}

async function playSome(page: Page, board: string, decisions: number, avoid: RegExp | null = null): Promise<{ board: number; list: number }> {
  const used = { board: 0, list: 0 };
  for (let i = 0; i < decisions; i++) {
    if ((await waitTurn(page)) === "finished") break;
    const seq = await seqOf(page);
    used[await clickSomething(page, board, avoid)]++;
    // A choice among several options opens a short list; take its first entry.
    if ((await page.locator("ol.options button").count()) > 0 && (await page.getAttribute(".table-screen", "data-seq")) === String(seq) && (await page.locator("text=Choose one").count()) > 0) {
      await page.locator("ol.options button").first().click();
    }
    await moved(page, seq);
  }
  return used;
}

describe("boards and watching in the browser", () => {
  it("Shephy: a person plays by clicking the hand and the field", async () => {
    const made = await api(server.base, "POST", "/v1/tables", { game: "shephy", seats: ["human"], seed: 3 });
    const ctx = await browser.newContext({ viewport: { width: 1000, height: 640 } });
    const page = await openPage(ctx, `${server.base}/#/play/${made.table}/0?token=${made.tokens["0"]}`, errors);
    await page.waitForSelector(".board.shephy");
    const used = await playSome(page, ".board.shephy", 8);
    expect(used.board).toBeGreaterThan(0);
    await waitTurn(page);
    await shot(page, "shephy");
    await ctx.close();
    expect(errors).toEqual([]);
  });

  it("BlackPoker: a person plays against the computer agent", async () => {
    const made = await api(server.base, "POST", "/v1/tables", { game: "blackpoker", seats: ["human", "computer"], seed: 4 });
    const ctx = await browser.newContext({ viewport: { width: 1000, height: 760 } });
    const page = await openPage(ctx, `${server.base}/#/play/${made.table}/0?token=${made.tokens["0"]}`, errors);
    await page.waitForSelector(".board.blackpoker");
    const used = await playSome(page, ".board.blackpoker", 12, /^seat \d passes/);
    expect(used.board + used.list).toBeGreaterThan(0);
    await shot(page, "blackpoker");
    await ctx.close();
    expect(errors).toEqual([]);
  });

  it("Watch: a bot-only table at phone width, paused, stepped, then live to the end", async () => {
    const made = await api(server.base, "POST", "/v1/tables", {
      game: "sevens",
      seats: ["computer", "random", "computer", "random"],
      seed: 9,
      facilitator: "audience",
      deadlines: { botDelayMs: 150 },
    });
    const ctx = await browser.newContext({ viewport: { width: 390, height: 800 }, isMobile: true });
    const page = await openPage(ctx, `${server.base}/#/watch/${made.table}`, errors);
    await page.waitForSelector(".board.sevens");
    // Readable at phone width: nothing sticks out sideways.
    expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(391);
    await page.click('[data-speed="paused"]');
    const held = await seqOf(page);
    await page.waitForTimeout(600);
    expect(await seqOf(page)).toBe(held);
    await page.waitForSelector("text=/queued/");
    await page.click('[data-speed="step"]');
    await page.waitForFunction((s) => Number(document.querySelector(".table-screen")?.getAttribute("data-seq")) > s, held);
    await shot(page, "watch-phone");
    await page.click('[data-speed="live"]');
    await page.waitForSelector('.table-screen[data-status="finished"]', { timeout: 60_000 });
    expect((await page.locator(".table-screen ol.log li").count()) > 10).toBe(true);
    await ctx.close();
    expect(errors).toEqual([]);
  });
});
