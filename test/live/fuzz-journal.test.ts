/**
 * Journals are files, so untrusted: a seeded property test damages one table's journal (and its
 * head) at random while the server is stopped: cut lines, flipped bytes, lines swapped,
 * duplicated, replaced by garbage or by well-formed JSON of the wrong shape, a huge line. The
 * restart must never throw: the damaged table is loaded (where what is left is a genuine chain)
 * or reported as not recovered, and the other table on the same data dir comes back whole.
 */
import { cpSync, existsSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import fc from "fast-check";
import { afterAll, describe, expect, it } from "vitest";
import { registry } from "../../engine/games.ts";
import { adapters } from "../../env/games/index.ts";
import { ManualClock } from "../../agents/clock.ts";
import { TableStore } from "../../env/live/store.ts";
import type { Table } from "../../env/live/table.ts";
import { readKey } from "../../env/live/signing.ts";
import { checkSignedRecord } from "../../env/live/verify.ts";
import { mutated } from "../fixtures/fuzz.ts";
import { tempDir } from "./helpers.ts";

const SEED = Number(process.env.FUZZ_SEED ?? 20261127);
const RUNS = Number(process.env.FUZZ_RUNS ?? 1);

const dirs: string[] = [];
afterAll(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});

function store(dataDir: string, log: (line: string) => void = () => undefined): TableStore {
  return new TableStore({ dataDir, registry, adapters, modelRoot: dataDir, clock: new ManualClock(), log });
}

async function answerFirst(s: TableStore, id: string, n: number): Promise<void> {
  for (let i = 0; i < n; i++) {
    const t = s.get(id);
    const seat = t.seatFrame(0, t.seq).actor as number;
    const f = t.seatFrame(seat, t.seq);
    await t.answer(seat, f.seq, f.decisions[0]!.id);
  }
}

/** A seat that does not decide now is left by its holder and joined by a newcomer. */
async function changeHands(t: Table): Promise<void> {
  const actor = t.seatFrame(0, t.seq).actor;
  const idle = actor === 0 ? 1 : 0;
  await t.leave(idle);
  await t.join(idle);
}

type Damage = { op: "cut" | "flip" | "swap" | "dup" | "garbage" | "json" | "huge" | "drop" | "head"; at: number; to: number; bytes: Uint8Array; json: unknown };
const damage: fc.Arbitrary<Damage> = fc.record({
  op: fc.constantFrom("cut", "flip", "swap", "dup", "garbage", "json", "huge", "drop", "head"),
  at: fc.nat(),
  to: fc.nat(),
  bytes: fc.uint8Array({ minLength: 1, maxLength: 40 }),
  json: fc.oneof(
    fc.jsonValue({ maxDepth: 3 }),
    fc.record({
      t: fc.constantFrom("entry", "join", "leave", "return", "resign", "end", "header", "integrity"),
      seq: fc.oneof(fc.integer(), fc.constant(1e308)),
    }),
  ),
});

function apply(file: string, head: string, d: Damage): void {
  const text = readFileSync(file);
  const lines = text
    .toString("utf8")
    .split("\n")
    .filter((l) => l.length > 0);
  const i = d.at % lines.length;
  const j = d.to % lines.length;
  switch (d.op) {
    case "cut":
      writeFileSync(file, text.subarray(0, d.at % (text.length + 1)));
      return;
    case "flip": {
      const copy = Buffer.from(text);
      const k = d.at % copy.length;
      copy[k] = (copy[k] ?? 0) ^ (d.bytes[0] ?? 1);
      writeFileSync(file, copy);
      return;
    }
    case "head":
      writeFileSync(head, Buffer.from(d.bytes));
      return;
    case "swap":
      [lines[i], lines[j]] = [lines[j]!, lines[i]!];
      break;
    case "dup":
      lines.splice(j, 0, lines[i]!);
      break;
    case "drop":
      lines.splice(i, 1);
      break;
    case "garbage":
      lines.splice(i, 0, Buffer.from(d.bytes).toString("latin1").replace(/\n/g, " "));
      break;
    case "json":
      lines.splice(i, 0, JSON.stringify(d.json));
      break;
    case "huge":
      lines.splice(i, 0, JSON.stringify({ t: "entry", pad: "x".repeat(5_000_000) }));
      break;
  }
  writeFileSync(file, lines.join("\n") + "\n");
}

