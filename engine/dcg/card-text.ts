import type { Ability } from "./ability.ts";
import { cellName, cellOf } from "./board.ts";
import type { BooleanCalculator, BooleanCalculatorMode, Calculator, CalculatorMode } from "./calculator.ts";
import type { Comparator } from "./comparator.ts";
import type { Effect, EffectKind } from "./effect.ts";
import type { HeadKind, HeadPhrase } from "./heads.ts";
import type { Parameter } from "./params.ts";
import type { PipeKind, PipePhrase } from "./pipes.ts";
import type { CardDef, Pool } from "./pool.ts";
import type { StateKind } from "./state.ts";
import type { Targeting } from "./targeting.ts";
import type { TriggerKind, TriggerType } from "./trigger.ts";
import type { Direction, Reach, RowName } from "./validate.ts";
import { abilityIn } from "./pool.ts";

/**
 * A card's rules text in words, generated from its data: every Head, Pipe, Effect, Ability type,
 * Calculator, Comparator, Trigger kind and type, State, Reach and Row has a phrase here, in maps
 * typed over the vocabulary's own kind lists, so a new kind without a phrase fails the type check.
 * Nothing is written per card: a new card (a card set, a generated pool) gets its text from the
 * same phrases.
 *
 * `cardText(def, pool)` gives one line per ability (a feint: its trigger and effect), e.g.
 * "When this unit is summoned: deal 1 damage to every enemy unit in the enemy's front row."
 */
export function cardText(def: CardDef, pool: Pool): string[] {
  if (def.kind === "feint") return def.feint === null ? [] : [feintLine(def, def.feint.on, def.feint.effect, pool)];
  const ctx = printed(pool);
  return def.abilities.map((id) => `${capital(abilityText(abilityIn(pool, id), ctx))}.`);
}

/** One line of stats: "Rubric · cost 1 · 2/3 · move 1". */
export function cardStats(def: CardDef): string {
  if (def.kind === "rubric") return `Rubric · cost ${def.cost} MP · attack ${def.attack} / life ${def.life} · move cost ${def.move}`;
  if (def.kind === "object") return `Object · cost ${def.cost} MP · life ${def.life}`;
  return `Feint · set face down for free, ${def.cost} MP to declare`;
}

/** Who the special words of a sentence stand for. */
interface Ctx {
  readonly pool: Pool;
  /** The ability's consumer: "this unit" on a printed ability, "it" on an attached one. */
  readonly self: string;
  /** Who attached it: the card whose text this is. */
  readonly producer: string;
  /** The trigger's actor and target as definite phrases, once the conditions named them. */
  readonly actor: string;
  readonly target: string;
}

const printed = (pool: Pool): Ctx => ({ pool, self: "this unit", producer: "this unit", actor: "the acting unit", target: "the affected unit" });

// ---- the vocabulary's phrases -------------------------------------------------------------

const CMP: Readonly<Record<Comparator, (v: number) => string>> = {
  Equal: (v) => `exactly ${v}`,
  GreaterThan: (v) => `more than ${v}`,
  LessThan: (v) => `less than ${v}`,
  GreaterThanOrEqual: (v) => `${v} or more`,
  LessThanOrEqual: (v) => `${v} or less`,
};

const REACH: Readonly<Record<Reach, string>> = {
  D1: "orthogonally next to",
  D2: "within 2 steps (orthogonal) of",
  S1: "on the 8 cells around",
  Row: "in the same row as",
  Column: "in the same column as",
};

/** A row as its owner sees it: `side` "own" is the owner's half, "other" the opponent's. */
const ROWS: Readonly<Record<RowName, { readonly side: "own" | "other" | null; readonly name: string }>> = {
  back: { side: "own", name: "back row" },
  middle: { side: "own", name: "middle row" },
  front: { side: "own", name: "front row" },
  centre: { side: null, name: "centre row" },
  enemyFront: { side: "other", name: "front row" },
  enemyMiddle: { side: "other", name: "middle row" },
  enemyBack: { side: "other", name: "back row" },
};

const LAYER: Readonly<Record<"Book" | "Hand" | "Strategy" | "Field" | "Grave", string>> = {
  Book: "the book",
  Hand: "the hand",
  Strategy: "the strategy row",
  Field: "the field",
  Grave: "the grave",
};

const DIRECTION: Readonly<Record<Direction, string>> = { forward: "forward (towards the enemy)", back: "back", left: "left", right: "right" };

const TRIGGER_TYPE: Readonly<Record<TriggerType, string>> = {
  Battle: "by the battle itself",
  Strategy: "during strategy time",
  Turn: "by the turn flow",
  Draw: "by a draw",
  Summon: "by a summon",
  Feint: "by a feint",
  Move: "by a move",
  Attack: "by an attack",
  Direct: "by a direct attack",
  Effect: "by an ability's effect",
  Poison: "by poison",
};

