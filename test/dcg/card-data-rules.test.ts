import { describe, expect, it } from "vitest";
import { Rng, stateHash } from "../../engine/core/index.ts";
import { dcg, makeDcg, type DcgConfig } from "../../engine/dcg/index.ts";
import { LIFE_MAX, PARAM_MAX } from "../../engine/dcg/ops.ts";
import { moveCost } from "../../engine/dcg/params.ts";
import { dcgAdapter } from "../../env/games/dcg.ts";
import { observationBounds } from "../../env/codec.ts";
import { at, scenario } from "./scenario.ts";

/**
 * Issue 22's rule points, one scenario each: every value the card schema accepts is one the rules
 * honour, and a negative amount goes through the same code as its positive twin.
 */
type Json = Record<string, unknown>;
const onSummoned = (effect: Json) => ({
  type: "TriggerAbility",
  conditions: [
    [{ kind: "MapActorCard" }, { kind: "FilterAbilityConsumer" }],
    [{ kind: "Any" }, { kind: "FilterTriggerKind", triggers: ["Summoned"] }],
  ],
  effect,
});
const rubric = (id: string, abilities: unknown[] = [], patch: Json = {}) => ({
  id,
  name: id,
  kind: "rubric",
  cost: 1,
  attack: 1,
  life: 3,
  abilities,
  ...patch,
});
const enemies = [{ kind: "MapCard" }, { kind: "FilterCardOwner", opponent: true }];
const foe = [{ kind: "MapPlayer" }, { kind: "FilterCardOwner", opponent: true }];
const me = [{ kind: "MapPlayer" }, { kind: "FilterCardOwner", opponent: false }];

function configWith(cards: unknown[], books: unknown[] = []): DcgConfig {
  const c = dcg.parseConfig({ cardSet: { cards, books } });
  if (!c.ok) throw new Error(c.error.message);
  return c.value;
}
const gameWith = (cards: unknown[]) => {
  const cfg = configWith(cards);
  return makeDcg(dcg.poolFor(cfg), dcg.presetsFor(cfg));
};
const refused = (cards: unknown[]) => {
  const c = dcg.parseConfig({ cardSet: { cards } });
  return c.ok ? null : c.error.message;
};
/** Summons `id` from Host's hand on C1 against an Agnis (life 3) on C3 and Guest at 10 HP. */
function summon(cards: unknown[], id: string) {
  const sc = scenario(gameWith(cards)).withHand(0, id).withUnit(1, "Agnis", "C3").withUnit(0, "Est", "A1").withPlayer(1, { hp: 10 }).withPlayer(0, { hp: 10 });
  sc.act({ kind: "summon", card: sc.id(id), cell: at("C1") });
  return sc;
}

describe("negative amounts run the twin effect", () => {
  it("a negative CardRecover is damage with its death check: the unit leaves the field", () => {
    const sc = summon([rubric("drain", [onSummoned({ kind: "CardRecover", amount: -5, target: enemies })])], "drain");
    expect(sc.unitAt("C3")).toBe(-1);
    expect(sc.triggers("EffectDamagedCard")).toHaveLength(1);
    expect(sc.triggers("CardGraved")).toHaveLength(1);
    expect(sc.triggers("EffectRecoveredCard")).toHaveLength(0);
  });

  it("a negative CardDamage is a recovery, saturating at LIFE_MAX", () => {
    const sc = summon([rubric("mend", [onSummoned({ kind: "CardDamage", amount: -1000, target: enemies })])], "mend");
    expect(sc.life("C3")).toBe(LIFE_MAX);
    expect(sc.triggers("EffectRecoveredCard")).toHaveLength(1);
  });

  it("a negative PlayerDamage heals (never above the starting HP), a negative PlayerRecoverHp hurts", () => {
    expect(summon([rubric("gift", [onSummoned({ kind: "PlayerDamage", amount: -3, target: foe })])], "gift").state.players[1].hp).toBe(13);
    expect(summon([rubric("gift", [onSummoned({ kind: "PlayerDamage", amount: -30, target: foe })])], "gift").state.players[1].hp).toBe(15);
    const hurt = summon([rubric("curse", [onSummoned({ kind: "PlayerRecoverHp", amount: -4, target: foe })])], "curse");
    expect(hurt.state.players[1].hp).toBe(6);
    expect(hurt.triggers("EffectDamagedPlayerHp")).toHaveLength(1);
  });

  it("values the rules cannot honour are refused: PlayerHand < 0 or > 7, CardMove distance < 0, Take count <= 0", () => {
    const hand = (amount: number) => refused([rubric("x", [onSummoned({ kind: "PlayerHand", amount, target: me })])]);
    expect(hand(-1)).toMatch(/amount: expected an integer in 0\.\.7, got -1/);
    expect(hand(8)).toMatch(/amount: expected an integer in 0\.\.7, got 8/);
    expect(hand(7)).toBeNull();
    expect(refused([rubric("x", [onSummoned({ kind: "CardMove", direction: "forward", distance: -2, target: enemies })])])).toMatch(
      /distance: expected an integer in 0\.\.6, got -2/,
    );
    for (const count of [0, -3])
      expect(refused([rubric("x", [onSummoned({ kind: "CardDamage", amount: 1, target: [...enemies, { kind: "Take", count, mode: "first" }] })])])).toMatch(
        /count: expected an integer in 1\.\.1000/,
      );
  });
});

