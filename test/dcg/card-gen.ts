import { Rng } from "../../engine/core/index.ts";
import { FLAG_PARAMETERS } from "../../engine/dcg/params.ts";
import { buildCardSchema } from "../../engine/dcg/schema.ts";

/**
 * Random card sets drawn from the published card schema (engine/dcg/schema.ts, the same object as
 * docs/card-schema.json): a random walk over its $defs, so every effect, ability, head, pipe and
 * enum value the schema allows can come up, in every position the schema allows (printed,
 * attached inline, by reference, as a feint's effect). Integers favour their bounds and small
 * values (-1000, 1000, 0, -1...), which is where rules break. What a schema cannot say (ability
 * references pointing forward, book rules) is generated too, often wrong on purpose: the property
 * test checks that the validator and the engine then agree to refuse.
 *
 * Books are built from the set's cards (plus shipped fillers) so that games play the new cards.
 */
type S = Record<string, unknown>;

const SCHEMA = buildCardSchema() as S;
const DEFS = SCHEMA.$defs as Record<string, S>;
/** Below this depth every branch may be chosen; deeper, the walk avoids branches that recurse. */
const MAX_DEPTH = 7;

function resolve(s: S): S {
  let out = s;
  while (typeof out.$ref === "string") out = DEFS[(out.$ref as string).replace("#/$defs/", "")]!;
  return out;
}

/** The branch (transitively) allows an ability again: avoided deep in the walk. */
const recursive = (s: S): boolean => /"#\/\$defs\/(ability|triggerAbility|effect)"/.test(JSON.stringify(s)) || s.$ref === "#/$defs/triggerAbility";

export class CardGen {
  constructor(private readonly rng: Rng) {}

  private chance(p: number): boolean {
    return this.rng.nextFloat() < p;
  }

  private pick<T>(list: readonly T[]): T {
    return list[this.rng.int(list.length)]!;
  }

  private int(min: number, max: number): number {
    const r = this.rng.nextFloat();
    if (r < 0.15) return min;
    if (r < 0.3) return max;
    if (r < 0.45) return Math.min(max, Math.max(min, this.pick([-1, 0, 1, 2])));
    const lo = Math.max(min, -5);
    const hi = Math.min(max, 5);
    return lo <= hi ? lo + this.rng.int(hi - lo + 1) : min + this.rng.int(max - min + 1);
  }

  private length(min: number, max: number): number {
    if (max > min && this.chance(0.08)) return max;
    return min + this.rng.int(Math.min(max, min + 3) - min + 1);
  }

  /** A value of the (sub)schema. */
  value(schema: S, depth = 0): unknown {
    const s = resolve(schema);
    if ("const" in s) return s.const;
    if (Array.isArray(s.enum)) return this.pick(s.enum);
    const branches = (s.oneOf ?? s.anyOf) as S[] | undefined;
    if (branches) {
      const usable = depth < MAX_DEPTH ? branches : branches.filter((b) => !recursive(b));
      return this.value(this.pick(usable.length > 0 ? usable : branches), depth + 1);
    }
    switch (s.type) {
      case "boolean":
        return this.chance(0.5);
      case "integer":
        return this.int((s.minimum as number) ?? -1000, (s.maximum as number) ?? 1000);
      case "string":
        return "x";
      case "array":
        return this.array(s, depth);
      case "object":
        return this.object(s, depth);
      default:
        throw new Error(`card-gen: unsupported schema ${JSON.stringify(s).slice(0, 80)}`);
    }
  }

  private array(s: S, depth: number): unknown[] {
    const prefix = (s.prefixItems as S[] | undefined) ?? [];
    const min = (s.minItems as number) ?? 0;
    const max = Math.min((s.maxItems as number) ?? 8, 40);
    const n = Math.max(prefix.length, this.length(min, max));
    const out: unknown[] = [];
    for (let i = 0; i < n; i++) {
      if (i < prefix.length) out.push(this.value(prefix[i]!, depth + 1));
      else if (s.items !== false && s.items !== undefined) out.push(this.value(s.items as S, depth + 1));
    }
    // `contains` (a TriggerAbility's conditions hold a FilterTriggerKind): mostly satisfy it, by
    // adding the wanted phrase to one condition; sometimes not, which both checkers must refuse.
    const contains = s.contains as S | undefined;
    if (contains && out.length > 0 && this.chance(0.95)) {
      const inner = (contains.contains as S | undefined)?.properties as Record<string, { const?: string }> | undefined;
      const kind = inner?.kind?.const;
      const phrase =
        kind === undefined
          ? undefined
          : (resolve(DEFS.phrase!).oneOf as S[]).find((b) => ((b.properties as Record<string, { const?: string }>).kind?.const ?? "") === kind);
      if (phrase) (out[this.rng.int(out.length)] as unknown[]).push(this.value(phrase, depth + 1));
    }
    return out;
  }

  private object(s: S, depth: number): S {
    const props = (s.properties ?? {}) as Record<string, S>;
    const required = (s.required ?? []) as string[];
    const out: S = {};
    for (const [k, v] of Object.entries(props)) {
      if (v === (false as unknown)) continue;
      if (!required.includes(k) && !this.chance(0.5)) continue;
      out[k] = this.value(v, depth + 1);
    }
    this.pair(out, props, depth);
    return out;
  }