const STATE: Readonly<Record<StateKind, string>> = {
  Initial: "the battle's setup",
  Cointoss: "the coin toss",
  Strategy: "strategy time",
  BattleStart: "the start of the battle",
  BattleFinish: "the end of the battle",
  TurnStart: "the start of a turn",
  Draw: "the draw step",
  Main: "the main step",
  TurnFinish: "the end of a turn",
  PoisonDamage: "the poison step",
  MoveDeclare: "a declared move",
  MoveRetry: "a move's retry",
  MoveResult: "a move's result",
  MoveFinish: "the end of a move",
  AttackDeclare: "a declared attack",
  AttackDamage: "an attack's damage step",
  AttackDestroy: "an attack's destroy step",
  AttackFinish: "the end of an attack",
  DirectDeclare: "a declared direct attack",
  DirectDamage: "a direct attack's damage step",
  DirectFinish: "the end of a direct attack",
  SummonDeclare: "a declared summon",
  SummonFinish: "the end of a summon",
  FeintDeclare: "a feint's window",
};

interface TriggerWords {
  readonly a: string;
  readonly t: string;
  /** "your", "the enemy's" or null: whose turn, when the conditions say. */
  readonly turn: string | null;
  readonly states: string | null;
}

/**
 * Each trigger kind: the moment in words (a: its actor, t: its target), and the roles its actor
 * and target play ("the attacker"), for effects that name them. `turn`: the phrase already says
 * whose turn it is (TurnStarted, TurnFinish), so no "during your turn" is added.
 */
const TRIGGER: Readonly<
  Record<TriggerKind, { readonly when: (w: TriggerWords) => string; readonly actor: string; readonly target: string; readonly turn?: true }>
> = {
  Summoned: { when: (w) => `${w.a} is summoned`, actor: "the summoned unit", target: "the affected unit" },
  StrategySummoned: { when: (w) => `${w.a} enters the field from strategy time`, actor: "the placed unit", target: "the affected unit" },
  MoveDeclared: { when: (w) => `${w.a} declares a move`, actor: "the mover", target: "the affected unit" },
  Moved: { when: (w) => `${w.a} moves`, actor: "the mover", target: "the affected unit" },
  MoveFinished: { when: (w) => `${w.a} finishes a move`, actor: "the mover", target: "the affected unit" },
  Teleported: { when: (w) => `${w.t} is moved by an ability`, actor: "the moving ability's unit", target: "the moved unit" },
  AttackDeclared: { when: (w) => `${w.a} declares an attack on ${w.t}`, actor: "the attacker", target: "the attacked unit" },
  AttackDamaged: { when: (w) => `${w.a}'s attack damages ${w.t}`, actor: "the attacker", target: "the attacked unit" },
  AttackDestroyed: { when: (w) => `${w.a}'s attack destroys ${w.t}`, actor: "the attacker", target: "the destroyed unit" },
  AttackFinished: { when: (w) => `${w.a} finishes an attack`, actor: "the attacker", target: "the attacked unit" },
  AttackCountChanged: { when: () => "a player's attacks left change", actor: "the attacker", target: "the affected unit" },
  DirectDeclared: { when: (w) => `${w.a} declares a direct attack`, actor: "the attacker", target: "the affected unit" },
  DirectDamaged: {
    when: (w) => `${w.a === "a unit" ? "a player" : `${w.a}'s owner's enemy`} takes direct damage`,
    actor: "the attacker",
    target: "the affected unit",
  },
  DirectFinished: { when: (w) => `${w.a} finishes a direct attack`, actor: "the attacker", target: "the affected unit" },
  EffectDeclared: { when: (w) => `an ability of ${w.a} takes effect`, actor: "the ability's unit", target: "the affected unit" },
  EffectDamagedCard: { when: (w) => `${w.t} takes damage from an ability`, actor: "the ability's unit", target: "the damaged unit" },
  EffectDamagedPlayerHp: { when: () => "a player takes damage from an ability", actor: "the ability's unit", target: "the affected unit" },
  EffectRecoveredCard: { when: (w) => `${w.t} recovers life from an ability`, actor: "the ability's unit", target: "the recovered unit" },
  EffectRecoveredPlayerHp: { when: () => "a player recovers HP from an ability", actor: "the ability's unit", target: "the affected unit" },
  EffectDestroyed: { when: (w) => `${w.t} is destroyed by an ability`, actor: "the ability's unit", target: "the destroyed unit" },
  CostDamaged: { when: () => "a player loses HP for a destroyed rubric", actor: "the destroyed rubric", target: "the affected unit" },
  CardGraved: {
    when: (w) => (w.a === "a unit" ? `${w.t} goes to the grave` : `${w.a} sends ${w.t} to the grave`),
    actor: "the unit that sent it there",
    target: "the card sent to the grave",
  },
  Draw: { when: () => "a player draws a card", actor: "the drawn card", target: "the affected unit" },
  CardAilmentChanged: { when: (w) => `${w.t}'s ailment changes`, actor: "the ailment's source", target: "the changed unit" },
  AbilityAttached: { when: (w) => `${w.t} is given an ability`, actor: "the giver", target: "the receiving unit" },
  AbilityDetached: { when: (w) => `${w.t} loses an ability`, actor: "the giver", target: "the unit that lost it" },
  AbilityOblivionChanged: { when: (w) => `${w.a}'s abilities are sealed or come back`, actor: "the sealed unit", target: "the sealed unit" },
  PlayerMpChanged: { when: () => "a player's MP changes", actor: "the acting unit", target: "the affected unit" },
  PlayerHpInitialized: { when: () => "the players' HP is set at the start", actor: "the acting unit", target: "the affected unit" },
  TurnStarted: { when: (w) => `${w.turn ?? "a"} turn starts`, actor: "the acting unit", target: "the affected unit", turn: true },
  TurnFinish: { when: (w) => `${w.turn ?? "a"} turn ends`, actor: "the acting unit", target: "the affected unit", turn: true },
  StrategyInitialized: { when: () => "strategy time begins", actor: "the acting unit", target: "the affected unit" },
  StateChanged: { when: (w) => `the battle reaches ${w.states ?? "a new step"}`, actor: "the step's unit", target: "the step's target" },
  NightmareSealed: { when: (w) => `${w.a}'s abilities are sealed`, actor: "the sealed unit", target: "the sealed unit" },
  NightmareUnsealed: { when: (w) => `${w.a}'s abilities come back`, actor: "the restored unit", target: "the restored unit" },
  FeintSet: { when: () => "a feint is set face down", actor: "the acting unit", target: "the affected unit" },
  FeintDeclared: { when: () => "a feint is declared", actor: "the unit that sprang it", target: "the attacked unit" },
  PoisonDamaged: { when: (w) => `${w.t} takes poison damage`, actor: "the acting unit", target: "the poisoned unit" },
  SummonFinished: { when: (w) => `${w.a}'s summon is complete`, actor: "the summoned unit", target: "the affected unit" },
  EffectFinished: { when: (w) => `an ability of ${w.a} has resolved`, actor: "the ability's unit", target: "the affected unit" },
};

