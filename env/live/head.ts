import { readFileSync } from "node:fs";
import { join } from "node:path";
import type { JournalLines } from "./journal-lines.ts";
import type { JournalIntegrity } from "./protocol.ts";
import { macMatches, macOf } from "./signing.ts";

/**
 * A journal's head (docs/live.md, "Durability"): a small side file `<id>.head` rewritten and
 * flushed after every append, saying how many lines the journal holds and where its signed chain
 * ends. A journal alone cannot tell that its last whole lines were removed; its head can.
 *
 * The file has two fixed slots written in turn, each a signed JSON text padded to SLOT_BYTES: a
 * write cut short by a crash spoils one slot at most, and the other still holds an earlier head.
 * Every head is written after the lines it counts are on disk, so a journal never holds fewer
 * lines than its newest valid head says, unless lines were lost.
 */
export const SLOT_BYTES = 256;

/** The signed chain's end: the number of entries and the hash the log ends with. */
export interface ChainHead {
  readonly seq: number;
  readonly hash: string;
}

export interface Head extends ChainHead {
  readonly lines: number;
}

export const headPath = (dir: string, id: string) => join(dir, `${id}.head`);

/** What a head's MAC signs: the table and the head's three fields. */
const headText = (table: string, h: Head) => `head\n${table}\n${h.lines}\n${h.seq}\n${h.hash}`;

/** One slot's bytes: the signed head as JSON, padded with spaces, ending in a newline. */
export function encodeHead(key: Buffer, table: string, h: Head): Buffer {
  const text = JSON.stringify({ lines: h.lines, seq: h.seq, hash: h.hash, mac: macOf(key, headText(table, h)) });
  if (text.length >= SLOT_BYTES) throw new Error("a journal head does not fit its slot");
  return Buffer.from(text.padEnd(SLOT_BYTES - 1, " ") + "\n");
}

function decodeSlot(key: Buffer, table: string, bytes: Buffer): Head | null {
  let v: unknown;
  try {
    v = JSON.parse(bytes.toString("utf8"));
  } catch {
    return null;
  }
  const h = v as { lines?: unknown; seq?: unknown; hash?: unknown; mac?: unknown };
  if (!Number.isSafeInteger(h.lines) || !Number.isSafeInteger(h.seq) || typeof h.hash !== "string" || typeof h.mac !== "string") return null;
  const head = { lines: h.lines as number, seq: h.seq as number, hash: h.hash };
  return macMatches(key, headText(table, head), h.mac) ? head : null;
}

/** What a table's head file holds: its newest valid head (and the slot to write next), or why there is none. */
export type HeadRead = { readonly head: Head; readonly nextSlot: number } | { readonly head: null; readonly why: "missing" | "unreadable" };

export function readHead(dir: string, id: string, key: Buffer): HeadRead {
  let bytes: Buffer;
  try {
    bytes = readFileSync(headPath(dir, id));
  } catch {
    return { head: null, why: "missing" };
  }
  let best: { head: Head; slot: number } | null = null;
  for (const slot of [0, 1]) {
    const h = decodeSlot(key, id, bytes.subarray(slot * SLOT_BYTES, (slot + 1) * SLOT_BYTES));
    if (h && (best === null || h.lines > best.head.lines)) best = { head: h, slot };
  }
  return best ? { head: best.head, nextSlot: 1 - best.slot } : { head: null, why: "unreadable" };
}

/** What a journal's parsed lines hold: their count, the entries' count and every hash its chain passed through. */
function journalShape(journal: JournalLines): { lines: number; seq: number; hashes: Set<string> } {
  const hashes = new Set<string>([`0:${journal.header.headerHash}`]);
  let seq = 0;
  for (const l of journal.body) {
    if (l.t === "entry") hashes.add(`${++seq}:${l.entry.hash}`);
    else if (l.t === "end") {
      if (l.end) hashes.add(`${seq}:${l.end.hash}`);
    } else if (l.t === "recovered") hashes.add(`${seq}:${l.recovered.hash}`);
    else if (l.t !== "integrity" && l.hash !== undefined) hashes.add(`${seq}:${l.hash}`);
  }
  return { lines: journal.count, seq, hashes };
}

/**
 * Compares a journal (its lines, after a torn last line was cut) with its head: null when the
 * journal holds at least everything its head says was written, else what is missing or wrong.
 */
export function checkHead(read: HeadRead, lines: JournalLines, at: number): JournalIntegrity | null {
  const found = journalShape(lines);
  const base = { foundSeq: found.seq, foundLines: found.lines, at };
  if (read.head === null) {
    return read.why === "missing"
      ? { problem: "no_head", message: `the journal has no head file: whether it lost its last lines cannot be checked (found seq ${found.seq})`, ...base }
      : {
          problem: "bad_head",
          message: `the journal's head file holds no valid signed head: whether it lost its last lines cannot be checked (found seq ${found.seq})`,
          ...base,
        };
  }
  const h = read.head;
  const expected = { expectedSeq: h.seq, expectedLines: h.lines };
  if (h.lines > found.lines || h.seq > found.seq) {
    return {
      problem: "lost_tail",
      message: `the journal ends at seq ${found.seq} (${found.lines} lines) but its head says seq ${h.seq} (${h.lines} lines) were written: its last ${h.lines - found.lines} line(s) are lost`,
      ...base,
      ...expected,
    };
  }
  if (!found.hashes.has(`${h.seq}:${h.hash}`)) {
    return {
      problem: "mismatch",
      message: `the journal's chain at seq ${h.seq} is not the one its head signed: the journal was rewritten`,
      ...base,
      ...expected,
    };
  }
  return null;
}
