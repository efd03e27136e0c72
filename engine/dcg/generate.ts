import { Rng } from "../core/index.ts";
import type { CardSetJson } from "./card-set.ts";
import { CALCULATOR_MODES } from "./calculator.ts";
import { COMPARATORS, type Comparator } from "./comparator.ts";

/**
 * Generated card pools (docs/cards.md, "Generated pools"): a pure, seeded function from
 * (seed, cards) to a card set {cards, books} the loader accepts. Same spec, same JSON, byte for
 * byte, so a config can carry the spec `cardPool: {generate: {seed, cards}}` instead of the data and
 * a GameRecord still replays.
 *
 * Cards are built from ability templates over the published vocabulary (heads, pipes, effects,
 * calculators, comparators, the four ability types). Every template has a power value; a card's
 * cost follows its power by one budget rule:
 *
 *   power = attack + life / 2 + the sum of its abilities' values
 *   rubric of cost c (0..3): power = 2 + 2c (abilities first, then attack and life fill the rest)
 *   object of cost c (0..4): power = 2 + 2c (life / 2 plus its abilities; attack 0)
 *   feint  of cost c (0..3): its effect's value is at most 1 + 2c
 *
 * Books: GENERATED_BOOKS books of 20 cards drawn from the set alone (5 strategy rubrics of cost
 * <= 2, at most one of cost 3 elsewhere by the book rules), ids `gen-<seed>-book-<n>`.
 */
export interface GenerateSpec {
  readonly seed: number;
  readonly cards: number;
}

/** Bounds of `cards` (a pool needs enough rubrics for its books; larger pools cost generation time). */
export const MIN_GENERATED_CARDS = 8;
export const MAX_GENERATED_CARDS = 200;
export const GENERATED_BOOKS = 4;

type J = Record<string, unknown>;

/** A generated set: a CardSetJson whose books are known. */
export interface GeneratedSet extends CardSetJson {
  readonly cards: readonly J[];
  readonly books: readonly GeneratedBook[];
}
export interface GeneratedBook {
  readonly id: string;
  readonly name: string;
  readonly strategy: readonly string[];
  readonly cards: readonly string[];
}
type Sentence = J[];

interface Template {
  readonly value: number;
  readonly ability: J;
}

const own = (opponent: boolean): J => ({ kind: "FilterCardOwner", opponent });
const when = (...triggers: string[]): Sentence => [{ kind: "Any" }, { kind: "FilterTriggerKind", triggers }];
const consumerActs: Sentence = [{ kind: "MapActorCard" }, { kind: "FilterAbilityConsumer" }];
const consumerHit: Sentence = [{ kind: "MapTargetCard" }, { kind: "FilterAbilityConsumer" }];
const players = (opponent: boolean): Sentence => [{ kind: "MapPlayer" }, own(opponent)];
const trig = (conditions: Sentence[], effect: J): J => ({ type: "TriggerAbility", conditions, effect });
const param = (parameter: string, mode: string, amount: number, lifetime: Sentence[] = []): J => ({
  type: "ParameterAbility",
  parameter,
  calc: { mode, amount },
  lifetime,
});

/** A ParameterAbility on a yes/no parameter (a boolean calculator: Set/And/Or take a value, Not none). */
const flag = (parameter: string, mode: string, value?: boolean, lifetime: Sentence[] = []): J => ({
  type: "ParameterAbility",
  parameter,
  calc: value === undefined ? { mode } : { mode, value },
  lifetime,
});

/** The ability templates that print a standing ability (the rest are triggered). */
const STATIC_ABILITIES: ReadonlySet<number> = new Set([4, 6, 7, 11, 14, 15, 16]);

class Gen {
  constructor(private readonly rng: Rng) {}

  chance(p: number): boolean {
    return this.rng.nextFloat() < p;
  }

  pick<T>(list: readonly T[]): T {
    return this.rng.pick(list);
  }

  /** 1..max, small values likelier. */
  small(max: number): number {
    let n = 1;
    while (n < max && this.chance(0.35)) n++;
    return n;
  }

  cmp(): Comparator {
    return this.pick(COMPARATORS);
  }

