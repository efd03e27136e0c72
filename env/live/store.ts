import { randomBytes } from "node:crypto";
import { createAgentReady, type AgentContext } from "../../agents/spec.ts";
import type { Facilitatee } from "../../agents/facilitatee.ts";
import type { AnyGame, GameRegistry, Seat } from "../../engine/core/index.ts";
import type { GameAdapter } from "../codec.ts";
import { specOf } from "../spec.ts";
import { checkDecisionCost, seatsCost } from "../../agents/cost.ts";
import { AgentRunner } from "./agent-runner.ts";
import { systemClock, type Clock } from "../../agents/clock.ts";
import { MODES, planTable, presetOf } from "./facilitators.ts";
import { readHead } from "./head.ts";
import { checkJournalLines, type JournalLines } from "./journal-lines.ts";
import { headIds, readJournal, readJournals, restoreNewline, tablesDir, truncateJournal } from "./journal.ts";
import { SIGNED_SEATS_FORMAT, type CreateTableBody, type CreateTableReply, type LogHeader } from "./protocol.ts";
import { ReplayTable } from "./replay.ts";
import { loadOrCreateKey } from "./signing.ts";

/** Replay tables kept at once (oldest dropped first). */
const MAX_REPLAYS = 100;
import { DEFAULT_DEADLINES, seatKindOf, Table, TableError, type ResolvedDeadlines, type TableDeps } from "./table.ts";

export interface TableStoreOptions {
  readonly dataDir: string;
  readonly registry: GameRegistry;
  readonly adapters: ReadonlyMap<string, GameAdapter>;
  readonly modelRoot: string;
  readonly clock?: Clock;
  readonly maxTables?: number;
  /** Finished tables kept in memory; older ones are read back from their journal when asked for. */
  readonly maxFinished?: number;
  readonly log?: (line: string) => void;
  /** Agent decisions across all tables: how many compute at once, how many may wait. */
  readonly agentConcurrency?: number;
  readonly agentQueue?: number;
  /** Runs one agent decision on the server's worker pool (TableDeps.decide). */
  readonly decide?: TableDeps["decide"];
  /** The server's --max-agent-cost: a table whose agents cost more per decision is refused. */
  readonly maxAgentCost?: number;
}

/** Every live table of a server, their journals under <dataDir>/tables, and the signing key. */
export class TableStore {
  readonly clock: Clock;
  private keyBuffer: Buffer | null = null;
  private readonly tables = new Map<string, Table>();
  private readonly o: TableStoreOptions;
  /** What every table shares; the key is added per table (depsFor), so the data dir and its key are made on first use. */
  private readonly deps: Omit<TableDeps, "key">;
  private readonly maxTables: number;
  private readonly maxFinished: number;
  private readonly finishedOrder: string[] = [];
  private readonly replays = new Map<string, ReplayTable>();
  private applied = 0;

  constructor(o: TableStoreOptions) {
    this.o = o;
    this.clock = o.clock ?? systemClock;
    this.maxTables = o.maxTables ?? 2000;
    this.maxFinished = o.maxFinished ?? 1000;
    const log = o.log ?? (() => undefined);
    this.deps = {
      clock: this.clock,
      journalDir: tablesDir(o.dataDir),
      runner: new AgentRunner({ concurrency: o.agentConcurrency ?? 4, maxQueue: o.agentQueue ?? 100_000 }),
      makeAgent: () => Promise.reject(new Error("agents are made per game (depsFor)")),
      log,
      onFinish: (t) => this.finished(t),
      onApplied: () => void this.applied++,
      joinRules: (f) => presetOf(f).joinable,
      ...(o.decide ? { decide: o.decide } : {}),
    };
  }

  /** The signing key from <dataDir>/server.key, made on first use. */
  get key(): Buffer {
    if (this.keyBuffer === null) this.keyBuffer = loadOrCreateKey(this.o.dataDir);
    return this.keyBuffer;
  }

  private adapterOf(game: string): GameAdapter {
    const found = this.o.registry.get(game);
    const adapter = this.o.adapters.get(game);
    if (!found.ok || !adapter)
      throw new TableError(
        404,
        "unknown_game",
        `no game ${JSON.stringify(game)}; served games: ${this.o.registry
          .ids()
          .filter((id) => this.o.adapters.has(id))
          .join(", ")}`,
      );
    return adapter;
  }

