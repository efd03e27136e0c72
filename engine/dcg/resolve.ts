import type { Ability } from "./ability.ts";
import type { Attached } from "./battle-data.ts";
import { commandHandlers, COMMAND_TYPE, type Command, type CommandKind } from "./command.ts";
import { traceCommand, traceTrigger, type Draft, type Emitted } from "./draft.ts";
import { attach, detachAt, setSealed } from "./ops.ts";
import type { KindIndex } from "./pool-index.ts";
import { evaluate, holds, type Scope } from "./targeting.ts";
import { TRIGGER_NO, type Trigger, type TriggerType } from "./trigger.ts";

/**
 * Running commands and resolving abilities (the dcg design's EffectInterrupt / EffectDeclare).
 *
 * After a command: AreaAbilities and NightmareAbility seals are recomputed (their attach/detach
 * and seal triggers join the command's triggers), then the triggers are matched in emission
 * order. For each trigger, expired ParameterAbility lifetimes detach first, then TriggerAbilities
 * fire in a fixed order: the turn player's cards first, then the other's, each by instance id
 * (a card that the trigger sent to the Grave still answers its own CardGraved). A fired ability
 * is an EffectDeclareCommand whose triggers are resolved depth-first, then an
 * EffectFinishCommand (EffectFinished: the effect's whole chain is over), before the next match.
 *
 * Chain budget: triggers at depth >= 16, and every trigger after the 1000th ability resolution of
 * one apply, are not matched (the chain just ends there: the state stays valid and replayable).
 * Units at 0 life leave the Field after the whole chain of a top-level command (DestroyCommand),
 * except that an attack's target waits for AttackDestroyCommand.
 */
export const MAX_CHAIN_DEPTH = 16;
export const MAX_RESOLUTIONS = 1000;

/**
 * A command kind's handler and trigger type. Callers name the entry of the command they run
 * (`runCommand(d, CMD.MoveCommand, { kind: "MoveCommand", ... })`, the types hold the two to the
 * same kind), so running a command looks nothing up by its kind name: commands come in dozens of
 * shapes, and reading `kind` and then a table by it are two slow (megamorphic) property reads.
 */
export interface CommandEntry<K extends CommandKind> {
  readonly kind: K;
  readonly run: (c: Extract<Command, { kind: K }>, d: Draft) => void;
  readonly type: TriggerType;
  /** Units at 0 life leave the Field after this command's chain (all but AttackDamageCommand, whose target AttackDestroy destroys). */
  readonly sweeps: boolean;
}

function entryOf<K extends CommandKind>(kind: K): CommandEntry<K> {
  return { kind, run: commandHandlers[kind] as CommandEntry<K>["run"], type: COMMAND_TYPE[kind], sweeps: kind !== "AttackDamageCommand" };
}

/** Every command kind's entry, by kind (a table read by constant names only). */
export const CMD = Object.freeze(Object.fromEntries((Object.keys(commandHandlers) as CommandKind[]).map((kind) => [kind, entryOf(kind)]))) as unknown as {
  readonly [K in CommandKind]: CommandEntry<K>;
};

/** Runs `cmd` (whose entry is `entry`), then refreshes seals and areas and resolves the triggers it emitted. */
export function runCommand<K extends CommandKind>(d: Draft, entry: CommandEntry<K>, cmd: Extract<Command, { kind: K }>, depth = 0): void {
  if (d.trace) traceCommand(d.trace, cmd, d.s);
  const prev = d.sink;
  d.sink = null;
  entry.run(cmd, d);
  const type = entry.type;
  refresh(d, type);
  const sink = d.sink as Emitted | null;
  d.sink = prev;
  if (sink !== null) resolveTriggers(d, sink, depth);
  if (depth === 0 && d.maybeDead && entry.sweeps) sweep(d, type);
}

/** Brings seals and area buffs up to date with a hand-built board (scenarios, determinize). */
export function settle(d: Draft): void {
  d.dirty = true;
  d.boardDirty = true;
  d.auraUnits = null;
  refresh(d, "Battle");
}