  /** Enemy units, narrowed by one of the card pipes, one of them (first or random). */
  enemyUnits(): Sentence {
    const t: Sentence = [{ kind: "MapCard" }, own(true)];
    const narrow = this.rng.int(8);
    if (narrow === 0) t.push({ kind: "FilterCardKind", cardKind: "rubric" });
    else if (narrow === 1) t.push({ kind: "FilterCardCost", cmp: this.pick(["GreaterThanOrEqual", "LessThanOrEqual"] as const), value: this.rng.int(3) });
    else if (narrow === 2) t.push({ kind: "FilterCardAttack", cmp: this.pick(["GreaterThan", "LessThan", "Equal"] as const), value: 1 + this.rng.int(3) });
    else if (narrow === 3) t.push({ kind: "FilterCardDamage" });
    else if (narrow === 4) t.push({ kind: "FilterLayer", row: this.pick(["enemyFront", "enemyMiddle", "front", "centre"] as const) });
    else if (narrow === 5) t.push({ kind: "FilterCardAilment", ailment: this.pick(["poison", "none"] as const) });
    else if (narrow === 6) t.push({ kind: "FilterCardHp", cmp: "LessThanOrEqual", value: 2 + this.rng.int(3) });
    t.push({ kind: "Take", count: 1, mode: this.pick(["first", "random"] as const) });
    return t;
  }

  /** An effect a trigger or a feint runs, with its value. */
  effect(): { value: number; effect: J } {
    const n = this.small(3);
    switch (this.rng.int(11)) {
      case 0:
        return { value: 2.5 * n, effect: { kind: "PlayerDamage", amount: n, target: players(true) } };
      case 1:
        return { value: n, effect: { kind: "PlayerRecoverHp", amount: n, target: players(false) } };
      case 2:
        return { value: 1.5 * n, effect: { kind: "CardDamage", amount: n, target: this.enemyUnits() } };
      case 3:
        return {
          value: n,
          effect: {
            kind: "CardRecover",
            amount: n,
            target: [{ kind: "MapCard" }, own(false), { kind: "FilterCardDamage" }, { kind: "Take", count: 1, mode: "first" }],
          },
        };
      case 4:
        return { value: 1.5, effect: { kind: "CardAilment", ailment: "poison", target: this.enemyUnits() } };
      case 5: {
        const k = this.small(2);
        return { value: 2 * k, effect: { kind: "PlayerHand", amount: k, target: players(false) } };
      }
      case 6:
        return { value: 1, effect: { kind: "ConsumeFeint", target: players(true) } };
      case 7: {
        const k = this.small(2);
        return {
          value: k,
          effect: {
            kind: "AttachAbility",
            target: [{ kind: "MapCard" }, own(false), { kind: "FilterCardKind", cardKind: "rubric" }, { kind: "Take", count: 1, mode: "random" }],
            ability: param("Attack", "Add", k),
          },
        };
      }
      case 8:
        // Copy: an own rubric gains the printed abilities of a random enemy rubric.
        return {
          value: 1,
          effect: {
            kind: "AttachAbility",
            source: [{ kind: "MapCard" }, own(true), { kind: "FilterCardKind", cardKind: "rubric" }, { kind: "Take", count: 1, mode: "random" }],
            target: [{ kind: "MapCard" }, own(false), { kind: "FilterCardKind", cardKind: "rubric" }, { kind: "Take", count: 1, mode: "random" }],
          },
        };
      case 9:
        // Hex: an enemy rubric cannot attack until the end of the turn (a boolean Not).
        return {
          value: 1,
          effect: {
            kind: "AttachAbility",
            ability: flag("CanAttack", "Not", undefined, [[...when("TurnFinish"), { kind: "FilterTurnPlayer" }]]),
            target: [{ kind: "MapCard" }, own(true), { kind: "FilterCardKind", cardKind: "rubric" }, { kind: "Take", count: 1, mode: "first" }],
          },
        };
      default:
        return { value: 1, effect: { kind: "CardDamage", amount: 1, target: [{ kind: "MapCell" }, { kind: "FilterInvader" }, own(true)] } };
    }
  }

  /** An ability a unit prints, with its value (negative values are drawbacks). */
  ability(kind: "rubric" | "object"): Template {
    // Rubrics draw from every template; objects from 0..6, then from the object-valid new ones.
    const drawn = this.rng.int(kind === "rubric" ? 16 : 10);
    const late = [11, 12, 16][drawn - 7]; // an object's draws 7..9 stand for these templates
    const choice = kind === "object" && late !== undefined ? late : drawn;
    return STATIC_ABILITIES.has(choice) ? this.staticAbility(choice, kind) : this.triggeredAbility(choice);
  }

