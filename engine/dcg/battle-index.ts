import type { BattleData } from "./battle-data.ts";
import type { KindIndex, PoolIndex } from "./pool-index.ts";
import type { Pool } from "./pool.ts";

/**
 * What never changes about a battle's cards, and which cards ability matching has to look at, so
 * that hot loops read small arrays instead of card records, and matching visits a handful of cards
 * instead of every card of both books for each trigger. Carried from an apply to the next along a
 * playout (DcgCache hands the last result's index to the Draft that starts from it; another state
 * gets a fresh one) and kept up to date by the writes that can add to what it lists:
 *
 * - `owners[id]`, `rubricCost[id]`: each card's owner, and its printed cost when it is a rubric (-1
 *   otherwise). A card instance keeps its owner and its printed card for the whole battle.
 * - `aura[id]`: 1 when the card has a NightmareAbility or an AreaAbility; `areaCarrier[id]`: 1 once
 *   an AreaAbility attached something to it (a superset of the cards carrying an area attachment).
 *   The refresh's unit list reads these instead of every unit's record.
 * - `auraCells`: the cells whose unit has `aura` or `areaCarrier` set, ascending (Draft.setCell and
 *   Draft.noteAttached keep it up to date): the refresh's unit list walks these few cells instead
 *   of the whole board.
 * - `strategy[seat]`: the seat's cards in the Strategy layer when the index was made (ascending). No
 *   card enters that layer later, so this holds every card there now.
 * - `poisoned`: every card that is, or once was, poisoned (a superset, ascending, as the carriers
 *   below): the poison step looks at these instead of every card.
 * - `rubricCells[seat]`: the cells holding that seat's rubrics, ascending (Draft.setCell keeps it
 *   up to date: every write of a cell goes through it).
 * - `own(kind)`: the cards whose printed TriggerAbilities can match a trigger kind. A card's
 *   printed card never changes in a battle, so this list never changes either (built per kind on
 *   first use).
 * - `triggerCarriers` / `lifetimeCarriers`: every card that carries, or once carried, an attached
 *   TriggerAbility / a ParameterAbility with a lifetime. Supersets, ascending: a card is added when
 *   such an ability is attached to it and never removed, so the list holds every card that carries
 *   one now; the matching code checks what each listed card carries now, as the full scan does.
 *
 * The lists are ascending instance ids, the order of the full scan over `cards` they replace, so
 * matching sees the same candidates in the same order.
 */
export class BattleIndex {
  readonly owners: Uint8Array;
  readonly rubricCost: Int8Array;
  readonly rubricCells: readonly [number[], number[]] = [[], []];
  readonly aura: Uint8Array;
  readonly areaCarrier: Uint8Array;
  readonly auraCells: number[] = [];
  readonly strategy: readonly [number[], number[]] = [[], []];
  readonly poisoned: number[] = [];
  readonly triggerCarriers: number[] = [];
  readonly lifetimeCarriers: number[] = [];
  private readonly ownByKind: (readonly number[] | undefined)[] = [];

  /** The index of `s`, from every card's record (its carriers: what each carries attached now). */
  constructor(s: BattleData, pool: Pool, index: PoolIndex) {
    const cards = s.cards;
    this.owners = new Uint8Array(cards.length);
    this.rubricCost = new Int8Array(cards.length);
    this.aura = new Uint8Array(cards.length);
    this.areaCarrier = new Uint8Array(cards.length);
    for (let id = 0; id < cards.length; id++) {
      const c = cards[id]!;
      this.owners[id] = c.owner;
      const def = pool.cards[c.def]!;
      this.rubricCost[id] = def.kind === "rubric" ? def.cost : -1;
      this.aura[id] = index.aura[c.def]!;
      const att = c.attached;
      // No cell yet: the cells are noted below, carriers included.
      for (let i = 0; i < att.length; i++) this.noteAttached(id, att[i]!.ability, att[i]!.area, index, -1);
      if (c.ailment === "poison") this.poisoned.push(id);
      if (c.layer === "Strategy") this.strategy[c.owner].push(id);
    }
    for (let cell = 0; cell < s.cells.length; cell++) this.noteCell(cell, -1, s.cells[cell]!);
  }

  /** Records that `cell` now holds unit `id` (or -1) instead of `was` (or -1). */
  noteCell(cell: number, was: number, id: number): void {
    if (was >= 0) {
      if (this.rubricCost[was]! >= 0) removeFrom(this.rubricCells[this.owners[was]!]!, cell);
      if (this.aura[was] === 1 || this.areaCarrier[was] === 1) removeFrom(this.auraCells, cell);
    }
    if (id >= 0) {
      if (this.rubricCost[id]! >= 0) insertAscending(this.rubricCells[this.owners[id]!]!, cell);
      if (this.aura[id] === 1 || this.areaCarrier[id] === 1) insertAscending(this.auraCells, cell);
    }
  }

  /** Cards whose own (printed) TriggerAbilities can match `ki`'s kind, ascending. */
  own(s: BattleData, ki: KindIndex): readonly number[] {
    let list = this.ownByKind[ki.no];
    if (list === undefined) {
      const out: number[] = [];
      const cards = s.cards;
      for (let id = 0; id < cards.length; id++) if (ki.defAbilities[cards[id]!.def]!.length > 0) out.push(id);
      list = out;
      this.ownByKind[ki.no] = list;
    }
    return list;
  }

  /** Records that card `id` was poisoned (call on every change of ailment to poison). */
  notePoisoned(id: number): void {
    insertAscending(this.poisoned, id);
  }

  /**
   * Records that `ability` was attached to card `id` (call on every attach); `area`: by an
   * AreaAbility; `cell`: the cell the card stands on as a unit, or -1.
   */
  noteAttached(id: number, ability: number, area: boolean, index: PoolIndex, cell: number): void {
    if (area && this.areaCarrier[id] === 0) {
      this.areaCarrier[id] = 1;
      if (cell >= 0) insertAscending(this.auraCells, cell);
    }
    const kind = index.attachable[ability];
    if (kind === ATTACHED_TRIGGER) insertAscending(this.triggerCarriers, id);
    else if (kind === ATTACHED_LIFETIME) insertAscending(this.lifetimeCarriers, id);
  }
}

/** PoolIndex.attachable: what an attached ability makes its carrier (0 = nothing matching needs). */
export const ATTACHED_TRIGGER = 1;
export const ATTACHED_LIFETIME = 2;

// Both by hand: the lists hold a handful of ids, and a splice is a builtin call per change.

/** Removes `value` from a list that holds it at most once. */
function removeFrom(list: number[], value: number): void {
  let i = 0;
  while (i < list.length && list[i] !== value) i++;
  if (i === list.length) return;
  for (; i + 1 < list.length; i++) list[i] = list[i + 1]!;
  list.pop();
}

/** Inserts `id` into an ascending list, unless it is there already. */
function insertAscending(list: number[], id: number): void {
  let i = list.length;
  while (i > 0 && list[i - 1]! > id) i--;
  if (i > 0 && list[i - 1] === id) return;
  list.push(id);
  for (let k = list.length - 1; k > i; k--) list[k] = list[k - 1]!;
  list[i] = id;
}
