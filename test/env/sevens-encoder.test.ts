import { describe, expect, it } from "vitest";
import { Rng, unwrap } from "../../engine/core/index.ts";
import { DEAD, PLACED, sevens, type SevensView } from "../../engine/sevens/index.ts";
import { sevensAdapter } from "../../env/games/sevens.ts";

/**
 * The sevens encoder is written for speed (branch-free, no full clear); this is the layout's
 * description (env/games/sevens.ts) spelled out the plain way, to hold it to.
 */
function reference(view: SevensView): Float32Array {
  const { layout, size } = sevensAdapter.observation;
  const out = new Float32Array(size);
  const at = (name: string) => layout.find((f) => f.name === name)!.offset;
  const me = view.viewer === "spectator" ? -1 : view.viewer;
  const n = view.config.seats;
  view.cells.forEach((v, card) => {
    if (v < PLACED) out[at("cellInHand") + card] = 1;
    if (me >= 0 && v === me) out[at("cellMine") + card] = 1;
    if (v >= PLACED && v < DEAD) out[at("cellPlaced") + card] = 1;
    if (me >= 0 && v === PLACED + me) out[at("cellPlacedByMe") + card] = 1;
    if (v >= DEAD) out[at("cellDead") + card] = 1;
    if (me >= 0 && v === DEAD + me) out[at("cellDeadMine") + card] = 1;
  });
  for (const card of view.playable) out[at("cellPlayable") + card] = 1;
  const limit = view.config.passLimit;
  for (let i = 0; i < n; i++) {
    const seat = ((me < 0 ? 0 : me) + i) % n;
    out[at("seatPresent") + i] = 1;
    out[at("handSize") + i] = view.handSize[seat]! / 13;
    out[at("killed") + i] = view.killed[seat]! / 13;
    out[at("kills") + i] = view.kills[seat]! / 13;
    const p = view.passes[seat]!;
    out[at("passes") + i] = limit === null ? Math.min(p, 10) / 10 : p / (limit + 1);
    const fin = view.finishOrder.indexOf(seat);
    if (fin >= 0) {
      out[at("finished") + i] = 1;
      out[at("finishPosition") + i] = (fin + 1) / n;
    }
    if (view.eliminated.includes(seat)) out[at("eliminated") + i] = 1;
    if (view.turn === seat) out[at("turn") + i] = 1;
  }
  if (me >= 0 && view.turn === me) out[at("myTurn")] = 1;
  if (view.canPass) out[at("canPass")] = 1;
  if (view.turn === null) out[at("gameOver")] = 1;
  if (limit !== null) {
    out[at("passLimitSet")] = 1;
    out[at("passLimit")] = limit / 20;
  }
  if (view.config.voluntaryPass) out[at("voluntaryPass")] = 1;
  if (view.config.startPlayer === "diamond7") out[at("diamond7")] = 1;
  out[at("seatCount")] = n / 6;
  return out;
}

describe("sevens observation encoder", () => {
  it("matches the layout's plain definition for every seat and a spectator, overwriting whatever the buffer held", () => {
    const configs = [{}, { seats: 3, startPlayer: "diamond7" }, { seats: 6, passLimit: 2, voluntaryPass: true }];
    const out = new Float32Array(sevensAdapter.observation.size);
    let compared = 0;
    for (const raw of configs) {
      const config = unwrap(sevens.parseConfig(raw));
      for (let seed = 0; seed < 25; seed++) {
        const rng = Rng.seeded(seed + 100);
        let s = sevens.setup(config, seed);
        for (;;) {
          for (const viewer of [...Array.from({ length: config.seats }, (_, k) => k), "spectator" as const]) {
            const view = sevens.view(s, viewer);
            out.fill(Number.NaN); // a reused buffer: stale values must not survive
            sevensAdapter.observation.encode(view, out);
            const want = reference(view);
            for (let i = 0; i < out.length; i++) {
              if (out[i] !== want[i]) {
                const f = sevensAdapter.observation.layout.find((x) => i >= x.offset && i < x.offset + x.length)!;
                expect.fail(`seed ${seed} viewer ${viewer}: ${f.name}[${i - f.offset}] = ${out[i]}, want ${want[i]}`);
              }
            }
            compared++;
          }
          if (sevens.actor(s) === "terminal") break;
          const legal = sevens.legal(s);
          s = sevens.applyTrusted(s, legal[rng.int(legal.length)]!);
        }
      }
    }
    expect(compared).toBeGreaterThan(1000);
  });
});