  private async makeAgent(spec: string, seat: Seat, seed: number, game: string): Promise<Facilitatee> {
    const adapter = this.adapterOf(game);
    const ctx: AgentContext = { seed, seat, game, adapter, actionSpecHash: specOf(adapter).actionSpecHash, modelRoot: this.o.modelRoot };
    const made = await createAgentReady(spec, ctx);
    if (!made.ok) throw new TableError(400, "invalid_seats", made.error.message);
    return made.value;
  }

  private gameOf(h: LogHeader): { game: AnyGame; adapter: GameAdapter } {
    const adapter = this.adapterOf(h.game);
    return { game: adapter.game, adapter };
  }

  private depsFor(game: string): TableDeps {
    return { ...this.deps, key: this.key, makeAgent: (spec, seat, seed) => this.makeAgent(spec, seat, seed, game) };
  }

  /** Loads every journal in the data dir; a journal that does not verify is reported and skipped. */
  recover(): { recovered: number; failed: { id: string; reason: string }[] } {
    const failed: { id: string; reason: string }[] = [];
    let recovered = 0;
    const journals = readJournals(this.o.dataDir);
    failed.push(...this.headsWithoutJournal(new Set(journals.map((j) => j.id))));
    for (const j of journals) {
      try {
        // A damaged whole line: nothing is cut (the lines after it are genuine), the table is not loaded.
        if (j.bad !== null) throw new Error(j.bad);
        let lines = checkJournalLines(j.lines);
        checkOwner(lines, j.id);
        const kept = j.tornBytes > 0 ? this.lastLineKept(j, lines) : null;
        if (kept) lines = kept;
        // Finished tables stay on disk and are loaded when asked for (get).
        if (lines.body.at(-1)?.t === "end") continue;
        if (j.tornBytes > 0 && !kept) {
          truncateJournal(this.o.dataDir, j.id, j.goodBytes);
          this.o.log?.(`live tables: table ${j.id}: journal: cut its half-written last line (${j.tornBytes} bytes, never acknowledged)`);
        }
        const table = Table.recover(lines, (h) => this.gameOf(h), this.depsFor(lines.header.header.game));
        this.tables.set(table.id, table);
        recovered++;
      } catch (e) {
        failed.push({ id: j.id, reason: (e as Error).message });
      }
    }
    return { recovered, failed };
  }

  /**
   * A last line without its newline is a write a crash cut short, never acknowledged, and is cut
   * off; unless it is a whole line of the journal that its head counts as written. The head is
   * flushed only once its lines are on disk, so such a line was acknowledged, and only its newline
   * was lost afterwards: cutting it would lose an acknowledged decision that is still there. It is
   * kept (its newline restored); null when the last line is not such a one.
   */
  private lastLineKept(j: { id: string; lines: unknown[]; torn?: string }, lines: JournalLines): JournalLines | null {
    const head = readHead(tablesDir(this.o.dataDir), j.id, this.key).head;
    if (head === null || head.lines <= lines.count || j.torn === undefined) return null;
    let withIt: JournalLines;
    try {
      withIt = checkJournalLines([...j.lines, JSON.parse(j.torn)]);
    } catch {
      return null;
    }
    restoreNewline(this.o.dataDir, j.id);
    this.o.log?.(`live tables: table ${j.id}: journal: its last line had lost its newline, and its head counts it as written (acknowledged): kept`);
    return withIt;
  }

  /** A head file whose journal is gone: the table was lost whole (reported, nothing to load). */
  private headsWithoutJournal(journals: ReadonlySet<string>): { id: string; reason: string }[] {
    return headIds(this.o.dataDir)
      .filter((id) => !journals.has(id))
      .map((id) => {
        const read = readHead(tablesDir(this.o.dataDir), id, this.key);
        const said = read.head ? `; its head says ${read.head.lines} lines (seq ${read.head.seq}) were written` : "";
        return { id, reason: `its journal is missing${said}` };
      });
  }