  /**
   * Pairs the schema states field by field and the loader checks together: a ParameterAbility's
   * calculator fits its parameter (numeric or flag), an AttachAbility has exactly one of `ability`
   * and `source`. Mostly made right, sometimes left wrong, which both checkers must refuse.
   */
  private pair(out: S, props: Record<string, S>, depth: number): void {
    if (!this.chance(0.9)) return;
    if (out.type === "ParameterAbility" && props.calc) {
      const numeric = !FLAG_PARAMETERS.includes(out.parameter as never);
      const fit = (props.calc.anyOf as S[]).filter((b) => JSON.stringify(b).includes('"Add"') === numeric);
      out.calc = this.value(this.pick(fit), depth + 1);
    }
    if (out.kind === "AttachAbility" && props.source && (out.ability === undefined) === (out.source === undefined)) {
      if (out.ability === undefined) out.ability = this.value(props.ability!, depth + 1);
      else delete out[this.chance(0.5) ? "ability" : "source"];
    }
  }

  /** A card as the schema's card definition allows (its kind's stats), with the given id. */
  card(id: string): S {
    const kind = this.pick(["rubric", "rubric", "rubric", "object", "feint"]);
    const branch = (DEFS.card!.oneOf as S[]).find((b) => (b.properties as Record<string, { const?: string }>).kind!.const === kind)!;
    const out = this.object(branch, 0);
    out.id = id;
    out.name = id;
    return out;
  }

  /**
   * A set of 3..8 cards and one book (20 cards) that uses them where the book rules allow;
   * shipped cards fill the rest. `ids` prefixes the card and book ids.
   */
  cardSet(prefix: string): { cards: S[]; books: S[] } {
    const n = 3 + this.rng.int(6);
    const cards = Array.from({ length: n }, (_, i) => this.card(`${prefix}-${i}`));
    // Pure random walks rarely stack the extremes the rules must survive, so some sets get a
    // hostile card built from the same schema pieces: a rubric printing eight copies of one
    // generated ability (a board-wide Multiply aura, or an amount effect firing each turn start
    // with the amount at a bound).
    if (this.chance(0.5)) cards[0] = this.hostile(`${prefix}-0`);
    if (cards.length > 3 && this.chance(0.5)) cards[1] = this.hostile(`${prefix}-1`);
    return this.withBook(prefix, cards);
  }

  /** A rubric with 8 copies of an extreme ability (still a value of the schema). */
  hostile(id: string): S {
    const every = [{ kind: "MapCard" }];
    let ability: S;
    if (this.chance(0.4)) {
      const parameter = this.value(DEFS.parameterAbility!) as S;
      ability = {
        type: "AreaAbility",
        reach: every,
        ability: { ...parameter, calc: { mode: "Multiply", amount: this.pick([1000, -1000, 999]) }, lifetime: [] },
      };
    } else {
      const branch = this.pick((resolve(DEFS.effect!).oneOf as S[]).filter((b) => "amount" in (b.properties as S)));
      const effect = this.value(branch) as S;
      const amount = (branch.properties as Record<string, S>).amount!;
      effect.amount = this.chance(0.6) ? amount.minimum : amount.maximum;
      effect.target = String(effect.kind).startsWith("Card") ? every : [{ kind: "MapPlayer" }];
      const when = [{ kind: "Any" }, { kind: "FilterTriggerKind", triggers: [this.pick(["TurnStarted", "Summoned", "AttackDamaged"])] }];
      ability = { type: "TriggerAbility", conditions: [when], effect };
    }
    return {
      id,
      name: id,
      kind: "rubric",
      cost: this.int(0, 2),
      attack: this.int(0, 20),
      life: this.int(1, 30),
      abilities: Array.from({ length: 8 }, () => ability),
    };
  }

  private withBook(prefix: string, cards: S[]): { cards: S[]; books: S[] } {
    const rubrics = cards.filter((c) => c.kind === "rubric" && (c.cost as number) <= 2).map((c) => c.id as string);
    const strategy: string[] = [];
    for (const id of rubrics) while (strategy.length < 5 && strategy.filter((x) => x === id).length < 2) strategy.push(id);
    for (const filler of ["est", "agnis", "blitz", "est", "agnis"]) if (strategy.length < 5) strategy.push(filler);
    const counts = new Map<string, number>();
    for (const id of strategy) counts.set(id, (counts.get(id) ?? 0) + 1);
    const rest: string[] = [];
    const limit = (c: S) => (c.kind === "rubric" ? 5 : 3);
    for (let round = 0; round < 3; round++) {
      for (const c of cards) {
        const id = c.id as string;
        if (rest.length < 15 && (counts.get(id) ?? 0) < limit(c)) {
          rest.push(id);
          counts.set(id, (counts.get(id) ?? 0) + 1);
        }
      }
    }
    for (const filler of [
      "bubble",
      "bubble",
      "bubble",
      "stone-wall",
      "stone-wall",
      "stone-wall",
      "pitfall",
      "mirage",
      "venom-mist",
      "est",
      "est",
      "farhalla",
      "farhalla",
      "agnis",
      "agnis",
    ]) {
      if (rest.length < 15 && (counts.get(filler) ?? 0) < (["est", "agnis", "farhalla"].includes(filler) ? 5 : 3)) {
        rest.push(filler);
        counts.set(filler, (counts.get(filler) ?? 0) + 1);
      }
    }
    return { cards, books: [{ id: `${prefix}-book`, name: "Generated", strategy, cards: rest }] };
  }
}
