/**
 * Two people play dcg against each other from two browser contexts (two-click summons, moves and
 * attacks on the grid, strategy placement included), while a third context watches as a spectator.
 * Every frame each page receives is checked: a seat never gets the other seat's hand or strategy
 * cards, the spectator never gets any hidden card, and the spectator's page never draws one.
 */
import { describe, expect, it } from "vitest";
import type { Page } from "playwright-core";
import { dcg } from "../../engine/dcg/index.ts";
import { api, serverAndBrowser, openPage } from "./browser.ts";
import { hangGuard } from "../fixtures/hang-guard.ts";

const env = serverAndBrowser();
const errors: string[] = [];
const leaks: string[] = [];

/** Checks every live frame a page receives for cards its viewer may not see. */
function guard(page: Page, viewer: number | "spectator"): { frames: number } {
  const seen = { frames: 0 };
  page.on("websocket", (ws) =>
    ws.on("framereceived", (f) => {
      const m = JSON.parse(String(f.payload));
      if (m.type !== "frame" && m.type !== "spectate") return;
      seen.frames++;
      const v = m.view;
      const pool = dcg.poolFor(v.cfg);
      if (viewer === "spectator" && v.hand.length > 0) leaks.push(`spectator got a hand at seq ${m.seq}`);
      v.cards.forEach((c: any, id: number) => {
        if (c === null) return;
        const hidden =
          c.layer === "Book" ||
          ((c.layer === "Hand" || c.layer === "Strategy") && c.owner !== viewer) ||
          (c.layer === "Field" && pool.cards[c.def]!.kind === "feint" && c.owner !== viewer);
        if (hidden) leaks.push(`${viewer} saw card ${id} (${c.layer}, owner ${c.owner}) at seq ${m.seq}`);
      });
    }),
  );
  return seen;
}

const myTurn = async (p: Page) => (await p.getAttribute(".table-screen", "data-my-turn")) === "true";
const finished = async (p: Page) => (await p.getAttribute(".table-screen", "data-status")) === "finished";
const optionTexts = async (p: Page) => p.locator("ol.options button").allTextContents();

/** One decision by clicking, as a person would: the board first, the labelled list for the rest. */
async function act(p: Page, ops: { n: number }): Promise<string> {
  const seq = Number(await p.getAttribute(".table-screen", "data-seq"));
  /** The action bar's buttons (Confirm, Draw, End turn, Pass...): the decisions the board has no click for. */
  const clickPrimary = async (...kinds: string[]) => {
    for (const k of kinds) {
      const b = p.locator(`.primary-acts [data-primary="${k}"]`);
      if ((await b.count()) === 0) continue;
      await b.first().click();
      return true;
    }
    return false;
  };
  const twoClicks = async (card: string): Promise<boolean> => {
    const c = p.locator(card).first();
    if ((await c.count()) === 0) return false;
    await c.click();
    const target = p.locator("[data-target]").first();
    if ((await target.count()) > 0) {
      await target.click();
      return true;
    }
    const direct = p.locator("button.direct");
    if ((await direct.count()) > 0) {
      await direct.click();
      return true;
    }
    await p.keyboard.press("Escape");
    return false;
  };
  let what: string;
  if (await twoClicks(".strategy-card.can")) what = "place";
  else if (await clickPrimary("strategyConfirm")) what = "confirm";
  else if (await clickPrimary("drawOrCharge")) what = "draw";
  else if (ops.n < 2 && (await twoClicks(".hand-card.can"))) {
    what = "summon";
    ops.n++;
  } else if (ops.n < 3 && (await twoClicks(".unit.mine.can"))) {
    what = "unit";
    ops.n++;
  } else if (await clickPrimary("turnFinish", "reactNone", "feintPass", "moveRetry")) {
    what = "pass";
    ops.n = 0;
  } else if (await clickPrimary("feintDeclare")) what = "other";
  else throw new Error(`no decision to click: ${(await optionTexts(p)).join(" | ")}`);
  await p.waitForFunction(
    (s) => {
      const el = document.querySelector(".table-screen");
      return !!el && (Number(el.getAttribute("data-seq")) > s || el.getAttribute("data-status") === "finished");
    },
    seq,
    { timeout: hangGuard() },
  );
  return what;
}

describe("dcg in the browser", () => {
  it("two people play a whole game from two browser contexts; a spectator never sees a hidden card", async () => {
    const made = await api(env.server.base, "POST", "/v1/tables", { game: "dcg", seats: ["human", "human"], seed: 5, config: { turnLimit: 6 } });
    const ctxs = await Promise.all([0, 1, 2].map(() => env.browser.newContext({ viewport: { width: 1000, height: 900 } })));
    const seats: Page[] = [];
    const seen: { frames: number }[] = [];
    for (const seat of [0, 1]) {
      const page = await ctxs[seat]!.newPage();
      seen.push(guard(page, seat));
      await page.close();
    }
    // Open each seat's link (the token in the fragment), with the frame guard attached first.
    for (const seat of [0, 1]) {
      const p = await openPage(ctxs[seat]!, "about:blank", errors);
      seen[seat] = guard(p, seat);
      await p.goto(`${env.server.base}/#/play/${made.table}/${seat}?token=${made.tokens[String(seat)]}`);
      await p.waitForSelector('.table-screen[data-link="open"]');
      seats.push(p);
    }
    const watcher = await openPage(ctxs[2]!, "about:blank", errors);
    const watched = guard(watcher, "spectator");
    await watcher.goto(`${env.server.base}/#/watch/${made.table}`);
    await watcher.waitForSelector('.table-screen[data-role="spectator"]');

    const counts: Record<string, number> = {};
    const ops = [{ n: 0 }, { n: 0 }];
    for (let guardN = 0; guardN < 400; guardN++) {
      if (await finished(seats[0]!)) break;
      let acted = false;
      for (const seat of [0, 1]) {
        if (!(await myTurn(seats[seat]!))) continue;
        const what = await act(seats[seat]!, ops[seat]!);
        counts[what] = (counts[what] ?? 0) + 1;
        acted = true;
        // The spectator's page never draws a hand, a strategy card or an enemy's placement.
        expect(await watcher.locator(".hand-card, .strategy-card, .unit.strategy").count()).toBe(0);
      }
      if (!acted) await seats[0]!.waitForTimeout(50);
    }
    await seats[0]!.waitForSelector('.table-screen[data-status="finished"]');
    await watcher.waitForSelector('.table-screen[data-status="finished"]');
    const summary = await api(env.server.base, "GET", `/v1/tables/${made.table}`);
    expect(summary.status).toBe("finished");
    // Both placed 5 strategy rubrics by clicks, and the board clicks summoned units.
    expect(counts.place).toBeGreaterThanOrEqual(10);
    expect(counts.summon ?? 0).toBeGreaterThan(0);
    expect(seen[0]!.frames).toBeGreaterThan(10);
    expect(watched.frames).toBeGreaterThan(10);
    expect(leaks).toEqual([]);
    for (const c of ctxs) await c.close();
    expect(errors).toEqual([]);
  });
});