describe("stat bounds", () => {
  const aura = (mode: string, amount: number, parameter = "Attack") => ({
    type: "AreaAbility",
    reach: [{ kind: "MapCard" }],
    ability: { type: "ParameterAbility", parameter, calc: { mode, amount } },
  });
  const tower = rubric(
    "tower",
    Array.from({ length: 8 }, () => aura("Multiply", 1000)),
    { attack: 20 },
  );
  const slug = rubric(
    "slug",
    Array.from({ length: 8 }, () => aura("Multiply", 1000, "MoveCost")),
    { move: 8 },
  );

  it("stacked Multiply saturates: attack and move cost stay at PARAM_MAX; the state hashes; observations are finite and in bounds", () => {
    const cfg = configWith([tower, slug]);
    const game = gameWith([tower, slug]);
    // The config carries the card set, so the env encoder finds the same pool (dcg.poolFor).
    const sc = scenario(game)
      .with({ cfg })
      .withUnit(0, "tower", "C2")
      .withUnit(0, "tower", "B1")
      .withUnit(0, "slug", "D1")
      .withUnit(1, "Agnis", "C3")
      .withUnit(1, "Stone Wall", "A4");
    expect(sc.attack("C2")).toBe(PARAM_MAX);
    expect(sc.attack("C3")).toBe(PARAM_MAX);
    expect(moveCost(sc.state, game.pool, sc.unitAt("D1"))).toBe(PARAM_MAX);
    sc.act({ kind: "attack", card: sc.unitAt("C2"), cell: at("C3") });
    expect(sc.unitAt("C3")).toBe(-1);
    expect(() => stateHash(sc.state)).not.toThrow();
    expect(JSON.stringify(sc.state)).not.toContain('null,"ailment');
    const { low, high } = observationBounds(dcgAdapter.observation);
    const obs = new Float32Array(dcgAdapter.observation.size);
    for (const seat of [0, 1] as const) {
      dcgAdapter.observation.encode(game.view(sc.state, seat), obs);
      for (let i = 0; i < obs.length; i++) {
        expect(Number.isFinite(obs[i]!)).toBe(true);
        if (obs[i]! < low[i]! || obs[i]! > high[i]!) throw new Error(`obs[${i}] = ${obs[i]} outside [${low[i]}, ${high[i]}]`);
      }
    }
  });
});

describe("feints are not units", () => {
  // A unit swapping with whatever damaged a card: Pitfall's damage names the face-down feint as
  // its actor. Before, the swap put the feint on the board and left its owner's feint pointer stale.
  const swapper = rubric(
    "swapper",
    [
      {
        type: "TriggerAbility",
        conditions: [[{ kind: "Any" }, { kind: "FilterTriggerKind", triggers: ["EffectDamagedCard"] }]],
        effect: { kind: "CardSwap", target: [{ kind: "MapActorCard" }] },
      },
    ],
    { life: 9 },
  );
  const book = {
    id: "swappy",
    name: "S",
    strategy: ["swapper", "swapper", "swapper", "est", "est"],
    cards: ["pitfall", "pitfall", "pitfall", "swapper", "swapper", "agnis", "agnis", "agnis", "blitz", "blitz", "blitz", "blitz", "blitz", "bubble", "est"],
  };

  it("CardSwap (and every card effect) never reaches a face-down feint: no stale feint pointer, no feint on the board", () => {
    const c = dcg.parseConfig({ cardSet: { cards: [swapper], books: [book] }, books: ["swappy", "swappy"] });
    if (!c.ok) throw new Error(c.error.message);
    const pool = dcg.poolFor(c.value);
    let swaps = 0;
    for (let g = 0; g < 12; g++) {
      const rng = Rng.seeded(g);
      let s = dcg.setup(c.value, g);
      while (dcg.actor(s) !== "terminal") {
        const legal = dcg.legal(s);
        const d = legal[rng.int(legal.length)]!;
        if (d.kind === "feintDeclare") expect(s.cards[(s.state as { feint: number }).feint]!.layer).toBe("Field");
        const out = dcg.applyTraced(s, d);
        s = out.state;
        swaps += out.trace.commands.filter((x) => x.kind === "EffectDeclareCommand" && s.cards[x.card]!.def === pool.byId.get("swapper")).length;
        for (const id of s.cells) if (id >= 0) expect(pool.cards[s.cards[id]!.def]!.kind).not.toBe("feint");
        for (const p of s.players) if (p.feint >= 0) expect([s.cards[p.feint]!.layer, s.feints[s.cards[p.feint]!.cell]]).toEqual(["Field", p.feint]);
      }
    }
    expect(swaps).toBeGreaterThan(0); // the swapper fired (its CardSwap found no unit to swap with)
  });
});

