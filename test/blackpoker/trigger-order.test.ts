import { describe, expect, it } from "vitest";
import { Rng, deriveSeed } from "../../engine/core/index.ts";
import { runTriggerCheck, type CoreRequest } from "../../engine/core/interrupt/index.ts";
import { blackpoker, SPECS, type ActionName, type BlackpokerDecision, type BlackpokerState, type BpPayload } from "../../engine/blackpoker/index.ts";
import { rulesFor } from "../../engine/blackpoker/resolve.ts";
import { blackpokerAdapter } from "../../env/games/blackpoker.ts";
import { PASS, config, play, scenario } from "./scenario.ts";

const triggered = (rid: number, controller: number, action: ActionName): CoreRequest<BpPayload> => ({
  controller,
  speed: SPECS[action].speed,
  timing: SPECS[action].timing,
  payload: { rid, action, keys: [], target: -1 },
});
const take = (request: number): BlackpokerDecision => ({ kind: "chooseTrigger", request });

/**
 * Seat 0's soldier #0 (size 5) attacks unblocked; seat 1 (Life 4) holds two triggered main-timing
 * normal requests at once: a Draw (r0) and the DamageJudge (r1). Only one can reach the stage (the
 * other finds it occupied and is discarded), so seat 1's pick decides the game. Entry16 play never
 * buffers two different triggered requests for one player, so the state is built by hand.
 */
function twoTriggers(): BlackpokerState {
  const s = scenario({
    turn: 3,
    p0: { field: [{ uid: 0, cards: ["D5"], charged: false }] },
    p1: { life: ["S2", "S3", "C6", "C9"] },
  });
  const flow = { ...s.flow, buffer: [triggered(0, 1, "Draw"), triggered(1, 1, "DamageJudge")], then: "afterStage" as const };
  const built: BlackpokerState = { ...s, flow, combat: { attackers: [0], blockers: [], blocked: [] }, nextRid: 2 };
  return runTriggerCheck(built, rulesFor(built));
}

describe("BlackPoker: the player chooses which triggered request to take first ([6-5-2]/[6-10-2])", () => {
  it("the trigger check waits for the controller of the requests, with one option per request", () => {
    const s = twoTriggers();
    expect(s.flow.choice).toEqual({ seat: 1, options: [0, 1] });
    expect(blackpoker.actor(s)).toBe(1);
    expect(blackpoker.legal(s)).toEqual([take(0), take(1)]);
    const view = blackpoker.view(s, 1);
    expect(view.actor).toBe(1);
    expect(view.pendingKind).toBe("triggerOrder");
    expect(blackpoker.render(s)).toContain("seat 1 chooses which triggered request to take first: r0 Draw by seat 1");
    expect(blackpoker.describe(s, take(1))).toBe("seat 1 takes r1 DamageJudge by seat 1 (normal/main) first from its triggered requests");
    // the RL adapter: distinct ids, inside the action space, marked in the mask and the observation
    const codec = blackpokerAdapter.actions;
    const ids = blackpoker.legal(s).map((d) => codec.encode(view, d));
    expect(new Set(ids).size).toBe(2);
    for (const id of ids) expect(id).toBeGreaterThanOrEqual(codec.size - 19);
    const obs = new Float32Array(blackpokerAdapter.observation.size);
    blackpokerAdapter.observation.encode(view, obs);
    const kinds = blackpokerAdapter.observation.layout.find((f) => f.name === "pendingKind")!;
    expect(Array.from(obs.slice(kinds.offset, kinds.offset + kinds.length))).toEqual([0, 0, 0, 0, 0, 0, 0, 0, 1]);
  });

  it("taking the DamageJudge first: it is staged, the Draw is discarded, the damage kills seat 1", () => {
    let s = play(twoTriggers(), take(1));
    expect(s.flow.stage.map((r) => r.payload.action)).toEqual(["DamageJudge"]);
    expect(s.flow.buffer).toEqual([]);
    expect("choice" in s.flow).toBe(false);
    s = play(s, PASS, PASS);
    expect(s.players[1]!.life).toEqual([]);
    expect(blackpoker.returns(s)).toEqual([1, -1]);
  });

  it("taking the Draw first: it is staged, the DamageJudge is discarded, seat 1 draws and lives", () => {
    let s = play(twoTriggers(), take(0));
    expect(s.flow.stage.map((r) => r.payload.action)).toEqual(["Draw"]);
    s = play(s, PASS, PASS);
    expect(s.result).toBeNull();
    expect(s.players[1]!.life.length).toBe(2);
    expect(s.players[1]!.hand.length).toBe(2);
  });

  it("a request id that is not an option is refused by the checked apply", () => {
    const out = blackpoker.apply(twoTriggers(), take(7));
    expect(out.ok).toBe(false);
  });

  it("Entry16 play never offers the choice (a player's triggered requests of one kind differ only in id), so states keep their shape", () => {
    for (let g = 0; g < 40; g++) {
      const rng = Rng.seeded(deriveSeed(19, g));
      let s = blackpoker.setup(config(), rng.int(1 << 30));
      for (let n = 0; n < 3000 && s.result === null; n++) {
        expect("choice" in s.flow).toBe(false);
        const legal = blackpoker.legal(s);
        s = blackpoker.applyTrusted(s, legal[rng.int(legal.length)]!);
      }
    }
  });
});