const PARAMETER: Readonly<Record<Parameter, string>> = {
  Attack: "attack",
  MoveCost: "move cost",
  Cost: "HP lost when it is destroyed",
  Life: "life",
  CanAttack: "attack",
  CanMove: "move",
};

const CALC: Readonly<Record<CalculatorMode, (name: string, n: number) => string>> = {
  Add: (name, n) => `${name} ${n < 0 ? "" : "+"}${n}`,
  Subtract: (name, n) => `${name} ${n < 0 ? "+" : "-"}${Math.abs(n)}`,
  Multiply: (name, n) => `${name} ×${n}`,
  Equalizer: (name, n) => `${name} becomes ${n}`,
  Max: (name, n) => `${name} at least ${n}`,
  Min: (name, n) => `${name} at most ${n}`,
};

const FLAG: Readonly<Record<BooleanCalculatorMode, (verb: string, value: boolean) => string>> = {
  Set: (verb, value) => (value ? `can ${verb}` : `cannot ${verb}`),
  And: (verb, value) => (value ? `can ${verb} as usual` : `cannot ${verb}`),
  Or: (verb, value) => (value ? `can ${verb} even where something forbids it` : `can ${verb} as usual`),
  Not: (verb) => `cannot ${verb} if it could (and can if it could not)`,
};

// ---- noun phrases -------------------------------------------------------------------------

/** What a Targeting yields, as parts of a noun phrase. */
interface Np {
  kind: "any" | "card" | "player" | "cell" | "ability";
  /** A definite single thing ("this unit", "the attacker", "you"), or null. */
  identity: string | null;
  /** Singular noun: unit, rubric, object, feint, card, cell, player. */
  noun: string;
  adj: string[];
  post: string[];
  owner: "mine" | "enemy" | null;
  row: RowName | null;
  take: { readonly count: number; readonly mode: "first" | "random" } | null;
  count: { readonly cmp: Comparator; readonly value: number } | null;
  /** Player predicates ("has 10 HP or less"), verb given by `have`. */
  preds: ((have: "have" | "has") => string)[];
  /** This card's or the trigger's identity was asked for (FilterAbilityConsumer, FilterTargetCard...). */
  is: "self" | "producer" | "target" | null;
  trigger: TriggerInfo;
}

