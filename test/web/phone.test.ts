/**
 * Every screen at a phone's size (390 x 844): the lobby with a table list, play for each game,
 * watch, replay and the results. Nothing may scroll sideways: the page's scroll width stays
 * within its width and no element reaches past the viewport's edges. Play repeats what happened
 * since your last move above the board (the log is far below it at this width).
 */
import { describe, expect, it } from "vitest";
import type { Page } from "playwright-core";
import { api, openPage, serverAndBrowser, shot } from "./browser.ts";

const env = serverAndBrowser();
const errors: string[] = [];

/** The page's horizontal extent and the elements that reach past the viewport (tag.class "text"). */
async function sideways(page: Page): Promise<{ scrollWidth: number; clientWidth: number; wide: string[] }> {
  return page.evaluate(() => {
    const se = document.scrollingElement!;
    const vw = se.clientWidth;
    const wide: string[] = [];
    for (const el of document.querySelectorAll("body *")) {
      const r = el.getBoundingClientRect();
      if (r.width === 0 || r.height === 0) continue;
      if (r.right > vw + 0.5 || r.left < -0.5) {
        wide.push(
          `${el.tagName.toLowerCase()}.${String(el.className).split(" ").join(".")} [${Math.round(r.left)}..${Math.round(r.right)}] "${(el.textContent ?? "").slice(0, 40)}"`,
        );
      }
    }
    return { scrollWidth: se.scrollWidth, clientWidth: vw, wide: wide.slice(0, 8) };
  });
}

async function expectNoSideways(page: Page, screen: string): Promise<void> {
  const s = await sideways(page);
  expect.soft(s.wide, `${screen}: elements past the viewport`).toEqual([]);
  expect.soft(s.scrollWidth, `${screen}: page scroll width`).toBeLessThanOrEqual(s.clientWidth);
}

/** Waits (long poll on the spectator route) until the table is finished. */
async function finished(table: string): Promise<void> {
  let since = 0;
  for (let i = 0; i < 100_000; i++) {
    const f = await api(env.server.base, "GET", `/v1/tables/${table}/spectate?since=${since}&wait=20000`);
    if (f.status === "finished") return;
    since = f.seq;
  }
  throw new Error(`table ${table} did not finish`);
}

/** Plays a seat over the HTTP fallback (first legal decision each time) until the game ends. */
async function playOut(table: string, seat: number, token: string): Promise<void> {
  const headers = { "x-seat-token": token, accept: "application/json" };
  let since = -1;
  for (let i = 0; i < 2000; i++) {
    const res = await fetch(`${env.server.base}/v1/tables/${table}/seats/${seat}/frame?since=${Math.max(0, since)}&wait=20000`, { headers });
    const f = await res.json();
    if (f.status === "finished") return;
    since = f.seq;
    if (f.decisions.length === 0) continue;
    await fetch(`${env.server.base}/v1/tables/${table}/seats/${seat}/answer`, {
      method: "POST",
      headers: { ...headers, "content-type": "application/json" },
      body: JSON.stringify({ seq: f.seq, decisionId: f.decisions[0].id }),
    });
  }
  throw new Error("the game did not end");
}

const play = (made: { table: string; tokens: Record<string, string> }, seat = 0) =>
  `${env.server.base}/#/play/${made.table}/${seat}?token=${made.tokens[String(seat)]}`;

