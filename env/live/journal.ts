import { closeSync, fsyncSync, mkdirSync, openSync, readFileSync, readdirSync, writeSync } from "node:fs";
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

  close(): void {
    if (this.fd !== null) closeSync(this.fd);
    this.fd = null;
  }
}

export const tablesDir = (dataDir: string) => join(dataDir, "tables");

/** Every journal in <dataDir>/tables as [id, parsed lines]; a torn last line (a crash mid-write) is dropped. */
export function readJournals(dataDir: string): { id: string; lines: unknown[]; torn: boolean }[] {
  const dir = tablesDir(dataDir);
  let names: string[];
  try {
    names = readdirSync(dir).filter((n) => n.endsWith(".jsonl")).sort();
  } catch {
    return [];
  }
  return names.map((name) => {
    const text = readFileSync(join(dir, name), "utf8");
    const raw = text.split("\n");
    const lines: unknown[] = [];
    let torn = false;
    for (let i = 0; i < raw.length; i++) {
      const l = raw[i]!;
      if (l === "") continue;
      try {
        lines.push(JSON.parse(l));
      } catch {
        // Only the last line can be torn by a crash; anything else is damage and stops the read.
        torn = true;
        break;
      }
    }
    return { id: name.slice(0, -".jsonl".length), lines, torn };
  });
}