interface TriggerInfo {
  kinds: TriggerKind[];
  types: TriggerType[];
  damage: string | null;
  states: StateKind[];
  turn: "mine" | "enemy" | null;
  activate: string | null;
}

const noTrigger = (): TriggerInfo => ({ kinds: [], types: [], damage: null, states: [], turn: null, activate: null });

function np(kind: Np["kind"], noun: string, identity: string | null = null): Np {
  return { kind, identity, noun, adj: [], post: [], owner: null, row: null, take: null, count: null, preds: [], is: null, trigger: noTrigger() };
}

/** Cells read by a card filter stand for the units on them (other non-card items yield nothing). */
function asUnits(n: Np): void {
  if (n.kind === "cell") {
    n.kind = "card";
    n.noun = "unit";
  }
}

const HEAD: { readonly [K in HeadKind]: (p: Extract<HeadPhrase, { kind: K }>, c: Ctx) => Np } = {
  Any: () => np("any", "thing"),
  MapCard: (p) => {
    const n = np("card", p.layers === undefined || p.layers.every((l) => l === "Field") ? "unit" : "card");
    if (p.layers !== undefined && !p.layers.every((l) => l === "Field")) n.post.push(`in ${orList(p.layers.map((l) => LAYER[l]))}`);
    return n;
  },
  MapPlayer: () => np("player", "player"),
  MapCell: (p) => {
    const n = np("cell", "cell");
    if (p.empty) n.adj.push("empty");
    return n;
  },
  MapActorCard: (_p, c) => np("card", "unit", c.actor),
  MapTargetCard: (_p, c) => np("card", "unit", c.target),
  MapFollowCell: () => np("cell", "cell"),
  MapAbility: () => np("ability", "ability", "this ability"),
};

/** MapFollowCell reads the items before it (or the consumer): its phrase needs them. */
function followCell(prev: Np | null, reach: Reach, c: Ctx): Np {
  const n = np("cell", "cell");
  n.post.push(`${REACH[reach]} ${prev === null ? c.self : every(prev, c)}`);
  return n;
}

const PIPE: { readonly [K in PipeKind]: (n: Np, p: Extract<PipePhrase, { kind: K }>, c: Ctx) => void } = {
  FilterCardOwner: (n, p) => {
    if (n.kind === "player") {
      n.identity = p.opponent ? "the enemy player" : "you";
      return;
    }
    asUnits(n);
    n.owner = p.opponent ? "enemy" : "mine";
  },
  FilterCardKind: (n, p) => {
    asUnits(n);
    n.noun = p.cardKind;
  },
  FilterCardCost: (n, p) => (asUnits(n), n.post.push(`with cost ${CMP[p.cmp](p.value)}`)),
  FilterCardAttack: (n, p) => (asUnits(n), n.post.push(`with attack ${CMP[p.cmp](p.value)}`)),
  FilterCardHp: (n, p) => (asUnits(n), n.post.push(`with ${CMP[p.cmp](p.value)} life left`)),
  FilterCardDamage: (n, p) => {
    asUnits(n);
    if (p.cmp === undefined && p.value === undefined) n.adj.push("damaged");
    else n.post.push(`that has taken ${CMP[p.cmp ?? "GreaterThan"](p.value ?? 0)} damage`);
  },
  FilterCardAilment: (n, p) => {
    asUnits(n);
    if (p.ailment === "none") n.post.push("without an ailment");
    else n.adj.push(p.ailment === "poison" ? "poisoned" : "ailing");
  },
  FilterLayer: (n, p) => {
    asUnits(n);
    if (p.layer !== undefined) n.post.push(`in ${LAYER[p.layer]}`);
    if (p.row !== undefined) n.row = p.row;
  },
  FilterCardCell: (n, p) => {
    const names = p.cells.map(([x, y]) => cellName(cellOf(x, y)));
    n.post.push(`in ${cellList(names)} (counted from your side)`);
  },
  FilterInvader: (n, p) => (asUnits(n), n.post.push(p.invader === false ? "not standing in the enemy's home rows" : "standing in the enemy's home rows")),
  FilterTriggerType: (n, p) => void n.trigger.types.push(...p.types),
  FilterTriggerKind: (n, p) => void n.trigger.kinds.push(...p.triggers),
  FilterTriggerDamage: (n, p) => void (n.trigger.damage = `of ${CMP[p.cmp](p.value)}`),
  FilterTriggerState: (n, p) => void n.trigger.states.push(...p.states),
  FilterTargetCard: (n, p, c) => {
    asUnits(n);
    if (p.except) n.post.push(`other than ${c.target}`);
    else n.is = "target";
  },
  FilterAbilityConsumer: (n, p, c) => {
    asUnits(n);
    if (p.except) n.post.push(`other than ${c.self}`);
    else n.is = "self";
  },
  FilterAbilityProducer: (n, p, c) => {
    asUnits(n);
    if (p.except) n.post.push(`other than ${c.producer}`);
    else n.is = "producer";
  },
  FilterActivateCount: (n, p) => {
    n.trigger.activate =
      p.cmp === "LessThan"
        ? p.value <= 1
          ? "once per turn"
          : `at most ${p.value - 1} times per turn`
        : `when it has fired ${CMP[p.cmp](p.value)} times this turn`;
  },
  FilterTurnPlayer: (n, p) => void (n.trigger.turn = p.opponent ? "enemy" : "mine"),
  FilterPlayerDirectDamageInThisTurn: (n, p) => void n.preds.push((have) => `${have} taken ${CMP[p.cmp](p.value)} direct damage this turn`),
  FilterPlayerHp: (n, p) => void n.preds.push((have) => `${have} ${CMP[p.cmp](p.value)} HP`),
  Take: (n, p) => void (n.take = { count: p.count, mode: p.mode }),
  Count: (n, p) => void (n.count = { cmp: p.cmp, value: p.value }),
};

