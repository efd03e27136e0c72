/**
 * A person plays a whole dcg game against `computer` at 1280x800 with on-screen controls only
 * (the action bar's buttons and board clicks, never the API to decide), and the screen stays
 * readable: Confirm and End turn are in the viewport without scrolling whenever they are offered,
 * the hand is in view, the header names who must act (reaction windows included), every card
 * shows its rules text, and the log shows an attack's damage as a number. And on a crowded board
 * at 1366x768 (a unit on every row), both players' lines with their HP and MP fit the screen too;
 * a spectator of that board reads the sides' names (Host, Guest), never "your" or "enemy".
 */
import { describe, expect, it } from "vitest";
import type { Locator, Page } from "playwright-core";
import { api, moved, openPage, seqOf, serverAndBrowser, shot, waitTurn } from "./browser.ts";

const env = serverAndBrowser();
const errors: string[] = [];

const VIEWPORT = { width: 1280, height: 800 };

/** The element is inside the viewport as it is (the page never scrolled); measured in the page, in one step (the screen redraws on every frame). */
async function inView(p: Page, l: Locator, what: string, viewport = VIEWPORT): Promise<void> {
  const m = await l.evaluate(
    (el) => ({ scrollY: window.scrollY, ...el.getBoundingClientRect().toJSON() }) as { scrollY: number; top: number; bottom: number; right: number },
  );
  expect(m.scrollY, `${what}: the page scrolled`).toBe(0);
  expect(m.top, `${what}: above the viewport`).toBeGreaterThanOrEqual(0);
  expect(m.bottom, `${what}: below the fold`).toBeLessThanOrEqual(viewport.height);
  expect(m.right, `${what}: off to the right`).toBeLessThanOrEqual(viewport.width);
}

/** A primary button of the action bar, or null when it is not offered now. */
async function primary(p: Page, kind: string): Promise<Locator | null> {
  const b = p.locator(`.primary-acts [data-primary="${kind}"]`);
  return (await b.count()) > 0 ? b.first() : null;
}

/** Clicks a card, then a marked cell of the given kind (attack, move, summon, place); false if there is none. */
async function cardThenCell(p: Page, card: Locator, kind: string): Promise<boolean> {
  await card.click();
  const target = p.locator(`.cellbtn[data-kind="${kind}"]`);
  if ((await target.count()) === 0) {
    await p.keyboard.press("Escape");
    return false;
  }
  await target.first().click();
  return true;
}

