import { describe, expect, it } from "vitest";
import { Rng } from "../../engine/core/index.ts";
import { writeMlp } from "../../agents/onnx/write-mlp.ts";
import { policyModelFromBytes } from "../../agents/onnx/policy-model.ts";
import { OnnxAgent } from "../../agents/onnx/onnx-agent.ts";
import { sevensAdapter } from "../../env/games/sevens.ts";

/** Positions with a real choice, reached by random play. */
function positions(count: number) {
  const game = sevensAdapter.game;
  const parsed = game.parseConfig({ seats: 4 });
  if (!parsed.ok) throw new Error(parsed.error.message);
  const out = [];
  const rng = Rng.seeded(5);
  for (let seed = 1; out.length < count; seed++) {
    let s = game.setup(parsed.value, seed);
    for (let i = 0; i < 8 && game.actor(s) !== "terminal"; i++) s = game.applyTrusted(s, rng.pick(game.legal(s)));
    if (game.actor(s) === "terminal") continue;
    const seat = game.actor(s) as number;
    const legal = game.legal(s);
    if (legal.length > 1) out.push({ game, seat, view: game.view(s, seat), legal, step: 0 });
  }
  return out;
}

describe("ONNX agent buffer reuse", () => {
  it("answers the same whether one agent decides sequentially, concurrently, or fresh agents decide", async () => {
    const bytes = writeMlp({ obsSize: sevensAdapter.observation.size, hidden: 16, actionSize: sevensAdapter.actions.size, metadata: {}, seed: 3 });
    const model = policyModelFromBytes("buffers", bytes);
    await model.ready();
    const list = positions(12);
    const fresh = await Promise.all(list.map((p, i) => new OnnxAgent(model, sevensAdapter, { sample: false, temperature: 1 }, i).decide(p)));
    // The model must discriminate, or this test could not fail.
    expect(new Set(fresh).size).toBeGreaterThan(1);
    const one = new OnnxAgent(model, sevensAdapter, { sample: false, temperature: 1 }, 0);
    const sequential: number[] = [];
    for (const p of list) sequential.push(await one.decide(p));
    expect(sequential).toEqual(fresh);
    // Concurrent calls on one agent (its reusable buffers are busy) still answer each view.
    expect(await Promise.all(list.map((p) => one.decide(p)))).toEqual(fresh);
    await model.release();
  });
});
