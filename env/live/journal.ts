import { closeSync, fsync, fsyncSync, write, mkdirSync, openSync, readFileSync, readdirSync, truncateSync, writeSync } from "node:fs";
import { join } from "node:path";

/**
 * A table's journal: one JSON line per record, each written and fsync'ed before the caller goes on
 * (a decision is acknowledged only after its line is on disk). Files live in <dataDir>/tables/.
 */
export class Journal {
  readonly path: string;
  private fd: number | null;

  constructor(dir: string, id: string) {
    mkdirSync(dir, { recursive: true });
    this.path = join(dir, `${id}.jsonl`);
    this.fd = openSync(this.path, "a");
  }

  append(record: unknown): void {
    if (this.fd === null) throw new Error("journal is closed");
    const line = Buffer.from(JSON.stringify(record) + "\n");
    let off = 0;
    while (off < line.length) off += writeSync(this.fd, line, off, line.length - off);
    fsyncSync(this.fd);
  }

  /**
   * Appends lines and fsyncs without blocking the event loop (libuv's thread pool); `done` runs
   * once they are on disk. The caller starts no other append on this journal meanwhile.
   */
  appendAsync(records: readonly unknown[], done: (err: Error | null) => void): void {
    const fd = this.fd;
    if (fd === null) return done(new Error("journal is closed"));
    const buf = Buffer.from(records.map((r) => JSON.stringify(r) + "\n").join(""));
    const writeFrom = (off: number): void => {
      write(fd, buf, off, buf.length - off, null, (err, n) => {
        if (err) return done(err);
        if (off + n < buf.length) return writeFrom(off + n);
        fsync(fd, (e) => done(e ?? null));
      });
    };
    writeFrom(0);
  }

  close(): void {
    if (this.fd !== null) closeSync(this.fd);
    this.fd = null;
  }
}

export const tablesDir = (dataDir: string) => join(dataDir, "tables");

const ID = /^[A-Za-z0-9_-]{1,64}$/;

/** One table's journal lines, or null when there is none (ids are checked: no path tricks). */
export function readJournal(dataDir: string, id: string): unknown[] | null {
  if (!ID.test(id)) return null;
  let text: string;
  try {
    text = readFileSync(join(tablesDir(dataDir), `${id}.jsonl`), "utf8");
  } catch {
    return null;
  }
  return parseLines(text).lines;
}

function parseLines(text: string): { lines: unknown[]; torn: boolean; goodBytes: number } {
  const lines: unknown[] = [];
  let at = 0;
  while (at < text.length) {
    const nl = text.indexOf("\n", at);
    // A line without its newline was cut by a crash mid-write: never acknowledged, dropped.
    if (nl < 0) return { lines, torn: true, goodBytes: Buffer.byteLength(text.slice(0, at)) };
    const l = text.slice(at, nl);
    try {
      if (l !== "") lines.push(JSON.parse(l));
    } catch {
      return { lines, torn: true, goodBytes: Buffer.byteLength(text.slice(0, at)) };
    }
    at = nl + 1;
  }
  return { lines, torn: false, goodBytes: Buffer.byteLength(text) };
}

/** Cuts a torn tail off a journal so the next append starts on a fresh line. */
export function truncateJournal(dataDir: string, id: string, bytes: number): void {
  truncateSync(join(tablesDir(dataDir), `${id}.jsonl`), bytes);
}

/** Every journal in <dataDir>/tables as [id, parsed lines]; a torn last line (a crash mid-write) is dropped. */
export function readJournals(dataDir: string): { id: string; lines: unknown[]; torn: boolean; goodBytes: number }[] {
  const dir = tablesDir(dataDir);
  let names: string[];
  try {
    names = readdirSync(dir)
      .filter((n) => n.endsWith(".jsonl"))
      .sort();
  } catch {
    return [];
  }
  return names.map((name) => ({ id: name.slice(0, -".jsonl".length), ...parseLines(readFileSync(join(dir, name), "utf8")) }));
}
