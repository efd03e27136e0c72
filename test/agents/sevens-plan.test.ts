import { describe, expect, it } from "vitest";
import { deriveSeed, Rng, unwrap } from "../../engine/core/index.ts";
import { sevens, type SevensDecision, type SevensState } from "../../engine/sevens/index.ts";
import { carefulPlay } from "../../agents/evaluators/sevens-plan.ts";
import { createAgent } from "../../agents/spec.ts";
import type { DecisionRequest } from "../../agents/facilitatee.ts";

const config = unwrap(sevens.parseConfig({}));

/** Positions of 5-seat games played at random where the seat to move has a choice. */
function positions(count: number, keep: (s: SevensState, legal: readonly SevensDecision[]) => boolean = (_, l) => l.length >= 2): SevensState[] {
  const out: SevensState[] = [];
  for (let g = 0; out.length < count && g < 2000; g++) {
    const rng = Rng.seeded(deriveSeed(11, `sevens-plan:${g}`));
    let s = sevens.setup(config, deriveSeed(12, `sevens-plan:${g}`));
    while (s.current >= 0 && out.length < count) {
      const legal = sevens.legal(s);
      if (keep(s, legal) && rng.int(4) === 0) out.push(s);
      s = sevens.applyTrusted(s, legal[rng.int(legal.length)]!);
    }
  }
  return out;
}

const request = (s: SevensState): DecisionRequest => ({ game: sevens, seat: s.current, view: sevens.view(s, s.current), legal: sevens.legal(s), step: 0 });

const killsOwn = (s: SevensState, d: SevensDecision): boolean => sevens.applyTrusted(s, d).killed[s.current]! > s.killed[s.current]!;

describe("sevens planner (the computer agent's default for sevens)", () => {
  it("never peeks: two states with the same view, other hands dealt differently, get the same decision", () => {
    let compared = 0;
    for (const [i, real] of positions(12).entries()) {
      const seat = real.current;
      const view = sevens.view(real, seat);
      // The same table seen from `seat`, the other seats' cards dealt anew.
      const other = sevens.determinize(view, seat, Rng.seeded(deriveSeed(13, `redeal:${i}`)));
      expect(sevens.view(other, seat)).toEqual(view);
      if (other.cells.every((v, c) => v === real.cells[c])) continue;
      const decide = (s: SevensState) => unwrap(createAgent("computer:dets=4,rollouts=2", { seed: 7, seat, game: "sevens" })).decide(request(s));
      expect(decide(other)).toBe(decide(real));
      compared++;
    }
    expect(compared).toBeGreaterThan(8);
  });

  it("in its playouts, never plays a card that kills one of its own when another play does not", () => {
    const risky = positions(20, (s, legal) => {
      const own = legal.filter((d) => d.kind === "play" && killsOwn(s, d)).length;
      return own > 0 && own < legal.length;
    });
    expect(risky.length).toBe(20);
    for (const [i, s] of risky.entries()) {
      const legal = sevens.legal(s);
      for (let k = 0; k < 5; k++) expect(killsOwn(s, legal[carefulPlay(s, legal, Rng.seeded(deriveSeed(14, `careful:${i}:${k}`)))]!)).toBe(false);
    }
  });

  it("is the default computer: `computer` plays as `computer:dets=32,rollouts=2`", () => {
    const requests = positions(6).map(request);
    const decide = (spec: string) => requests.map((r) => unwrap(createAgent(spec, { seed: 3, seat: r.seat, game: "sevens" })).decide(r));
    expect(decide("computer")).toEqual(decide("computer:dets=32,rollouts=2"));
    expect(decide("computer:level=3")).toEqual(decide("computer"));
  });
});