describe("ability positions", () => {
  const attach = (ability: unknown, extra: unknown[] = []) => [rubric("giver", [...extra, onSummoned({ kind: "AttachAbility", ability, target: enemies })])];
  const areaAb = {
    type: "AreaAbility",
    reach: [{ kind: "MapCard" }],
    ability: { type: "ParameterAbility", parameter: "Attack", calc: { mode: "Add", amount: 1 } },
  };
  const nightmare = { type: "NightmareAbility", conditions: [[{ kind: "MapPlayer" }, { kind: "FilterPlayerHp", cmp: "LessThan", value: 5 }]] };

  it("AttachAbility of an AreaAbility or a NightmareAbility is refused, inline or by reference", () => {
    expect(refused(attach(areaAb))).toMatch(/AttachAbility attaches a TriggerAbility or a ParameterAbility, not an AreaAbility/);
    expect(refused(attach(nightmare))).toMatch(/not a NightmareAbility/);
    expect(refused(attach({ ref: 0 }, [areaAb]))).toMatch(/not an AreaAbility/);
    expect(refused(attach({ ref: 0 }, [nightmare]))).toMatch(/not a NightmareAbility/);
  });

  it("AttachAbility of a ParameterAbility (inline or by reference) and of a TriggerAbility works on the target", () => {
    const buff = { type: "ParameterAbility", parameter: "Attack", calc: { mode: "Add", amount: 4 } };
    const sc = summon(attach(buff), "giver");
    expect(sc.attack("C3")).toBe(2 + 4);
    // An attached TriggerAbility answers for the card it is attached to.
    const thorns = onSummoned({ kind: "PlayerDamage", amount: 2, target: foe });
    const sc2 = summon(
      [
        rubric("giver", [
          onSummoned({
            kind: "AttachAbility",
            ability: {
              type: "TriggerAbility",
              conditions: [[{ kind: "Any" }, { kind: "FilterTriggerKind", triggers: ["TurnFinish"] }]],
              effect: { kind: "PlayerDamage", amount: 2, target: me },
            },
            target: enemies,
          }),
        ]),
      ],
      "giver",
    );
    expect(sc2.card(sc2.unitAt("C3")).attached).toHaveLength(1);
    sc2.withBook(1, "Est").act({ kind: "turnFinish" });
    expect(sc2.state.players[1].hp).toBe(8); // the Agnis' owner (Guest) takes 2 at the turn's end
    expect(thorns.type).toBe("TriggerAbility");
  });

  it("a TriggerAbility must name the trigger kinds it answers; condition and lifetime lists are bounded", () => {
    const bare = (conditions: unknown[]) =>
      refused([rubric("x", [{ type: "TriggerAbility", conditions, effect: { kind: "PlayerHand", amount: 1, target: me } }])]);
    expect(bare([])).toMatch(/conditions: expected a list of 1\.\.8 targetings/);
    expect(bare([[{ kind: "Any" }]])).toMatch(/needs a FilterTriggerKind/);
    const kinds = [{ kind: "Any" }, { kind: "FilterTriggerKind", triggers: ["Summoned"] }];
    expect(bare(Array(8).fill(kinds))).toBeNull();
    expect(bare(Array(9).fill(kinds))).toMatch(/conditions: expected a list of 1\.\.8 targetings/);
    const lifetime = (n: number) =>
      refused([rubric("x", [{ type: "ParameterAbility", parameter: "Attack", calc: { mode: "Add", amount: 1 }, lifetime: Array(n).fill(kinds) }])]);
    expect(lifetime(8)).toBeNull();
    expect(lifetime(9)).toMatch(/lifetime: expected a list of 0\.\.8 targetings/);
  });
});