describe("phone size (390 x 844): no sideways scroll on any screen", () => {
  it("lobby with a table list, play in every game, watch, replay and results", async () => {
    const create = (body: unknown) => api(env.server.base, "POST", "/v1/tables", body);
    const sevens = await create({ game: "sevens", seats: ["human", "computer", "mcts:iters=200", "random", "open:computer"], seed: 3 });
    const dcg = await create({ game: "dcg", seats: ["human", "onnx:builtin/dcg-ppo-v1"], seed: 5 });
    const shephy = await create({ game: "shephy", seats: ["human"], seed: 2 });
    const blackpoker = await create({ game: "blackpoker", seats: ["human", "computer"], seed: 4 });
    const watched = await create({ game: "sevens", seats: ["computer", "random", "computer", "random"], seed: 9, facilitator: "audience" });
    const replayed = await create({ game: "dcg", seats: ["random", "random"], seed: 12, facilitator: "audience", deadlines: { botDelayMs: 0 } });
    const ended = await create({ game: "sevens", seats: ["human", "random", "computer"], seed: 6 });

    const ctx = await env.browser.newContext({ viewport: { width: 390, height: 844 }, isMobile: true, hasTouch: true });
    const page = await openPage(ctx, `${env.server.base}/`, errors);
    await page.waitForSelector(`.lobby[data-ready="true"] tr[data-table="${dcg.table}"]`);
    await expectNoSideways(page, "lobby");
    await shot(page, "lobby-phone");

    for (const [made, board] of [
      [sevens, ".board.sevens"],
      [dcg, ".board.dcg"],
      [shephy, ".board.shephy"],
      [blackpoker, ".board.blackpoker"],
    ] as const) {
      await page.goto(play(made));
      await page.waitForSelector(`.table-screen[data-link="open"] ${board}`);
      await expectNoSideways(page, `play ${board}`);
      if (board === ".board.dcg") {
        // The column letters stay one row under the grid, each under its own column.
        const cols = await page.evaluate(() => {
          const box = (el: Element) => el.getBoundingClientRect();
          const cells = [...document.querySelector(".dcg-grid .dcg-row")!.querySelectorAll(".cell")].map(box);
          return [...document.querySelectorAll(".dcg-grid .colhead")].map((el, i) => ({
            text: el.textContent,
            top: Math.round(box(el).top),
            under: box(el).left >= cells[i]!.left - 1 && box(el).right <= cells[i]!.right + 1,
          }));
        });
        expect(cols.map((c) => c.text)).toEqual(["A", "B", "C", "D", "E"]);
        expect(new Set(cols.map((c) => c.top)).size, "the column letters share one row").toBe(1);
        expect(cols.map((c) => c.under)).toEqual([true, true, true, true, true]);
      }
    }

    // The log is far below the board here: what the others did since your move is repeated above it.
    await page.goto(play(sevens));
    await page.waitForSelector('.table-screen[data-my-turn="true"]');
    const before = Number(await page.getAttribute(".table-screen", "data-seq"));
    await page.locator(".decisions ol.options button").first().click();
    await page.waitForFunction((s) => {
      const el = document.querySelector(".table-screen");
      return !!el && Number(el.getAttribute("data-seq")) > s + 1 && el.getAttribute("data-my-turn") === "true";
    }, before);
    const recent = page.locator("details.recent");
    await expect(recent.locator("summary").textContent()).resolves.toBe("Since your last move (4)");
    await expect(recent.locator("ol.recent-log > li").evaluateAll((li) => li.map((x) => x.getAttribute("data-seq")))).resolves.toEqual(["4", "3", "2", "1"]);
    const box = await recent.boundingBox();
    expect(box && box.y + box.height <= 844 ? "in view" : `at ${JSON.stringify(box)}`).toBe("in view");
    await expectNoSideways(page, "play sevens, since your last move");
    // Wide enough for the log beside the board: not repeated.
    await page.setViewportSize({ width: 1366, height: 768 });
    await expect(recent.isVisible()).resolves.toBe(false);
    await page.setViewportSize({ width: 390, height: 844 });

    await page.goto(`${env.server.base}/#/watch/${watched.table}`);
    await page.waitForSelector(".table-screen .board.sevens");
    await expectNoSideways(page, "watch");

    await finished(replayed.table);
    await page.goto(`${env.server.base}/#/replay/${replayed.table}`);
    await page.waitForSelector('.replay[data-ready="true"]');
    await expectNoSideways(page, "replay dcg");
    await page.focus("input.slider");
    await page.keyboard.press("Home");
    await page.keyboard.press("PageDown");
    await expectNoSideways(page, "replay dcg, early");

    // The replay list keeps each wrapped entry under its own number.
    const misaligned = await page.evaluate(
      () =>
        [...document.querySelectorAll(".replay-log > li")].slice(0, 40).filter((li) => {
          const b = li.querySelector("button")!.getBoundingClientRect();
          const n = li.querySelector(".seq")?.getBoundingClientRect();
          return !n || b.left < n.right - 0.5;
        }).length,
    );
    expect(misaligned).toBe(0);

    await playOut(ended.table, 0, ended.tokens["0"]);
    await page.goto(play(ended));
    await page.waitForSelector(".results .result");
    await expectNoSideways(page, "results sevens");
    // Who won comes first; the last moves follow it.
    const order = await page.evaluate(() => ["section.results", "details.recent"].map((q) => document.querySelector(q)?.getBoundingClientRect().top ?? -1));
    expect(order[1]).toBeGreaterThan(order[0]!);
    expect(order[0]).toBeGreaterThan(0);
    await shot(page, "results-phone");

    // Shephy alone: won or lost, and why, in words.
    const solo = await create({ game: "shephy", seats: ["human"], seed: 8 });
    await playOut(solo.table, 0, solo.tokens["0"]);
    await page.goto(play(solo));
    await page.waitForSelector(".results .result");
    await expect(page.locator(".results .result").textContent()).resolves.toMatch(/^You (won|lost)$/);
    await expect(page.locator(".results .why").textContent()).resolves.toMatch(
      /^(A 1000-sheep card reached the field\.|The field emptied\.|The enemy sheep grew to 1000 first\.)$/,
    );
    // Alone at the table there is no place: no "1st" beside "You lost".
    await expect(page.locator(".results .standings th").allTextContents()).resolves.toEqual(["Seat", "Score"]);
    await expect(page.locator(".results .standings tbody").textContent()).resolves.toMatch(/^Seat 0 \(you\)\d+ sheep on the field$/);
    await expectNoSideways(page, "results shephy");

    await page.goto(play(dcg));
    await page.waitForSelector('.table-screen[data-link="open"]');
    // The link's token re-keyed the seat: resign with the one the page now holds.
    const held = await page.evaluate((t) => localStorage.getItem(`cardgym.token.${t}.0`), dcg.table);
    await fetch(`${env.server.base}/v1/tables/${dcg.table}/seats/0/resign`, { method: "POST", headers: { "x-seat-token": held ?? "" } });
    await page.waitForSelector(".results .result");
    await expectNoSideways(page, "results dcg");
    await ctx.close();
    expect(errors).toEqual([]);
  });
});