  /** For /metrics: tables in memory, how many are live, decisions applied since start and held in memory. */
  stats(): { live: number; inMemory: number; replays: number; decisionsApplied: number; decisionsHeld: number } {
    let held = 0;
    for (const t of this.tables.values()) held += t.seq;
    return { live: this.live, inMemory: this.tables.size, replays: this.replays.size, decisionsApplied: this.applied, decisionsHeld: held };
  }

  get size(): number {
    return this.tables.size;
  }

  get live(): number {
    let n = 0;
    for (const t of this.tables.values()) if (!t.isFinished) n++;
    return n;
  }

  /** A table or a replay, for watching (spectator routes). */
  watchable(id: string): Table | ReplayTable {
    return this.replays.get(id) ?? this.get(id);
  }

  replay(id: string): ReplayTable {
    const r = this.replays.get(id);
    if (!r) throw new TableError(404, "unknown_table", `no replay table ${JSON.stringify(id)}`);
    return r;
  }

  private createReplay(body: CreateTableBody): CreateTableReply {
    if (body.record === undefined)
      throw new TableError(400, "invalid_record", "facilitator replay needs `record` (a GameRecord, e.g. from GET /v1/tables/:id/record)");
    const id = `r-${randomBytes(9).toString("base64url")}`;
    const r = new ReplayTable(id, MODES.replay.play(this.o.registry, body.record), this.clock);
    this.replays.set(id, r);
    while (this.replays.size > MAX_REPLAYS) {
      const oldest = this.replays.keys().next().value as string;
      this.replays.get(oldest)?.close();
      this.replays.delete(oldest);
    }
    return { table: id, game: r.game.info.id, gameVersion: r.game.info.version, facilitator: "replay", config: r.config, seats: r.summary().seats, tokens: {} };
  }

  async create(body: CreateTableBody): Promise<CreateTableReply> {
    if (body.facilitator === "replay") return this.createReplay(body);
    if (this.live >= this.maxTables) throw new TableError(503, "too_many_tables", `this server runs at most ${this.maxTables} live tables`);
    const adapter = this.adapterOf(body.game);
    const game = adapter.game;
    const plan = planTable(game, body);
    const seats = plan.seats;
    if (plan.config.seats !== undefined && plan.config.seats !== seats.length) {
      throw new TableError(400, "invalid_seats", `config.seats is ${String(plan.config.seats)} but ${seats.length} seats are given`);
    }
    const parsed = game.parseConfig({ ...plan.config, seats: seats.length });
    if (!parsed.ok) {
      const path = parsed.error.path;
      // A debug table's board is the body's `board`: its errors name their path there.
      if (body.board !== undefined && path !== undefined && /^board\b/.test(path)) throw new TableError(400, "invalid_board", parsed.error.message, { path });
      throw new TableError(400, "invalid_config", parsed.error.message);
    }
    // The body's deadlines, else the facilitator's, else the server's defaults.
    const deadlines: ResolvedDeadlines = { ...DEFAULT_DEADLINES, ...plan.deadlines, ...definedOnly(body.deadlines ?? {}) };
    // Every agent a seat may need is built once now, so a bad spec (or a model that does not load)
    // is a 400 here and not a failure mid-game.
    const specs = new Set<string>([deadlines.takeover]);
    for (const s of seats) {
      const k = seatKindOf(s);
      if (k.agent !== null) specs.add(k.agent);
    }
    if (this.o.maxAgentCost !== undefined) {
      // Admission as for sessions: a table computes one decision at a time, so each agent is
      // priced alone, for one env.
      for (const spec of specs) {
        const priced = seatsCost([spec], 1, game.info.id);
        if (!priced.ok) throw new TableError(400, "invalid_seats", `seat spec ${JSON.stringify(spec)}: ${priced.error.message}`);
        const cost = checkDecisionCost(spec, this.o.maxAgentCost, undefined, game.info.id);
        if (!cost.ok) throw new TableError(400, "agent_too_costly", cost.error.message);
      }
    }
    for (const spec of specs) {
      try {
        await this.makeAgent(spec, 0, 0, game.info.id);
      } catch (e) {
        if (e instanceof TableError) throw new TableError(400, "invalid_seats", `seat spec ${JSON.stringify(spec)}: ${e.message}`);
        throw e;
      }
    }
    const id = `t-${randomBytes(9).toString("base64url")}`;
    const { table, tokens } = Table.create(
      {
        id,
        game,
        adapter,
        config: parsed.value as CreateTableReply["config"] & { seats: number },
        seed: body.seed ?? randomSeed(),
        seats,
        facilitator: plan.facilitator,
        deadlines,
        spectators: body.spectators ?? true,
        format: SIGNED_SEATS_FORMAT,
      },
      this.depsFor(game.info.id),
    );
    this.tables.set(id, table);
    return {
      table: id,
      game: game.info.id,
      gameVersion: game.info.version,
      facilitator: table.facilitator,
      config: table.config,
      seats: table.seatInfo(),
      tokens,
    };
  }

