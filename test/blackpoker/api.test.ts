import { describe, expect, it } from "vitest";
import { canonicalJson, deriveSeed, Rng, stateHash } from "../../engine/core/index.ts";
import { blackpoker, type BlackpokerState } from "../../engine/blackpoker/index.ts";
import { blackpokerAdapter } from "../../env/games/blackpoker.ts";
import { config } from "./scenario.ts";

function randomGame(seed: number, config: Record<string, unknown> = {}, onState?: (s: BlackpokerState) => void) {
  const parsed = blackpoker.parseConfig(config);
  if (!parsed.ok) throw new Error(parsed.error.message);
  const rng = Rng.seeded(deriveSeed(seed, "policy"));
  let s = blackpoker.setup(parsed.value, seed);
  let n = 0;
  for (;;) {
    onState?.(s);
    if (blackpoker.actor(s) === "terminal") break;
    const legal = blackpoker.legal(s);
    s = blackpoker.applyTrusted(s, legal[rng.int(legal.length)]!);
    n++;
    if (n > blackpoker.maxDecisions(parsed.value)) throw new Error(`seed ${seed}: over maxDecisions`);
  }
  return { final: s, decisions: n, config: parsed.value };
}

describe("config", () => {
  it("defaults: current rules, requester auto-passes, 60-turn cap", () => {
    const c = blackpoker.parseConfig({});
    expect(c.ok && c.value).toEqual({ seats: 2, bothLivesZero: "turnPlayerLoses", drawRule: "current", chanceAfterRequest: "opponent", maxTurns: 60 });
  });
  it("errors name the field", () => {
    const cases: [unknown, string][] = [
      [{ seats: 3 }, "seats"],
      [{ drawRule: "seventh" }, "drawRule"],
      [{ bothLivesZero: true }, "bothLivesZero"],
      [{ chanceAfterRequest: 1 }, "chanceAfterRequest"],
      [{ maxTurns: 0 }, "maxTurns"],
      [{ maxTurns: 2.5 }, "maxTurns"],
      [{ speed: 1 }, "speed"],
    ];
    for (const [raw, field] of cases) {
      const r = blackpoker.parseConfig(raw);
      expect(r.ok).toBe(false);
      if (!r.ok) expect(r.error.path).toBe(field);
    }
  });
});

describe("views hide what they must", () => {
  it("the opponent's hand, Life order and face-down bulwarks are hidden; own ones are shown", () => {
    const s = blackpoker.setup(config(), 3);
    for (const seat of [0, 1]) {
      const v = blackpoker.view(s, seat);
      const opp = 1 - seat;
      expect(v.players[seat]!.hand).toEqual(s.players[seat]!.hand);
      expect(v.players[opp]!.hand).toBeNull();
      expect(v.players[opp]!.handSize).toBe(s.players[opp]!.hand.length);
      expect(v.players[opp]!.field[0]!.cards).toEqual([]); // the preset bulwark
      expect(v.players[seat]!.field[0]!.cards).toEqual(s.players[seat]!.field[0]!.cards);
      expect(v.players[opp]!.field[1]!.cards).toEqual(s.players[opp]!.field[1]!.cards); // soldiers face up
      expect(typeof v.players[opp]!.life).toBe("number");
      expect(canonicalJson(v)).not.toMatch(/"rng"|"seed"/);
      expect(v.pendingKind).toBe("chance");
    }
    const spectator = blackpoker.view(s, "spectator");
    expect(spectator.players.every((p) => p.hand === null)).toBe(true);
  });

  it("determinize: consistent with the view, and the hidden part varies across rngs", () => {
    let varied = 0;
    for (let seed = 1; seed <= 20; seed++) {
      randomGame(seed, {}, (s) => {
        if (blackpoker.actor(s) === "terminal") return;
        for (const seat of [0, 1]) {
          const v = blackpoker.view(s, seat);
          const a = blackpoker.determinize(v, seat, Rng.seeded(seed));
          const b = blackpoker.determinize(v, seat, Rng.seeded(seed + 1000));
          expect(canonicalJson(blackpoker.view(a, seat))).toBe(canonicalJson(v));
          expect(canonicalJson(blackpoker.view(b, seat))).toBe(canonicalJson(v));
          if (blackpoker.actor(s) === seat) expect(canonicalJson(blackpoker.legal(a))).toBe(canonicalJson(blackpoker.legal(s)));
          if (canonicalJson(a.players) !== canonicalJson(b.players)) varied++;
        }
      });
    }
    expect(varied).toBeGreaterThan(100);
  });
});

