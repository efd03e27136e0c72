import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { canonicalJson, replay, Rng, stateHash } from "../../engine/core/index.ts";
import { registry } from "../../engine/games.ts";
import { MAX_RESOLUTIONS } from "../../engine/dcg/resolve.ts";
import { dcg, makeDcg, type BattleData, type DcgConfig, type Decision } from "../../engine/dcg/index.ts";
import { loadPool } from "../../engine/dcg/pool.ts";
import { at, scenario } from "./scenario.ts";

/**
 * User card sets (docs/quality-bar.md item 14): a card written only in JSON, in a set under
 * test/fixtures/cards that is not shipped, loads through the config and behaves as its data says;
 * bad data is refused with the card and JSON path (item 13); an ability loop ends by the chain
 * budget with a defined, replayable result.
 */
const fixture = (name: string) =>
  JSON.parse(readFileSync(new URL(`../fixtures/cards/${name}`, import.meta.url), "utf8")) as { cards: unknown[]; books: unknown[] };
const STORM = fixture("storm-set.json");
const LOOP = fixture("loop-set.json");

function cfg(raw: unknown): DcgConfig {
  const c = dcg.parseConfig(raw);
  if (!c.ok) throw new Error(c.error.message);
  return c.value;
}
function configError(raw: unknown): { message: string; path?: string } {
  const c = dcg.parseConfig(raw);
  if (c.ok) throw new Error("expected an error");
  return c.error;
}
/** A scenario game over the pool a config plays with. */
const gameFor = (config: DcgConfig) => makeDcg(dcg.poolFor(config), dcg.presetsFor(config));

function playRandom(config: DcgConfig, seed: number, onStep?: (s: BattleData, d: Decision) => void) {
  const rng = Rng.seeded(seed + 99);
  let s = dcg.setup(config, seed);
  const decisions: Decision[] = [];
  const hashes = [stateHash(s)];
  while (dcg.actor(s) !== "terminal") {
    const legal = dcg.legal(s);
    const d = legal[rng.int(legal.length)]!;
    onStep?.(s, d);
    s = dcg.applyTrusted(s, d);
    decisions.push(d);
    hashes.push(stateHash(s));
  }
  return { state: s, decisions, hashes };
}

describe("a card set carried in the config", () => {
  it("extends the shipped pool and presets; the default config has no cardSet at all", () => {
    expect(Object.hasOwn(cfg({}), "cardSet")).toBe(false);
    const c = cfg({ cardSet: STORM, books: ["storm", "bastion"] });
    const pool = dcg.poolFor(c);
    expect(pool.cards.length).toBe(dcg.pool.cards.length + 2);
    // Shipped cards keep their indices (observation one-hots); the set's cards follow.
    expect(pool.cards.slice(0, dcg.pool.cards.length).map((x) => x.id)).toEqual(dcg.pool.cards.map((x) => x.id));
    expect(pool.byId.get("storm-caller")).toBe(dcg.pool.cards.length);
    expect(dcg.presetsFor(c).map((b) => b.id)).toEqual(["vanguard", "bastion", "venom", "tempo", "storm"]);
    expect(dcg.poolFor(cfg({}))).toBe(dcg.pool);
  });

  it("Storm Caller (JSON only) does what its data says: 1 damage to enemies within D2 at its owner's turn start", () => {
    const game = gameFor(cfg({ cardSet: STORM }));
    const sc = scenario(game)
      .withTurn(4, 1)
      .withUnit(0, "Storm Caller", "C2")
      .withUnit(1, "Agnis", "C4")
      .withUnit(1, "Agnis", "D3")
      .withUnit(1, "Est", "C5")
      .withBook(0, "Est");
    sc.act({ kind: "turnFinish" });
    expect([sc.life("C4"), sc.life("D3"), sc.life("C5")]).toEqual([2, 2, 2]); // C5 is 3 steps away
    expect(sc.triggers("EffectDamagedCard")).toHaveLength(2);
  });

  it("Tide Wall (JSON only): its owner recovers 1 HP when it is attacked", () => {
    const game = gameFor(cfg({ cardSet: STORM }));
    const sc = scenario(game).withUnit(0, "Agnis", "C2").withUnit(1, "Tide Wall", "C3").withPlayer(1, { hp: 12 });
    sc.act({ kind: "attack", card: 0, cell: at("C3") });
    expect([sc.life("C3"), sc.state.players[1].hp]).toEqual([2, 13]);
  });

  it("plays whole games with a user book; the records replay from the config alone, also from JSON", () => {
    const config = cfg({ cardSet: STORM, books: ["storm", "vanguard"] });
    const storm = dcg.poolFor(config).byId.get("storm-caller")!;
    let fired = 0;
    for (let seed = 1; seed <= 12; seed++) {
      const run = playRandom(config, seed, (s, d) => {
        if (d.kind !== "turnFinish") return;
        const traced = dcg.applyTraced(s, d);
        fired += traced.trace.commands.filter((c) => c.kind === "EffectDeclareCommand" && s.cards[(c as { card: number }).card]!.def === storm).length;
      });
      const record = JSON.parse(JSON.stringify({ game: "dcg", version: dcg.info.version, config, seed, decisions: run.decisions, hashes: run.hashes }));
      const out = replay(registry, record);
      if (!out.ok) throw new Error(out.error.message);
      expect(out.value.hashes).toEqual(run.hashes);
    }
    expect(fired).toBeGreaterThan(0);
  });

  it("a state revived from JSON continues identically (the card set is found again by content)", () => {
    const config = cfg({ cardSet: STORM, books: ["storm", "storm"] });
    const run = playRandom(config, 5);
    let s = dcg.setup(config, 5);
    for (let i = 0; i < run.decisions.length; i++) {
      s = JSON.parse(JSON.stringify(s));
      expect(canonicalJson(dcg.legal(s))).toContain(canonicalJson(run.decisions[i]));
      s = dcg.applyTrusted(s, run.decisions[i]!);
      expect(stateHash(s)).toBe(run.hashes[i + 1]);
    }
  });
});

