import { describe, expect, it } from "vitest";
import { Rng, type AnyGame } from "../../engine/core/index.ts";
import { dcg } from "../../engine/dcg/index.ts";
import { sevens } from "../../engine/sevens/index.ts";
import { explainAction, decisionPoint } from "../../env/decision-point.ts";
import { EnvRequestError } from "../../env/errors.ts";
import { adapters } from "../../env/games/index.ts";
import { LearningFacilitator } from "../../env/learning-facilitator.ts";

/** Random legal playouts of `game`, calling `visit` at every decision point. */
function playouts(game: AnyGame, seeds: number, visit: (state: unknown) => void): void {
  const config = game.parseConfig({});
  if (!config.ok) throw new Error(config.error.message);
  for (let seed = 1; seed <= seeds; seed++) {
    let state = game.setup(config.value, seed);
    const rng = Rng.seeded(seed * 7919);
    for (let step = 0; game.actor(state) !== "terminal" && step < 5000; step++) {
      visit(state);
      const legal = game.legal(state);
      state = game.applyTrusted(state, legal[rng.int(legal.length)]);
    }
  }
}

// "Why not" (the dcg design's IsSuccess / WillSuccessIfSelect): explain() never objects to a legal
// decision, decode() inverts encode() on every legal decision, and refused ids get a reason.
describe.each(["dcg", "sevens"])("%s: explain and decode", (id) => {
  const adapter = adapters.get(id)!;
  const game = adapter.game;
  it("explain is null for every legal decision, and decode inverts encode", () => {
    let checked = 0;
    playouts(game, 4, (state) => {
      const seat = game.actor(state) as number;
      const view = game.view(state, seat);
      for (const d of game.legal(state)) {
        expect(game.explain!(state, d)).toBeNull();
        expect(adapter.actions.decode!(view, adapter.actions.encode(view, d))).toEqual(d);
        checked++;
      }
    });
    expect(checked).toBeGreaterThan(200);
  });
  it("every refused id at a decision point is explained in words, never as legal", () => {
    let refused = 0;
    playouts(game, 2, (state) => {
      const point = decisionPoint(adapter, state, game.actor(state) as number);
      for (let a = 0; a < adapter.actions.size; a += 7) {
        if (point.ids.includes(a)) continue;
        const why = explainAction(adapter, state, point, a);
        expect(why).toEqual(expect.any(String));
        expect(why!.length).toBeGreaterThan(10);
        refused++;
      }
    });
    expect(refused).toBeGreaterThan(100);
  });
});

describe("explanations say the rule that refuses", () => {
  it("dcg: an over-cost summon, an occupied cell and the wrong step", () => {
    const config = dcg.parseConfig({});
    if (!config.ok) throw new Error(config.error.message);
    let s = dcg.setup(config.value, 3);
    // Strategy step: a main-step decision is refused by its step.
    expect(dcg.explain!(s, { kind: "turnFinish" })).toMatch(/it is the Strategy step now; turnFinish is a decision of the Main step/);
    const out = dcg.apply(s, { kind: "turnFinish" });
    expect(out.ok).toBe(false);
    if (!out.ok) expect(out.error.message).toMatch(/is not legal now: it is the Strategy step/);
    // Play on until a Main step where the actor holds a card it cannot afford.
    const rng = Rng.seeded(5);
    for (let i = 0; i < 2000 && !s.finished; i++) {
      if (s.state.kind === "Main") {
        const seat = s.turnPlayer;
        const pool = dcg.poolFor(s.cfg);
        const dear = s.hands[seat].find((c) => pool.cards[s.cards[c]!.def]!.cost > s.players[seat].mp && pool.cards[s.cards[c]!.def]!.kind !== "feint");
        if (dear !== undefined && s.players[seat].ops < s.cfg.opsPerTurn) {
          expect(dcg.explain!(s, { kind: "summon", card: dear, cell: seat === 0 ? 0 : 34 })).toMatch(/costs \d+ MP and you have \d+/);
          return;
        }
      }
      const legal = dcg.legal(s);
      s = dcg.applyTrusted(s, legal[rng.int(legal.length)]!);
    }
    throw new Error("no Main step with an unaffordable card was reached");
  });
  it("dcg: a kind named like an inherited property is no dcg kind, in words", () => {
    const config = dcg.parseConfig({});
    if (!config.ok) throw new Error(config.error.message);
    const s = dcg.setup(config.value, 3);
    for (const kind of ["__proto__", "constructor", "toString", "hasOwnProperty"]) {
      expect(dcg.explain!(s, { kind } as never), kind).toBe(`there is no dcg decision of kind ${JSON.stringify(kind)}`);
    }
  });

  it("sevens: a card of another seat, and a card with no neighbour on the table", () => {
    const config = sevens.parseConfig({});
    if (!config.ok) throw new Error(config.error.message);
    const s = sevens.setup(config.value, 1);
    const seat = s.current;
    const other = s.cells.findIndex((v) => v >= 0 && v < 7 && v !== seat);
    expect(sevens.explain!(s, { kind: "play", card: other })).toMatch(/is not in your hand/);
    const lonely = s.cells.findIndex((v, card) => v === seat && !sevens.legal(s).some((d) => d.kind === "play" && d.card === card));
    if (lonely >= 0) expect(sevens.explain!(s, { kind: "play", card: lonely })).toMatch(/must be played next to/);
  });
  it("a dcg session's illegal-action error says why the action is not legal now", async () => {
    const f = await LearningFacilitator.create({ adapter: adapters.get("dcg")!, numEnvs: 1, seed: 2 });
    await f.reset();
    // 435 is turnFinish, a Main-step decision; a dcg episode starts in the Strategy step.
    const err = await f.step([435]).then(
      () => null,
      (e: unknown) => e,
    );
    expect(err).toBeInstanceOf(EnvRequestError);
    expect((err as EnvRequestError).code).toBe("illegal_action");
    expect((err as EnvRequestError).message).toMatch(
      /action 435 is not legal for seat \d now: it is the Strategy step now; turnFinish is a decision of the Main step/,
    );
  });
});
