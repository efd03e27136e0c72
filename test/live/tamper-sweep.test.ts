/**
 * Every way a signed record or a journal can be cut or edited, swept systematically (fuzz-journal
 * samples at random): cut at every byte offset of the last lines, each entry or line dropped,
 * duplicated or swapped, signature fields removed, the header edited, a valid log of another table
 * or game spliced in, CRLF, trailing bytes, an empty file, a key written twice.
 * - A record verifies only when its text means exactly what the server exported; anything else
 *   fails or is incomplete, with a reason, never a throw; the replay CLI answers with its typed
 *   line and exit code.
 * - A damaged journal is loaded whole, loaded with the damage reported (`integrity`), or refused
 *   with a reason; never loaded shorter without a word, and the other tables come back whole.
 */
import { cpSync, mkdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { isDeepStrictEqual } from "node:util";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { registry } from "../../engine/games.ts";
import { adapters } from "../../env/games/index.ts";
import { ManualClock } from "../../agents/clock.ts";
import { TableStore } from "../../env/live/store.ts";
import type { Table } from "../../env/live/table.ts";
import type { SignedRecord } from "../../env/live/protocol.ts";
import { checkSignedRecord, checkSignedRecordText, repeatedKey } from "../../env/live/verify.ts";
import { runScript } from "../scripts/run-script.ts";
import { waitUntil } from "../fixtures/hang-guard.ts";
import { tempDir } from "./helpers.ts";

const dirs: string[] = [];
afterAll(() => {
  for (const d of dirs.splice(0)) rmSync(d, { recursive: true, force: true });
});
const freshDir = () => {
  const d = tempDir();
  dirs.push(d);
  return d;
};
const store = (dataDir: string, log: (line: string) => void = () => undefined) =>
  new TableStore({ dataDir, registry, adapters, modelRoot: dataDir, clock: new ManualClock(), log });

/** What a reason must never look like: a stack trace or a JavaScript slip. */
const SLIP = /\n\s+at |is not a function|Cannot read|undefined|\[object Object\]/;

/** Whether a record file's text says exactly what `rec` is: the same document, no key written twice. */
function meansTheSame(text: string, rec: unknown): boolean {
  try {
    return isDeepStrictEqual(JSON.parse(text.replace(/^\ufeff/, "")), rec) && repeatedKey(text) === null;
  } catch {
    return false;
  }
}

async function answer(t: Table): Promise<void> {
  const seat = t.seatFrame(0, t.seq).actor as number;
  const f = t.seatFrame(seat, t.seq);
  await t.answer(seat, f.seq, f.decisions[0]!.id);
}

describe("signed records: every cut and edit", () => {
  const GAMES = [
    { game: "sevens", seats: 3 },
    { game: "dcg", seats: 2 },
    { game: "blackpoker", seats: 2 },
    { game: "shephy", seats: 1 },
  ];

  it("verify only when the text means what the server exported; else fail or stop at incomplete, with a reason", async () => {
    const dir = freshDir();
    const s = store(dir);
    const recs = new Map<string, SignedRecord[]>();
    for (const g of GAMES) {
      const two: SignedRecord[] = [];
      for (const seed of [21, 22]) {
        const made = await s.create({ game: g.game, seats: Array(g.seats).fill("random"), seed, facilitator: "audience", deadlines: { botDelayMs: 0 } });
        const t = s.get(made.table);
        await waitUntil(() => t.isFinished, `the ${g.game} table to finish`);
        two.push(t.record());
      }
      recs.set(g.game, two);
    }
    const key = s.key;
    s.close();

    let checked = 0;
    for (const g of GAMES) {
      const [rec, other] = recs.get(g.game)!;
      const n = rec!.decisions.length;
      const mutants: [string, string][] = [];
      const edit = (name: string, f: (m: any) => void) => {
        const m = structuredClone(rec) as any;
        f(m);
        mutants.push([name, JSON.stringify(m)]);
      };
      for (const drop of [1, 2, Math.floor(n / 2), n])
        for (const keepEnd of [true, false])
          edit(`drop the last ${drop}${keepEnd ? "" : " and the end marker"}`, (m) => {
            m.decisions = m.decisions.slice(0, n - drop);
            m.signed.entries = m.signed.entries.slice(0, n - drop);
            m.finalHash = m.signed.entries.at(-1)?.stateHash ?? m.finalHash;
            if (keepEnd) Object.assign(m.signed.end, { decisions: n - drop, finalHash: m.finalHash });
            else delete m.signed.end;
          });
      // Every entry of a short game; a spread of them in a long one.
      const at = n <= 80 ? [...Array(n).keys()] : [0, 1, Math.floor(n / 3), Math.floor(n / 2), n - 2, n - 1];
      for (const i of at) {
        edit(`drop entry ${i}`, (m) => (m.decisions.splice(i, 1), m.signed.entries.splice(i, 1)));
        edit(`duplicate entry ${i}`, (m) => (m.decisions.splice(i, 0, m.decisions[i]), m.signed.entries.splice(i, 0, m.signed.entries[i])));
        edit(`entry ${i} moved to the end`, (m) => (m.decisions.push(...m.decisions.splice(i, 1)), m.signed.entries.push(...m.signed.entries.splice(i, 1))));
        if (i + 1 < n)
          edit(`swap entries ${i} and ${i + 1}`, (m) => {
            [m.decisions[i], m.decisions[i + 1]] = [m.decisions[i + 1], m.decisions[i]];
            [m.signed.entries[i], m.signed.entries[i + 1]] = [m.signed.entries[i + 1], m.signed.entries[i]];
          });
        for (const k of ["hash", "mac", "stateHash", "at", "seq"]) edit(`entry ${i} without ${k}`, (m) => delete m.signed.entries[i][k]);
        edit(`entry ${i}'s decision dropped`, (m) => m.decisions.splice(i, 1));
        edit(`entry ${i}'s decision swapped with the next`, (m) => m.decisions.splice(i, 2, m.decisions[i + 1] ?? m.decisions[0], m.decisions[i]));
      }
      for (const k of Object.keys(rec!.signed.header))
        edit(`header.${k} edited`, (m) => (m.signed.header[k] = typeof m.signed.header[k] === "number" ? m.signed.header[k] + 1 : "x"));
      for (const k of ["header", "headerHash", "headerMac", "end"]) edit(`signed.${k} removed`, (m) => delete m.signed[k]);
      for (const k of Object.keys(rec!.signed.end!)) edit(`end marker without ${k}`, (m) => delete m.signed.end[k]);
      edit("the signed log of another table of the game", (m) => (m.signed = structuredClone(other!.signed)));
      edit("another table's entries appended", (m) => (m.decisions.push(...other!.decisions), m.signed.entries.push(...other!.signed.entries)));
      edit("another table's end marker", (m) => (m.signed.end = structuredClone(other!.signed.end)));
      for (const o of GAMES)
        if (o.game !== g.game) edit(`the signed log of a ${o.game} table`, (m) => (m.signed = structuredClone(recs.get(o.game)![0]!.signed)));
      // Bytes: the record as a file, compact and pretty-printed, cut and padded.
      const compact = JSON.stringify(rec);
      const pretty = JSON.stringify(rec, null, 2) + "\n";
      const lastLines = pretty.length - pretty.split("\n").slice(-8).join("\n").length;
      for (let off = lastLines; off < pretty.length; off++) mutants.push([`pretty-printed, cut at byte ${off}`, pretty.slice(0, off)]);
      for (let off = 0; off < compact.length; off += Math.ceil(compact.length / 200)) mutants.push([`cut at byte ${off}`, compact.slice(0, off)]);
      mutants.push(["CRLF line ends", pretty.replace(/\n/g, "\r\n")], ["a byte-order mark", `\ufeff${compact}`]);
      mutants.push(
        ["trailing garbage", `${compact}garbage`],
        ["a second record after it", `${compact}\n${compact}`],
        ["NUL bytes after it", `${compact}${"\0".repeat(64)}`],
      );
      mutants.push(["empty", ""], ["blank lines", "\n\n"], ["null", "null"], ["an array", "[]"]);
      mutants.push(["a repeated finalHash before the real one", compact.replace(/^\{/, `{"finalHash":"${"0".repeat(64)}",`)]);
      mutants.push(["a repeated end marker field", compact.replace(/"end":\{/, `"end":{"decisions":${n + 5},`)]);
      mutants.push(["a repeated key in an entry", compact.replace(/"entries":\[\{/, `"entries":[{"seat":9,`)]);

      for (const [name, text] of mutants) {
        let c: ReturnType<typeof checkSignedRecordText>;
        expect(() => (c = checkSignedRecordText(registry, key, text)), `${g.game}: ${name}`).not.toThrow();
        const same = meansTheSame(text, rec);
        if (same) expect(c!, `${g.game}: ${name}`).toEqual({ status: "verified", decisions: n, recoveries: [] });
        else {
          expect(c!.status, `${g.game}: ${name}`).not.toBe("verified");
          if (c!.status !== "verified") expect(c!.reason, `${g.game}: ${name}`).not.toMatch(SLIP);
        }
        checked++;
      }
    }
    expect(checked).toBeGreaterThan(3000);

    // The CLI: one typed line and its exit code for what is not a record, a repeated key, a cut.
    const rec = recs.get("sevens")![0]!;
    const compact = JSON.stringify(rec);
    const files: [string, string, number, RegExp][] = [
      ["cut.json", compact.slice(0, -40), 1, /^error: verify_failed: .*cut\.json: not valid JSON \(a record cut short, or with bytes after it\): /],
      ["empty.json", "", 1, /^error: verify_failed: .*empty\.json: not valid JSON/],
      [
        "twice.json",
        compact.replace(/^\{/, `{"finalHash":"${"0".repeat(64)}",`),
        1,
        /^error: verify_failed: .*the key "finalHash" appears twice in one object/,
      ],
      ["crlf.json", JSON.stringify(rec, null, 2).replace(/\n/g, "\r\n"), 0, /^$/],
    ];
    for (const [name, text, code, stderr] of files) {
      writeFileSync(join(dir, name), text);
      const out = runScript("replay.ts", [join(dir, name), "--verify", "--data-dir", dir]);
      expect(out.stderr.trim(), name).toMatch(stderr);
      expect(out.stderr.trim().split("\n"), name).toHaveLength(1);
      expect(out.code, name).toBe(code);
    }
  });

  it("repeatedKey reads strings with escapes and nested objects, and lets keys repeat across objects", () => {
    expect(repeatedKey('{"a":1,"b":{"a":2},"c":[{"a":3},{"a":4}]}')).toBeNull();
    expect(repeatedKey('{"a\\"":1,"a":"\\\\","b":"{\\"a\\":1,\\"a\\":2}"}')).toBeNull();
    expect(repeatedKey('{"a":1,"b":[1,{"x":2,"x":3}]}')).toBe('the key "x" appears twice in one object (at character 21)');
    expect(repeatedKey('{"\\u0061":1,"a":2}')).toMatch(/the key "a" appears twice/);
    expect(repeatedKey('["a","a",{"k":"a","v":"a"}]')).toBeNull();
  });
});

describe("journals: every cut and edit, at a restart", () => {
  it("load whole, load with the damage reported, or refuse with a reason; never shorter without a word", async () => {
    const origin = freshDir();
    const a = store(origin);
    const people = { game: "sevens", seats: ["human", "human", "human"] };
    const victim = await a.create({ ...people, seed: 9 });
    const other = await a.create({ ...people, seed: 10 });
    const fin = await a.create({ ...people, seed: 11 });
    const v = a.get(victim.table);
    for (let i = 0; i < 6; i++) await answer(v);
    // A seat left and joined again: signed seat lines among the decisions.
    const idle = v.seatFrame(0, v.seq).actor === 0 ? 1 : 0;
    await v.leave(idle);
    await v.join(idle);
    for (let i = 0; i < 2; i++) await answer(v);
    for (let i = 0; i < 4; i++) await answer(a.get(other.table));
    const f = a.get(fin.table);
    while (!f.isFinished) await answer(f);
    const whole = { seq: v.seq, seats: JSON.stringify(v.seatInfo()) };
    const otherSeq = a.get(other.table).seq;
    const finRecord = f.record();
    a.close();
    const file = (d: string, id: string) => join(d, "tables", `${id}.jsonl`);

    // mustRefuse: an edit that would hand a seat to another token, which the seat list cannot show.
    type Mutant = { name: string; id: string; apply: (dir: string) => void; mustRefuse?: true };
    const mutants: Mutant[] = [];
    for (const id of [victim.table, fin.table]) {
      const text = readFileSync(file(origin, id));
      const lines = text.toString("utf8").trimEnd().split("\n");
      const withLines = (name: string, edit: (ls: string[]) => void) =>
        mutants.push({
          name,
          id,
          apply: (d) => {
            const ls = [...lines];
            edit(ls);
            writeFileSync(file(d, id), ls.join("\n") + "\n");
          },
        });
      // Cut at every third byte of the finished journal's last line (its end marker), and at the
      // edges and middle of each of the last three lines of both (every byte of the last three
      // lines was swept once, with the same outcomes, at minutes of disk flushes).
      const cuts = new Set<number>();
      for (let k = 1; k <= 3; k++) {
        const start = Buffer.byteLength(lines.slice(0, -k).join("\n") + "\n");
        const end = Buffer.byteLength(lines.slice(0, lines.length - k + 1).join("\n") + "\n");
        for (const off of [start, start + 1, Math.floor((start + end) / 2), end - 2, end - 1]) cuts.add(off);
        if (k === 1 && id === fin.table) for (let off = start; off < end; off += 3) cuts.add(off);
      }
      for (const off of cuts) mutants.push({ name: `cut at byte ${off}`, id, apply: (d) => writeFileSync(file(d, id), text.subarray(0, off)) });
      // Every line of the unfinished journal; the first three, a middle one and the last three of the finished one.
      const n = lines.length;
      const each = id === victim.table ? [...lines.keys()] : [0, 1, 2, Math.floor(n / 2), n - 3, n - 2, n - 1];
      for (const i of each) {
        withLines(`line ${i + 1} dropped`, (ls) => ls.splice(i, 1));
        withLines(`line ${i + 1} duplicated`, (ls) => ls.splice(i, 0, ls[i]!));
        withLines(`line ${i + 1} copied to the end`, (ls) => ls.push(ls[i]!));
        if (i + 1 < lines.length) withLines(`lines ${i + 1} and ${i + 2} swapped`, (ls) => ([ls[i], ls[i + 1]] = [ls[i + 1]!, ls[i]!]));
        for (const k of ["hash", "mac", "headerMac", "optionsMac", "tokenMac"])
          withLines(`line ${i + 1} without its ${k}`, (ls) => {
            const o = JSON.parse(ls[i]!);
            for (const part of [o, o.entry, o.end, o.recovered]) if (part && k in part) delete part[k];
            ls[i] = JSON.stringify(o);
          });
      }
      // Another token's hash in place of a seat's: in a join line, or in the header line.
      const joinAt = lines.findIndex((l) => JSON.parse(l).t === "join");
      if (joinAt > 0)
        mutants.push({
          name: "a join line's token hash replaced",
          id,
          mustRefuse: true,
          apply: (d) =>
            writeFileSync(
              file(d, id),
              lines.map((l, i) => (i === joinAt ? JSON.stringify({ ...JSON.parse(l), tokenHash: "1".repeat(64) }) : l)).join("\n") + "\n",
            ),
        });
      mutants.push({
        name: "the header line's token hash of seat 0 replaced",
        id,
        mustRefuse: true,
        apply: (d) => {
          const o = JSON.parse(lines[0]!);
          o.tokens["0"] = "1".repeat(64);
          writeFileSync(file(d, id), [JSON.stringify(o), ...lines.slice(1)].join("\n") + "\n");
        },
      });
      const header = JSON.parse(lines[0]!);
      for (const k of Object.keys(header.header))
        withLines(`header.${k} edited`, (ls) => {
          const o = JSON.parse(ls[0]!);
          o.header[k] = typeof o.header[k] === "number" ? o.header[k] + 1 : `${JSON.stringify(o.header[k])}x`;
          ls[0] = JSON.stringify(o);
        });
      for (const k of ["deadlines", "spectators", "tokens"])
        withLines(`the header line's ${k} edited`, (ls) => {
          const o = JSON.parse(ls[0]!);
          o[k] = k === "spectators" ? !o[k] : k === "tokens" ? { "0": "0".repeat(64) } : { ...o[k], graceMs: 1 };
          ls[0] = JSON.stringify(o);
        });
      mutants.push(
        { name: "CRLF line ends", id, apply: (d) => writeFileSync(file(d, id), lines.join("\r\n") + "\r\n") },
        { name: "a garbage line", id, apply: (d) => writeFileSync(file(d, id), `${text}garbage\n`) },
        { name: "garbage without a newline", id, apply: (d) => writeFileSync(file(d, id), `${text}garbage`) },
        { name: "empty", id, apply: (d) => writeFileSync(file(d, id), "") },
        { name: "blank lines between", id, apply: (d) => writeFileSync(file(d, id), lines.join("\n\n") + "\n") },
        { name: "another table's journal copied over it", id, apply: (d) => cpSync(file(d, other.table), file(d, id)) },
        {
          name: "another table's lines appended",
          id,
          apply: (d) => writeFileSync(file(d, id), text + readFileSync(file(d, other.table), "utf8").split("\n").slice(1).join("\n")),
        },
        { name: "a folder in its place", id, apply: (d) => (rmSync(file(d, id)), mkdirSync(file(d, id))) },
      );
    }

    const verdicts = new Map<string, number>();
    for (const m of mutants) {
      const dir = freshDir();
      cpSync(origin, dir, { recursive: true });
      m.apply(dir);
      const logged: string[] = [];
      const b = store(dir, (l) => logged.push(l));
      const what = `${m.id === fin.table ? "finished" : "unfinished"} table, ${m.name}`;
      try {
        let out: ReturnType<TableStore["recover"]> | undefined;
        expect(() => (out = b.recover()), what).not.toThrow();
        expect(b.get(other.table).seq, what).toBe(otherSeq);
        const refused = out!.failed.find((x) => x.id === m.id);
        let table: Table | null = null;
        try {
          table = b.get(m.id);
        } catch {
          table = null;
        }
        let verdict: string;
        if (table === null) {
          // Refused: at the start, or (a finished journal, read when asked for) in the log.
          const reason = refused?.reason ?? logged.find((l) => l.includes(`journal ${m.id} not loaded: `));
          expect(reason, `${what}: gone without a word`).toBeDefined();
          expect(reason, what).not.toMatch(SLIP);
          verdict = "refused";
        } else {
          expect(table.id, what).toBe(m.id);
          const told = table.summary().integrity ?? [];
          if (told.length > 0) verdict = "told";
          else if (m.id === victim.table) {
            expect({ seq: table.seq, seats: JSON.stringify(table.seatInfo()) }, `${what}: loaded short without a word`).toEqual(whole);
            verdict = "whole";
          } else {
            expect(table.isFinished, what).toBe(true);
            expect(checkSignedRecord(registry, b.key, table.record()), `${what}: its record`).toEqual({
              status: "verified",
              decisions: finRecord.decisions.length,
              recoveries: [],
            });
            expect(table.record().finalHash, what).toBe(finRecord.finalHash);
            verdict = "whole";
          }
        }
        if (m.mustRefuse) expect(verdict, what).toBe("refused");
        verdicts.set(verdict, (verdicts.get(verdict) ?? 0) + 1);
      } finally {
        b.close();
        rmSync(dir, { recursive: true, force: true });
      }
    }
    // Each outcome is reached: the sweep is not vacuous.
    expect([...verdicts.keys()].sort()).toEqual(["refused", "told", "whole"]);
    expect(mutants.length).toBeGreaterThan(200);
  });
});