  /** A printed ability that always holds: an aura, a parameter, a flag. */
  private staticAbility(choice: number, kind: "rubric" | "object"): Template {
    switch (choice) {
      case 4: {
        // An aura: own rubrics around it get a parameter change.
        const reach = this.pick(["D1", "S1"] as const);
        const [mode, amount, value] = this.pick([
          ["Add", 1, reach === "D1" ? 1.5 : 2],
          ["Max", 2, 1],
        ] as const);
        return {
          value,
          ability: {
            type: "AreaAbility",
            reach: [{ kind: "MapActorCard" }, { kind: "MapFollowCell", reach }, { kind: "FilterCardKind", cardKind: "rubric" }, own(false)],
            ability: param("Attack", mode, amount),
          },
        };
      }
      case 6: {
        // A calculator on its own stat (objects: nothing to change but wall friends' attack).
        const mode = this.pick(CALCULATOR_MODES);
        if (kind === "object")
          return {
            value: 1,
            ability: {
              type: "AreaAbility",
              reach: [{ kind: "MapActorCard" }, { kind: "MapFollowCell", reach: "Row" }, own(false)],
              ability: param("Attack", "Add", 1),
            },
          };
        const table: Record<string, [number, number]> = {
          Add: [1, 1],
          Subtract: [1, -1],
          Multiply: [2, 1.5],
          Equalizer: [3, 1],
          Max: [2, 0.5],
          Min: [4, -0.5],
        };
        const [amount, value] = table[mode] ?? [1, 1];
        return { value, ability: param("Attack", mode, amount) };
      }
      case 7:
        return { value: 0.5, ability: param("MoveCost", "Min", 0) };
      case 11:
        // A life aura: own rubrics around it have more full life.
        return {
          value: 1.5,
          ability: {
            type: "AreaAbility",
            reach: [{ kind: "MapActorCard" }, { kind: "MapFollowCell", reach: "D1" }, { kind: "FilterCardKind", cardKind: "rubric" }, own(false)],
            ability: param("Life", "Add", 1),
          },
        };
      case 14:
        // Rooted: never moves (a drawback that buys stats).
        return { value: -1, ability: flag("CanMove", "Set", false) };
      case 15:
        // Its owner loses 1 HP less when it is destroyed.
        return { value: 0.5, ability: param("Cost", "Subtract", 1) };
      case 16:
        // A snare: enemy rubrics next to it cannot move.
        return {
          value: 1,
          ability: {
            type: "AreaAbility",
            reach: [{ kind: "MapActorCard" }, { kind: "MapFollowCell", reach: "D1" }, own(true), { kind: "FilterCardKind", cardKind: "rubric" }],
            ability: flag("CanMove", "Set", false),
          },
        };
      default:
        throw new Error(`dcg generator: ${choice} is not a static ability template`);
    }
  }

