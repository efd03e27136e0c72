/**
 * The journal on its own: a torn last line (a crash mid-write) is cut off at recovery and the
 * table plays on; finished tables beyond the in-memory limit are read back from their journal; a
 * journal signed under another key is not loaded.
 */
import { appendFileSync, cpSync, mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { registry } from "../../engine/games.ts";
import { adapters } from "../../env/games/index.ts";
import { ManualClock } from "../../agents/clock.ts";
import { TableStore } from "../../env/live/store.ts";
import { checkSignedRecord, verifySignedRecord } from "../../env/live/verify.ts";
import { http, startLive, tempDir } from "./helpers.ts";
import { hangGuard, waitUntil } from "../fixtures/hang-guard.ts";
import { runScript } from "../scripts/run-script.ts";

const dirs: string[] = [];
const stores: TableStore[] = [];
afterEach(() => {
  for (const s of stores.splice(0)) s.close();
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

function store(dataDir: string, maxFinished = 1000, log?: (line: string) => void): TableStore {
  const s = new TableStore({ dataDir, registry, adapters, modelRoot: dataDir, clock: new ManualClock(), maxFinished, ...(log ? { log } : {}) });
  stores.push(s);
  return s;
}

async function answerFirst(s: TableStore, id: string, tokens: Record<string, string>, n: number): Promise<void> {
  for (let i = 0; i < n; i++) {
    const t = s.get(id);
    for (let seat = 0; seat < t.numSeats; seat++) {
      const f = t.seatFrame(seat, t.seq);
      if (f.decisions.length > 0 && tokens[String(seat)]) {
        await t.answer(seat, f.seq, f.decisions[0]!.id);
        break;
      }
    }
  }
}

const until = (cond: () => boolean) => waitUntil(cond, "the journal condition", hangGuard(), 5);

/** A sevens game of agents played to its end on a fresh data dir, the store closed (the server stopped): its dir, table and journal file. */
async function finishedGame(seed: number): Promise<{ dir: string; table: string; file: string }> {
  const dir = tempDir();
  dirs.push(dir);
  const a = store(dir);
  const made = await a.create({ game: "sevens", seats: ["random", "random", "random"], seed, facilitator: "audience", deadlines: { botDelayMs: 0 } });
  await until(() => a.get(made.table).isFinished);
  a.close();
  return { dir, table: made.table, file: join(dir, "tables", `${made.table}.jsonl`) };
}

/** A three-seat sevens table of people with its first `answers` decisions played, its store closed. */
async function playedGame(seed: number, answers: number): Promise<{ dir: string; table: string; tokens: Record<string, string>; file: string }> {
  const dir = tempDir();
  dirs.push(dir);
  const a = store(dir);
  const made = await a.create({ game: "sevens", seats: ["human", "human", "human"], seed });
  await answerFirst(a, made.table, made.tokens, answers);
  expect(a.get(made.table).seq).toBe(answers);
  a.close();
  return { dir, table: made.table, tokens: made.tokens, file: join(dir, "tables", `${made.table}.jsonl`) };
}

describe("table journal", () => {
  it("a torn last line is cut off at recovery; the table continues and recovers again", async () => {
    const { dir, table, tokens, file } = await playedGame(1, 4);
    appendFileSync(file, '{"t":"entry","entry":{"seq":4,"se');
    const b = store(dir);
    expect(b.recover()).toEqual({ recovered: 1, failed: [] });
    expect(b.get(table).seq).toBe(4);
    expect(readFileSync(file, "utf8").endsWith("\n")).toBe(true);
    await answerFirst(b, table, tokens, 3);
    b.close();
    const c = store(dir);
    c.recover();
    expect(c.get(table).seq).toBe(7);
    // The same tokens still hold the seats.
    expect(c.get(table).authorize(0, tokens["0"])).toBe(true);
    expect(c.get(table).authorize(0, tokens["1"])).toBe(false);
  });

  it("finished tables beyond the in-memory limit are read back from their journal, records intact", async () => {
    const dir = tempDir();
    dirs.push(dir);
    const s = store(dir, 1);
    const ids: string[] = [];
    for (const seed of [1, 2]) {
      const made = await s.create({ game: "sevens", seats: ["random", "random", "random"], seed, facilitator: "audience", deadlines: { botDelayMs: 0 } });
      ids.push(made.table);
      await until(() => s.get(made.table).isFinished);
    }
    expect(s.list().map((t) => t.id)).toEqual([ids[1]]);
    const back = s.get(ids[0]!);
    expect(back.isFinished).toBe(true);
    expect(verifySignedRecord(registry, s.key, back.record())).toBeNull();
    // A restart skips finished tables (loaded on demand), and a journal under another key is refused.
    const other = tempDir();
    dirs.push(other);
    writeFileSync(join(other, "server.key"), "ab".repeat(32) + "\n");
    const o = store(other);
    const lines = readFileSync(join(dir, "tables", `${ids[0]}.jsonl`), "utf8").split("\n");
    lines.pop();
    lines.pop(); // drop the end marker: an unfinished-looking journal, signed under the first key
    mkdirSync(join(other, "tables"), { recursive: true });
    writeFileSync(join(other, "tables", `${ids[0]}.jsonl`), lines.join("\n") + "\n");
    const r = o.recover();
    expect(r.recovered).toBe(0);
    expect(r.failed[0]?.reason).toMatch(/signature/);
  });

  it("a finished game's end marker is signed into its journal; a cut end line is signed again at restart, an edited one refused", async () => {
    const dir = tempDir();
    dirs.push(dir);
    const a = store(dir);
    const made = await a.create({ game: "sevens", seats: ["random", "random", "random"], seed: 4, facilitator: "audience", deadlines: { botDelayMs: 0 } });
    await until(() => a.get(made.table).isFinished);
    const want = a.get(made.table).record();
    a.close();
    const file = join(dir, "tables", `${made.table}.jsonl`);
    const lines = readFileSync(file, "utf8").trimEnd().split("\n");
    const end = JSON.parse(lines[lines.length - 1]!);
    expect(end).toMatchObject({ t: "end", end: want.signed.end });
    // The end line is gone (the last decision's line is whole): the restart reports the lost line
    // and signs the end marker again.
    writeFileSync(file, lines.slice(0, -1).join("\n") + "\n");
    const b = store(dir);
    expect(b.recover()).toEqual({ recovered: 1, failed: [] });
    const back = b.get(made.table);
    expect(back.isFinished).toBe(true);
    expect(back.summary().integrity).toMatchObject([{ problem: "lost_tail", expectedSeq: want.decisions.length, foundSeq: want.decisions.length }]);
    expect(back.record().signed.end).toEqual(want.signed.end);
    // Only the end line was lost, no decision: no recovery link is signed.
    expect(checkSignedRecord(registry, b.key, back.record())).toEqual({ status: "verified", decisions: want.decisions.length, recoveries: [] });
    expect(JSON.parse(readFileSync(file, "utf8").trimEnd().split("\n").pop()!)).toMatchObject({ t: "end", end: want.signed.end });
    b.close();
    // An end marker whose returns were edited does not load.
    const edited = { ...end, end: { ...end.end, returns: end.end.returns.map((r: number) => r + 1) } };
    writeFileSync(file, [...lines.slice(0, -1), JSON.stringify(edited)].join("\n") + "\n");
    const c = store(dir);
    expect(() => c.get(made.table)).toThrow(/no table/);
  });
});

describe("a damaged journal line is not a torn write", () => {
  /** Spoils the JSON of journal line `i` (0: the header) in place, keeping its newline. */
  const spoilLine = (file: string, i: number) => {
    const lines = readFileSync(file, "utf8").split("\n");
    lines[i] = lines[i]!.slice(0, 20) + "#" + lines[i]!.slice(20);
    writeFileSync(file, lines.join("\n"));
  };

  it("an unfinished table whose middle line is spoiled is not loaded, and no line after it is cut from the file", async () => {
    const { dir, table, file } = await playedGame(3, 8);
    spoilLine(file, 3);
    const before = readFileSync(file, "utf8");
    const log: string[] = [];
    const b = store(dir, 1000, (l) => log.push(l));
    expect(b.recover()).toEqual({ recovered: 0, failed: [{ id: table, reason: expect.stringMatching(/^journal line 4: not JSON/) }] });
    expect(readFileSync(file, "utf8")).toBe(before);
    expect(() => b.get(table)).toThrow(/no table/);
  });

  it("a finished table whose middle line is spoiled is not resumed as a game in play, and its journal is left whole", async () => {
    const { dir, table, file } = await finishedGame(4);
    spoilLine(file, 5);
    const before = readFileSync(file, "utf8");
    const log: string[] = [];
    const b = store(dir, 1000, (l) => log.push(l));
    expect(b.recover()).toEqual({ recovered: 0, failed: [{ id: table, reason: expect.stringMatching(/^journal line 6: not JSON/) }] });
    expect(readFileSync(file, "utf8")).toBe(before);
    expect(() => b.get(table)).toThrow(/no table/);
    expect(log.join("\n")).toMatch(new RegExp(`journal ${table} not loaded: journal line 6: not JSON`));
  });

  it("garbage appended after the last line is refused when it ends in a newline, and a cut half-written line is logged", async () => {
    const { dir, table, file } = await playedGame(5, 3);
    const whole = readFileSync(file, "utf8");
    const lineCount = whole.split("\n").length - 1;
    writeFileSync(file, whole + "garbage\n");
    const b = store(dir);
    expect(b.recover()).toEqual({
      recovered: 0,
      failed: [{ id: table, reason: expect.stringMatching(new RegExp(`^journal line ${lineCount + 1}: not JSON`)) }],
    });
    b.close();
    writeFileSync(file, whole + '{"t":"entry","en');
    const log: string[] = [];
    const c = store(dir, 1000, (l) => log.push(l));
    expect(c.recover()).toEqual({ recovered: 1, failed: [] });
    expect(c.get(table).seq).toBe(3);
    expect(log.join("\n")).toMatch(new RegExp(`table ${table}: journal: cut its half-written last line \\(16 bytes`));
  });

  it("bytes after a finished journal's end marker are reported when it is read back (nothing follows the marker)", async () => {
    const { dir, table, file } = await finishedGame(7);
    appendFileSync(file, "garbage");
    const log: string[] = [];
    const b = store(dir, 1000, (l) => log.push(l));
    b.recover();
    expect(b.get(table).isFinished).toBe(true);
    expect(log.join("\n")).toMatch(new RegExp(`table ${table}: journal: 7 bytes after its last line \\(no line of the server's: ignored\\)`));
  });
});

describe("a journal's end marker comes once, last among its decisions", () => {
  it("a duplicated end line, or a decision moved after it, stops the table from loading", async () => {
    const { dir, table, file } = await finishedGame(6);
    const lines = readFileSync(file, "utf8").trimEnd().split("\n");
    const n = lines.length;
    const variants: [string, string[], RegExp][] = [
      ["end line twice", [...lines, lines[n - 1]!], new RegExp(`^journal line ${n + 1}: a second end marker`)],
      [
        "last decision after the end line",
        [...lines.slice(0, -2), lines[n - 1]!, lines[n - 2]!],
        new RegExp(`^journal line ${n}: a decision after the end marker`),
      ],
    ];
    for (const [what, variant, reason] of variants) {
      writeFileSync(file, variant.join("\n") + "\n");
      const log: string[] = [];
      const b = store(dir, 1000, (l) => log.push(l));
      // A journal ending in its end marker is loaded when asked for, any other at the start.
      for (const f of b.recover().failed) log.push(`journal ${f.id} not recovered: ${f.reason}`);
      expect(() => b.get(table), what).toThrow(/no table/);
      expect(log.join("\n"), what).toMatch(new RegExp(`journal ${table} not (loaded|recovered): ${reason.source.slice(1)}`));
      b.close();
    }
  });
});

describe("journal head: a lost tail is told at restart", () => {
  const journalOf = (dir: string, id: string) => join(dir, "tables", `${id}.jsonl`);
  const headOf = (dir: string, id: string) => join(dir, "tables", `${id}.head`);
  const dropLastLines = (file: string, n: number) => {
    const lines = readFileSync(file, "utf8").trimEnd().split("\n");
    writeFileSync(file, lines.slice(0, -n).join("\n") + "\n");
    return lines.length - n;
  };

  /** A table of three people with `n` decisions journaled; the store is closed (the server stopped). */
  async function played(dir: string, n: number) {
    const a = store(dir);
    const made = await a.create({ game: "sevens", seats: ["human", "human", "human"], seed: 9 });
    await answerFirst(a, made.table, made.tokens, n);
    expect(a.get(made.table).seq).toBe(n);
    a.close();
    return made;
  }

  it("deleting the journal's last whole line: the table comes back one decision short, marked lost_tail, and the log says so", async () => {
    const dir = tempDir();
    dirs.push(dir);
    const made = await played(dir, 5);
    const kept = dropLastLines(journalOf(dir, made.table), 1);
    const log: string[] = [];
    const b = store(dir, 1000, (l) => log.push(l));
    expect(b.recover()).toEqual({ recovered: 1, failed: [] });
    const t = b.get(made.table);
    expect(t.seq).toBe(4);
    expect(t.summary().integrity).toEqual([
      expect.objectContaining({ problem: "lost_tail", expectedSeq: 5, foundSeq: 4, expectedLines: kept + 1, foundLines: kept }),
    ]);
    expect(log.join("\n")).toMatch(new RegExp(`table ${made.table}: journal lost_tail: the journal ends at seq 4 .* head says seq 5`));
    // The finding is journaled: it stays on the table through later restarts, and is not repeated.
    await answerFirst(b, made.table, made.tokens, 1);
    b.close();
    const c = store(dir, 1000, (l) => log.push(l));
    c.recover();
    expect(c.get(made.table).seq).toBe(5);
    expect(c.get(made.table).summary().integrity).toEqual([expect.objectContaining({ problem: "lost_tail", expectedSeq: 5, foundSeq: 4 })]);
  });

  it("deleting the head file alone, or with the last line: nothing to compare, marked no_head (the lost line itself is not told)", async () => {
    const dir = tempDir();
    dirs.push(dir);
    const made = await played(dir, 3);
    rmSync(headOf(dir, made.table));
    const log: string[] = [];
    const b = store(dir, 1000, (l) => log.push(l));
    b.recover();
    expect(b.get(made.table).seq).toBe(3);
    expect(b.get(made.table).summary().integrity).toEqual([expect.objectContaining({ problem: "no_head", foundSeq: 3 })]);
    expect(log.join("\n")).toMatch(/journal no_head: the journal has no head file/);
    // Nothing tells whether decisions were lost: a signed recovery link says so in the log.
    expect(JSON.parse(readFileSync(journalOf(dir, made.table), "utf8").trimEnd().split("\n").pop()!)).toMatchObject({
      t: "recovered",
      recovered: { seq: 3, problem: "no_head" },
    });
    b.close();
    // Both gone: the table comes back one decision short, and only the missing head is reported.
    dropLastLines(journalOf(dir, made.table), 1); // the recovery link the restart signed (no head: decisions may be gone)
    dropLastLines(journalOf(dir, made.table), 1); // the integrity line the restart journaled
    dropLastLines(journalOf(dir, made.table), 1); // the last decision
    rmSync(headOf(dir, made.table));
    const c = store(dir);
    c.recover();
    expect(c.get(made.table).seq).toBe(2);
    expect(c.get(made.table).summary().integrity).toEqual([expect.objectContaining({ problem: "no_head", foundSeq: 2 })]);
  });

  /** Answers for the people until the game is over. */
  async function playToEnd(s: TableStore, id: string, tokens: Record<string, string>): Promise<void> {
    for (let guard = 0; !s.get(id).isFinished; guard++) {
      if (guard > 10_000) throw new Error("the game does not end");
      await answerFirst(s, id, tokens, 1);
    }
  }

  const verifyCli = (dir: string, file: string) => runScript("replay.ts", [file, "--verify", "--data-dir", dir]);

  it("a lost tail goes into the signed log: the finished record verifies only with the loss told (exit 4), and not at all without its recovery link", async () => {
    const dir = tempDir();
    dirs.push(dir);
    const made = await played(dir, 5);
    dropLastLines(journalOf(dir, made.table), 1);
    const b = store(dir);
    expect(b.recover()).toEqual({ recovered: 1, failed: [] });
    expect(b.get(made.table).seq).toBe(4);
    await playToEnd(b, made.table, made.tokens);
    const rec = b.get(made.table).record();
    const n = rec.decisions.length;
    // One signed link, after the 4 decisions that survived, saying the head promised 5.
    expect(rec.signed.recoveries).toEqual([expect.objectContaining({ seq: 4, problem: "lost_tail", expectedSeq: 5 })]);
    const checked = checkSignedRecord(registry, b.key, rec);
    expect(checked).toMatchObject({ status: "verified", decisions: n, recoveries: [expect.objectContaining({ seq: 4, expectedSeq: 5 })] });
    const file = join(dir, "lost.json");
    writeFileSync(file, JSON.stringify(rec));
    const out = verifyCli(dir, file);
    expect(out.code).toBe(4);
    expect(out.stdout).not.toMatch(/a finished game of/);
    expect(out.stderr.trim()).toBe(
      `error: recovered: ${file}: verified, but the table lost 1 acknowledged decision at decision 5 on restart (journal tail lost: its head promised 5, 4 survived); play went on from there`,
    );
    // The record without its recovery link: the entry after it no longer chains.
    const stripped = structuredClone(rec) as { signed: { recoveries?: unknown } };
    delete stripped.signed.recoveries;
    expect(checkSignedRecord(registry, b.key, stripped)).toMatchObject({ status: "failed", reason: expect.stringMatching(/^entry 4: its hash/) });
    const strippedFile = join(dir, "stripped.json");
    writeFileSync(strippedFile, JSON.stringify(stripped));
    const bad = verifyCli(dir, strippedFile);
    expect(bad.code).toBe(1);
    expect(bad.stderr).toMatch(/error: verify_failed: .*entry 4: its hash does not match/);
    // Nor with an edited one (fewer lost decisions claimed).
    const edited = structuredClone(rec) as any;
    edited.signed.recoveries[0].expectedSeq = 4;
    expect(checkSignedRecord(registry, b.key, edited)).toMatchObject({ status: "failed", reason: expect.stringMatching(/^recovery 0: its hash/) });
    b.close();
    // Read back from disk after another restart, the finished table's record is the same.
    const c = store(dir);
    c.recover();
    expect(c.get(made.table).record()).toEqual(rec);
  });

  it("a loss after the last surviving decision of a finished game: the re-signed end marker chains to the recovery link", async () => {
    const { dir, table, file } = await finishedGame(6);
    const lines = readFileSync(file, "utf8").trimEnd().split("\n");
    // The last decision and the end line lost: the restart finds seq n-1, the head promised n.
    writeFileSync(file, lines.slice(0, -2).join("\n") + "\n");
    const b = store(dir);
    expect(b.recover()).toEqual({ recovered: 1, failed: [] });
    await until(() => b.get(table).isFinished);
    const rec = b.get(table).record();
    const n = rec.decisions.length;
    expect(rec.signed.recoveries).toEqual([expect.objectContaining({ seq: n - 1, problem: "lost_tail", expectedSeq: n })]);
    expect(checkSignedRecord(registry, b.key, rec)).toMatchObject({ status: "verified", recoveries: [expect.anything()] });
    const stripped = structuredClone(rec) as { signed: { recoveries?: unknown } };
    delete stripped.signed.recoveries;
    expect(checkSignedRecord(registry, b.key, stripped)).toMatchObject({ status: "failed" });
  });

  it("a table that lost nothing verifies as before: no recovery link, exit 0", async () => {
    const { dir, table } = await finishedGame(5);
    const b = store(dir);
    const rec = b.get(table).record();
    expect(rec.signed).not.toHaveProperty("recoveries");
    const file = join(dir, "good.json");
    writeFileSync(file, JSON.stringify(rec));
    const out = verifyCli(dir, file);
    expect(out.code).toBe(0);
    expect(out.stdout).toMatch(new RegExp(`signed log verified with the key in .*: a finished game of ${rec.decisions.length} decisions`));
  });

  it("a journal deleted whole while its head stays is reported at restart", async () => {
    const dir = tempDir();
    dirs.push(dir);
    const made = await played(dir, 3);
    rmSync(journalOf(dir, made.table));
    const b = store(dir);
    expect(b.recover()).toEqual({
      recovered: 0,
      failed: [{ id: made.table, reason: expect.stringMatching(/its journal is missing; its head says \d+ lines \(seq 3\)/) }],
    });
  });

  it("another table's journal copied over a journal file is refused, and the table it replaced is reported, not gone without a word", async () => {
    const dir = tempDir();
    dirs.push(dir);
    const a = store(dir);
    const kept = await a.create({ game: "sevens", seats: ["human", "human", "human"], seed: 9 });
    const replaced = await a.create({ game: "sevens", seats: ["human", "human", "human"], seed: 10 });
    const finished = await a.create({ game: "sevens", seats: ["random", "random", "random"], seed: 11, facilitator: "audience", deadlines: { botDelayMs: 0 } });
    await answerFirst(a, kept.table, kept.tokens, 3);
    await answerFirst(a, replaced.table, replaced.tokens, 2);
    await until(() => a.get(finished.table).isFinished);
    a.close();
    // Each one's head stays: only the journal file changes.
    cpSync(journalOf(dir, kept.table), journalOf(dir, replaced.table));
    const log: string[] = [];
    const b = store(dir, 1000, (l) => log.push(l));
    const out = b.recover();
    expect(out.recovered).toBe(1);
    expect(out.failed).toEqual([
      { id: replaced.table, reason: `journal line 1: the file holds the journal of table ${kept.table}, not of ${replaced.table} (copied over or renamed)` },
    ]);
    expect(b.get(kept.table).seq).toBe(3);
    // A finished table's journal is read back when asked for: refused the same way, and logged.
    b.close();
    cpSync(journalOf(dir, finished.table), journalOf(dir, replaced.table));
    const c = store(dir, 1000, (l) => log.push(l));
    expect(c.recover().failed).toEqual([
      { id: replaced.table, reason: expect.stringContaining(`the journal of table ${finished.table}, not of ${replaced.table}`) },
    ]);
    expect(() => c.get(replaced.table)).toThrow(/no table/);
    expect(log.join("\n")).toContain(`journal ${replaced.table} not loaded: journal line 1: the file holds the journal of table ${finished.table}`);
    expect(c.get(finished.table).record().signed.header.table).toBe(finished.table);
  });

  it("a journal file that cannot be read (a folder in its place) is reported; the other tables still load", async () => {
    const dir = tempDir();
    dirs.push(dir);
    const made = await played(dir, 3);
    mkdirSync(join(dir, "tables", "t-folder.jsonl"));
    const b = store(dir);
    expect(b.recover()).toEqual({ recovered: 1, failed: [{ id: "t-folder", reason: "its journal file cannot be read (EISDIR)" }] });
    expect(b.get(made.table).seq).toBe(3);
  });

  /** A table of three people with 4 decisions journaled (the store closed) and its head as it stood after 3. */
  async function fourPlayedWithOlderHead() {
    const dir = tempDir();
    dirs.push(dir);
    const a = store(dir);
    const made = await a.create({ game: "sevens", seats: ["human", "human", "human"], seed: 9 });
    await answerFirst(a, made.table, made.tokens, 3);
    const older = readFileSync(headOf(dir, made.table));
    await answerFirst(a, made.table, made.tokens, 1);
    a.close();
    return { dir, made, older };
  }

  it("a last line that lost only its newline is kept when the head counts it (acknowledged), and cut when it does not (a crash mid-write)", async () => {
    const { dir, made, older } = await fourPlayedWithOlderHead();
    const whole = readFileSync(journalOf(dir, made.table), "utf8");
    writeFileSync(journalOf(dir, made.table), whole.slice(0, -1));
    const log: string[] = [];
    const b = store(dir, 1000, (l) => log.push(l));
    expect(b.recover()).toEqual({ recovered: 1, failed: [] });
    expect(b.get(made.table).seq).toBe(4);
    expect(b.get(made.table).summary().integrity).toBeUndefined();
    expect(readFileSync(journalOf(dir, made.table), "utf8")).toBe(whole);
    expect(log.join("\n")).toContain(
      `table ${made.table}: journal: its last line had lost its newline, and its head counts it as written (acknowledged): kept`,
    );
    b.close();
    // The same bytes with a head written before that line: a write a crash cut short before its
    // head, never acknowledged, cut off as before.
    writeFileSync(journalOf(dir, made.table), whole.slice(0, -1));
    writeFileSync(headOf(dir, made.table), older);
    const c = store(dir, 1000, (l) => log.push(l));
    expect(c.recover()).toEqual({ recovered: 1, failed: [] });
    expect(c.get(made.table).seq).toBe(3);
    expect(c.get(made.table).summary().integrity).toBeUndefined();
    expect(log.join("\n")).toMatch(/journal: cut its half-written last line \(\d+ bytes, never acknowledged\)/);
  });

  it("a finished game's end marker line that lost only its newline is kept: no loss reported, the record verifies", async () => {
    const { dir, table, file } = await finishedGame(12);
    const whole = readFileSync(file, "utf8");
    writeFileSync(file, whole.slice(0, -1));
    const b = store(dir);
    expect(b.recover()).toEqual({ recovered: 0, failed: [] });
    const t = b.get(table);
    expect(t.summary().integrity).toBeUndefined();
    expect(checkSignedRecord(registry, b.key, t.record())).toMatchObject({ status: "verified", recoveries: [] });
    expect(readFileSync(file, "utf8")).toBe(whole);
  });

  it("a journal ahead of its head (a crash between the two flushes) is no false alarm", async () => {
    const { dir, made, older } = await fourPlayedWithOlderHead();
    writeFileSync(headOf(dir, made.table), older);
    const b = store(dir);
    b.recover();
    expect(b.get(made.table).seq).toBe(4);
    expect(b.get(made.table).summary().integrity).toBeUndefined();
  });

  it("over HTTP: GET /v1/tables/:id marks a table whose journal lost its last line, and the server log says so", async () => {
    const log: string[] = [];
    const first = await startLive({ log: (l) => log.push(l) });
    const made = (await http(first.base, "POST", "/v1/tables", { game: "sevens", seats: ["human", "human", "human"], seed: 4 })).body;
    const s = (first.app as unknown as { cardgym: { tables: TableStore } }).cardgym.tables;
    await answerFirst(s, made.table, made.tokens, 6);
    await first.close(true);
    dropLastLines(journalOf(first.dataDir, made.table), 1);
    const second = await startLive({ log: (l) => log.push(l) }, first.dataDir);
    try {
      const summary = (await http(second.base, "GET", `/v1/tables/${made.table}`)).body;
      expect(summary.seq).toBe(5);
      expect(summary.integrity).toEqual([expect.objectContaining({ problem: "lost_tail", expectedSeq: 6, foundSeq: 5 })]);
      expect(log.some((l) => l.includes(`table ${made.table}: journal lost_tail`))).toBe(true);
    } finally {
      await second.close();
    }
  });
});
