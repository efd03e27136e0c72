import {
  appendFileSync,
  closeSync,
  constants,
  fdatasync,
  fdatasyncSync,
  fsync,
  fsyncSync,
  write,
  mkdirSync,
  openSync,
  readFileSync,
  readdirSync,
  truncateSync,
  writeSync,
} from "node:fs";
import { join } from "node:path";
import type { JournalLine } from "./journal-lines.ts";
import { encodeHead, headPath, SLOT_BYTES, type ChainHead } from "./head.ts";

/** How a journal starts: the signing key (for its head), and the lines and chain end already on disk. */
export interface JournalStart {
  readonly key: Buffer;
  readonly lines: number;
  readonly chain: ChainHead;
  /** Where a failed head write is reported (the lines themselves are on disk). */
  readonly log: (line: string) => void;
  /** The head slot to write next (readHead's nextSlot); 0 for a new journal. */
  readonly nextSlot?: number;
}

/**
 * A table's journal: one JSON line per record, each written and fsync'ed before the caller goes on
 * (a decision is acknowledged only after its line is on disk), and then its head (head.ts): the
 * line count and chain end, flushed to `<id>.head`, so a restart can tell lines lost from the end.
 * Files live in <dataDir>/tables/.
 */
export class Journal {
  readonly path: string;
  private fd: number | null;
  private headFd: number | null;
  private readonly id: string;
  private readonly start: JournalStart;
  /** Lines known to be on disk, and the chain end they hold. */
  private lines: number;
  private chain: ChainHead;
  private slot: number;
  /** An appendAsync is under way: close() waits for it, so no write lands on a reused descriptor. */
  private inFlight = false;
  private closing = false;

  constructor(dir: string, id: string, start: JournalStart) {
    mkdirSync(dir, { recursive: true });
    this.id = id;
    this.start = start;
    this.path = join(dir, `${id}.jsonl`);
    this.fd = openSync(this.path, "a");
    // Not "a": the head's two slots are written in place.
    this.headFd = openSync(headPath(dir, id), constants.O_RDWR | constants.O_CREAT, 0o644);
    this.lines = start.lines;
    this.chain = start.chain;
    this.slot = start.nextSlot ?? 0;
  }

  /**
   * Appends one line and fsyncs it, then the head (both synchronous); `chain` is where the signed
   * chain ends with this line (unchanged when absent).
   */
  append(record: JournalLine, chain: ChainHead = this.chain): void {
    if (this.fd === null || this.closing) throw new Error("journal is closed");
    const line = Buffer.from(JSON.stringify(record) + "\n");
    let off = 0;
    while (off < line.length) off += writeSync(this.fd, line, off, line.length - off);
    fsyncSync(this.fd);
    this.lines++;
    this.chain = chain;
    this.writeHeadSync();
  }

  /** Writes the head for what is on disk now (a restart whose head lagged, or was missing). */
  writeHeadSync(): void {
    if (this.headFd === null) throw new Error("journal is closed");
    const buf = this.nextHead();
    writeSync(this.headFd, buf, 0, buf.length, this.slot * SLOT_BYTES);
    fdatasyncSync(this.headFd);
    this.slot = 1 - this.slot;
  }

  private nextHead(): Buffer {
    return encodeHead(this.start.key, this.id, { lines: this.lines, seq: this.chain.seq, hash: this.chain.hash });
  }

  /**
   * Appends lines and fsyncs without blocking the event loop (libuv's thread pool), then writes
   * and flushes the head the same way; `done` runs once both are on disk. The caller starts no
   * other append on this journal meanwhile (SignedLog queues them). `chain`: where the signed
   * chain ends with these lines (null: unchanged, a seat's line). A failed head write is logged, not returned: the
   * lines are on disk, only the head lags.
   */
  appendAsync(records: readonly JournalLine[], chain: ChainHead | null, whenDone: (err: Error | null) => void): void {
    const fd = this.fd;
    if (fd === null || this.closing) return whenDone(new Error("journal is closed"));
    this.inFlight = true;
    const done = (err: Error | null) => {
      this.inFlight = false;
      if (this.closing) this.close();
      whenDone(err);
    };
    const buf = Buffer.from(records.map((r) => JSON.stringify(r) + "\n").join(""));
    const writeFrom = (off: number): void => {
      write(fd, buf, off, buf.length - off, null, (err, n) => {
        if (err) return done(err);
        if (off + n < buf.length) return writeFrom(off + n);
        fsync(fd, (e) => {
          if (e) return done(e);
          this.lines += records.length;
          if (chain) this.chain = chain;
          this.writeHeadAsync(() => done(null));
        });
      });
    };
    writeFrom(0);
  }

