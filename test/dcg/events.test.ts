import { describe, expect, it } from "vitest";
import { projectEvents, type GameEvent, type SeenEvent } from "../../engine/core/index.ts";
import { dcg, type BattleData, type Decision } from "../../engine/dcg/index.ts";
import { cardText } from "../../engine/dcg/card-text.ts";
import { at, scenario, type Scenario } from "./scenario.ts";

/** The events of `d` in the scenario's current state; the scenario then moves on. */
function eventsOf(sc: Scenario, d: Decision): GameEvent[] {
  sc.legal(); // settles a hand-built board first
  const before = sc.state;
  sc.act(d);
  return [...dcg.events(before, d, sc.state)];
}

const seen = (events: readonly GameEvent[], viewer: 0 | 1 | "spectator"): SeenEvent[] => projectEvents(events, viewer);
const texts = (events: readonly SeenEvent[]): string[] => events.map((e) => e.text);
const ofKind = (events: readonly GameEvent[], kind: string) => events.filter((e) => e.kind === kind);
/** Stat events of units (not a player's MP). */
const unitStats = (events: readonly GameEvent[]) => ofKind(events, "stat").filter((e) => e.face.data?.stat !== "mp");
const CARD_NAMES = dcg.pool.cards.map((c) => c.name);
const CELL = /\b[A-E][0-6]\b/;

function fresh(seed = 1): BattleData {
  const cfg = dcg.parseConfig({});
  if (!cfg.ok) throw new Error(cfg.error.message);
  return dcg.setup(cfg.value, seed);
}

