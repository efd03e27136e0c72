/**
 * A person plays a whole Killing Sevens game against two bots by clicking in a real Chromium:
 * the table is made in the lobby's form, a reload mid-game reconnects (the log comes back from the
 * table's history), and the finished game's replay slider shows exactly the recorded states.
 */
import { describe, expect, it } from "vitest";
import { stateHash } from "../../engine/core/index.ts";
import { registry } from "../../engine/games.ts";
import { api, serverAndBrowser, moved, openPage, seqOf, shot, waitTurn } from "./browser.ts";

const env = serverAndBrowser();
const errors: string[] = [];

describe("sevens in the browser", () => {
  it("a person plays a whole game vs bots by clicking, reloads mid-game, then replays it", async () => {
    const context = await env.browser.newContext({ viewport: { width: 1000, height: 720 } });
    const page = await openPage(context, env.server.base + "/", errors);
    const t0 = Date.now();
    await page.waitForSelector('.lobby[data-ready="true"]');
    const paint = await page.evaluate(() => performance.getEntriesByName("first-contentful-paint")[0]?.startTime ?? -1);
    console.log(`lobby first contentful paint ${Math.round(paint)} ms (ready after ${Date.now() - t0} ms)`);

    // The lobby form: sevens, 3 seats: you, computer, random; no bot delay; a fixed seed.
    await page.selectOption("#game", "sevens");
    await page.fill("#nseats", "3");
    await page.dispatchEvent("#nseats", "change");
    await page.selectOption("#seat-1", "agent");
    await page.fill('input[name="agent-1"]', "computer");
    await page.selectOption("#seat-2", "agent");
    await page.fill('input[name="agent-2"]', "random");
    await page.fill("#delay", "0");
    await page.fill("#seed", "11");
    await shot(page, "lobby");
    await page.click("button.primary");
    await page.waitForURL(/#\/play\/[^/]+\/0$/);
    const table = decodeURIComponent(page.url().split("/play/")[1]!.split("/")[0]!);

    let moves = 0;
    let reloaded = false;
    let boardShot = false;
    for (let guard = 0; guard < 200; guard++) {
      if ((await waitTurn(page)) === "finished") break;
      const seq = await seqOf(page);
      // A playable card: on the board's marked cell or in the hand; else the Pass button.
      const card = page.locator(".hand-card.can").first();
      if (moves % 3 === 2) {
        // Keyboard: the number keys pick from the labelled list.
        await page.keyboard.press("1");
      } else if ((await card.count()) > 0) {
        if (moves % 2 === 0) await card.click();
        else await page.locator(".sevens-grid .cell.can").first().click();
      } else {
        await page.locator("button.pass").click();
      }
      moves++;
      await moved(page, seq);
      if (moves === 4 && !boardShot) {
        await waitTurn(page);
        await shot(page, "sevens");
        boardShot = true;
      }
      if (moves === 5 && !reloaded) {
        // Reload mid-game: the seat comes back (token kept in this browser), with the whole log.
        const before = await page.locator("ol.log li").count();
        await page.reload();
        await page.waitForSelector('.table-screen[data-link="open"]');
        await page.waitForFunction((n) => document.querySelectorAll("ol.log li").length >= n, before);
        expect(page.url()).not.toContain("token=");
        const summary = await api(env.server.base, "GET", `/v1/tables/${table}`);
        expect(summary.seats[0].status).toBe("connected");
        reloaded = true;
      }
    }
    expect(reloaded).toBe(true);
    expect(moves).toBeGreaterThan(5);
    await page.waitForSelector('.table-screen[data-status="finished"]');
    await expect(page.locator(".results .result").textContent()).resolves.toMatch(/^You finished (1st|2nd|3rd) of 3$/);
    const summary = await api(env.server.base, "GET", `/v1/tables/${table}`);
    expect(summary.status).toBe("finished");

    // Replay: the record from the server, re-run in the page; compare with the engine here.
    const record = await api(env.server.base, "GET", `/v1/tables/${table}/record`);
    const game = registry.get("sevens");
    if (!game.ok) throw new Error("no sevens");
    const g = game.value;
    const cfg = g.parseConfig(record.config);
    if (!cfg.ok) throw new Error(cfg.error.message);
    const states = [g.setup(cfg.value, record.seed)];
    for (const d of record.decisions) {
      const out = g.apply(states[states.length - 1], d);
      if (!out.ok) throw new Error(out.error.message);
      states.push(out.state);
    }
    const n = record.decisions.length;
    await page.click(".replay-link");
    await page.waitForSelector('.replay[data-ready="true"]');
    const at = async () => Number(await page.getAttribute(".pos", "data-at"));
    const shown = async () => page.getAttribute(".boardwrap", "data-state-hash");
    expect(await at()).toBe(n);
    expect(await shown()).toBe(record.finalHash);
    await page.focus("input.slider");
    await page.keyboard.press("Home");
    expect(await at()).toBe(0);
    expect(await shown()).toBe(stateHash(states[0]));
    for (let k = 1; k <= 3; k++) {
      await page.keyboard.press("ArrowRight");
      expect(await at()).toBe(k);
      expect(await shown()).toBe(stateHash(states[k]));
    }
    // Whose view: seat 0's view (its hand) at step 3, as the engine computes it.
    await page.selectOption("#viewer", "0");
    expect(await page.getAttribute(".boardwrap", "data-view-hash")).toBe(stateHash(g.view(states[3], 0)));
    const handShown = await page.locator(".hand-card").count();
    expect(handShown).toBe((g.view(states[3], 0) as { hand: number[] }).hand.length);
    // The slider itself (a pointer user's way): set to the middle.
    const mid = Math.floor(n / 2);
    await page.locator("input.slider").evaluate((el, v) => {
      (el as HTMLInputElement).value = String(v);
      el.dispatchEvent(new Event("input", { bubbles: true }));
    }, mid);
    expect(await at()).toBe(mid);
    expect(await shown()).toBe(stateHash(states[mid]));
    expect(await page.getAttribute(".boardwrap", "data-view-hash")).toBe(stateHash(g.view(states[mid], 0)));
    await context.close();
    expect(errors).toEqual([]);
  });
});
