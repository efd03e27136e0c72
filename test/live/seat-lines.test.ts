/**
 * Seat lines (join, leave, return, resign) are links of the signed chain, like decisions: a
 * journal whose seat line was edited, removed, reordered, duplicated, moved past a decision or
 * stripped of its signature is not loaded (who holds a seat after a restart is decided by these
 * lines and the header's token hashes), and nothing is cut from it; the finished record carries
 * the seat changes under the same chain. A journal written before seat lines were signed still
 * loads, and its record still verifies.
 */
import { createHash } from "node:crypto";
import { readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { registry } from "../../engine/games.ts";
import { adapters } from "../../env/games/index.ts";
import { ManualClock } from "../../agents/clock.ts";
import { encodeHead, SLOT_BYTES } from "../../env/live/head.ts";
import { headerHash, macOf, readKey, signEnd, signEntry, signSeatChange } from "../../env/live/signing.ts";
import { TableStore } from "../../env/live/store.ts";
import type { Table } from "../../env/live/table.ts";
import { checkSignedRecord, verifySignedRecord } from "../../env/live/verify.ts";
import { tempDir } from "./helpers.ts";

const dirs: string[] = [];
const stores: TableStore[] = [];
afterEach(() => {
  for (const s of stores.splice(0)) s.close();
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

function store(dataDir: string): TableStore {
  const s = new TableStore({ dataDir, registry, adapters, modelRoot: dataDir, clock: new ManualClock() });
  stores.push(s);
  return s;
}

const sha256 = (text: string) => createHash("sha256").update(text).digest("hex");
const journalOf = (dir: string, id: string) => join(dir, "tables", `${id}.jsonl`);
const headOf = (dir: string, id: string) => join(dir, "tables", `${id}.head`);
const readLines = (file: string): Record<string, any>[] =>
  readFileSync(file, "utf8")
    .trimEnd()
    .split("\n")
    .map((l) => JSON.parse(l));
const writeLines = (file: string, lines: readonly unknown[]) => writeFileSync(file, lines.map((l) => JSON.stringify(l)).join("\n") + "\n");

/** Answers the decision the table waits for (every seat is a person's). */
async function answerOne(t: Table): Promise<void> {
  const actor = t.seatFrame(0, t.seq).actor as number;
  const f = t.seatFrame(actor, t.seq);
  await t.answer(actor, f.seq, f.decisions[0]!.id);
}

/** A seat other than the one that must decide now (its change starts no agent). */
const idleSeat = (t: Table, not: number[] = []) => [0, 1, 2].find((s) => s !== t.seatFrame(0, t.seq).actor && !not.includes(s))!;

/** A new sevens table of three people on a fresh data dir (removed after the test). */
async function peopleTable(seed: number) {
  const dir = tempDir();
  dirs.push(dir);
  const a = store(dir);
  const made = await a.create({ game: "sevens", seats: ["human", "human", "human"], seed });
  return { dir, a, made, t: a.get(made.table) };
}

/**
 * A sevens table of three people: two decisions, a seat left and joined by a newcomer, two
 * decisions, another seat left and returned to by its holder; the store closed (the server
 * stopped). Its journal: header, 2 entries, leave, join, 2 entries, leave, return.
 */
async function tableWithSeatChanges() {
  const { dir, a, made, t } = await peopleTable(9);
  for (let i = 0; i < 2; i++) await answerOne(t);
  const joined = idleSeat(t);
  await t.leave(joined);
  const newcomer = await t.join(joined);
  for (let i = 0; i < 2; i++) await answerOne(t);
  const returned = idleSeat(t, [joined]);
  await t.leave(returned);
  await t.touch(returned);
  a.close();
  const file = journalOf(dir, made.table);
  expect(readLines(file).map((l) => l.t)).toEqual(["header", "entry", "entry", "leave", "join", "entry", "entry", "leave", "return"]);
  return { dir, table: made.table, tokens: made.tokens, file, joined, newcomer, returned };
}

/** The newcomer's token holds the joined seat and the leaver's does not; the holder who came back holds theirs. */
function expectHolders(t: Table, s: { joined: number; newcomer: string; returned: number; tokens: Record<string, string> }): void {
  expect([t.authorize(s.joined, s.newcomer), t.authorize(s.joined, s.tokens[String(s.joined)]), t.authorize(s.returned, s.tokens[String(s.returned)])]).toEqual(
    [true, false, true],
  );
}

/** Every other line of the journal unchanged: lines `i` and `j` swapped. */
const swapped = (lines: readonly unknown[], i: number, j: number) => lines.map((l, k) => (k === i ? lines[j] : k === j ? lines[i] : l));

describe("seat lines are signed into the chain", () => {
  it("a journal as written restores the seats: the newcomer holds the joined seat, the returned holder theirs", async () => {
    const { dir, table, tokens, file, joined, newcomer, returned } = await tableWithSeatChanges();
    const lines = readLines(file);
    expect(lines[0]!.header.format).toBe(2);
    expect(lines[0]!.optionsMac).toMatch(/^[0-9a-f]{64}$/);
    expect(lines.slice(3, 5).map((l) => [l.t, l.seq])).toEqual([
      ["leave", 2],
      ["join", 2],
    ]);
    const b = store(dir);
    expect(b.recover()).toEqual({ recovered: 1, failed: [] });
    const t = b.get(table);
    // The head signed the chain's end, the last seat change: nothing to report.
    expect(t.summary().integrity).toBeUndefined();
    expectHolders(t, { joined, newcomer, returned, tokens });
    expect(t.seatInfo()[returned]).toMatchObject({ status: "away", joinable: false });
  });

  it("an edited, removed, reordered, duplicated, moved or unsigned seat line stops the table from loading, and nothing is cut", async () => {
    const { dir, table, file } = await tableWithSeatChanges();
    const lines = readLines(file);
    const stranger = sha256("a token the server never gave");
    const variants: [string, unknown[], RegExp][] = [
      [
        "the join's token hash replaced by a stranger's",
        lines.map((l, k) => (k === 4 ? { ...l, tokenHash: stranger } : l)),
        /^journal line 5: the join's token hash does not match its signature/,
      ],
      [
        "the join's token signature removed (read as an older join, whose link signs the token hash)",
        lines.map((l, k) => (k === 4 ? { ...l, tokenMac: undefined } : l)),
        /^seat change 1 \(join.*its hash does not match/,
      ],
      ["the leave's seat changed", lines.map((l, k) => (k === 3 ? { ...l, seat: (l.seat + 1) % 3 } : l)), /^seat change 0 \(leave/],
      ["the leave before the join removed", lines.filter((_, k) => k !== 3), /^seat change 0 \(join.*its hash does not match/],
      ["a leave removed with the decisions after it kept", lines.filter((_, k) => k !== 7), /^seat change 2 \(return.*its hash does not match/],
      ["the leave and the join swapped", swapped(lines, 3, 4), /^seat change 0 \(join.*its hash does not match/],
      ["the last leave and return swapped", swapped(lines, 7, 8), /^seat change 2 \(return.*its hash does not match/],
      ["the join written twice", [...lines.slice(0, 5), lines[4], ...lines.slice(5)], /^seat change 2 \(join.*its hash does not match/],
      ["the join moved after the next decision", swapped(lines, 4, 5), /^journal line 6: a seat's join signed after 2 decisions stands after 3/],
      [
        "the join's signature stripped (an old-format line)",
        lines.map((l, k) => (k === 4 ? { t: "join", seat: l.seat, tokenHash: stranger, at: l.at } : l)),
        /^journal line 5: an unsigned join line in a journal whose seat changes are signed/,
      ],
      [
        "an unsigned join added at the end",
        [...lines, { t: "join", seat: 0, tokenHash: stranger, at: lines[8]!.at }],
        /^journal line 10: an unsigned join line in a journal whose seat changes are signed/,
      ],
      [
        "the header's token hash of seat 0 replaced",
        lines.map((l, k) => (k === 0 ? { ...l, tokens: { ...l.tokens, "0": stranger } } : l)),
        /^journal line 1: the table's options \(seat tokens, deadlines\) do not match their signature/,
      ],
    ];
    const head = readFileSync(headOf(dir, table));
    for (const [what, variant, reason] of variants) {
      writeLines(file, variant);
      const before = readFileSync(file, "utf8");
      const b = store(dir);
      expect(b.recover(), what).toEqual({ recovered: 0, failed: [{ id: table, reason: expect.stringMatching(reason) }] });
      expect(() => b.get(table), what).toThrow(/no table/);
      expect(readFileSync(file, "utf8"), what).toBe(before);
      expect(readFileSync(headOf(dir, table)).equals(head), what).toBe(true);
      b.close();
    }
  });

  it("the last seat line deleted is a lost tail: told at restart, signed into the log as a loss, and the finished record tells it", async () => {
    const { dir, table, file, returned } = await tableWithSeatChanges();
    writeLines(file, readLines(file).slice(0, -1));
    const b = store(dir);
    expect(b.recover()).toEqual({ recovered: 1, failed: [] });
    const t = b.get(table);
    expect(t.summary().integrity).toEqual([expect.objectContaining({ problem: "lost_tail", foundLines: 8, expectedLines: 9, foundSeq: 4, expectedSeq: 4 })]);
    expect(t.seatInfo()[returned]).toMatchObject({ status: "bot", joinable: true });
    expect(
      readLines(file)
        .slice(-2)
        .map((l) => l.t),
    ).toEqual(["integrity", "recovered"]);
    await t.touch(returned);
    while (!t.isFinished) await answerOne(t);
    expect(verifySignedRecord(registry, readKey(dir), t.record())).toBe(
      "verified, but the table lost its journal's last signed lines (seat changes: joins, leaves, returns or resignations) after decision 4 on restart (journal tail lost); play went on from there",
    );
  });
});

describe("a seat change and a decision written at the same time", () => {
  it("chain in the order they are journaled, whichever comes first: the journal loads, each seat line where it was signed", async () => {
    const { dir, a, made, t } = await peopleTable(4);
    // A leave asked for while the decision's lines are being written (not awaited), then a
    // decision asked for while the return's line is being written.
    const actor = t.seatFrame(0, t.seq).actor as number;
    const idle = idleSeat(t);
    const decided = t.answer(actor, 0, t.seatFrame(actor, 0).decisions[0]!.id);
    const left = t.leave(idle);
    await Promise.all([decided, left]);
    const returned = t.touch(idle);
    const next = t.seatFrame(0, t.seq).actor as number;
    const decidedAgain = t.answer(next, 1, t.seatFrame(next, 1).decisions[0]!.id);
    await Promise.all([returned, decidedAgain]);
    a.close();
    expect(readLines(journalOf(dir, made.table)).map((l) => [l.t, l.seq ?? l.entry?.seq])).toEqual([
      ["header", undefined],
      ["entry", 0],
      ["leave", 1],
      ["return", 1],
      ["entry", 1],
    ]);
    const b = store(dir);
    expect(b.recover()).toEqual({ recovered: 1, failed: [] });
    expect(b.get(made.table).summary().integrity).toBeUndefined();
    expect(b.get(made.table).seq).toBe(2);
  });
});

describe("the finished record carries the seat changes", () => {
  it("its seat changes verify with the entries; an edited, dropped or reordered one does not", async () => {
    const { dir, table } = await tableWithSeatChanges();
    const b = store(dir);
    b.recover();
    const t = b.get(table);
    while (!t.isFinished) await answerOne(t);
    const record = t.record();
    expect(record.signed.seats?.map((c) => [c.change, c.seq])).toEqual([
      ["leave", 2],
      ["join", 2],
      ["leave", 4],
      ["return", 4],
    ]);
    const key = readKey(dir);
    expect(checkSignedRecord(registry, key, record)).toMatchObject({ status: "verified" });
    const seats = record.signed.seats!;
    const mutants: [string, unknown[] | undefined][] = [
      ["a join's token hash replaced", seats.map((c, i) => (i === 1 ? { ...c, tokenHash: sha256("x") } : c))],
      ["a leave's time changed", seats.map((c, i) => (i === 2 ? { ...c, at: c.at + 1 } : c))],
      ["the seat changes dropped", undefined],
      ["the first seat change dropped", seats.slice(1)],
      ["leave and join swapped", [seats[1], seats[0], ...seats.slice(2)]],
      ["the last one duplicated", [...seats, seats[3]]],
    ];
    for (const [what, changed] of mutants) {
      const mutant = structuredClone(record) as { signed: Record<string, unknown> };
      if (changed === undefined) delete mutant.signed.seats;
      else mutant.signed.seats = changed;
      expect(checkSignedRecord(registry, key, mutant), what).toMatchObject({ status: "failed" });
    }
  });
});

describe("a leave sent twice", () => {
  it("journals one leave, whether the second comes after the first is written or while it is; a leave after a return is journaled again", async () => {
    const { dir, a, made, t } = await peopleTable(11);
    const [first, second] = [idleSeat(t), idleSeat(t, [idleSeat(t)])];
    await t.leave(first);
    await t.leave(first);
    await Promise.all([t.leave(second), t.leave(second)]);
    await t.touch(first);
    await t.leave(first);
    a.close();
    expect(readLines(journalOf(dir, made.table)).map((l) => [l.t, l.seat])).toEqual([
      ["header", undefined],
      ["leave", first],
      ["leave", second],
      ["return", first],
      ["leave", first],
    ]);
    const b = store(dir);
    expect(b.recover()).toEqual({ recovered: 1, failed: [] });
    expect(
      b
        .get(made.table)
        .seatInfo()
        .map((i) => i.status),
    ).toEqual([0, 1, 2].map((s) => (s === first || s === second ? "bot" : "away")));
  });

  it("a journal an earlier server wrote with the same leave twice still loads, the seat left, and its record verifies", async () => {
    const { dir, a, made, t } = await peopleTable(12);
    const leaver = idleSeat(t);
    await t.leave(leaver);
    // What the server wrote before a second leave was a no-op: the same seat line again, signed as the next link.
    const log = (t as unknown as { log: { writeSeatLine(line: object, done: (err: Error | null) => void): void } }).log;
    await new Promise<void>((resolve, reject) => log.writeSeatLine({ t: "leave", seat: leaver, at: 1 }, (err) => (err ? reject(err) : resolve())));
    a.close();
    expect(readLines(journalOf(dir, made.table)).filter((l) => l.t === "leave")).toHaveLength(2);
    const b = store(dir);
    expect(b.recover()).toEqual({ recovered: 1, failed: [] });
    const back = b.get(made.table);
    expect(back.summary().integrity).toBeUndefined();
    expect(back.seatInfo()[leaver]).toMatchObject({ status: "bot", joinable: true });
    await back.touch(leaver);
    while (!back.isFinished) await answerOne(back);
    const record = back.record();
    expect(record.signed.seats?.map((c) => c.change)).toEqual(["leave", "leave", "return"]);
    expect(checkSignedRecord(registry, readKey(dir), record)).toMatchObject({ status: "verified" });
  });
});

describe("records carry no token hash", () => {
  it("a join's token hash is signed apart in the journal and left out of the record, which still verifies, before and after a restart", async () => {
    const { dir, a, made, t } = await peopleTable(13);
    await answerOne(t);
    const seat = idleSeat(t);
    await t.leave(seat);
    const newcomer = await t.join(seat);
    const join = readLines(journalOf(dir, made.table)).find((l) => l.t === "join")!;
    expect(join).toEqual({
      t: "join",
      seat,
      tokenHash: sha256(newcomer),
      at: expect.any(Number),
      seq: 1,
      hash: expect.any(String),
      mac: expect.any(String),
      tokenMac: expect.any(String),
    });
    while (!t.isFinished) await answerOne(t);
    const record = t.record();
    a.close();
    const b = store(dir);
    b.recover();
    const again = b.get(made.table);
    expect(again.record()).toEqual(record);
    // The hash opens no seat: the server hashes what it is given.
    expect([again.authorize(seat, newcomer), again.authorize(seat, sha256(newcomer))]).toEqual([true, false]);
    expect(record.signed.seats?.map((c) => c.change)).toEqual(["leave", "join"]);
    expect(record.signed.seats![1]).not.toHaveProperty("tokenHash");
    // Neither the newcomer's token hash nor the first holders' is anywhere in the record.
    const text = JSON.stringify(record);
    for (const token of [newcomer, ...Object.values(made.tokens)]) expect(text).not.toContain(sha256(token));
    expect(checkSignedRecord(registry, readKey(dir), record)).toMatchObject({ status: "verified" });
    // A token hash put back into the join does not verify: the link signs none.
    const withHash = structuredClone(record);
    withHash.signed.seats![1] = { ...withHash.signed.seats![1]!, tokenHash: sha256(newcomer) };
    expect(checkSignedRecord(registry, readKey(dir), withHash)).toMatchObject({ status: "failed" });
  });

  it("a journal whose signed joins sign their token hash in the link (as servers wrote before) loads, and its record keeps the hash and verifies", async () => {
    const { dir, table, tokens, file, joined, newcomer, returned } = await tableWithSeatChanges();
    // Re-signed as the server before wrote it: the join's link signs its token hash, no tokenMac.
    const key = readKey(dir);
    resignJournal(dir, table, readLines(file), (l, prev) => {
      delete l.tokenMac;
      const link = signSeatChange(key, prev, { change: l.t, seq: l.seq, seat: l.seat, at: l.at, ...(l.t === "join" ? { tokenHash: l.tokenHash } : {}) });
      Object.assign(l, { hash: link.hash, mac: link.mac });
      return link.hash;
    });
    const b = store(dir);
    expect(b.recover()).toEqual({ recovered: 1, failed: [] });
    const t = b.get(table);
    expect(t.summary().integrity).toBeUndefined();
    expectHolders(t, { joined, newcomer, returned, tokens });
    while (!t.isFinished) await answerOne(t);
    const record = t.record();
    expect(record.signed.seats?.map((c) => [c.change, c.tokenHash])).toEqual([
      ["leave", undefined],
      ["join", sha256(newcomer)],
      ["leave", undefined],
      ["return", undefined],
    ]);
    expect(checkSignedRecord(registry, key, record)).toMatchObject({ status: "verified" });
  });
});

/**
 * Rewrites a journal as a server before signed seat lines wrote it: no format in the log header
 * (so its hash and every entry's chain change: re-signed with the server's key), no options
 * signature, seat lines without seq, hash and MAC; and its head.
 */
function asOldJournal(dir: string, table: string): void {
  const key = readKey(dir);
  const lines = readLines(journalOf(dir, table));
  const first = lines[0]!;
  delete first.header.format;
  delete first.optionsMac;
  first.headerHash = headerHash(first.header);
  first.headerMac = macOf(key, first.headerHash);
  resignJournal(dir, table, lines, (l, prev) => {
    delete l.seq;
    delete l.hash;
    delete l.mac;
    delete l.tokenMac;
    return prev;
  });
}

/**
 * Writes `lines` as the table's journal with its chain signed again from the header line's
 * headerHash with the server's key (entries and end marker; each seat line as `seatLine` signs it,
 * returning the chain's hash after it), and a head that matches.
 */
function resignJournal(dir: string, table: string, lines: Record<string, any>[], seatLine: (l: Record<string, any>, prev: string) => string): void {
  const key = readKey(dir);
  let prev: string = lines[0]!.headerHash;
  let seq = 0;
  for (const l of lines.slice(1)) {
    if (l.t === "entry") {
      l.entry = signEntry(key, prev, { ...l.entry, decision: l.decision });
      prev = l.entry.hash;
      seq++;
    } else if (l.t === "end") {
      l.end = signEnd(key, prev, l.end);
      prev = l.end.hash;
    } else prev = seatLine(l, prev);
  }
  writeLines(journalOf(dir, table), lines);
  const head = Buffer.alloc(2 * SLOT_BYTES, " ");
  encodeHead(key, table, { lines: lines.length, seq, hash: prev }).copy(head, 0);
  writeFileSync(headOf(dir, table), head);
}

describe("journals written before seat lines were signed", () => {
  it("still load with their seats, take new seat lines in their own format, and their records still verify", async () => {
    const { dir, table, tokens, file, joined, newcomer, returned } = await tableWithSeatChanges();
    asOldJournal(dir, table);
    const b = store(dir);
    expect(b.recover()).toEqual({ recovered: 1, failed: [] });
    const t = b.get(table);
    expect(t.summary().integrity).toBeUndefined();
    expectHolders(t, { joined, newcomer, returned, tokens });
    const leaver = idleSeat(t);
    await t.leave(leaver);
    b.close();
    expect(readLines(file).at(-1)).toEqual({ t: "leave", seat: leaver, at: expect.any(Number) });
    const c = store(dir);
    expect(c.recover()).toEqual({ recovered: 1, failed: [] });
    const again = c.get(table);
    expect(again.seatInfo()[leaver]).toMatchObject({ status: "bot", joinable: true });
    await again.touch(leaver);
    while (!again.isFinished) await answerOne(again);
    const record = again.record();
    expect(record.signed.seats).toBeUndefined();
    expect(checkSignedRecord(registry, readKey(dir), record)).toMatchObject({ status: "verified" });
  });
});