/** Records a command that changes nothing but the State (for observers). */
export function logCommand(d: Draft, cmd: Command): void {
  if (d.trace) traceCommand(d.trace, cmd, d.s);
}

/**
 * Emits a trigger that no command emits (StateChanged, raised by the phase machine itself) and
 * resolves it as a top-level command's triggers are resolved: abilities at depth 1, then units at
 * 0 life leave the Field, unless `sweepDead` is false (entering AttackDestroy: that step destroys
 * the attack's target itself, as the attack's kill, and the next command sweeps the rest). The
 * state change writes nothing, so there is nothing to refresh.
 */
export function runTrigger(d: Draft, t: Trigger, sweepDead = true): void {
  if (d.trace) traceTrigger(d.trace, t, d.s);
  const no = TRIGGER_NO[t.kind];
  if (d.poolIndex.listens[no] === 0) return;
  resolveTriggers(d, { triggers: [t], nos: [no] }, 0);
  if (sweepDead && d.maybeDead) sweep(d, t.type);
}

export const commandType = (kind: CommandKind): TriggerType => COMMAND_TYPE[kind];

function budgetLeft(d: Draft, depth: number): boolean {
  return depth < MAX_CHAIN_DEPTH && d.resolutions < MAX_RESOLUTIONS;
}

function resolveTriggers(d: Draft, emitted: Emitted, depth: number): void {
  const kinds = d.poolIndex.kinds;
  const { triggers, nos } = emitted;
  for (let i = 0; i < triggers.length; i++) {
    const t = triggers[i]!;
    // One lookup by kind number for all three questions (see KindIndex).
    const ki = kinds[nos[i]!]!;
    if (!ki.listens) continue;
    if (!budgetLeft(d, depth)) return;
    if (ki.lifetimes) expireLifetimes(d, t, depth);
    if (ki.answers) matchAbilities(d, t, depth, ki);
  }
}

/** ParameterAbilities whose lifetime conditions all hold for this trigger are detached. */
function expireLifetimes(d: Draft, t: Trigger, depth: number): void {
  let detached: Emitted | null = null;
  // Only cards that ever carried a lifetime can carry one now (ascending instance ids).
  const ids = d.index.lifetimeCarriers;
  for (let k = 0; k < ids.length; k++) detached = expireOn(d, t, ids[k]!, detached);
  if (detached) resolveTriggers(d, detached, depth + 1);
}

/** expireLifetimes for card `id`: detaches what ends; `detached` collects the triggers that emits. */
function expireOn(d: Draft, t: Trigger, id: number, detached: Emitted | null): Emitted | null {
  const c = d.s.cards[id]!;
  if (c.layer !== "Field" || c.attached.length === 0) return detached;
  for (let i = c.attached.length - 1; i >= 0; i--) {
    const a = d.s.cards[id]!.attached[i]!;
    const ab = d.pool.abilities[a.ability]!;
    if (ab.type !== "ParameterAbility" || ab.lifetime.length === 0) continue;
    if (ab.kinds !== null && !ab.kinds.includes(t.kind)) continue;
    const scope: Scope = { consumer: id, producer: a.producer, owner: c.owner, ability: a.ability, trigger: t };
    if (!holds(d, scope, ab.lifetime)) continue;
    const prev = d.sink;
    d.sink = detached;
    detachAt(d, id, i, t.type);
    detached = d.sink;
    d.sink = prev;
  }
  return detached;
}

function answers(d: Draft, id: number, t: Trigger): boolean {
  const c = d.s.cards[id]!;
  if (c.layer === "Field") return d.s.cells[c.cell] === id;
  return c.layer === "Grave" && t.kind === "CardGraved" && t.target === id;
}