describe("bad card data is refused with the card and JSON path (docs/quality-bar.md item 13)", () => {
  const card = (patch: Record<string, unknown>) => ({ id: "bad-card", name: "Bad", kind: "rubric", cost: 1, attack: 1, life: 1, ...patch });
  const trigger = (effect: unknown) => ({
    type: "TriggerAbility",
    conditions: [[{ kind: "Any" }, { kind: "FilterTriggerKind", triggers: ["Summoned"] }]],
    effect,
  });

  it("unknown kinds, types and fields", () => {
    expect(configError({ cardSet: { cards: [card({ abilities: [trigger({ kind: "Teleport", target: [{ kind: "Any" }] })] })] } }).message).toBe(
      'cardSet.cards[0] (bad-card).abilities[0].effect.kind: unknown effect "Teleport" (PlayerDamage, PlayerRecoverHp, CardDamage, CardRecover, CardMove, CardSwap, CardAilment, AttachAbility, PlayerHand, ConsumeFeint)',
    );
    expect(
      configError({
        cardSet: { cards: [card({ abilities: [trigger({ kind: "CardDamage", amount: 1, target: [{ kind: "MapCard" }, { kind: "FilterColour" }] })] })] },
      }).message,
    ).toBe('cardSet.cards[0] (bad-card).abilities[0].effect.target[1].kind: unknown phrase "FilterColour"');
    expect(configError({ cardSet: { cards: [card({ abilities: [{ type: "MagicAbility" }] })] } }).message).toMatch(
      /^cardSet\.cards\[0\] \(bad-card\)\.abilities\[0\]\.type: unknown ability type "MagicAbility"/,
    );
    expect(configError({ cardSet: { cards: [card({ colour: "red" })] } }).message).toBe(
      "cardSet.cards[0] (bad-card).colour: unknown field (allowed: id, no, name, move, kind, cost, attack, life, abilities)",
    );
    expect(configError({ cardSet: { cards: [], decks: [] } }).message).toBe("cardSet.decks: unknown field (allowed: cards, books)");
    expect(configError({ cardSet: [] }).message).toBe("cardSet must be an object {cards?, books?}");
  });

  it("ids that clash, books that break the rules", () => {
    expect(configError({ cardSet: { cards: [card({ id: "agnis" })] } }).message).toBe("cardSet.cards[0] (agnis).id: duplicate card id agnis");
    const book = { id: "mine", name: "Mine", strategy: ["agnis", "agnis", "agnis", "est", "est"], cards: ["no-such-card"] };
    expect(configError({ cardSet: { books: [book] } }).message).toBe('cardSet.books[0] (mine).cards[0]: unknown card "no-such-card"');
    expect(configError({ cardSet: { books: [{ ...book, id: "tempo" }] } }).message).toBe("cardSet.books[0] (tempo).id: duplicate book id tempo");
    expect(configError({ cardSet: STORM, books: ["storm", "nope"] }).message).toMatch(/^books\[1\]: unknown preset book "nope"; presets: .*storm/);
  });

  it("prototype-poisoning keys anywhere, with their path", () => {
    for (const key of ["__proto__", "constructor", "prototype"]) {
      const raw = JSON.parse(
        `{"cards": [{"id": "p", "name": "P", "kind": "rubric", "cost": 1, "attack": 1, "life": 1, "abilities": [{"type": "TriggerAbility", "conditions": [[{"kind": "Any", "${key}": {"polluted": true}}]], "effect": {"kind": "PlayerHand", "amount": 1, "target": [{"kind": "MapPlayer"}]}}]}]}`,
      );
      expect(configError({ cardSet: raw }).message).toBe(`cardSet.cards[0].abilities[0].conditions[0][0].${key}: forbidden key "${key}" (prototype poisoning)`);
      expect(({} as Record<string, unknown>).polluted).toBeUndefined();
      // The engine's own loader refuses them too, naming the card.
      const pool = loadPool(raw.cards);
      expect(!pool.ok && pool.error.message).toBe(`cards[0] (p).abilities[0].conditions[0][0].${key}: forbidden key "${key}" (prototype poisoning)`);
    }
  });

  it("absurd nesting and size end quickly with a clear error, never a stack overflow", () => {
    let deep: unknown = { type: "ParameterAbility", parameter: "Attack", calc: { mode: "Add", amount: 1 }, lifetime: [] };
    for (let i = 0; i < 5000; i++)
      deep = { kind: "AttachAbility", ability: { type: "TriggerAbility", conditions: [], effect: deep }, target: [{ kind: "Any" }] };
    expect(configError({ cardSet: { cards: [card({ abilities: [{ type: "TriggerAbility", conditions: [], effect: deep }] })] } }).message).toMatch(
      /nested deeper than 32 levels$/,
    );
    const wide = Array.from({ length: 5000 }, () => [{ kind: "Any" }]);
    expect(
      configError({
        cardSet: {
          cards: [card({ abilities: [{ type: "TriggerAbility", conditions: wide, effect: { kind: "PlayerHand", amount: 1, target: [{ kind: "Any" }] } }] })],
        },
      }).message,
    ).toMatch(/^cardSet\.cards\[0\]\.abilities\[0\]\.conditions: array longer than 1000 items$/);
    const many = Array.from({ length: 1200 }, (_, i) => card({ id: `c-${i}` }));
    expect(configError({ cardSet: { cards: many } }).message).toBe("cardSet.cards: array longer than 1000 items");
    expect(configError({ cardSet: { cards: [card({ name: "x".repeat(5000) })] } }).message).toMatch(/name: string longer than 1000 characters$/);
  });
});