/** The noun phrase a Targeting makes, phrase by phrase. */
function phrase(t: Targeting, c: Ctx): Np {
  let n: Np | null = null;
  for (const p of t) {
    if (p.kind === "MapFollowCell") {
      const trig = n?.trigger ?? noTrigger();
      n = followCell(n, p.reach, c);
      n.trigger = trig;
    } else if (isHead(p)) {
      const trig = n?.trigger ?? noTrigger();
      n = (HEAD[p.kind] as (p: HeadPhrase, c: Ctx) => Np)(p, c);
      n.trigger = trig;
    } else {
      n ??= np("any", "thing");
      (PIPE[p.kind] as (n: Np, p: PipePhrase, c: Ctx) => void)(n, p, c);
    }
  }
  return n ?? np("any", "thing");
}

const isHead = (p: Targeting[number]): p is HeadPhrase => Object.hasOwn(HEAD, p.kind);

const plural = (noun: string): string => `${noun}s`;
const article = (word: string): string => (/^[aeiou]/.test(word) && !/^(uni|use|one)/.test(word) ? "an" : "a");

/** The identity an Np was narrowed to, if any. */
function identityOf(n: Np, c: Ctx): string | null {
  if (n.is === "self") return c.self;
  if (n.is === "producer") return c.producer;
  if (n.is === "target") return c.target;
  return n.identity;
}

function rowPost(n: Np): string | null {
  if (n.row === null) return null;
  const r = ROWS[n.row];
  if (r.side === null) return `in the ${r.name}`;
  const ownerSide = r.side === "own" ? n.owner : n.owner === "mine" ? "enemy" : n.owner === "enemy" ? "mine" : null;
  if (ownerSide === "mine") return `in your ${r.name}`;
  if (ownerSide === "enemy") return `in the enemy's ${r.name}`;
  return `in ${r.side === "own" ? "its owner's" : "its owner's enemy's"} ${r.name}`;
}

function posts(n: Np): string {
  const list = [...n.post];
  const row = rowPost(n);
  if (row !== null) list.push(row);
  return list.length ? ` ${list.join(" ")}` : "";
}

function adjs(n: Np): string {
  const list = [...n.adj];
  if (n.owner === "enemy") list.push("enemy");
  return list.length ? `${list.join(" ")} ` : "";
}

/** Every item the phrase yields: "every enemy rubric in ...", "all your units", "1 random enemy unit". */
function every(n: Np, c?: Ctx): string {
  const id = c === undefined ? n.identity : identityOf(n, c);
  if (n.kind === "player") return playerNp(n);
  if (id !== null) return n.post.length || n.row ? `${id} (only when${posts(n)})` : id;
  if (n.kind === "ability") return "this ability";
  if (n.kind === "any") return "nothing";
  const body = `${adjs(n)}`;
  if (n.take !== null) {
    const many = n.take.count === 1 ? n.noun : plural(n.noun);
    const which = n.take.mode === "random" ? `${n.take.count} random` : n.take.count === 1 ? "the first" : `the first ${n.take.count}`;
    return `${which} ${body}${many}${n.owner === "mine" ? " of yours" : ""}${posts(n)}`;
  }
  if (n.owner === "mine") return `all your ${body}${plural(n.noun)}${posts(n)}`;
  return `every ${body}${n.noun}${posts(n)}`;
}

