import { expect } from "vitest";
import { canonicalJson, Rng } from "../../engine/core/index.ts";
import type { Seat } from "../../engine/dcg/battle-data.ts";
import { dcg, makeDcg, type BattleData, type DcgGame, type Decision, type Trace } from "../../engine/dcg/index.ts";
import type { Card, Mutable, Player } from "../../engine/dcg/battle-data.ts";
import { cellOf } from "../../engine/dcg/board.ts";
import { Draft } from "../../engine/dcg/draft.ts";
import { effectiveAttack } from "../../engine/dcg/params.ts";
import { settle } from "../../engine/dcg/resolve.ts";
import { freshCard, freshPlayer } from "../../engine/dcg/setup.ts";
import { STATE_KINDS, type State } from "../../engine/dcg/state.ts";
import type { Pool } from "../../engine/dcg/pool.ts";

/** "C2" -> cell (column letter A..E, row 0..6; Host's back row is 0, Guest's is 6). */
export function at(name: string): number {
  const x = "ABCDE".indexOf(name[0]!.toUpperCase());
  const y = Number(name.slice(1));
  if (x < 0 || !(y >= 0 && y <= 6)) throw new Error(`bad cell name ${name}`);
  return cellOf(x, y);
}

type CellRef = number | string;
const cellRef = (c: CellRef) => (typeof c === "string" ? at(c) : c);

/**
 * A board in a few lines: by default turn 3, Host (seat 0) to act in Main, both at 15 HP and 8 MP,
 * 2 attacks, empty hands, books and board. Cards are added by name; `act` applies a decision
 * through the checked apply and keeps the trace of commands and triggers.
 */
export class Scenario {
  state: BattleData;
  trace: Trace = { commands: [], triggers: [] };
  readonly game: DcgGame;
  private settled = false;

  constructor(game: DcgGame = dcg, seed = 1) {
    this.game = game;
    const cfg = game.parseConfig({});
    if (!cfg.ok) throw new Error(cfg.error.message);
    const p: Player = { ...freshPlayer(), hp: 15, mp: 8, attacks: 2 };
    this.state = {
      cfg: cfg.value,
      rng: Rng.seeded(seed).save(),
      state: { kind: "Main" },
      cards: [],
      cells: new Array(35).fill(-1),
      feints: new Array(35).fill(-1),
      players: [p, { ...p }],
      hands: [[], []],
      books: [[], []],
      graves: [[], []],
      turn: 3,
      turnPlayer: 0,
      first: 0,
      finished: false,
      winner: -1,
    };
  }

  get pool(): Pool {
    return this.game.pool;
  }

  private mut(): Mutable<BattleData> {
    return this.state as Mutable<BattleData>;
  }

  private newCard(seat: Seat, name: string, layer: Card["layer"]): number {
    const def = this.pool.cards.findIndex((c) => c.name === name || c.id === name);
    if (def < 0) throw new Error(`no card named ${name}`);
    const id = this.state.cards.length;
    (this.state.cards as Card[]).push(freshCard(this.pool, def, seat, layer));
    this.settled = false;
    return id;
  }

  withHand(seat: Seat, ...names: string[]): this {
    for (const n of names) (this.state.hands[seat] as number[]).push(this.newCard(seat, n, "Hand"));
    return this;
  }

  /** Book cards; the last one named is drawn first. */
  withBook(seat: Seat, ...names: string[]): this {
    for (const n of names) (this.state.books[seat] as number[]).push(this.newCard(seat, n, "Book"));
    return this;
  }

  withUnit(seat: Seat, name: string, cell: CellRef, patch: Partial<Card> = {}): this {
    const c = cellRef(cell);
    if (this.state.cells[c]! >= 0) throw new Error(`cell ${cell} is taken`);
    const id = this.newCard(seat, name, "Field");
    const def = this.pool.cards[this.state.cards[id]!.def]!;
    (this.state.cards as Card[])[id] = {
      ...this.state.cards[id]!,
      cell: c,
      summoned: 0,
      attached: def.paramAbilities.map((ability) => ({ ability, producer: id, area: false })),
      ...patch,
    };
    (this.state.cells as number[])[c] = id;
    return this;
  }