  private writeHeadAsync(then: () => void): void {
    const fd = this.headFd;
    const failed = (e: Error) => {
      this.start.log(`journal ${this.id}: head not written (${e.message}); its last lines are on disk, the head lags`);
      then();
    };
    if (fd === null) return failed(new Error("journal is closed"));
    const buf = this.nextHead();
    const at = this.slot * SLOT_BYTES;
    this.slot = 1 - this.slot;
    write(fd, buf, 0, buf.length, at, (err, n) => {
      if (err) return failed(err);
      if (n < buf.length) return failed(new Error("short write"));
      fdatasync(fd, (e) => (e ? failed(e) : then()));
    });
  }

  /** Closes the files, once an append under way is done. */
  close(): void {
    this.closing = true;
    if (this.inFlight) return;
    if (this.fd !== null) closeSync(this.fd);
    if (this.headFd !== null) closeSync(this.headFd);
    this.fd = null;
    this.headFd = null;
  }
}

export const tablesDir = (dataDir: string) => join(dataDir, "tables");

const ID = /^[A-Za-z0-9_-]{1,64}$/;

/**
 * A journal read from disk: its parsed lines; `tornBytes`, the length of a last line without its
 * newline (a crash cut the write short: never acknowledged, so it may be cut off, `goodBytes` being
 * what stays; 0 when there is none); `bad`, a
 * whole line (one that ends in a newline) that is not JSON. The server writes every line whole with
 * its newline, so such a line is damage or an edit, not a crash: the lines after it are genuine
 * and must not be cut.
 */
export interface JournalText {
  readonly lines: unknown[];
  readonly goodBytes: number;
  readonly tornBytes: number;
  /** The text of that last line without its newline (when tornBytes is not 0). */
  readonly torn?: string;
  readonly bad: string | null;
}

/** One table's journal, or null when there is none (ids are checked: no path tricks). */
export function readJournal(dataDir: string, id: string): JournalText | null {
  if (!ID.test(id)) return null;
  let text: string;
  try {
    text = readFileSync(join(tablesDir(dataDir), `${id}.jsonl`), "utf8");
  } catch {
    return null;
  }
  return parseLines(text);
}

function parseLines(text: string): JournalText {
  const lines: unknown[] = [];
  let at = 0;
  for (let n = 1; at < text.length; n++) {
    const nl = text.indexOf("\n", at);
    // A line without its newline was cut by a crash mid-write: never acknowledged, dropped.
    if (nl < 0) {
      const goodBytes = Buffer.byteLength(text.slice(0, at));
      return { lines, goodBytes, tornBytes: Buffer.byteLength(text) - goodBytes, torn: text.slice(at), bad: null };
    }
    const l = text.slice(at, nl);
    try {
      if (l !== "") lines.push(JSON.parse(l));
    } catch {
      return {
        lines,
        goodBytes: Buffer.byteLength(text),
        tornBytes: 0,
        bad: `journal line ${n}: not JSON (a whole line the server did not write: the journal was edited or damaged)`,
      };
    }
    at = nl + 1;
  }
  return { lines, goodBytes: Buffer.byteLength(text), tornBytes: 0, bad: null };
}

/** Ends a journal's last line with the newline it lost (the line is kept: see TableStore.recover). */
export function restoreNewline(dataDir: string, id: string): void {
  appendFileSync(join(tablesDir(dataDir), `${id}.jsonl`), "\n");
}

/** Cuts a torn tail off a journal so the next append starts on a fresh line. */
export function truncateJournal(dataDir: string, id: string, bytes: number): void {
  truncateSync(join(tablesDir(dataDir), `${id}.jsonl`), bytes);
}

/** Every journal in <dataDir>/tables, read as readJournal reads one. */
export function readJournals(dataDir: string): ({ id: string } & JournalText)[] {
  const dir = tablesDir(dataDir);
  let names: string[];
  try {
    names = readdirSync(dir)
      .filter((n) => n.endsWith(".jsonl"))
      .sort();
  } catch {
    return [];
  }
  return names.map((name) => ({ id: name.slice(0, -".jsonl".length), ...readOne(join(dir, name)) }));
}

/**
 * One journal file's lines; a file that cannot be read (a folder in its place, no permission, too
 * large for one string) is `bad` with why, so that its table alone is reported and the others load.
 */
function readOne(path: string): JournalText {
  let text: string;
  try {
    text = readFileSync(path, "utf8");
  } catch (e) {
    const why = (e as NodeJS.ErrnoException).code ?? (e as Error).message;
    return { lines: [], goodBytes: 0, tornBytes: 0, bad: `its journal file cannot be read (${why})` };
  }
  return parseLines(text);
}

/** The ids of every head file in <dataDir>/tables (head.ts). */
export function headIds(dataDir: string): string[] {
  try {
    return readdirSync(tablesDir(dataDir))
      .filter((n) => n.endsWith(".head"))
      .map((n) => n.slice(0, -".head".length))
      .sort();
  } catch {
    return [];
  }
}