describe("RL adapter", () => {
  it("codec: ids in range and distinct over every legal list; the observation is finite and sized", () => {
    const out = new Float32Array(blackpokerAdapter.observation.size);
    for (let seed = 1; seed <= 150; seed++) {
      randomGame(seed, seed % 2 ? {} : { chanceAfterRequest: "requester", drawRule: "sixth" }, (s) => {
        const actor = blackpoker.actor(s);
        if (actor === "terminal") return;
        const view = blackpoker.view(s, actor);
        const ids = blackpoker.legal(s).map((d) => blackpokerAdapter.actions.encode(view, d));
        for (const id of ids) expect(id >= 0 && id < blackpokerAdapter.actions.size).toBe(true);
        expect(new Set(ids).size).toBe(ids.length);
        blackpokerAdapter.observation.encode(view, out);
        for (const x of out) if (!Number.isFinite(x)) throw new Error("non-finite observation");
      });
    }
  });

  it("the observation says whose turn it is and what is pending", () => {
    const s = blackpoker.setup(config(), 5);
    const out = new Float32Array(blackpokerAdapter.observation.size);
    const at = Object.fromEntries(blackpokerAdapter.observation.layout.map((f) => [f.name, f.offset]));
    const me = s.flow.turnPlayer;
    blackpokerAdapter.observation.encode(blackpoker.view(s, me), out);
    expect(out[at.scalars! + 4]).toBe(1); // my turn
    expect(out[at.scalars! + 8]).toBe(1); // I decide
    expect(out[at.pendingKind!]).toBe(1); // "chance"
    blackpokerAdapter.observation.encode(blackpoker.view(s, 1 - me), out);
    expect(out[at.scalars! + 4]).toBe(0);
    expect(out[at.scalars! + 8]).toBe(0);
  });
});

describe("random full games", () => {
  it("400 games under every config end within maxDecisions with zero-sum returns", () => {
    const configs = [{}, { chanceAfterRequest: "requester" }, { drawRule: "sixth", bothLivesZero: "draw" }, { maxTurns: 3 }];
    const outcomes = new Map<string, number>();
    for (let seed = 1; seed <= 400; seed++) {
      const { final, decisions, config } = randomGame(seed, configs[seed % configs.length]);
      expect(decisions).toBeLessThanOrEqual(blackpoker.maxDecisions(config));
      const r = blackpoker.returns(final);
      expect(r[0]! + r[1]!).toBe(0);
      expect([-1, 0, 1]).toContain(r[0]);
      // a finished game: some Life is 0, or a draw by the turn cap / the setup reveal
      const dead = final.players.some((z) => z.life.length === 0);
      expect(dead || r[0] === 0).toBe(true);
      outcomes.set(String(r[0]), (outcomes.get(String(r[0])) ?? 0) + 1);
    }
    expect(outcomes.get("1")).toBeGreaterThan(50);
    expect(outcomes.get("-1")).toBeGreaterThan(50);
    expect(outcomes.get("0")).toBeGreaterThan(0); // the maxTurns: 3 games
  });

  it("the same seed and decisions give the same hashes; apply never mutates its input", () => {
    const a = randomGame(42);
    const b = randomGame(42);
    expect(stateHash(a.final)).toBe(stateHash(b.final));
    randomGame(43, {}, (s) => {
      if (blackpoker.actor(s) === "terminal") return;
      const before = stateHash(s);
      for (const d of blackpoker.legal(s)) blackpoker.applyTrusted(s, d);
      expect(stateHash(s)).toBe(before);
    });
  });

  it("render shows the stage with its top", () => {
    let seen = false;
    randomGame(9, {}, (s) => {
      if (s.flow.stage.length > 0 && !seen) {
        const text = blackpoker.render(s);
        expect(text).toContain("STAGE (top first");
        expect(text).toContain("top ->");
        expect(text).toContain(s.flow.stage[s.flow.stage.length - 1]!.payload.action);
        seen = true;
      }
    });
    expect(seen).toBe(true);
  });
});
