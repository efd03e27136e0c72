/**
 * The other boards, played by clicking (Shephy's field and hand, BlackPoker's zones), and Watch:
 * a bot-only table at a phone's width, paused, stepped and played live. Shephy's cards say what
 * they do.
 */
import { describe, expect, it } from "vitest";
import type { Page } from "playwright-core";
import { Rng, stateHash } from "../../engine/core/index.ts";
import { registry } from "../../engine/games.ts";
import { api, serverAndBrowser, moved, openPage, seqOf, shot, waitTurn } from "./browser.ts";
import { hangGuard } from "../fixtures/hang-guard.ts";

const env = serverAndBrowser();
const errors: string[] = [];

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
  const k = avoid
    ? Math.max(
        0,
        texts.findIndex((t) => !avoid.test(t)),
      )
    : 0;
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
    if (
      (await page.locator("ol.options button").count()) > 0 &&
      (await page.getAttribute(".table-screen", "data-seq")) === String(seq) &&
      (await page.locator("text=Choose one").count()) > 0
    ) {
      await page.locator("ol.options button").first().click();
    }
    await moved(page, seq);
  }
  return used;
}

describe("boards and watching in the browser", () => {
  it("Shephy: a person plays by clicking the hand and the field", async () => {
    const made = await api(env.server.base, "POST", "/v1/tables", { game: "shephy", seats: ["human"], seed: 3, deadlines: { turnMs: 600_000 } });
    const ctx = await env.browser.newContext({ viewport: { width: 1000, height: 640 } });
    const page = await openPage(ctx, `${env.server.base}/#/play/${made.table}/0?token=${made.tokens["0"]}`, errors);
    await page.waitForSelector(".board.shephy");
    // The deadline as a countdown, with the decision the server applies when it runs out.
    await expect(page.locator(".deadline").textContent()).resolves.toMatch(/Your turn: \d+ s left \(then: .+\)/);
    // Every card in the hand says what it does (a newcomer cannot know that Shephion loses the game).
    const faces = await page
      .locator(".board.shephy .hand-card")
      .evaluateAll((cards) => cards.map((c) => [c.querySelector(".name")?.textContent ?? "", c.querySelector(".effect")?.textContent ?? ""]));
    expect(faces.length).toBe(5);
    for (const [name, effect] of faces) expect(effect, name).toMatch(/^[A-Z].{8,}\.$/);
    expect(new Set(faces.map(([, e]) => e)).size).toBe(new Set(faces.map(([n]) => n)).size);
    const used = await playSome(page, ".board.shephy", 8);
    expect(used.board).toBeGreaterThan(0);
    await waitTurn(page);
    await shot(page, "shephy");
    await ctx.close();
    expect(errors).toEqual([]);
  });

  it("BlackPoker: a person plays against the computer agent", async () => {
    const made = await api(env.server.base, "POST", "/v1/tables", { game: "blackpoker", seats: ["human", "computer"], seed: 4 });
    const ctx = await env.browser.newContext({ viewport: { width: 1000, height: 760 } });
    const page = await openPage(ctx, `${env.server.base}/#/play/${made.table}/0?token=${made.tokens["0"]}`, errors);
    await page.waitForSelector(".board.blackpoker");
    const used = await playSome(page, ".board.blackpoker", 12, /^seat \d passes/);
    expect(used.board + used.list).toBeGreaterThan(0);
    await shot(page, "blackpoker");
    await ctx.close();
    expect(errors).toEqual([]);
  });

  it("Watch: a bot-only table at phone width, paused, stepped, then live to the end", async () => {
    const made = await api(env.server.base, "POST", "/v1/tables", {
      game: "sevens",
      seats: ["computer", "random", "computer", "random"],
      seed: 9,
      facilitator: "audience",
      deadlines: { botDelayMs: 150 },
    });
    const ctx = await env.browser.newContext({ viewport: { width: 390, height: 800 }, isMobile: true });
    const page = await openPage(ctx, `${env.server.base}/#/watch/${made.table}`, errors);
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
    await page.waitForSelector('.table-screen[data-status="finished"]', { timeout: hangGuard() });
    expect((await page.locator(".table-screen ol.log li").count()) > 10).toBe(true);
    await ctx.close();
    expect(errors).toEqual([]);
  });

  it("Play from the lobby against the dcg champion policy (ONNX), by the seat's defaults", async () => {
    const ctx = await env.browser.newContext({ viewport: { width: 1000, height: 800 } });
    const page = await openPage(ctx, `${env.server.base}/`, errors);
    await page.waitForSelector('.lobby[data-ready="true"]');
    await page.selectOption("#game", "dcg");
    await expect(page.inputValue('input[name="agent-1"]')).resolves.toBe("onnx:builtin/dcg-ppo-v3");
    await page.fill("#delay", "0");
    await page.click("button.primary");
    await page.waitForURL(/#\/play\/[^/]+\/0$/);
    const table = decodeURIComponent(page.url().split("/play/")[1]!.split("/")[0]!);
    const summary = await api(env.server.base, "GET", `/v1/tables/${table}`);
    expect(summary.seats[1]).toMatchObject({ kind: "agent", agent: "onnx:builtin/dcg-ppo-v3" });
    // Strategy placement by clicks: a rubric, then a marked cell, five times over; then confirm.
    for (let i = 0; i < 5; i++) {
      await waitTurn(page);
      const seq = await seqOf(page);
      await page.locator(".strategy-card.can").first().click();
      await page.locator("[data-target]").first().click();
      await moved(page, seq);
    }
    await waitTurn(page);
    const seq = await seqOf(page);
    await page.locator('.primary-acts [data-primary="strategyConfirm"]').click();
    await moved(page, seq);
    // The policy plays its side: its placement shows up in the log.
    await page.waitForFunction(() => [...document.querySelectorAll("ol.log li")].some((li) => /Guest confirms/.test(li.textContent ?? "")), null, {
      timeout: hangGuard(),
    });
    await ctx.close();
    expect(errors).toEqual([]);
  });

  it("Replay an uploaded GameRecord file; a tampered one is refused", async () => {
    // A whole blackpoker game between random players, recorded here with the engine.
    const found = registry.get("blackpoker");
    if (!found.ok) throw new Error("no blackpoker");
    const g = found.value;
    const cfg = g.parseConfig({});
    if (!cfg.ok) throw new Error(cfg.error.message);
    const rng = Rng.seeded(21);
    let state = g.setup(cfg.value, 8);
    const states = [state];
    const decisions: unknown[] = [];
    while (g.actor(state) !== "terminal") {
      const legal = g.legal(state);
      const d = legal[rng.nextU32() % legal.length];
      decisions.push(d);
      state = g.applyTrusted(state, d);
      states.push(state);
    }
    const record = { game: "blackpoker", version: g.info.version, config: cfg.value, seed: 8, decisions, finalHash: stateHash(state) };
    const ctx = await env.browser.newContext({ viewport: { width: 1000, height: 760 } });
    const page = await openPage(ctx, `${env.server.base}/#/replay`, errors);
    await page.setInputFiles('input[type="file"]', { name: "game.json", mimeType: "application/json", buffer: Buffer.from(JSON.stringify(record)) });
    await page.waitForSelector('.replay[data-ready="true"]');
    expect(Number(await page.getAttribute(".pos", "data-at"))).toBe(decisions.length);
    expect(await page.getAttribute(".boardwrap", "data-state-hash")).toBe(record.finalHash);
    await page.focus("input.slider");
    await page.keyboard.press("Home");
    await page.keyboard.press("PageDown");
    expect(await page.getAttribute(".boardwrap", "data-state-hash")).toBe(stateHash(states[10]));
    await page.selectOption("#viewer", "1");
    expect(await page.getAttribute(".boardwrap", "data-view-hash")).toBe(stateHash(g.view(states[10], 1)));
    await page.keyboard.press("ArrowLeft");
    expect(await page.getAttribute(".boardwrap", "data-state-hash")).toBe(stateHash(states[9]));
    // The same record with its last decision dropped no longer reaches its final hash.
    const tampered = { ...record, decisions: decisions.slice(0, decisions.length - 1) };
    await page.setInputFiles('input[type="file"]', { name: "tampered.json", mimeType: "application/json", buffer: Buffer.from(JSON.stringify(tampered)) });
    await expect(page.locator('[role="alert"]').textContent()).resolves.toMatch(/final state hash .* the record says/);
    await ctx.close();
    expect(errors).toEqual([]);
  });

  it("Lobby: the table list offers an open seat to join, and the joined seat plays", async () => {
    const made = await api(env.server.base, "POST", "/v1/tables", {
      game: "sevens",
      seats: ["open:random", "computer", "random"],
      seed: 2,
      deadlines: { botDelayMs: 400 },
    });
    const ctx = await env.browser.newContext({ viewport: { width: 1000, height: 720 } });
    const page = await openPage(ctx, `${env.server.base}/`, errors);
    const row = page.locator(`tr[data-table="${made.table}"]`);
    await row.waitFor();
    await expect(row.locator("a", { hasText: "watch" }).count()).resolves.toBe(1);
    await row.locator("button", { hasText: "join seat 0" }).click();
    await page.waitForURL(new RegExp(`#/play/${made.table}/0$`));
    await page.waitForSelector('.table-screen[data-link="open"]');
    const summary = await api(env.server.base, "GET", `/v1/tables/${made.table}`);
    expect(summary.seats[0]).toMatchObject({ held: true });
    const played = await playSome(page, ".board.sevens", 2);
    expect(played.board + played.list).toBeGreaterThan(0);
    await ctx.close();
    expect(errors).toEqual([]);
  });
});