/** One item the phrase could yield: "an enemy rubric with cost 1 or more", "one of your units". */
function some(n: Np, c: Ctx): string {
  const id = identityOf(n, c);
  if (id !== null) return id;
  if (n.kind === "player") return playerNp(n);
  if (n.owner === "mine") return `one of your ${adjs(n)}${plural(n.noun)}${posts(n)}`;
  const body = `${adjs(n)}${n.noun}`;
  return `${article(body)} ${body}${posts(n)}`;
}

function playerNp(n: Np): string {
  const who = n.identity ?? "both players";
  if (n.preds.length === 0) return who;
  return `${who} (if ${n.identity === "you" ? "you" : "they"} ${n.preds.map((f) => f("have")).join(" and ")})`;
}

/** A condition that holds when the phrase yields something: "you have 10 HP or less", "there is exactly 1 enemy unit ...". */
function exists(n: Np, c: Ctx): string | null {
  if (n.kind === "any") return null;
  if (n.kind === "ability") return null;
  if (n.kind === "player") {
    const who = n.identity ?? "a player";
    const have = who === "you" ? "have" : "has";
    return n.preds.length ? `${who} ${n.preds.map((f) => f(have)).join(" and ")}` : null;
  }
  const id = identityOf(n, c);
  if (id !== null) return `${id} is on the field${n.post.length || n.row ? ` and${posts(n)}` : ""}`;
  if (n.count !== null) {
    const single = n.count.cmp === "Equal" && n.count.value === 1;
    return `there ${single ? "is" : "are"} ${CMP[n.count.cmp](n.count.value)} ${n.owner === "mine" ? "of your " : ""}${adjs(n)}${single ? n.noun : plural(n.noun)}${posts(n)}`;
  }
  return `there is ${some(n, c)}`;
}

// ---- conditions: the moment, who acts, and the rest -----------------------------------------

interface Conditions {
  trigger: TriggerInfo;
  actor: string;
  target: string;
  actorRole: string | null;
  targetRole: string | null;
  rest: string[];
}

/**
 * Reads a list of condition sentences: the trigger kinds and filters wherever they stand, the
 * actor and target they describe (a sentence starting at MapActorCard or MapTargetCard, or
 * narrowed by FilterTargetCard), and the other sentences as "if ..." clauses.
 */
function readConditions(list: readonly Targeting[], c: Ctx): Conditions {
  const out: Conditions = { trigger: noTrigger(), actor: "a unit", target: "a unit", actorRole: null, targetRole: null, rest: [] };
  for (const sentence of list) mergeTrigger(out.trigger, phrase(sentence, c).trigger);
  const first = out.trigger.kinds[0];
  const roles: Ctx = { ...c, actor: first === undefined ? c.actor : TRIGGER[first].actor, target: first === undefined ? c.target : TRIGGER[first].target };
  for (const sentence of list) {
    const head = sentence[0]?.kind;
    const n = phrase(sentence, roles);
    const id = identityOf(n, roles);
    const mine = n.is === "self" || n.is === "producer";
    if (n.kind === "card" && (head === "MapActorCard" || head === "MapTargetCard" || (n.is === "target" && head === "MapCard"))) {
      const narrowed = mine && id !== null ? id : someQualified(n, roles);
      if (head === "MapActorCard") {
        out.actor = narrowed;
        if (mine) out.actorRole = id;
      } else {
        out.target = narrowed;
        if (mine) out.targetRole = id;
      }
      continue;
    }
    const clause = exists(n, roles);
    if (clause !== null) out.rest.push(clause);
  }
  return out;
}

/** An actor or target narrowed by filters, without its placeholder identity. */
function someQualified(n: Np, c: Ctx): string {
  const bare: Np = { ...n, identity: null, is: null };
  return some(bare, c);
}

function mergeTrigger(into: TriggerInfo, from: TriggerInfo): void {
  into.kinds.push(...from.kinds.filter((k) => !into.kinds.includes(k)));
  into.types.push(...from.types.filter((k) => !into.types.includes(k)));
  into.states.push(...from.states.filter((k) => !into.states.includes(k)));
  into.damage ??= from.damage;
  into.turn ??= from.turn;
  into.activate ??= from.activate;
}

/** "this unit's attack damages a unit by an attack of 2 or more during your turn" */
function moment(cond: Conditions): string {
  const t = cond.trigger;
  const turnWord = t.turn === "mine" ? "your" : t.turn === "enemy" ? "the enemy's" : null;
  const words: TriggerWords = { a: cond.actor, t: cond.target, turn: turnWord, states: t.states.length ? orList(t.states.map((s) => STATE[s])) : null };
  const kinds = t.kinds.length ? orList(t.kinds.map((k) => TRIGGER[k].when(words) + unsaid(k, words))) : "anything happens";
  const extra: string[] = [];
  if (t.types.length) extra.push(orList(t.types.map((x) => TRIGGER_TYPE[x])));
  if (t.damage !== null) extra.push(`with an amount ${t.damage}`);
  if (turnWord !== null && !t.kinds.every((k) => TRIGGER[k].turn)) extra.push(`during ${turnWord} turn`);
  return [kinds, ...extra].join(" ");
}