describe("dcg events", () => {
  it("an attack: the attack with attacker and target, then damage with the amount and the life it leaves", () => {
    const sc = scenario().withUnit(0, "Agnis", "C2").withUnit(1, "Stone Wall", "C3");
    const events = eventsOf(sc, { kind: "attack", card: sc.id("Agnis"), cell: at("C3") });
    expect(events[0]!.face.text).toBe("Host attacks Stone Wall at C3 with Agnis at C2");
    expect(ofKind(events, "attack")[0]!.face.data).toEqual({ card: "Agnis", cell: "C2", target: "Stone Wall", targetCell: "C3", direct: false });
    const damage = ofKind(events, "damage");
    expect(damage).toHaveLength(1);
    expect(damage[0]!.to).toBe("all");
    expect(damage[0]!.face.data).toMatchObject({ amount: 2, target: "Stone Wall", cell: "C3", player: false, life: 3, source: "Agnis", cause: "attack" });
    expect(damage[0]!.face.text).toBe("Stone Wall takes 2 damage from Agnis (life 5 -> 3)");
  });

  it("a kill: the unit's death with its cause, then its owner's HP loss for the rubric's cost", () => {
    const sc = scenario().withUnit(0, "Vogaros", "C2").withUnit(1, "Agnis", "C3");
    const events = eventsOf(sc, { kind: "attack", card: sc.id("Vogaros"), cell: at("C3") });
    const kinds = events.map((e) => e.kind);
    expect(kinds.indexOf("death")).toBeGreaterThan(kinds.indexOf("damage"));
    expect(ofKind(events, "death")[0]!.face).toEqual({
      text: "Agnis is destroyed by Vogaros's attack",
      data: { card: "Agnis", cell: "C3", cause: "attack", source: "Vogaros" },
    });
    const hp = ofKind(events, "damage").find((e) => e.face.data?.player === true)!;
    expect(hp.seat).toBe(1);
    expect(hp.face).toEqual({
      text: "Guest loses 1 HP for losing Agnis (HP 15 -> 14)",
      data: { amount: 1, target: "Guest", cell: null, player: true, hp: 14, source: "Agnis", cause: "cost" },
    });
  });

  it("a stat change names its cause: an aura's buff when a rubric steps into reach, and its end when it steps out", () => {
    const sc = scenario().withUnit(0, "Banner Knight", "C0").withUnit(0, "Raider", "E0");
    sc.act({ kind: "moveDeclare", card: sc.id("Raider"), cell: at("D0") });
    const into = eventsOf(sc, { kind: "reactNone" });
    const buff = unitStats(into)[0]!;
    expect(buff.face.text).toBe("Raider's attack 1 -> 2 (Banner Knight's aura)");
    expect(buff.face.data).toEqual({ card: "Raider", cell: "D0", stat: "attack", from: 1, to: 2, cause: "Banner Knight's aura" });
    sc.act({ kind: "moveDeclare", card: sc.id("Raider"), cell: at("E0") });
    const out = eventsOf(sc, { kind: "reactNone" });
    expect(texts(seen(out, 1))).toContain("Raider's attack 2 -> 1 (Banner Knight's aura ends)");
  });

  it("an ability that fires says so with its rule in words, before what it does", () => {
    const sc = scenario().withUnit(0, "Agnis", "C2").withUnit(1, "Stone Wall", "C3").withUnit(1, "Thornguard", "D3");
    const events = eventsOf(sc, { kind: "attack", card: sc.id("Agnis"), cell: at("C3") });
    const fired = ofKind(events, "trigger")[0]!;
    const rule = cardText(sc.pool.cards[sc.state.cards[sc.id("Thornguard")]!.def]!, sc.pool)[0]!;
    expect(fired.face).toEqual({ text: `Thornguard's ability triggers: ${rule}`, data: { card: "Thornguard", cell: "D3" } });
    const after = events.slice(events.indexOf(fired) + 1);
    expect(after.find((e) => e.kind === "damage")!.face.text).toBe("Agnis takes 1 damage from Thornguard (life 3 -> 2)");
  });

  it("a strategy placement is the placer's alone: the others read no card and no cell while placement is open", () => {
    let s = fresh();
    const seat = dcg.actor(s) as 0 | 1;
    let checked = 0;
    for (let i = 0; i < 12; i++) {
      const d = dcg.legal(s).find((x) => x.kind === "strategyMove")!;
      const after = dcg.applyTrusted(s, d);
      const events = dcg.events(s, d, after);
      expect(seen(events, seat)[0]!.text).toBe(dcg.describe(s, d));
      for (const viewer of [1 - seat, "spectator"] as const) {
        const lines = seen(events, viewer as 0 | 1 | "spectator");
        expect(lines).toEqual([{ kind: "decision", seat, text: `${seat === 0 ? "Host" : "Guest"} places or moves a strategy card` }]);
        checked++;
      }
      s = after;
    }
    expect(checked).toBe(24);
  });

  it("a feint set face down names its cell to everyone and its card only to its owner", () => {
    const sc = scenario().withHand(0, "Pitfall");
    const events = eventsOf(sc, { kind: "feint", card: sc.id("Pitfall"), cell: at("B3") });
    expect(seen(events, 0)[0]!.text).toBe("Host sets feint Pitfall face down at B3");
    for (const viewer of [1, "spectator"] as const) {
      const lines = seen(events, viewer);
      expect(lines).toEqual([{ kind: "decision", seat: 0, text: "Host sets a feint face down at B3", data: { cell: "B3" } }]);
      for (const name of CARD_NAMES) expect(JSON.stringify(lines)).not.toContain(name);
    }
  });

  it("a draw names the card to the drawer only", () => {
    const sc = scenario().withTurn(3, 0, { kind: "Draw" }).withBook(0, "Stone Wall", "Mirage");
    const events = eventsOf(sc, { kind: "drawOrCharge", charge: false });
    const draw = ofKind(events, "draw")[0]!;
    expect(draw.to).toEqual([0]);
    expect(draw.face.text).toBe("Host draws Mirage");
    expect(seen(events, 0).map((e) => e.kind)).toEqual(["decision", "draw"]);
    for (const viewer of [1, "spectator"] as const) {
      expect(texts(seen(events, viewer))).toEqual(["Host draws a card"]);
      expect(JSON.stringify(seen(events, viewer))).not.toContain("Mirage");
    }
  });

  it("the start hands: each player reads its own cards, the other only how many", () => {
    let s = fresh(3);
    for (;;) {
      const d = dcg.legal(s).find((x) => x.kind === "strategyConfirm") ?? dcg.legal(s)[0]!;
      const after = dcg.applyTrusted(s, d);
      if (d.kind === "strategyConfirm" && after.turn > 0) {
        const events = dcg.events(s, d, after);
        for (const seat of [0, 1] as const) {
          const mine = seen(events, seat).filter((e) => e.kind === "draw");
          expect(mine).toHaveLength(2);
          const own = mine.find((e) => e.seat === seat)!;
          const theirs = mine.find((e) => e.seat !== seat)!;
          expect(own.data).toMatchObject({ count: 4 });
          expect(String(own.data!.cards).split(", ")).toHaveLength(4);
          expect(theirs).toEqual({ kind: "draw", seat: 1 - seat, text: `${seat === 0 ? "Guest" : "Host"} draws 4 cards`, data: { count: 4 } });
        }
        // The strategy cards enter the field, revealed to everyone.
        expect(seen(events, "spectator").filter((e) => e.kind === "reveal")).toHaveLength(10);
        return;
      }
      s = after;
    }
  });

  it("a feint springs: its reveal, then what it did, with the feint named as the source", () => {
    const sc = scenario().withUnit(0, "Agnis", "C2").withFeint(1, "Pitfall", "C3").withPlayer(1, { mp: 3 });
    sc.act({ kind: "moveDeclare", card: sc.id("Agnis"), cell: at("C3") });
    const moved = eventsOf(sc, { kind: "reactNone" });
    // The window opens whatever the feint is: nobody learns which feint it is yet.
    expect(texts(seen(moved, 0))).toContain("Guest may declare the feint at C3");
    expect(JSON.stringify(seen(moved, 0))).not.toContain("Pitfall");
    const declared = eventsOf(sc, { kind: "feintDeclare" });
    const lines = texts(seen(declared, 0));
    expect(lines).toContain(`Guest's feint at C3 is Pitfall: ${cardText(sc.pool.cards[sc.state.cards[sc.id("Pitfall")]!.def]!, sc.pool)[0]}`);
    expect(lines).toContain("Agnis takes 2 damage from Pitfall (life 3 -> 1)");
  });

  it("poison: the ailment with its cause, then a turn's poison damage", () => {
    const sc = scenario().withUnit(0, "Agnis", "C2").withFeint(1, "Venom Mist", "C3").withPlayer(1, { mp: 3 });
    sc.act({ kind: "moveDeclare", card: sc.id("Agnis"), cell: at("C3") }).act({ kind: "reactNone" });
    const declared = eventsOf(sc, { kind: "feintDeclare" });
    expect(unitStats(declared)[0]!.face).toEqual({
      text: "Agnis is poisoned (Venom Mist)",
      data: { card: "Agnis", cell: "C3", stat: "ailment", from: "none", to: "poison", cause: "Venom Mist" },
    });
    const finished = eventsOf(sc, { kind: "turnFinish" });
    expect(ofKind(finished, "damage")[0]!.face.text).toBe("Agnis takes 1 poison damage (life 3 -> 2)");
    expect(texts(seen(finished, 1))).toContain("Turn 4: Guest's turn");
  });

  it("the end: a direct attack that empties the defender's HP gives the result", () => {
    const sc = scenario().withUnit(0, "Vogaros", "C5").withPlayer(1, { hp: 2 });
    const events = eventsOf(sc, { kind: "direct", card: sc.id("Vogaros") });
    expect(ofKind(events, "attack")[0]!.face.data).toMatchObject({ card: "Vogaros", target: "Guest", targetCell: null, direct: true });
    expect(ofKind(events, "damage")[0]!.face.data).toMatchObject({ player: true, target: "Guest", cause: "direct", hp: expect.any(Number) });
    expect(ofKind(events, "result")[0]!.face).toMatchObject({
      text: expect.stringMatching(/^Guest is at 0 HP: Host wins$/),
      data: { winner: 0, reason: "hp" },
    });
  });

  it("a direct attack softened to nothing still says its outcome: 0 damage, and why", () => {
    // Est (attack 1) in the enemy row nearest the centre: the row takes 1 off the blow.
    const sc = scenario().withUnit(0, "Est", "C4");
    const hp = sc.state.players[1].hp;
    const events = eventsOf(sc, { kind: "direct", card: sc.id("Est") });
    expect(sc.state.players[1].hp).toBe(hp);
    const damage = ofKind(events, "damage");
    expect(damage).toHaveLength(1);
    expect(damage[0]!.to).toBe("all");
    expect(damage[0]!.face.data).toEqual({ amount: 0, target: "Guest", cell: null, player: true, hp, source: "Est", cause: "direct" });
    expect(damage[0]!.face.text).toBe(`Guest takes 0 damage from Est: the row nearest the centre softens the blow by 1 (HP ${hp} -> ${hp})`);
    // The outcome comes after the attack line, as a blow that lands does.
    expect(events.findIndex((e) => e.kind === "attack")).toBeLessThan(events.findIndex((e) => e.kind === "damage"));
  });

  it("no cell name in the others' line of a placement, on any seed", () => {
    for (const seed of [1, 2, 3, 4]) {
      const s = fresh(seed);
      const d = dcg.legal(s)[0]!;
      const line = seen(dcg.events(s, d, dcg.applyTrusted(s, d)), "spectator")[0]!.text;
      expect(line).not.toMatch(CELL);
    }
  });
});
