/**
 * The journal on its own: a torn last line (a crash mid-write) is cut off at recovery and the
 * table plays on; finished tables beyond the in-memory limit are read back from their journal; a
 * journal signed under another key is not loaded.
 */
import { appendFileSync, mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { registry } from "../../engine/games.ts";
import { adapters } from "../../env/games/index.ts";
import { ManualClock } from "../../env/live/clock.ts";
import { TableStore } from "../../env/live/store.ts";
import { checkSignedRecord, verifySignedRecord } from "../../env/live/verify.ts";
import { tempDir } from "./helpers.ts";

const dirs: string[] = [];
const stores: TableStore[] = [];
afterEach(() => {
  for (const s of stores.splice(0)) s.close();
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

function store(dataDir: string, maxFinished = 1000): TableStore {
  const s = new TableStore({ dataDir, registry, adapters, modelRoot: dataDir, clock: new ManualClock(), maxFinished });
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

const until = async (cond: () => boolean) => {
  for (let i = 0; i < 2000 && !cond(); i++) await new Promise((r) => setTimeout(r, 5));
  expect(cond()).toBe(true);
};

describe("table journal", () => {
  it("a torn last line is cut off at recovery; the table continues and recovers again", async () => {
    const dir = tempDir();
    dirs.push(dir);
    const a = store(dir);
    const made = await a.create({ game: "sevens", seats: ["human", "human", "human"], seed: 1 });
    await answerFirst(a, made.table, made.tokens, 4);
    expect(a.get(made.table).seq).toBe(4);
    a.close();
    const file = join(dir, "tables", `${made.table}.jsonl`);
    appendFileSync(file, '{"t":"entry","entry":{"seq":4,"se');
    const b = store(dir);
    expect(b.recover()).toEqual({ recovered: 1, failed: [] });
    expect(b.get(made.table).seq).toBe(4);
    expect(readFileSync(file, "utf8").endsWith("\n")).toBe(true);
    await answerFirst(b, made.table, made.tokens, 3);
    b.close();
    const c = store(dir);
    c.recover();
    expect(c.get(made.table).seq).toBe(7);
    // The same tokens still hold the seats.
    expect(c.get(made.table).authorize(0, made.tokens["0"])).toBe(true);
    expect(c.get(made.table).authorize(0, made.tokens["1"])).toBe(false);
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
    // The crash cut the end line (the last decision's line is whole): the restart signs it again.
    writeFileSync(file, lines.slice(0, -1).join("\n") + "\n");
    const b = store(dir);
    expect(b.recover()).toEqual({ recovered: 1, failed: [] });
    const back = b.get(made.table);
    expect(back.isFinished).toBe(true);
    expect(back.record().signed.end).toEqual(want.signed.end);
    expect(checkSignedRecord(registry, b.key, back.record())).toEqual({ status: "verified", decisions: want.decisions.length });
    expect(JSON.parse(readFileSync(file, "utf8").trimEnd().split("\n").pop()!)).toMatchObject({ t: "end", end: want.signed.end });
    b.close();
    // An end marker whose returns were edited does not load.
    const edited = { ...end, end: { ...end.end, returns: end.end.returns.map((r: number) => r + 1) } };
    writeFileSync(file, [...lines.slice(0, -1), JSON.stringify(edited)].join("\n") + "\n");
    const c = store(dir);
    expect(() => c.get(made.table)).toThrow(/no table/);
  });
});