/** The actor or target the conditions narrowed, when a trigger's phrase has no place for it. */
function unsaid(kind: TriggerKind, w: TriggerWords): string {
  const probe = TRIGGER[kind].when({ ...w, a: "⟨a⟩", t: "⟨t⟩" });
  const out: string[] = [];
  if (w.a !== "a unit" && !probe.includes("⟨a⟩")) out.push(`by ${w.a}`);
  if (w.t !== "a unit" && !probe.includes("⟨t⟩")) out.push(`to ${w.t}`);
  return out.length ? ` (${out.join(", ")})` : "";
}

/** The definite phrases effects use for the trigger's actor and target. */
function rolesCtx(cond: Conditions, c: Ctx): Ctx {
  const first = cond.trigger.kinds[0];
  return {
    ...c,
    actor: cond.actorRole ?? (first === undefined ? "the acting unit" : TRIGGER[first].actor),
    target: cond.targetRole ?? (first === undefined ? "the affected unit" : TRIGGER[first].target),
  };
}

// ---- abilities and effects -------------------------------------------------------------------

const ABILITY: { readonly [K in Ability["type"]]: (a: Extract<Ability, { type: K }>, c: Ctx) => string } = {
  TriggerAbility: (a, c) => {
    const cond = readConditions(a.conditions, c);
    const when = `when ${moment(cond)}`;
    const ifs = cond.rest.length ? `, if ${cond.rest.join(" and ")}` : "";
    const once = cond.trigger.activate !== null ? ` (${cond.trigger.activate})` : "";
    return `${when}${ifs}${once}: ${effectText(a.effect, rolesCtx(cond, c))}`;
  },
  ParameterAbility: (a, c) => `${paramText(a.parameter, a.calc)}${lifetimeText(a.lifetime, c)}`,
  AreaAbility: (a, c) => {
    const inner = abilityIn(c.pool, a.ability);
    const reach = phrase(a.reach, { ...c, actor: c.self, target: c.target });
    const who = every(reach, c);
    return `aura: ${who}: ${inner.type === "ParameterAbility" ? abilityText(inner, { ...c, self: "it" }) : abilityText(inner, c)}`;
  },
  NightmareAbility: (a, c) => {
    const rest = a.conditions.map((t) => exists(phrase(t, { ...c, actor: c.self }), c) ?? "always").filter((s) => s !== "always");
    return rest.length ? `its other abilities are sealed unless ${rest.join(" and ")}` : "its other abilities are never sealed";
  },
};

function abilityText(a: Ability, c: Ctx): string {
  return (ABILITY[a.type] as (a: Ability, c: Ctx) => string)(a, c);
}

function paramText(parameter: Parameter, calc: Calculator | BooleanCalculator): string {
  const name = PARAMETER[parameter];
  if (parameter === "CanAttack" || parameter === "CanMove") {
    const b = calc as BooleanCalculator;
    return FLAG[b.mode](name, b.value === true);
  }
  const n = calc as Calculator;
  return CALC[n.mode](name, n.amount);
}

function lifetimeText(lifetime: readonly Targeting[], c: Ctx): string {
  if (lifetime.length === 0) return "";
  const cond = readConditions(lifetime, c);
  const ifs = cond.rest.length ? ` while ${cond.rest.join(" and ")}` : "";
  return cond.trigger.kinds.length ? ` until ${moment(cond)}${ifs}` : ` until${ifs || " its conditions hold"}`;
}

/** Players an effect reaches: players themselves, or the owners of the cards it names. */
function playersText(t: Targeting, c: Ctx): string {
  const n = phrase(t, c);
  if (n.kind === "player") return playerNp(n);
  const id = identityOf(n, c);
  if (id === "this unit" || id === "this feint") return "you";
  return id !== null ? `the owner of ${id}` : `the owners of ${every(n, c)}`;
}

const unitsText = (t: Targeting, c: Ctx): string => every(phrase(t, c), c);
const times = (n: number, one: string, many: string) => `${n} ${n === 1 ? one : many}`;