function matchAbilities(d: Draft, t: Trigger, depth: number, ki: KindIndex): void {
  // Snapshot the candidates (card, ability, producer): the turn player's cards first, then the
  // other's, each by instance id; then check each when its turn comes.
  const m: Candidates = { mine: null, theirs: null };
  // Only cards with printed abilities for this kind, or that ever carried an attached
  // TriggerAbility, can have candidates: both lists ascending, merged into instance id order.
  const own = d.index.own(d.s, ki);
  const carriers = d.index.triggerCarriers;
  let i = 0;
  let j = 0;
  while (i < own.length || j < carriers.length) {
    const a = i < own.length ? own[i]! : Infinity;
    const b = j < carriers.length ? carriers[j]! : Infinity;
    if (a <= b) i++;
    if (b <= a) j++;
    collect(d, t, ki, a < b ? a : b, m);
  }
  if (m.mine !== null && !fire(d, t, depth, m.mine)) return;
  if (m.theirs !== null) fire(d, t, depth, m.theirs);
}

/** Candidate triples (card, ability, producer) of the turn player's cards and of the other's. */
interface Candidates {
  mine: number[] | null;
  theirs: number[] | null;
}

/** Adds card `id`'s candidates for trigger `t` to `m`. */
function collect(d: Draft, t: Trigger, ki: KindIndex, id: number, m: Candidates): void {
  const c = d.s.cards[id]!;
  if (c.layer === "Field") {
    if (d.s.cells[c.cell] !== id) return;
    // Only the graved card itself answers from the Grave (its own CardGraved).
  } else if (c.layer !== "Grave" || t.kind !== "CardGraved" || t.target !== id) return;
  if (c.sealed) return;
  const own = ki.defAbilities[c.def]!;
  const att = c.attached;
  if (own.length === 0 && att.length === 0) return;
  const mine = c.owner === d.s.turnPlayer;
  let out: number[] | null = mine ? m.mine : m.theirs;
  for (let i = 0; i < own.length; i++) (out ??= []).push(id, own[i]!, id);
  for (let i = 0; i < att.length; i++) {
    const a = att[i]!;
    if (ki.matches[a.ability] === 1) (out ??= []).push(id, a.ability, a.producer);
  }
  if (mine) m.mine = out;
  else m.theirs = out;
}

/** Runs the candidates that still answer and whose conditions hold; false when the budget ran out. */
function fire(d: Draft, t: Trigger, depth: number, cands: readonly number[]): boolean {
  for (let i = 0; i < cands.length; i += 3) {
    const id = cands[i]!;
    const abId = cands[i + 1]!;
    if (!answers(d, id, t) || d.s.cards[id]!.sealed) continue;
    const ab = d.pool.abilities[abId]! as Extract<Ability, { type: "TriggerAbility" }>;
    const scope: Scope = { consumer: id, producer: cands[i + 2]!, owner: d.s.cards[id]!.owner, ability: abId, trigger: t };
    if (!holds(d, scope, ab.conditions)) continue;
    if (!budgetLeft(d, depth + 1)) return false;
    d.resolutions += 1;
    runCommand(d, CMD.EffectDeclareCommand, { kind: "EffectDeclareCommand", card: id, ability: abId, producer: scope.producer, trigger: t }, depth + 1);
    runCommand(d, CMD.EffectFinishCommand, { kind: "EffectFinishCommand", card: id, ability: abId, trigger: t }, depth + 1);
  }
  return true;
}