  withFeint(seat: Seat, name: string, cell: CellRef): this {
    const c = cellRef(cell);
    const id = this.newCard(seat, name, "Field");
    (this.state.cards as Card[])[id] = { ...this.state.cards[id]!, cell: c };
    (this.state.feints as number[])[c] = id;
    (this.state.players as unknown as Player[])[seat] = { ...this.state.players[seat]!, feint: id };
    return this;
  }

  withPlayer(seat: Seat, patch: Partial<Player>): this {
    (this.state.players as unknown as Player[])[seat] = { ...this.state.players[seat]!, ...patch };
    return this;
  }

  withTurn(turn: number, turnPlayer: Seat, state: State = { kind: "Main" }): this {
    const s = this.mut();
    s.turn = turn;
    s.turnPlayer = turnPlayer;
    s.state = state;
    return this;
  }

  with(patch: Partial<BattleData>): this {
    Object.assign(this.mut(), patch);
    return this;
  }

  private settle(): void {
    if (this.settled) return;
    const d = new Draft(this.state, this.pool);
    settle(d);
    this.state = d.finish();
    this.settled = true;
  }

  legal(): Decision[] {
    this.settle();
    return this.game.legal(this.state) as Decision[];
  }

  isLegal(d: Decision): boolean {
    const key = canonicalJson(d);
    return this.legal().some((x) => canonicalJson(x) === key);
  }

  /** Applies a legal decision (fails the test with the legal list otherwise). */
  act(d: Decision): this {
    this.settle();
    const legal = this.legal();
    const key = canonicalJson(d);
    if (!legal.some((x) => canonicalJson(x) === key)) {
      throw new Error(`not legal: ${key}\nlegal: ${legal.map((x) => canonicalJson(x)).join("\n  ")}`);
    }
    const before = this.state;
    const out = this.game.applyTraced(this.state, d);
    expect(this.game.apply(before, d)).toEqual({ ok: true, state: out.state });
    this.state = out.state;
    this.trace = out.trace;
    return this;
  }

  expect(check: (s: BattleData, sc: this) => void): this {
    this.settle();
    check(this.state, this);
    return this;
  }

  // ---- reading helpers
  card(id: number): Card {
    this.settle();
    return this.state.cards[id]!;
  }
  unitAt(cell: CellRef): number {
    return this.state.cells[cellRef(cell)]!;
  }
  /** Instance id of the n-th card added with this name. */
  id(name: string, nth = 0): number {
    const ids = this.state.cards.map((c, i) => (this.pool.cards[c.def]!.name === name ? i : -1)).filter((i) => i >= 0);
    if (ids[nth] === undefined) throw new Error(`no card ${name} #${nth}`);
    return ids[nth]!;
  }
  life(cell: CellRef): number {
    return this.card(this.unitAt(cell)).life;
  }
  /** Effective attack of the unit on a cell, after seals and area buffs are brought up to date. */
  attack(cell: CellRef): number {
    this.settle();
    return effectiveAttack(this.state, this.pool, this.unitAt(cell));
  }
  triggers(kind?: string): string[] {
    return this.trace.triggers.filter((t) => kind === undefined || t.kind === kind).map((t) => t.kind);
  }
  commands(): string[] {
    return this.trace.commands.map((c) => c.kind);
  }
  /** The States the last decision entered, in order (its StateChanged triggers). */
  states(): string[] {
    return this.trace.triggers.filter((t) => t.kind === "StateChanged").map((t) => STATE_KINDS[t.amount]!);
  }
}

export function scenario(game?: DcgGame, seed?: number): Scenario {
  return new Scenario(game, seed);
}

export { makeDcg };