const EFFECT: { readonly [K in EffectKind]: (e: Extract<Effect, { kind: K }>, c: Ctx) => string } = {
  PlayerDamage: (e, c) => (e.amount >= 0 ? `deal ${e.amount} damage to ${playersText(e.target, c)}` : `restore ${-e.amount} HP to ${playersText(e.target, c)}`),
  PlayerRecoverHp: (e, c) =>
    e.amount >= 0 ? `restore ${e.amount} HP to ${playersText(e.target, c)} (up to the starting HP)` : `deal ${-e.amount} damage to ${playersText(e.target, c)}`,
  CardDamage: (e, c) => (e.amount >= 0 ? `deal ${e.amount} damage to ${unitsText(e.target, c)}` : `restore ${-e.amount} life to ${unitsText(e.target, c)}`),
  CardRecover: (e, c) => (e.amount >= 0 ? `restore ${e.amount} life to ${unitsText(e.target, c)}` : `deal ${-e.amount} damage to ${unitsText(e.target, c)}`),
  CardMove: (e, c) => `move ${unitsText(e.target, c)} ${times(e.distance, "cell", "cells")} ${DIRECTION[e.direction]} (stopping before a unit or the edge)`,
  CardSwap: (e, c) => `${c.self} swaps cells with ${unitsText(e.target, c)}`,
  CardAilment: (e, c) => (e.ailment === "poison" ? `poison ${unitsText(e.target, c)}` : `cure ${unitsText(e.target, c)} of ailments`),
  AttachAbility: (e, c) => {
    const to = unitsText(e.target, c);
    if (e.ability === undefined) return `${to} copies the printed abilities of ${e.source === undefined ? "nothing" : every(phrase(e.source, c), c)}`;
    const inner = abilityIn(c.pool, e.ability);
    return `give ${to} "${abilityText(inner, { ...c, self: "it", producer: c.self === "it" ? c.producer : c.self })}"`;
  },
  PlayerHand: (e, c) => {
    const who = playersText(e.target, c);
    return who === "you" ? `draw ${times(e.amount, "card", "cards")}` : `${who} draw${who.startsWith("both") ? "" : "s"} ${times(e.amount, "card", "cards")}`;
  },
  ConsumeFeint: (e, c) => {
    const n = phrase(e.target, c);
    const where = n.kind === "cell" ? posts(n).trim() || "on any cell" : `of ${playersText(e.target, c)}`;
    const which = e.amount === undefined ? "every face-down feint" : `the first ${times(e.amount, "face-down feint", "face-down feints")}`;
    return `send ${which} ${where} to the grave unused${e.cut ? "; if one was spent, undo the damage that triggered this" : ""}`;
  },
};

function effectText(e: Effect, c: Ctx): string {
  return (EFFECT[e.kind] as (e: Effect, c: Ctx) => string)(e, c);
}

function feintLine(def: CardDef, on: "enter" | "attack", effect: Effect | null, pool: Pool): string {
  const base: Ctx = { pool, self: "this feint", producer: "this feint", actor: "the attacker", target: "the attacked unit" };
  if (on === "enter") {
    const c = { ...base, actor: "the entering unit", target: "the entering unit" };
    return `When an enemy unit enters its cell, declare it (${def.cost} MP) to ${effect === null ? "reveal it (no effect)" : effectText(effect, c)}.`;
  }
  const then = effect === null ? "" : `, then ${effectText(effect, base)}`;
  return `When an enemy attacks one of your units within 1 cell of it, or attacks directly from next to it, declare it (${def.cost} MP) to negate the attack${then}.`;
}

// ---- words ----------------------------------------------------------------------------------

function capital(s: string): string {
  return s.charAt(0).toUpperCase() + s.slice(1);
}

function orList(items: readonly string[]): string {
  if (items.length <= 1) return items[0] ?? "";
  return `${items.slice(0, -1).join(", ")} or ${items[items.length - 1]}`;
}

/** Cell names, whole rows shortened: "rows 3 and 4", "A3, B3". */
function cellList(names: readonly string[]): string {
  const rows = new Map<string, number>();
  for (const n of names) rows.set(n.slice(1), (rows.get(n.slice(1)) ?? 0) + 1);
  const whole = [...rows].filter(([, k]) => k === 5).map(([r]) => r);
  const rest = names.filter((n) => !whole.includes(n.slice(1)));
  const parts: string[] = [];
  if (whole.length) parts.push(`${whole.length === 1 ? "row" : "rows"} ${orList(whole).replace(/ or /, " and ")}`);
  if (rest.length) parts.push(rest.join(", "));
  return parts.join(" and ") || "no cell";
}

/** The phrase maps by vocabulary list (a test checks their keys against the vocabulary's own lists). */
export const CARD_TEXT_PHRASES = {
  heads: HEAD,
  pipes: PIPE,
  effects: EFFECT,
  abilities: ABILITY,
  comparators: CMP,
  calculators: CALC,
  flags: FLAG,
  parameters: PARAMETER,
  triggers: TRIGGER,
  triggerTypes: TRIGGER_TYPE,
  states: STATE,
  reaches: REACH,
  rows: ROWS,
  layers: LAYER,
  directions: DIRECTION,
} as const;