/** NightmareAbility seals and AreaAbility attachments, recomputed after every command. */
function refresh(d: Draft, type: TriggerType): void {
  if (!d.dirty || !d.pool.hasRefresh) return;
  const pool = d.pool;
  // Positional reaches and conditions (the usual case) only change when what stands where changes.
  const board = d.boardDirty;
  const areasDue = board || !pool.areasPositional;
  // Players-only seals read a few player fields (see Draft.sealsHp0): a write to others changes nothing for them.
  const playersChanged = board || (d.playersDirty && sealInputsMoved(d));
  if (!areasDue && !pool.sealsAlways && !(playersChanged && pool.sealsOnPlayers)) {
    // Nothing any seal or area reads has changed (e.g. only a hand, a life total or an MP count
    // with no player-reading NightmareAbility): not even the unit list is needed.
    d.dirty = false;
    d.playersDirty = false;
    return;
  }
  if (playersChanged) noteSealInputs(d);
  if (d.auraUnits === null || board) d.auraUnits = auraUnits(d);
  const units = d.auraUnits;
  for (let i = 0; i < units.length; i++) {
    const id = units[i]!;
    const c = d.s.cards[id]!;
    const def = pool.cards[c.def]!;
    if (def.nightmare >= 0) {
      const ab = pool.abilities[def.nightmare]!;
      if (ab.type === "NightmareAbility" && (board || (ab.playersOnly ? playersChanged : !ab.positional))) {
        const sealed = !holds(d, { consumer: id, producer: id, owner: c.owner, ability: def.nightmare, trigger: null }, ab.conditions);
        if (sealed !== c.sealed) {
          d.emit(sealed ? TRIGGER_NO.NightmareSealed : TRIGGER_NO.NightmareUnsealed, type, id, id, c.owner, 0);
          setSealed(d, id, sealed, type);
        }
      }
    }
  }
  // Asked only when areas are due: seals change neither abilities nor attachments, so asking
  // after the seal loop gives what asking during it would.
  if ((areasDue || d.boardDirty) && hasAreaWork(d, units)) refreshAreas(d, type, units);
  d.dirty = false;
  d.boardDirty = false;
  d.playersDirty = false;
}

/**
 * What a players-only NightmareAbility condition can read of the game state besides its own
 * scope: the phrases whose handlers say playerOnly and read state (pipes.ts's PLAYER_STATE), each
 * with the fields it reads. A test holds this list to the phrase handlers.
 */
export const PLAYER_STATE_READS = {
  FilterPlayerHp: "players[].hp",
  FilterPlayerDirectDamageInThisTurn: "players[].directDamage",
  FilterTurnPlayer: "turnPlayer",
} as const;

/** Whether anything in PLAYER_STATE_READS differs from its value at the last players-only seal check. */
function sealInputsMoved(d: Draft): boolean {
  const p = d.s.players;
  return (
    p[0].hp !== d.sealsHp0 ||
    p[1].hp !== d.sealsHp1 ||
    p[0].directDamage !== d.sealsDirect0 ||
    p[1].directDamage !== d.sealsDirect1 ||
    d.s.turnPlayer !== d.sealsTurnPlayer
  );
}

/** Records the values the players-only seals are about to be checked against (refresh checks them all). */
function noteSealInputs(d: Draft): void {
  const p = d.s.players;
  d.sealsHp0 = p[0].hp;
  d.sealsHp1 = p[1].hp;
  d.sealsDirect0 = p[0].directDamage;
  d.sealsDirect1 = p[1].directDamage;
  d.sealsTurnPlayer = d.s.turnPlayer;
}

/** Some unit has an AreaAbility or carries an area attachment. */
function hasAreaWork(d: Draft, units: readonly number[]): boolean {
  for (let i = 0; i < units.length; i++) {
    const c = d.s.cards[units[i]!]!;
    if (d.pool.cards[c.def]!.areaAbilities.length > 0 || hasArea(c.attached)) return true;
  }
  return false;
}

function hasArea(list: readonly Attached[]): boolean {
  for (let i = 0; i < list.length; i++) if (list[i]!.area) return true;
  return false;
}

/** Field units refresh cares about: NightmareAbility or AreaAbility holders, and area-buffed units. */
function auraUnits(d: Draft): number[] {
  const out: number[] = [];
  const cells = d.s.cells;
  // From the battle index: the cells (ascending) whose unit has a NightmareAbility or an
  // AreaAbility or ever carried an area attachment (only those are read to see if they carry one now).
  const where = d.index.auraCells;
  const aura = d.index.aura;
  for (let k = 0; k < where.length; k++) {
    const id = cells[where[k]!]!;
    if (aura[id] === 1 || hasArea(d.s.cards[id]!.attached)) out.push(id);
  }
  return out;
}