  get(id: string): Table {
    const t = this.tables.get(id) ?? this.load(id);
    if (!t) throw new TableError(404, "unknown_table", `no table ${JSON.stringify(id)}`);
    return t;
  }

  /** A finished table evicted from memory (or skipped at start) is read back from its journal. */
  private load(id: string): Table | null {
    const read = readJournal(this.o.dataDir, id);
    if (!read) return null;
    try {
      if (read.bad !== null) throw new Error(read.bad);
      const lines = checkJournalLines(read.lines);
      checkOwner(lines, id);
      // An unfinished journal that is not in memory failed at the start (and was reported then).
      if (lines.body.at(-1)?.t !== "end") return null;
      const table = Table.recover(lines, (h) => this.gameOf(h), this.depsFor(lines.header.header.game), false);
      // Nothing is written after the end marker, so these bytes are no crash's torn write: told, left on disk.
      if (read.tornBytes > 0) this.o.log?.(`live tables: table ${id}: journal: ${read.tornBytes} bytes after its last line (no line of the server's: ignored)`);
      this.tables.set(table.id, table);
      this.finishedOrder.push(table.id);
      this.evict();
      return table;
    } catch (e) {
      this.o.log?.(`live tables: journal ${id} not loaded: ${(e as Error).message}`);
      return null;
    }
  }

  private finished(table: Table): void {
    this.finishedOrder.push(table.id);
    this.evict();
  }

  /** Keeps at most maxFinished finished tables in memory (their journals keep them on disk). */
  private evict(): void {
    while (this.finishedOrder.length > this.maxFinished) {
      const id = this.finishedOrder.shift();
      if (id === undefined) break;
      const t = this.tables.get(id);
      if (t?.isFinished) {
        t.close("the game is over and the table left the server's memory (its record stays available)");
        this.tables.delete(id);
      }
    }
  }

  list(status?: "playing" | "finished"): (Table | ReplayTable)[] {
    const all = [...this.tables.values(), ...this.replays.values()];
    return status === undefined ? all : all.filter((t) => (status === "finished") === t.isFinished);
  }

  close(): void {
    for (const t of this.tables.values()) t.close();
    this.tables.clear();
    for (const r of this.replays.values()) r.close();
    this.replays.clear();
  }
}

/**
 * A journal is its file's table's: the header names the table, the file is named for it. Another
 * table's journal copied over a file (or a journal renamed) would load as that other table, twice
 * over with its own file, while the table the file was named for vanished without a word.
 */
function checkOwner(lines: JournalLines, id: string): void {
  const table = lines.header.header.table;
  if (table !== id) throw new Error(`journal line 1: the file holds the journal of table ${table}, not of ${id} (copied over or renamed)`);
}

/** The fields of `o` that are not undefined (so that spreading it keeps what it leaves out). */
function definedOnly<T extends object>(o: T): Partial<T> {
  return Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined)) as Partial<T>;
}

/**
 * A seed of 53 random bits: every seed the engine's RNG tells apart. The seed is the whole deal,
 * and a seat sees its own cards, so a smaller space is a deal a player can find by trying every
 * seed against their hand (2^32 seeds take one core minutes).
 */
function randomSeed(): number {
  const b = randomBytes(8);
  return (b.readUInt32LE(4) & 0x1fffff) * 0x100000000 + b.readUInt32LE(0);
}
