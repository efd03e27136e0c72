import { describe, expect, it } from "vitest";
import { projectEvents, unwrap } from "../../engine/core/index.ts";
import { sevens, type SevensDecision, type SevensState } from "../../engine/sevens/index.ts";
import { card, scenario } from "./scenario.ts";

const play = (c: string): SevensDecision => ({ kind: "play", card: card(c) });
const pass: SevensDecision = { kind: "pass" };
const eventsOf = (s: SevensState, d: SevensDecision) => sevens.events(s, d, sevens.applyTrusted(s, d));

describe("sevens events", () => {
  it("a play that walls a card in: the play, the card's death with its holder and killer, the holder going out", () => {
    const s0 = scenario({ board: ["10###########", "#############", "###########02", "#########2222"] });
    const events = eventsOf(s0, play("2s"));
    expect(events.map((e) => e.kind)).toEqual(["decision", "play", "death", "result"]);
    expect(events.every((e) => e.to === "all")).toBe(true);
    expect(events[1]!.face).toEqual({ text: "seat 0 places 2♠", data: { card: "2♠" } });
    expect(events[2]!.face).toEqual({ text: "A♠ of seat 1 is walled in and dies", data: { card: "A♠", holder: 1, by: 0 } });
    expect(events[3]!.face).toEqual({ text: "seat 1 goes out (1st)", data: { status: "out", place: 1 } });
  });

  it("the pass beyond the limit: the pass counted, the elimination, the cards put on the table, the kills it causes", () => {
    const s0 = scenario({
      board: ["1022 2## 121212", "0022 2## 212121", "2222 2## 121212", "2222 2## 212121"],
      config: { passLimit: 3 },
      passes: [3, 0, 0],
    });
    const events = eventsOf(s0, pass);
    const texts = projectEvents(events, "spectator").map((e) => e.text);
    expect(texts[0]).toMatch(/^seat 0 passes \(pass 4 of 3; eliminated; kills A♠, /);
    expect(texts.slice(1, 4)).toEqual([
      "seat 0 has passed 4 times of 3",
      "seat 0 is eliminated for passing too often",
      "seat 0's cards go on the table: 2♠, A♥, 2♥",
    ]);
    expect(events.filter((e) => e.kind === "death")).toHaveLength(25);
  });

  it("the last decision of a game gives the final standings, best first", () => {
    let s = sevens.setup(unwrap(sevens.parseConfig({ seats: 3 })), 5);
    let last: ReturnType<typeof eventsOf> = [];
    while (sevens.actor(s) !== "terminal") {
      const d = sevens.legal(s)[0]!;
      last = eventsOf(s, d);
      s = sevens.applyTrusted(s, d);
    }
    const result = last.at(-1)!;
    expect(result.kind).toBe("result");
    const order = String(result.face.data!.standings);
    expect(order).toMatch(/^seat \d > seat \d > seat \d$/);
    expect(result.face.data!.winner).toBe(Number(order.split(" > ")[0]!.slice(5)));
    expect(sevens.returns(s)[result.face.data!.winner as number]).toBe(1);
  });
});