  /** A triggered ability: when something happens (and its filters pass), an effect resolves. */
  private triggeredAbility(choice: number): Template {
    switch (choice) {
      case 0: {
        const e = this.effect();
        return { value: e.value, ability: trig([when("Summoned"), consumerActs], e.effect) };
      }
      case 1: {
        const e = this.effect();
        return { value: e.value * 0.75, ability: trig([when("CardGraved"), consumerHit], e.effect) };
      }
      case 2: {
        // At the start of its owner's turn; once a turn by FilterActivateCount.
        const e = this.effect();
        return {
          value: e.value * 3.5,
          ability: trig(
            [
              [...when("TurnStarted"), { kind: "FilterTurnPlayer" }],
              [{ kind: "MapAbility" }, { kind: "FilterActivateCount", cmp: "LessThan", value: 1 }],
            ],
            e.effect,
          ),
        };
      }
      case 3: {
        // When one of its owner's units is attacked, the attacker takes damage (once a turn).
        const n = this.small(2);
        return {
          value: 1.5 * n,
          ability: trig(
            [
              when("AttackDamaged"),
              [{ kind: "MapCard" }, own(false), { kind: "FilterTargetCard" }],
              [{ kind: "MapAbility" }, { kind: "FilterActivateCount", cmp: "LessThan", value: 1 }],
            ],
            { kind: "CardDamage", amount: n, target: [{ kind: "MapActorCard" }] },
          ),
        };
      }
      case 5: {
        // Owner's HP condition: an effect on the enemy when the owner is low (comparator drawn).
        const e = this.effect();
        const cmp = this.cmp();
        const hp = 5 + this.rng.int(10);
        const strict = cmp === "Equal" ? 0.2 : cmp.startsWith("Less") ? 0.6 : 0.8;
        return {
          value: e.value * strict,
          ability: trig([when("Summoned"), consumerActs, [{ kind: "MapPlayer" }, own(false), { kind: "FilterPlayerHp", cmp, value: hp }]], e.effect),
        };
      }
      case 8: {
        const e = this.pick([
          { value: 1, effect: { kind: "PlayerRecoverHp", amount: 1, target: players(false) } },
          { value: 1.5, effect: { kind: "CardAilment", ailment: "poison", target: [{ kind: "MapTargetCard" }] } },
          { value: 0.5, effect: { kind: "CardSwap", target: [{ kind: "MapTargetCard" }] } },
          { value: 1, effect: { kind: "PlayerDamage", amount: 1, target: players(true) } },
        ]);
        return { value: e.value, ability: trig([when("AttackDamaged"), consumerActs], e.effect) };
      }
      case 9:
        return {
          value: 0.5,
          ability: trig([when("Summoned"), consumerActs], { kind: "CardMove", direction: "forward", distance: 1, target: [{ kind: "MapActorCard" }] }),
        };
      case 12: {
        // At the end of its owner's turn (the state the battle enters), once a turn.
        const e = this.effect();
        return {
          value: e.value * 4,
          ability: trig([[...when("StateChanged"), { kind: "FilterTriggerState", states: ["TurnFinish"] }, { kind: "FilterTurnPlayer" }]], e.effect),
        };
      }
      case 13:
        // Mimic: when its attack defeats a card, it copies that card's printed abilities.
        return {
          value: 1.5,
          ability: trig([[...when("CardGraved"), { kind: "FilterTriggerType", types: ["Attack"] }], consumerActs], {
            kind: "AttachAbility",
            source: [{ kind: "MapTargetCard" }],
            target: [{ kind: "MapCard" }, { kind: "FilterAbilityConsumer" }],
          }),
        };
      default: {
        // Berserk: after taking 2+ damage, attack doubled for its next attack.
        const lifetime = [when("AttackFinished"), consumerActs];
        return {
          value: 1,
          ability: trig([[...when("AttackDamaged"), { kind: "FilterTriggerDamage", cmp: "GreaterThanOrEqual", value: 2 }], consumerHit], {
            kind: "AttachAbility",
            target: [{ kind: "MapCard" }, { kind: "FilterAbilityConsumer" }],
            ability: param("Attack", "Multiply", 2, lifetime),
          }),
        };
      }
    }
  }

  /** A rubric or object of cost `cost`: abilities first, the rest of the budget to stats. */
  unit(id: string, name: string, kind: "rubric" | "object", cost: number): J {
    const budget = 2 + 2 * cost;
    const abilities: J[] = [];
    let spent = 0;
    const wanted = this.chance(0.3) ? 0 : this.chance(0.7) ? 1 : 2;
    for (let i = 0; i < wanted * 3 && abilities.length < wanted; i++) {
      const t = this.ability(kind);
      // Leave room for the minimum stats (life 1, and attack 1 for a rubric).
      if (spent + t.value <= budget - (kind === "rubric" ? 1.5 : 0.5)) {
        abilities.push(t.ability);
        spent += t.value;
      }
    }
    // NightmareAbility: sealed until its owner is low; the drawback buys more stats.
    if (abilities.length > 0 && this.chance(0.1)) {
      abilities.push({
        type: "NightmareAbility",
        conditions: [
          [{ kind: "MapPlayer" }, own(false), { kind: "FilterPlayerHp", cmp: this.pick(["LessThanOrEqual", "LessThan"] as const), value: 8 + this.rng.int(5) }],
        ],
      });
      spent -= 1;
    }
    let rest = Math.max(0, budget - spent);
    const card: J = { id, name, kind, cost };
    if (kind === "rubric") {
      // attack 1 point, life half a point: split the rest at random.
      const share = 0.25 + 0.5 * this.rng.nextFloat();
      const attack = Math.max(1, Math.min(20, Math.round((rest - 0.5) * share)));
      rest -= attack;
      card.attack = attack;
      card.life = Math.max(1, Math.min(30, Math.round(rest * 2)));
      if (this.chance(0.15)) card.move = this.pick([0, 2]);
    } else {
      card.life = Math.max(1, Math.min(30, Math.round(rest * 2)));
    }
    if (abilities.length > 0) card.abilities = abilities;
    return card;
  }

  feint(id: string, name: string): J {
    const on = this.pick(["enter", "attack"] as const);
    for (;;) {
      const e = this.effect();
      // An attack feint also negates the attack (worth 1.5).
      const value = e.value + (on === "attack" ? 1.5 : 0);
      const cost = Math.max(0, Math.ceil((value - 1) / 2));
      if (cost <= 3) return { id, name, kind: "feint", cost, feint: { on, effect: e.effect } };
    }
  }
}