describe("an ability loop (Echo A triggers Echo B triggers Echo A) ends by the chain budget", () => {
  const config = cfg({ cardSet: LOOP, books: ["echoes", "echoes"] });
  const game = gameFor(config);

  it("one unit a side: a strict A-B-A chain, cut at depth 16: exactly 15 resolutions, the same every time", () => {
    const run = () =>
      scenario(game)
        .withUnit(0, "Echo A", "C2")
        .withUnit(1, "Echo B", "C3")
        .act({ kind: "attack", card: 0, cell: at("C3") });
    const a = run();
    const declared = a.trace.commands.filter((c) => c.kind === "EffectDeclareCommand").map((c) => (c as { card: number }).card);
    expect(declared).toEqual([1, 0, 1, 0, 1, 0, 1, 0, 1, 0, 1, 0, 1, 0, 1]);
    expect(a.state.state.kind).toBe("Main");
    expect(a.life("C3")).toBe(8); // only the attack did damage
    expect(stateHash(run().state)).toBe(stateHash(a.state));
  });

  it("several units a side: the chain branches and stops at the 1000th resolution of the decision", () => {
    const run = (seed: number) =>
      scenario(game, seed)
        .withUnit(0, "Echo A", "A2")
        .withUnit(0, "Echo A", "C2")
        .withUnit(0, "Echo B", "E2")
        .withUnit(1, "Echo B", "C3")
        .withUnit(1, "Echo A", "A4")
        .withUnit(1, "Echo B", "E4")
        .act({ kind: "attack", card: 1, cell: at("C3") });
    const a = run(3);
    expect(a.trace.commands.filter((c) => c.kind === "EffectDeclareCommand")).toHaveLength(MAX_RESOLUTIONS);
    expect(a.state.state.kind).toBe("Main");
    expect(stateHash(run(3).state)).toBe(stateHash(a.state));
    // The next decision has a fresh budget: the game goes on.
    a.act({ kind: "turnFinish" });
    expect(a.state.turnPlayer).toBe(1);
  });

  it("whole random games with looping books finish and replay hash for hash", () => {
    for (let seed = 1; seed <= 2; seed++) {
      const run = playRandom(config, seed);
      const out = replay(registry, { game: "dcg", version: dcg.info.version, config, seed, decisions: run.decisions, hashes: run.hashes });
      if (!out.ok) throw new Error(out.error.message);
      expect(out.value.hashes).toHaveLength(run.hashes.length);
    }
  });
});
