/**
 * The signed log commits to its length and end: a finished table's record carries a signed end
 * marker, and a record cut short (its last entry or half of them dropped, finalHash patched to the
 * last kept state hash, no key needed) never verifies, through the function or the replay CLI.
 */
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { registry } from "../../engine/games.ts";
import { readKey } from "../../env/live/signing.ts";
import { checkSignedRecord } from "../../env/live/verify.ts";
import { runScript } from "../scripts/run-script.ts";
import { waitUntil } from "../fixtures/hang-guard.ts";
import { http, liveForFile } from "./helpers.ts";

const server = liveForFile();

const GAMES: { game: string; seats: number }[] = [
  { game: "sevens", seats: 3 },
  { game: "dcg", seats: 2 },
  { game: "blackpoker", seats: 2 },
  { game: "shephy", seats: 1 },
];

/** Plays an agents-only table to its end on the real server and fetches its record. */
async function finishedRecord(game: string, seats: number, seed: number): Promise<any> {
  const made = await server.create({ game, seats: Array(seats).fill("random"), seed, facilitator: "audience", deadlines: { botDelayMs: 0 } });
  expect(made.status).toBe(201);
  const { base } = server.live;
  await waitUntil(async () => (await http(base, "GET", `/v1/tables/${made.body.table}`)).body.status === "finished", "the table to finish");
  const rec = await http(base, "GET", `/v1/tables/${made.body.table}/record`);
  expect(rec.status).toBe(200);
  return rec.body;
}

/** The record with its last `drop` entries removed and finalHash set to the last kept state hash. */
function cut(rec: any, drop: number, keepEnd: boolean): any {
  const m = structuredClone(rec);
  const n = m.decisions.length - drop;
  m.decisions = m.decisions.slice(0, n);
  m.signed.entries = m.signed.entries.slice(0, n);
  m.finalHash = n > 0 ? m.signed.entries[n - 1].stateHash : rec.signed.entries[0].stateHash;
  if (!keepEnd) delete m.signed.end;
  return m;
}

const verifyCli = (file: string) => runScript("replay.ts", [file, "--verify", "--data-dir", server.live.dataDir]);

describe("signed log: length and end", () => {
  for (const g of GAMES) {
    it(`${g.game}: the record's end marker verifies; cut-short records fail --verify (function and CLI)`, async () => {
      const rec = await finishedRecord(g.game, g.seats, 21);
      const n = rec.decisions.length;
      expect(n).toBeGreaterThan(2);
      expect(rec.signed.end).toMatchObject({ decisions: n, finalHash: rec.finalHash });
      const key = readKey(server.live.dataDir);
      expect(checkSignedRecord(registry, key, rec)).toEqual({ status: "verified", decisions: n, recoveries: [] });

      for (const drop of [1, Math.floor(n / 2)]) {
        // The end marker kept: it chains to the dropped entry, so the log does not verify.
        const withEnd = checkSignedRecord(registry, key, cut(rec, drop, true));
        expect(withEnd.status, `drop ${drop}, end kept`).toBe("failed");
        // The end marker removed too: every entry left is genuine, but nothing signs the end.
        expect(checkSignedRecord(registry, key, cut(rec, drop, false))).toMatchObject({ status: "incomplete", at: n - drop, finished: false });
      }
      // The whole game without its end marker (an old-format record) is reported as such.
      const old = structuredClone(rec);
      delete old.signed.end;
      expect(checkSignedRecord(registry, key, old)).toMatchObject({ status: "incomplete", at: n, finished: true });

      const dir = server.live.dataDir;
      const files = { good: rec, dropLast: cut(rec, 1, true), dropHalf: cut(rec, Math.floor(n / 2), false) };
      for (const [name, doc] of Object.entries(files)) writeFileSync(join(dir, `${g.game}-${name}.json`), JSON.stringify(doc));
      const good = verifyCli(join(dir, `${g.game}-good.json`));
      expect(good.code).toBe(0);
      expect(good.stdout).toContain(`signed log verified with the key in ${dir}: a finished game of ${n} decisions`);
      const last = verifyCli(join(dir, `${g.game}-dropLast.json`));
      expect(last.code).toBe(1);
      expect(last.stdout).not.toContain("verified");
      expect(last.stderr.trim()).toMatch(/^error: verify_failed: .*end marker/);
      expect(last.stderr.trim().split("\n")).toHaveLength(1);
      const half = verifyCli(join(dir, `${g.game}-dropHalf.json`));
      expect(half.code).toBe(3);
      expect(half.stdout).not.toContain("verified");
      expect(half.stderr.trim()).toMatch(new RegExp(`^error: incomplete: .*incomplete at ${n - Math.floor(n / 2)}: `));
    });
  }

  it("an edited end marker (returns, count or final hash) fails, as does one signed under another key", async () => {
    const rec = await finishedRecord("sevens", 3, 5);
    const key = readKey(server.live.dataDir);
    const edits: ((m: any) => void)[] = [
      (m) => (m.signed.end.returns = m.signed.end.returns.map((r: number) => -r)),
      (m) => (m.signed.end.decisions += 1),
      (m) => (m.signed.end.finalHash = m.signed.entries[0].stateHash),
      // An unsigned field riding along in the marker: nothing signed changed, but it is not the server's.
      (m) => (m.signed.end.extra = 1),
    ];
    for (const edit of edits) {
      const m = structuredClone(rec);
      edit(m);
      expect(checkSignedRecord(registry, key, m).status).toBe("failed");
    }
    expect(checkSignedRecord(registry, Buffer.alloc(32, 9), rec)).toMatchObject({ status: "failed", reason: expect.stringMatching(/signature/) });
  });

  it("a field no signature covers fails wherever it rides along: in an entry, the signed part or the record itself", async () => {
    const rec = await finishedRecord("sevens", 3, 6);
    const key = readKey(server.live.dataDir);
    const edits: [string, (m: any) => void][] = [
      ["signed.entries[2].label", (m) => (m.signed.entries[2].label = "Host wins")],
      ["signed.entries[0].returns", (m) => (m.signed.entries[0].returns = [1, 0, -1])],
      ["signed.winner", (m) => (m.signed.winner = 0)],
      ["returns", (m) => (m.returns = [1, 0, -1])],
      ["hashes", (m) => (m.hashes = [])],
    ];
    for (const [where, edit] of edits) {
      const m = structuredClone(rec);
      edit(m);
      expect(checkSignedRecord(registry, key, m), where).toEqual({
        status: "failed",
        reason: `${where} is not covered by any signature (the record was edited)`,
      });
    }
    // A record exported before end markers were signed may carry each entry's label: still only incomplete.
    const old = structuredClone(rec);
    delete old.signed.end;
    old.signed.entries[0].label = "play 7 of spades";
    expect(checkSignedRecord(registry, key, old)).toMatchObject({ status: "incomplete", finished: true });
  });
});