const SYLLABLES = ["ka", "ro", "mi", "zu", "ten", "gar", "vel", "sho", "lin", "dra", "ost", "ny", "pel", "qua", "rix", "sa"];

/** The card set a spec stands for (pure: same spec, same JSON). Throws RangeError on a bad spec. */
export function generateCardSet(spec: GenerateSpec): GeneratedSet {
  const { seed, cards } = spec;
  if (!Number.isSafeInteger(seed) || seed < 0) throw new RangeError(`seed must be a non-negative safe integer, got ${seed}`);
  if (!Number.isInteger(cards) || cards < MIN_GENERATED_CARDS || cards > MAX_GENERATED_CARDS)
    throw new RangeError(`cards must be an integer in ${MIN_GENERATED_CARDS}..${MAX_GENERATED_CARDS}, got ${cards}`);
  const rng = Rng.seeded(seed);
  const g = new Gen(rng);
  const out: J[] = [];
  // Kinds: about 60% rubrics (at least 6, enough for strategy picks of cost <= 2), 20% objects, 20% feints.
  const kinds: ("rubric" | "object" | "feint")[] = [];
  for (let i = 0; i < cards; i++) kinds.push(i < 6 ? "rubric" : g.pick(["rubric", "rubric", "rubric", "object", "feint"] as const));
  for (const [i, kind] of kinds.entries()) {
    const id = `gen-${seed}-${i}`;
    const name = `${g.pick(SYLLABLES)}${g.pick(SYLLABLES)}`.replace(/^./, (c) => c.toUpperCase());
    if (kind === "feint") out.push(g.feint(id, name));
    // The first 6 rubrics cost 0..2 so every book finds strategy rubrics.
    else if (kind === "rubric") out.push(g.unit(id, name, "rubric", i < 6 ? rng.int(3) : g.pick([0, 1, 1, 2, 2, 3])));
    else out.push(g.unit(id, name, "object", rng.int(5)));
  }
  const books: GeneratedBook[] = [];
  for (let b = 0; b < GENERATED_BOOKS; b++) books.push(book(rng, out, `gen-${seed}-book-${b}`, `Generated ${seed} #${b}`));
  return { cards: out, books };
}

/**
 * The slots every book fills, as (kind, cost): the same profile for every book, so books differ in
 * which cards fill the slots, not in their curve or their mix of kinds.
 */
const STRATEGY_SLOTS = [0, 1, 1, 2, 2];
const REST_SLOTS: readonly (readonly ["rubric" | "object" | "feint", number])[] = [
  ["rubric", 0],
  ["rubric", 1],
  ["rubric", 1],
  ["rubric", 1],
  ["rubric", 2],
  ["rubric", 2],
  ["rubric", 2],
  ["rubric", 3],
  ["rubric", 3],
  ["object", 1],
  ["object", 2],
  ["object", 3],
  ["feint", 0],
  ["feint", 1],
  ["feint", 2],
];

/**
 * A legal 20-card book from the set: 5 strategy rubrics of cost <= 2, then 15 cards, slot by slot
 * (the card of that kind whose cost is nearest the slot's, ties at random), copy limits kept.
 */
function book(rng: Rng, cards: readonly J[], id: string, name: string): GeneratedBook {
  const counts = new Map<string, number>();
  const limit = (c: J, strategy: boolean) => (strategy ? 2 : c.kind === "rubric" ? 5 : 3);
  const fill = (kind: string, cost: number, strategy: boolean): string => {
    let pool = cards.filter((c) => c.kind === kind && (!strategy || (c.cost as number) <= 2));
    if (pool.length === 0) pool = cards.filter((c) => c.kind === "rubric");
    pool = pool.filter((c) => (counts.get(c.id as string) ?? 0) < limit(c, strategy));
    // Pools of 8+ cards hold 6+ rubrics of cost <= 2 (30 rubric copies >= 20): never empty here.
    if (pool.length === 0) pool = cards.filter((c) => c.kind === "rubric" && (counts.get(c.id as string) ?? 0) < 5);
    const best = Math.min(...pool.map((c) => Math.abs((c.cost as number) - cost)));
    const c = rng.pick(pool.filter((x) => Math.abs((x.cost as number) - cost) === best));
    counts.set(c.id as string, (counts.get(c.id as string) ?? 0) + 1);
    return c.id as string;
  };
  const strategy = STRATEGY_SLOTS.map((cost) => fill("rubric", cost, true));
  const rest = REST_SLOTS.map(([kind, cost]) => fill(kind, cost, false));
  return { id, name, strategy, cards: rest };
}
