/**
 * Seats changing hands, journaled: a leave survives a restart and another person can take the
 * seat; an agent's seat is joined where the facilitator allows it; the entry window waits for
 * people on the table's clock; a journal line of no known type, or a malformed one, is refused
 * with a message naming the line.
 */
import { appendFileSync, readFileSync, rmSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { registry } from "../../engine/games.ts";
import { adapters } from "../../env/games/index.ts";
import { ManualClock } from "../../agents/clock.ts";
import { checkJournalLines, JournalLineError } from "../../env/live/journal-lines.ts";
import { TableStore } from "../../env/live/store.ts";
import type { Table } from "../../env/live/table.ts";
import { Client, http, startLive, tempDir, type Live } from "./helpers.ts";
import { hangGuard, waitUntil } from "../fixtures/hang-guard.ts";

const dirs: string[] = [];
const stores: TableStore[] = [];
const lives: Live[] = [];
afterEach(async () => {
  for (const s of stores.splice(0)) s.close();
  for (const l of lives.splice(0)) await l.close();
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

function dataDir(): string {
  const d = tempDir();
  dirs.push(d);
  return d;
}

function store(dir: string, clock = new ManualClock()): TableStore {
  const s = new TableStore({ dataDir: dir, registry, adapters, modelRoot: dir, clock });
  stores.push(s);
  return s;
}

const journalLines = (dir: string, id: string) =>
  readFileSync(join(dir, "tables", `${id}.jsonl`), "utf8")
    .trim()
    .split("\n")
    .map((l) => JSON.parse(l));

/** A seat line's link of the signed chain: after `seq` decisions, with its hash and MAC. */
const signedAt = (seq: number) => ({ seq, hash: expect.stringMatching(/^[0-9a-f]{64}$/), mac: expect.stringMatching(/^[0-9a-f]{64}$/) });

const until = (cond: () => boolean) => waitUntil(cond, "the journal condition", hangGuard(), 5);

/** Thrown or rejected TableError code of `f`. */
async function codeOf(f: () => unknown): Promise<string> {
  try {
    await f();
  } catch (e) {
    return (e as { code?: string }).code ?? String(e);
  }
  return "no error";
}

describe("leaving and joining a seat, journaled", () => {
  it("a leave is journaled, survives a restart, and another person can take the seat (HTTP)", async () => {
    const dir = dataDir();
    let live = await startLive({ liveClock: new ManualClock() }, dir);
    const made = (await http(live.base, "POST", "/v1/tables", { game: "sevens", seats: ["human", "human", "human"], seed: 3 })).body;
    const { table, tokens } = made;
    // Nobody may take a seat its holder still has, and the summary says so.
    expect((await http(live.base, "POST", `/v1/tables/${table}/seats/1/join`)).body.error.code).toBe("seat_taken");
    expect((await http(live.base, "GET", `/v1/tables/${table}`)).body.seats.map((s: { joinable: boolean }) => s.joinable)).toEqual([false, false, false]);
    const left = await http(live.base, "POST", `/v1/tables/${table}/seats/1/leave`, undefined, { "x-seat-token": tokens["1"] });
    expect(left).toEqual({ status: 200, body: { left: true } });
    // The same leave again (a retried request): answered the same, journaled once.
    expect(await http(live.base, "POST", `/v1/tables/${table}/seats/1/leave`, undefined, { "x-seat-token": tokens["1"] })).toEqual(left);
    expect(journalLines(dir, table).filter((l) => l.t === "leave")).toEqual([{ t: "leave", seat: 1, at: expect.any(Number), ...signedAt(0) }]);
    await live.close(true);

    live = await startLive({ liveClock: new ManualClock() }, dir);
    lives.push(live);
    // After the restart the seat is still given up: the takeover agent plays it, nobody's grace period.
    const summary = (await http(live.base, "GET", `/v1/tables/${table}`)).body;
    expect(summary.seats[1]).toMatchObject({ kind: "human", status: "bot", held: true, joinable: true });
    const joined = await http(live.base, "POST", `/v1/tables/${table}/seats/1/join`);
    expect(joined.status).toBe(200);
    expect(joined.body).toMatchObject({ table, seat: 1, token: expect.any(String) });
    const frameWith = (token: string) => http(live.base, "GET", `/v1/tables/${table}/seats/1/frame`, undefined, { "x-seat-token": token });
    expect((await frameWith(joined.body.token)).status).toBe(200);
    // The one who left lost the seat to the newcomer: the old token no longer plays it.
    expect((await frameWith(tokens["1"])).body.error.code).toBe("unauthorized");
    expect((await http(live.base, "POST", `/v1/tables/${table}/seats/1/join`)).body.error.code).toBe("seat_taken");
    expect((await http(live.base, "GET", `/v1/tables/${table}`)).body.seats[1].joinable).toBe(false);
  });

  it("the join of a left seat survives a restart too: the newcomer's token holds it, the leaver's does not", async () => {
    const dir = dataDir();
    const a = store(dir);
    const made = await a.create({ game: "sevens", seats: ["human", "human", "human"], seed: 5 });
    const t = a.get(made.table);
    await t.leave(2);
    const token = await t.join(2);
    a.close();
    const b = store(dir);
    expect(b.recover()).toEqual({ recovered: 1, failed: [] });
    const back = b.get(made.table);
    expect(back.authorize(2, token)).toBe(true);
    expect(back.authorize(2, made.tokens["2"])).toBe(false);
    expect(back.seatInfo()[2]).toMatchObject({ kind: "human", held: true, status: "away" });
  });

  it("the holder's return to a seat they left is journaled: after a restart the seat is still theirs (HTTP)", async () => {
    const dir = dataDir();
    let live = await startLive({ liveClock: new ManualClock() }, dir);
    const { table, tokens } = (await http(live.base, "POST", "/v1/tables", { game: "sevens", seats: ["human", "human", "human"], seed: 3 })).body;
    const asHolder = { "x-seat-token": tokens["1"] };
    expect((await http(live.base, "POST", `/v1/tables/${table}/seats/1/leave`, undefined, asHolder)).status).toBe(200);
    // Back with the token: the seat is the holder's again, and nobody else may take it.
    expect((await http(live.base, "GET", `/v1/tables/${table}/seats/1/frame`, undefined, asHolder)).status).toBe(200);
    expect((await http(live.base, "POST", `/v1/tables/${table}/seats/1/join`)).body.error.code).toBe("seat_taken");
    expect(journalLines(dir, table).filter((l) => l.t === "leave" || l.t === "return")).toEqual([
      { t: "leave", seat: 1, at: expect.any(Number), ...signedAt(0) },
      { t: "return", seat: 1, at: expect.any(Number), ...signedAt(0) },
    ]);
    await live.close(true);

    live = await startLive({ liveClock: new ManualClock() }, dir);
    lives.push(live);
    // After the restart the holder has the grace period like every present holder, not a left seat.
    expect((await http(live.base, "GET", `/v1/tables/${table}`)).body.seats[1]).toMatchObject({ kind: "human", status: "away", held: true });
    expect((await http(live.base, "POST", `/v1/tables/${table}/seats/1/join`)).body.error.code).toBe("seat_taken");
    expect((await http(live.base, "GET", `/v1/tables/${table}/seats/1/frame`, undefined, asHolder)).status).toBe(200);
  });

  it("a return over a WebSocket is journaled once; after a restart the seat is the holder's", async () => {
    const dir = dataDir();
    const live = await startLive({ liveClock: new ManualClock() }, dir);
    lives.push(live);
    const { table, tokens } = (await http(live.base, "POST", "/v1/tables", { game: "sevens", seats: ["human", "human", "human"], seed: 4 })).body;
    const seatUrl = `${live.ws}/v1/tables/${table}/seats/2/ws?token=${tokens["2"]}`;
    const first = await Client.open(seatUrl);
    await first.frame();
    first.send({ type: "leave" });
    // The leave is journaled, then the seat's channels are closed.
    await until(() => first.closed !== null);
    // Coming back on a new connection: the return is journaled, then every frame shows the seat connected.
    const back = await Client.open(seatUrl);
    await back.frame((f) => f.seats[2].status === "connected");
    const returns = () => journalLines(dir, table).filter((l) => l.t === "return");
    await until(() => returns().length === 1);
    // A second connection of a holder already back journals nothing more.
    const again = await Client.open(seatUrl);
    await again.frame((f) => f.seats[2].status === "connected");
    again.close();
    back.close();
    expect(returns()).toEqual([{ t: "return", seat: 2, at: expect.any(Number), ...signedAt(0) }]);
    await live.close(true);

    const b = store(dir);
    expect(b.recover().failed).toEqual([]);
    expect(b.get(table).seatInfo()[2]).toMatchObject({ kind: "human", held: true, status: "away" });
    expect(await codeOf(() => b.get(table).join(2))).toBe("seat_taken");
    expect(b.get(table).authorize(2, tokens["2"])).toBe(true);
  });

  it("an agent's seat is joined by a person where the facilitator allows it (training), refused where not (sandbag)", async () => {
    const dir = dataDir();
    const a = store(dir);
    const training = await a.create({ game: "sevens", seats: ["human", "random", "random"], seed: 2, facilitator: "training" });
    expect(
      a
        .get(training.table)
        .seatInfo()
        .map((s) => s.joinable),
    ).toEqual([false, true, true]);
    const token = await a.get(training.table).join(1);
    expect(a.get(training.table).seatInfo()[1]).toMatchObject({ kind: "human", held: true });
    const sandbag = await a.create({ game: "sevens", facilitator: "sandbag", seed: 2 });
    expect(await codeOf(() => a.get(sandbag.table).join(1))).toBe("not_joinable");
    expect(
      a
        .get(sandbag.table)
        .seatInfo()
        .some((s) => s.joinable),
    ).toBe(false);
    a.close();
    const b = store(dir);
    b.recover();
    expect(b.get(training.table).authorize(1, token)).toBe(true);
    expect(b.get(training.table).seatInfo()[1]).toMatchObject({ kind: "human", held: true });
  });

  it("a holder reconnecting while a newcomer's join is being written is not back: the join wins and closes that channel", async () => {
    const dir = dataDir();
    const a = store(dir);
    const made = await a.create({ game: "sevens", seats: ["human", "human", "human"], seed: 6 });
    const t = a.get(made.table);
    await t.leave(1);
    const joining = t.join(1);
    const closed: number[] = [];
    t.attach({ seat: 1, sentSeq: 0, send: () => {}, close: (code) => closed.push(code) }, null);
    const token = await joining;
    expect(closed).toEqual([4001]);
    expect(journalLines(dir, made.table).filter((l) => l.t === "return")).toEqual([]);
    a.close();
    const b = store(dir);
    b.recover();
    expect(b.get(made.table).authorize(1, token)).toBe(true);
    expect(b.get(made.table).authorize(1, made.tokens["1"])).toBe(false);
  });

  it("two people racing for one seat: one gets it, the other is told it is taken", async () => {
    const a = store(dataDir());
    const made = await a.create({ game: "sevens", seats: ["human", "open", "open"], seed: 2 });
    const t = a.get(made.table);
    const results = await Promise.allSettled([t.join(1), t.join(1)]);
    expect(results.map((r) => r.status).sort()).toEqual(["fulfilled", "rejected"]);
    const refused = results.find((r) => r.status === "rejected") as PromiseRejectedResult;
    expect(refused.reason.code).toBe("seat_taken");
  });
});

describe("a seat's line racing the game's last decision", () => {
  /** Answers each frame's first decision until `stop` decisions were applied (or the game ends); returns how many were. */
  async function play(t: Table, stop = Infinity): Promise<number> {
    while (!t.isFinished && t.seq < stop) {
      const seat = [0, 1, 2].find((x) => t.mustDecide(x))!;
      await t.answer(seat, t.seq, t.seatFrame(seat, t.seq).decisions[0]!.id);
    }
    return t.seq;
  }

  it("a resignation queued behind the last decision is refused (game_over) and the journal still ends with its end marker", async () => {
    const dir = dataDir();
    const a = store(dir);
    const body = { game: "sevens", seats: ["human", "human", "human"], seed: 9 };
    const length = await play(a.get((await a.create(body)).table));
    const made = await a.create(body);
    const t = a.get(made.table);
    await play(t, length - 1);
    const last = [0, 1, 2].find((x) => t.mustDecide(x))!;
    const other = (last + 1) % 3;
    const applied = t.answer(last, t.seq, t.seatFrame(last, t.seq).decisions[0]!.id);
    const resigned = codeOf(() => t.resign(other));
    await applied;
    expect(t.isFinished).toBe(true);
    expect(await resigned).toBe("game_over");
    expect(journalLines(dir, made.table).at(-1).t).toBe("end");
  });
});

describe("the entry window", () => {
  /** A sevens table with an entry window whose first decision is seat 0's (a person's). */
  async function windowTable(s: TableStore, entryMs: number): Promise<{ t: Table; tokens: Record<string, string> }> {
    for (let seed = 1; seed < 50; seed++) {
      const made = await s.create({ game: "sevens", seats: ["human", "open", "open"], seed, deadlines: { entryMs } });
      const t = s.get(made.table);
      if (t.seatFrame(0, 0).actor === 0) return { t, tokens: made.tokens };
    }
    throw new Error("no seed whose first actor is seat 0");
  }

  it("waits for people on the table's clock, then the agents fill the seats still empty", async () => {
    const clock = new ManualClock();
    const s = store(dataDir(), clock);
    const start = clock.now();
    const { t } = await windowTable(s, 10_000);
    expect(t.summary().startsAt).toBe(start + 10_000);
    const frame = t.seatFrame(0, 0);
    expect(frame).toMatchObject({ startsAt: start + 10_000, decisions: [], expectation: null });
    expect(await codeOf(() => t.answer(0, 0, 0))).toBe("not_started");
    const token = await t.join(1);
    expect(t.authorize(1, token)).toBe(true);
    clock.advance(9_999);
    expect(t.summary().startsAt).toBe(start + 10_000);
    clock.advance(1);
    // Closed: the game has started, seat 0 decides, and seat 2 (empty) is the agents' for this game.
    expect(t.summary().startsAt).toBeUndefined();
    const started = t.seatFrame(0, 0);
    expect(started.startsAt).toBeUndefined();
    expect(started.decisions.length).toBeGreaterThan(0);
    expect(await codeOf(() => t.join(2))).toBe("window_closed");
    await t.answer(0, 0, started.decisions[0]!.id);
    expect(t.seq).toBeGreaterThanOrEqual(1);
  });

  it("closes early once every open seat is held", async () => {
    const clock = new ManualClock();
    const s = store(dataDir(), clock);
    const { t } = await windowTable(s, 60_000);
    await t.join(1);
    expect(t.summary().startsAt).toBeDefined();
    await t.join(2);
    expect(t.summary().startsAt).toBeUndefined();
    expect(t.mustDecide(0)).toBe(true);
  });

  it("keeps its end across a restart", async () => {
    const dir = dataDir();
    const clock = new ManualClock();
    const a = store(dir, clock);
    const start = clock.now();
    const { t } = await windowTable(a, 10_000);
    const id = t.id;
    a.close();
    clock.advance(4_000);
    const b = store(dir, clock);
    expect(b.recover().failed).toEqual([]);
    expect(b.get(id).summary().startsAt).toBe(start + 10_000);
    clock.advance(6_000);
    expect(b.get(id).summary().startsAt).toBeUndefined();
    expect(b.get(id).mustDecide(0)).toBe(true);
  });
});

describe("journal lines are checked when read", () => {
  /** Why recovering a table whose journal ends with `line` fails (the table is then not loaded). */
  async function refusalOf(line: unknown): Promise<ReturnType<TableStore["recover"]>> {
    const dir = dataDir();
    const a = store(dir);
    const made = await a.create({ game: "sevens", seats: ["human", "human", "human"], seed: 1 });
    a.close();
    appendFileSync(join(dir, "tables", `${made.table}.jsonl`), JSON.stringify(line) + "\n");
    const r = store(dir).recover();
    expect(r.failed.map((f) => f.id)).toEqual([made.table]);
    return r;
  }

  it("a line of no known type is refused with a message naming the line; the table is not loaded", async () => {
    const r = await refusalOf({ t: "teleport", seat: 1 });
    expect(r.recovered).toBe(0);
    expect(r.failed[0]?.reason).toMatch(/^journal line 2: unknown line type "teleport"/);
  });

  it("a known line with a wrong or missing field is refused with the field's path", async () => {
    expect((await refusalOf({ t: "leave", seat: "one", at: 1 })).failed[0]?.reason).toMatch(/^journal line 2: not a valid leave line: \/seat /);
    expect((await refusalOf({ t: "return", seat: 1 })).failed[0]?.reason).toMatch(/^journal line 2: not a valid return line: \/ /);
  });

  it("checkJournalLines throws a typed JournalLineError (no header, unknown line, invalid line)", () => {
    const problem = (lines: unknown[]) => {
      try {
        checkJournalLines(lines);
      } catch (e) {
        expect(e).toBeInstanceOf(JournalLineError);
        return (e as JournalLineError).problem;
      }
      return "accepted";
    };
    expect(problem([])).toBe("no_header");
    expect(problem([{ t: "entry" }])).toBe("no_header");
    expect(problem(["text"])).toBe("unknown_line");
    expect(problem([null])).toBe("unknown_line");
  });
});