describe("dcg against the computer, by a person at 1280x800", () => {
  it("plays to the end with on-screen controls; Confirm, End turn and the hand stay in view; the log shows attack damage", async () => {
    const made = await api(env.server.base, "POST", "/v1/tables", {
      game: "dcg",
      seats: ["human", "computer"],
      seed: 11,
      config: { turnLimit: 12 },
      deadlines: { botDelayMs: 0 },
    });
    const ctx = await env.browser.newContext({ viewport: VIEWPORT });
    const p = await openPage(ctx, `${env.server.base}/#/play/${made.table}/0?token=${made.tokens["0"]}`, errors);
    await p.waitForSelector('.table-screen[data-link="open"]');

    const seen = { confirm: 0, endTurn: 0, attacks: 0, summons: 0, reactions: 0, texts: 0, handChecks: 0 };
    let opsThisTurn = 0;
    let shotTaken = false;
    for (let guard = 0; guard < 600; guard++) {
      if ((await waitTurn(p)) === "finished") break;
      const seq = await seqOf(p);
      const headline = (await p.locator(".now-acting").textContent()) ?? "";
      const confirm = await primary(p, "strategyConfirm");
      const endTurn = await primary(p, "turnFinish");
      const place = p.locator(".strategy-card.can");
      if (confirm && (await place.count()) === 0) {
        await inView(p, confirm, "Confirm placement");
        expect(headline).toMatch(/^Strategy time: your placement/);
        seen.confirm++;
        // The number keys press the bar's buttons while the full list is folded away: 1 is Confirm.
        await expect(confirm.locator("kbd").textContent()).resolves.toBe("1");
        await p.keyboard.press("1");
        await moved(p, seq);
        await expect(p.locator(".now-acting").textContent()).resolves.not.toMatch(/^Strategy time: your placement/);
      } else if ((await place.count()) > 0) {
        expect(await cardThenCell(p, place.first(), "place")).toBe(true);
      } else if (await primary(p, "reactNone")) {
        // The opponent's move: the header says it is this seat's reaction, not its turn.
        expect(headline).toMatch(/^Your reaction: Guest moves /);
        seen.reactions++;
        await (await primary(p, "reactNone"))!.click();
      } else if (await primary(p, "drawOrCharge")) {
        await (await primary(p, "drawOrCharge"))!.click();
        opsThisTurn = 0;
      } else if (endTurn) {
        expect(headline).toMatch(/^Your turn/);
        await inView(p, endTurn, "End turn");
        const hand = p.locator(".dcg-side .hand").last();
        await inView(p, hand, "the hand");
        seen.handChecks++;
        // Every card in the hand shows its rules text in the detail panel on hover.
        const first = p.locator(".hand-card").first();
        if ((await first.count()) > 0) {
          await first.hover();
          await expect(p.locator(".card-detail h4").textContent()).resolves.toBe(await first.locator(".name").textContent());
          await expect(p.locator(".card-detail").textContent()).resolves.toMatch(/Rubric|Object|Feint/);
          seen.texts++;
        }
        let acted = false;
        if (opsThisTurn < 4) {
          const units = p.locator(".unit.mine.can");
          for (let i = 0; i < (await units.count()) && !acted; i++) {
            if (await cardThenCell(p, units.nth(i), "attack")) {
              acted = true;
              seen.attacks++;
              if (!shotTaken) {
                await moved(p, seq);
                await shot(p, "dcg");
                shotTaken = true;
              }
            }
          }
          const cards = p.locator(".hand-card.can");
          for (let i = 0; i < (await cards.count()) && !acted; i++) {
            if (await cardThenCell(p, cards.nth(i), "summon")) {
              acted = true;
              seen.summons++;
            }
          }
          for (let i = 0; i < (await units.count()) && !acted && opsThisTurn < 2; i++) acted = await cardThenCell(p, units.nth(i), "move");
        }
        if (acted) opsThisTurn++;
        else {
          seen.endTurn++;
          await endTurn.click();
          opsThisTurn = 0;
        }
      } else {
        // Any other window (a feint, a blocked move): the action bar has the passive answer.
        const other = p.locator(".primary-acts button");
        expect(await other.count(), `nothing to click under "${headline}"`).toBeGreaterThan(0);
        await other.last().click();
      }
      await moved(p, seq);
    }
    await p.waitForSelector('.table-screen[data-status="finished"]');
    expect(seen.confirm).toBe(1);
    expect(seen.endTurn).toBeGreaterThan(2);
    expect(seen.summons).toBeGreaterThan(0);
    expect(seen.attacks).toBeGreaterThan(0);
    expect(seen.texts).toBeGreaterThan(0);
    // The log shows what an attack did: the damage as a number, beside the words.
    const damage = p.locator("ol.log .ev-damage .amount");
    expect(await damage.count()).toBeGreaterThan(0);
    await expect(damage.first().textContent()).resolves.toMatch(/^−\d+$/);

    // The replay of the same game shows it too, computed in the page and projected for the viewer chosen.
    await p.goto(`${env.server.base}/#/replay/${made.table}`);
    await p.waitForSelector('.replay[data-ready="true"]');
    await p.selectOption("#viewer", "0");
    const hit = p.locator(".replay-log > li", { has: p.locator(".ev-damage .amount") }).first();
    await expect(hit.locator(".ev-damage .amount").first().textContent()).resolves.toMatch(/^−\d+$/);
    await hit.locator("button").first().click();
    await p.waitForSelector(".replay-log li.here .ev-damage");
    await shot(p, "replay");
    await ctx.close();
    expect(errors).toEqual([]);
  });

  it("at 1366x768 with a unit on every row, both players' lines (HP, MP) and the board fit the screen", async () => {
    // A crowded board: a unit in each of the 7 rows, a face-down feint on each side, the champion
    // (a long seat name) across the table and a turn time, so both players' lines wrap.
    const board = {
      turn: 5,
      turnPlayer: 0,
      players: [
        {
          hp: 12,
          mp: 3,
          hand: ["charger", "pitfall", "ember-imp"],
          book: ["agnis", "raider"],
          field: [
            { card: "agnis", cell: "A0" },
            { card: "banner-knight", cell: "C1" },
            { card: "vogaros", cell: "B2" },
            { card: "raider", cell: "D3" },
          ],
          feint: { card: "pitfall", cell: "A2" },
        },
        {
          hp: 11,
          mp: 4,
          hand: ["stone-wall"],
          book: ["hexer", "sapper"],
          field: [
            { card: "abilma-esthasha", cell: "D4" },
            { card: "thornguard", cell: "E5" },
            { card: "hexer", cell: "A6" },
          ],
          feint: { card: "mirage", cell: "B3" },
        },
      ],
    };
    const made = await api(env.server.base, "POST", "/v1/tables", {
      game: "dcg",
      facilitator: "debug",
      board,
      seats: ["human", "onnx:builtin/dcg-ppo-v3"],
      deadlines: { turnMs: 600_000 },
    });
    const viewport = { width: 1366, height: 768 };
    const ctx = await env.browser.newContext({ viewport });
    const p = await openPage(ctx, `${env.server.base}/#/play/${made.table}/0?token=${made.tokens["0"]}`, errors);
    await waitTurn(p);
    expect(await p.locator(".dcg-grid .unit").count()).toBe(7);
    await inView(p, p.locator('.player[data-seat="1"]'), "the opponent's line", viewport);
    await inView(p, p.locator(".dcg-grid"), "the board", viewport);
    await inView(p, p.locator('.player[data-seat="0"]'), "your line (HP, MP)", viewport);
    await inView(p, (await primary(p, "turnFinish"))!, "End turn", viewport);

    // A spectator has no side: the board names the sides (Host, Guest), never "your" or "enemy".
    const w = await openPage(ctx, `${env.server.base}/#/watch/${made.table}`, errors);
    await w.waitForSelector('.table-screen[data-role="spectator"] .board.dcg');
    await expect(w.locator(".dcg-grid .feint").allTextContents()).resolves.toEqual(["Guest's feint", "Host's feint"]);
    const titles = await w.locator(".dcg-grid .cell[title]").evaluateAll((els) => els.map((e) => e.getAttribute("title")));
    expect(titles.filter((t) => /yours|enemy/.test(t ?? ""))).toEqual([]);
    expect(titles).toContain("D4 (Guest's)");
    await expect(w.locator(".board.dcg .legend").textContent()).resolves.toMatch(/▲ Host ▼ Guest ☠ poisoned/);
    await ctx.close();
    expect(errors).toEqual([]);
  });
});