/**
 * `units` is refresh's aura unit list, current here: it holds, in cell order, every Field unit
 * with an AreaAbility and every unit carrying an area attachment (it is rebuilt after board
 * changes and after area attaches). Walking it instead of all cells visits the same producers
 * and the same area attachments in the same order; other units have nothing to do here.
 */
function refreshAreas(d: Draft, type: TriggerType, units: readonly number[]): void {
  const pool = d.pool;
  const fusedReach = d.poolIndex.areaReach;
  // Desired (target, ability, producer) triples from every unsealed producer on the Field, in the
  // first `n` entries of a scratch list (written by index: shortening an array is a runtime call).
  const want = d.cache.areaWant;
  let n = 0;
  for (let u = 0; u < units.length; u++) {
    const id = units[u]!;
    const c = d.s.cards[id]!;
    if (c.sealed) continue;
    const areas = pool.cards[c.def]!.areaAbilities;
    for (let k = 0; k < areas.length; k++) {
      const abId = areas[k]!;
      const ab = pool.abilities[abId]!;
      if (ab.type !== "AreaAbility") continue;
      const reach = fusedReach[abId];
      let ids: readonly number[];
      let count: number;
      if (reach !== null && reach !== undefined) {
        // The fused sentence straight into a scratch list: the cards evaluate would give.
        ids = d.cache.areaTargets;
        count = reach(d, id, c.owner, d.cache.areaTargets);
      } else {
        const targets = evaluate(d, { consumer: id, producer: id, owner: c.owner, ability: abId, trigger: null }, ab.reach);
        if (targets.kind !== "card") continue;
        ids = targets.ids;
        count = ids.length;
      }
      for (let j = 0; j < count; j++) {
        const t = ids[j]!;
        if (d.s.cards[t]!.layer !== "Field") continue;
        want[n] = t;
        want[n + 1] = ab.ability;
        want[n + 2] = id;
        n += 3;
      }
    }
  }
  // Detach what is no longer in reach (or whose producer left or was sealed) ...
  for (let u = 0; u < units.length; u++) {
    const id = units[u]!;
    const list = d.s.cards[id]!.attached;
    for (let i = list.length - 1; i >= 0; i--) {
      const a = d.s.cards[id]!.attached[i]!;
      if (a.area && !wanted(want, n, id, a)) detachAt(d, id, i, type);
    }
  }
  // ... then attach what newly came into reach.
  for (let i = 0; i < n; i += 3) {
    const t = want[i]!;
    if (!hasAreaAttached(d.s.cards[t]!.attached, want[i + 1]!, want[i + 2]!)) {
      attach(d, t, want[i + 1]!, want[i + 2]!, true, type);
      d.auraUnits = null;
    }
  }
}

/** Whether the first `n` entries of `want` hold the triple (t, a's ability, a's producer). */
function wanted(want: readonly number[], n: number, t: number, a: Attached): boolean {
  for (let i = 0; i < n; i += 3) if (want[i] === t && want[i + 1] === a.ability && want[i + 2] === a.producer) return true;
  return false;
}

function hasAreaAttached(list: readonly Attached[], ability: number, producer: number): boolean {
  for (let i = 0; i < list.length; i++) if (list[i]!.area && list[i]!.ability === ability && list[i]!.producer === producer) return true;
  return false;
}

/** Units at 0 life or less leave the Field, lowest instance id first. */
function sweep(d: Draft, cause: TriggerType): void {
  for (;;) {
    const cells = d.s.cells;
    let dead = -1;
    for (let cell = 0; cell < cells.length; cell++) {
      const id = cells[cell]!;
      if (id >= 0 && d.s.cards[id]!.life <= 0 && (dead < 0 || id < dead)) dead = id;
    }
    if (dead < 0) {
      d.maybeDead = false;
      return;
    }
    runCommand(d, CMD.DestroyCommand, { kind: "DestroyCommand", card: dead, cause: cause === "Poison" ? "Poison" : "Effect" }, 0);
  }
}