describe("damaged journals at a restart", () => {
  it("never throw; the damaged table loads or is reported, the other table comes back whole", async () => {
    // Two tables, a few decisions each, journaled once and copied into each run's data dir.
    const origin = tempDir();
    dirs.push(origin);
    const a = store(origin);
    const victim = await a.create({ game: "sevens", seats: ["human", "human", "human"], seed: 1 });
    const other = await a.create({ game: "sevens", seats: ["human", "human", "human"], seed: 2 });
    await answerFirst(a, victim.table, 6);
    // A seat left and joined mid-game: seat lines, signed into the chain, among the decisions.
    await changeHands(a.get(victim.table));
    await answerFirst(a, victim.table, 2);
    await answerFirst(a, other.table, 5);
    const otherSeq = a.get(other.table).seq;
    a.close();
    const names = [`${victim.table}.jsonl`, `${victim.table}.head`, `${other.table}.jsonl`, `${other.table}.head`];
    for (const n of names) expect(existsSync(join(origin, "tables", n)), n).toBe(true);

    await fc.assert(
      fc.asyncProperty(fc.array(damage, { minLength: 1, maxLength: 3 }), async (damages) => {
        const dir = tempDir();
        dirs.push(dir);
        // The whole data dir: the journals, their heads and the server's signing key.
        cpSync(origin, dir, { recursive: true });
        for (const d of damages) apply(join(dir, "tables", `${victim.table}.jsonl`), join(dir, "tables", `${victim.table}.head`), d);
        const logged: string[] = [];
        const b = store(dir, (line) => logged.push(line));
        try {
          const out = b.recover();
          expect(out.recovered + out.failed.length).toBe(2);
          expect(b.get(other.table).seq).toBe(otherSeq);
          expect(b.get(other.table).authorize(0, other.tokens["0"])).toBe(true);
          if (out.failed.length > 0) {
            expect(out.failed.map((f) => f.id)).toEqual([victim.table]);
            for (const f of out.failed) expect(f.reason).not.toMatch(/\n\s+at |is not a function|Cannot read|undefined/);
          } else {
            // What loaded plays on.
            const t = b.get(victim.table);
            if (!t.isFinished) {
              const seat = t.seatFrame(0, t.seq).actor as number;
              await t.answer(seat, t.seq, t.seatFrame(seat, t.seq).decisions[0]!.id);
            }
          }
        } finally {
          b.close();
        }
      }),
      { seed: SEED, numRuns: 60 * RUNS },
    );
  });
});

describe("signed records checked by replay --verify", () => {
  it("a mutated record never makes the check throw: it verifies, is incomplete, or fails with a reason", async () => {
    const dir = tempDir();
    dirs.push(dir);
    const a = store(dir);
    const made = await a.create({ game: "blackpoker", seats: ["human", "human"], seed: 5 });
    const t = a.get(made.table);
    await answerFirst(a, made.table, 2);
    await changeHands(t);
    while (!t.isFinished) await answerFirst(a, made.table, 1);
    const record = t.record();
    expect(record.signed.seats?.map((c) => c.change)).toEqual(["leave", "join"]);
    a.close();
    const key = readKey(dir);
    expect(checkSignedRecord(registry, key, record).status).toBe("verified");
    // A record file may say 1e999, which JSON.parse reads as Infinity: a reason, not a throw while hashing.
    const infinite = JSON.parse(JSON.stringify(record).replace(/"decisions":\[\{/, '"decisions":[{"n":1e999,'));
    expect(checkSignedRecord(registry, key, infinite)).toEqual({
      status: "failed",
      reason: "the record holds what no signed log can (non-finite number Infinity)",
    });
    const seen = new Set<string>();
    fc.assert(
      fc.property(mutated(record), (doc) => {
        const c = checkSignedRecord(registry, key, doc);
        seen.add(c.status);
        if (c.status !== "verified") expect(c.reason).not.toMatch(/is not a function|Cannot read|undefined|\n\s+at /);
      }),
      { seed: SEED, numRuns: 300 * RUNS },
    );
    expect(seen.has("failed")).toBe(true);
  });
});
