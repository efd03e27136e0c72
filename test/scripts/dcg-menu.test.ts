import { describe, expect, it } from "vitest";
import { Rng, unwrap } from "../../engine/core/index.ts";
import { dcg, type BattleData, type DcgView } from "../../engine/dcg/index.ts";
import { whoActs } from "../../engine/dcg/render.ts";
import { cardInfo, dcgMenu, dcgMenuText, readCell, readMenuLine, type MenuOption } from "../../scripts/dcg-menu.ts";

/**
 * The terminal client's dcg screen: who must act (reaction windows included), the passive
 * decisions first, a card's cells on one line instead of one line per cell, card texts on `?`.
 */
const options = (s: BattleData): MenuOption[] => dcg.legal(s).map((d, id) => ({ id, label: dcg.describe(s, d), decision: d }));
const start = () => dcg.setup(unwrap(dcg.parseConfig({})), 3);

/** Plays random legal decisions until `pred` holds. */
function until(pred: (s: BattleData) => boolean, seed = 1): BattleData {
  const rng = Rng.seeded(seed);
  let s = start();
  for (let i = 0; i < 2000 && !pred(s); i++) {
    const legal = dcg.legal(s);
    // Strategy placement and confirm first, then anything but leaving.
    const pick = legal.filter((d) => d.kind !== "forceFinish");
    s = dcg.applyTrusted(s, pick[rng.int(pick.length)]!);
  }
  if (!pred(s)) throw new Error("state not reached");
  return s;
}

describe("terminal dcg menu", () => {
  it("strategy placement: one line per card with its cells, not one line per card and cell; a card line takes its cell", () => {
    const s = start();
    const seat = dcg.actor(s) as 0 | 1;
    const view = dcg.view(s, seat);
    const opts = options(s);
    expect(opts.length).toBeGreaterThan(50);
    const menu = dcgMenu(view, opts);
    expect(menu.length).toBeLessThanOrEqual(7);
    const text = dcgMenuText(view, menu);
    expect(text[0]).toBe(">> Strategy time: your placement (place your strategy rubrics, then confirm)");
    expect(text[1]).toMatch(/^ {4}1\. place \S.* \(strategy\) -> A0 B0 C0 D0 E0 A1/);
    const asked = readMenuLine(menu, "1");
    expect(asked.kind).toBe("cell");
    const direct = readMenuLine(menu, "1 b1");
    expect(direct.kind === "answer" && direct.option.decision).toEqual({ kind: "strategyMove", card: (opts[0]!.decision as { card: number }).card, cell: 6 });
    expect(readCell(menu[0]!, "Z9").kind).toBe("error");
    expect(readCell(menu[0]!, "2").kind === "answer").toBe(true);
    expect(readMenuLine(menu, "99")).toEqual({ kind: "error", message: `"99" is not a number from 1 to ${menu.length}` });
    expect(readMenuLine(menu, "?")).toEqual({ kind: "info" });
  });

  it("puts Confirm and End turn first", () => {
    const placed = until((s) => s.state.kind === "Strategy" && dcg.legal(s).some((d) => d.kind === "strategyConfirm"));
    const menu = dcgMenu(dcg.view(placed, dcg.actor(placed) as 0 | 1), options(placed));
    expect(menu[0]!.text).toBe("Confirm placement");
    const main = until((s) => s.state.kind === "Main" && dcg.legal(s).some((d) => d.kind === "summon"));
    const m = dcgMenu(dcg.view(main, dcg.actor(main) as 0 | 1), options(main));
    expect(m[0]!.text).toBe("End turn");
    expect(m.some((e) => /^summon .* \(hand\) -> /.test(e.text))).toBe(true);
  });

  it("names the seat that must act in a reaction window, for each viewer", () => {
    const s = until((x) => x.state.kind === "MoveDeclare");
    const mover = s.turnPlayer;
    const reactor = (1 - mover) as 0 | 1;
    const pool = dcg.poolFor(s.cfg);
    const name = ["Host", "Guest"][mover]!;
    expect(whoActs(dcg.view(s, reactor) as DcgView, pool)).toMatch(
      new RegExp(`^Your reaction: ${name} moves \\S.* [A-E]\\d -> [A-E]\\d; react or let it pass$`),
    );
    expect(whoActs(dcg.view(s, mover) as DcgView, pool)).toMatch(new RegExp(`^${["Host", "Guest"][reactor]} reacts to your move \\(`));
    expect(whoActs(dcg.view(s, "spectator") as DcgView, pool)).toMatch(new RegExp(`reacts to ${name}'s move`));
    // The board's header says whose turn it is and who acts now.
    expect(dcg.render(s).split("\n")[0]).toContain(`${name}'s turn  state MoveDeclare  ${["Host", "Guest"][reactor]} to act`);
    const menu = dcgMenu(dcg.view(s, reactor), options(s));
    expect(menu[0]!.text).toBe("Pass: do not react (the move goes ahead)");
  });

  it("? lists the rules text of the viewer's cards", () => {
    const s = start();
    const lines = cardInfo(dcg.view(s, dcg.actor(s) as 0 | 1));
    expect(lines.some((l) => /\(strategy\): Rubric · cost \d MP/.test(l))).toBe(true);
    expect(lines.some((l) => /^ {4}[A-Z].*\.$/.test(l))).toBe(true);
  });
});
