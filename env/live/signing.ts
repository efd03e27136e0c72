import { createHash, createHmac, randomBytes, timingSafeEqual } from "node:crypto";
import { chmodSync, existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { canonicalJson } from "../../engine/core/index.ts";
import type { LiveEvent, LogHeader, SignedEnd, SignedEntry, SignedRecovery, SignedSeatChange } from "./protocol.ts";

/**
 * The signed log (docs/live.md, "The signed log"): each entry's hash chains to the previous one,
 * and an HMAC under the server's key proves this server wrote it.
 */
export const KEY_FILE = "server.key";

/** The server's signing key from <dataDir>/server.key, made (32 random bytes, mode 0600) if missing. */
export function loadOrCreateKey(dataDir: string): Buffer {
  mkdirSync(dataDir, { recursive: true });
  const path = join(dataDir, KEY_FILE);
  if (!existsSync(path)) {
    writeFileSync(path, randomBytes(32).toString("hex") + "\n", { mode: 0o600, flag: "wx" });
    chmodSync(path, 0o600);
  }
  return readKey(dataDir);
}

/** Reads an existing key (replay --verify); throws a plain message if absent or malformed. */
export function readKey(dataDir: string): Buffer {
  const path = join(dataDir, KEY_FILE);
  let text: string;
  try {
    text = readFileSync(path, "utf8").trim();
  } catch {
    throw new Error(`no signing key in ${dataDir} (${KEY_FILE} is missing)`);
  }
  if (!/^[0-9a-f]{64}$/.test(text)) throw new Error(`${KEY_FILE} in ${dataDir} is not a 64-digit hex key`);
  return Buffer.from(text, "hex");
}

const sha256 = (text: string) => createHash("sha256").update(text).digest("hex");

export function macOf(key: Buffer, hash: string): string {
  return createHmac("sha256", key).update(hash).digest("hex");
}

export function headerHash(header: LogHeader): string {
  return sha256(canonicalJson(header));
}

export interface EntryContent {
  readonly seq: number;
  readonly seat: number;
  readonly decision: unknown;
  readonly cause: LiveEvent["cause"];
  readonly at: number;
  readonly stateHash: string;
}

export function entryHash(prev: string, e: EntryContent): string {
  return sha256(`${prev}\n${canonicalJson({ seq: e.seq, seat: e.seat, decision: e.decision, cause: e.cause, at: e.at, stateHash: e.stateHash })}`);
}

export function signEntry(key: Buffer, prev: string, e: EntryContent): SignedEntry {
  const hash = entryHash(prev, e);
  return { seq: e.seq, seat: e.seat, cause: e.cause, at: e.at, stateHash: e.stateHash, hash, mac: macOf(key, hash) };
}

/** What a finished game's end marker commits to: how many decisions, the final returns and state hash. */
export interface EndContent {
  readonly decisions: number;
  readonly returns: readonly number[];
  readonly finalHash: string;
}

/** The end marker's hash: chained to the last entry's hash (the header's for a game of no decision). */
export function endHash(prev: string, e: EndContent): string {
  return sha256(`${prev}\n${canonicalJson({ end: true, decisions: e.decisions, returns: e.returns, finalHash: e.finalHash })}`);
}

export function signEnd(key: Buffer, prev: string, e: EndContent): SignedEnd {
  const hash = endHash(prev, e);
  return { decisions: e.decisions, returns: [...e.returns], finalHash: e.finalHash, hash, mac: macOf(key, hash) };
}

/** Checks an end marker against the chain's last hash and the key; null when it holds. */
export function verifyEnd(key: Buffer, prev: string, end: SignedEnd): string | null {
  if (endHash(prev, end) !== end.hash) return "the end marker's hash does not match its content and the last entry (entries dropped, added or edited)";
  if (!macMatches(key, end.hash, end.mac)) return "the end marker's signature is not this server's";
  return null;
}

/** What a recovery link signs: where it stands, what the restart found, and when (SignedRecovery). */
export type RecoveryContent = Omit<SignedRecovery, "hash" | "mac">;

/** A recovery link's hash: chained to the link before it (the last surviving entry's, or a recovery's). */
export function recoveryHash(prev: string, r: RecoveryContent): string {
  return sha256(`${prev}\n${canonicalJson({ recovered: true, seq: r.seq, problem: r.problem, expectedSeq: r.expectedSeq ?? null, at: r.at })}`);
}

export function signRecovery(key: Buffer, prev: string, r: RecoveryContent): SignedRecovery {
  const hash = recoveryHash(prev, r);
  return { seq: r.seq, problem: r.problem, ...(r.expectedSeq !== undefined ? { expectedSeq: r.expectedSeq } : {}), at: r.at, hash, mac: macOf(key, hash) };
}

export function macMatches(key: Buffer, hash: string, mac: string): boolean {
  const want = Buffer.from(macOf(key, hash), "hex");
  const given = Buffer.from(typeof mac === "string" && /^[0-9a-f]*$/.test(mac) ? mac : "", "hex");
  return want.length === given.length && timingSafeEqual(want, given);
}

/** What a seat change's link signs (SignedSeatChange without its hash and MAC). */
export type SeatChangeContent = Omit<SignedSeatChange, "hash" | "mac">;

/** A seat change's hash: chained to the link before it (an entry's, a recovery's, another seat change's or the header's). */
export function seatChangeHash(prev: string, c: SeatChangeContent): string {
  return sha256(`${prev}\n${canonicalJson({ seatChange: c.change, seq: c.seq, seat: c.seat, at: c.at, tokenHash: c.tokenHash ?? null })}`);
}

export function signSeatChange(key: Buffer, prev: string, c: SeatChangeContent): SignedSeatChange {
  const hash = seatChangeHash(prev, c);
  return {
    change: c.change,
    seq: c.seq,
    seat: c.seat,
    at: c.at,
    ...(c.tokenHash !== undefined ? { tokenHash: c.tokenHash } : {}),
    hash,
    mac: macOf(key, hash),
  };
}

/**
 * What a join line's tokenMac signs: the newcomer's token hash, bound to the join's link (its
 * hash). The link itself signs no token hash (its tokenHash is absent, hashed as null), so that
 * records, which carry the links, carry no token hash; the journal, which needs it for a restart,
 * keeps it signed apart, as the header line's options keep the first holders' hashes.
 */
export function joinTokenHash(linkHash: string, tokenHash: string): string {
  return sha256(`${linkHash}\n${canonicalJson({ joinToken: true, tokenHash })}`);
}

/** The journal header line's options (not in the log header: the tokens' hashes stay out of records). */
export interface TableOptions {
  readonly facilitator: unknown;
  readonly deadlines: unknown;
  readonly spectators: boolean;
  readonly tokens: Readonly<Record<string, string>>;
}

/** What the header line's optionsMac signs: the options, bound to the log's header. */
export function optionsHash(hHash: string, o: TableOptions): string {
  return sha256(
    `${hHash}\n${canonicalJson({ options: true, facilitator: o.facilitator, deadlines: o.deadlines, spectators: o.spectators, tokens: o.tokens })}`,
  );
}

/** Where a signed chain stands: null when intact (with the hash it ends with), else a message naming the first bad part. */
export type ChainWalk = { readonly bad: string; readonly tip: null } | { readonly bad: null; readonly tip: string };

/**
 * Checks a chain: header hash and MAC, then every entry's seq, hash (recomputed from its content
 * and the previous hash) and MAC, with the links that stand between entries (recovery links and
 * seat changes, each list in order, each link by its seq) chained before the entry they precede
 * or after the last one. Where a recovery link and a seat change stand at the same seq, the one
 * that chains to the link before comes first.
 */
export function walkChain(
  key: Buffer,
  header: LogHeader,
  hHash: string,
  hMac: string,
  entries: readonly { entry: SignedEntry; decision: unknown }[],
  recoveries: readonly SignedRecovery[] = [],
  seats: readonly SignedSeatChange[] = [],
): ChainWalk {
  const bad = (why: string): ChainWalk => ({ bad: why, tip: null });
  if (headerHash(header) !== hHash) return bad("the header's hash does not match its content");
  if (!macMatches(key, hHash, hMac)) return bad("the header's signature is not this server's");
  let prev = hHash;
  let r = 0;
  let s = 0;
  /** The links standing before entry `at` (after the last entry when `at` is their count); a message when one does not hold. */
  const linksAt = (at: number): string | null => {
    for (;;) {
      const rec = recoveries[r]?.seq === at ? recoveries[r] : undefined;
      const change = seats[s]?.seq === at ? seats[s] : undefined;
      if (rec === undefined && change === undefined) return null;
      const recHash = rec && recoveryHash(prev, rec);
      if (rec && (change === undefined || recHash === rec.hash)) {
        if (recHash !== rec.hash) return `recovery ${r}: its hash does not match its content and the link before it (edited, dropped or moved)`;
        if (!macMatches(key, rec.hash, rec.mac)) return `recovery ${r}: its signature is not this server's`;
        prev = rec.hash;
        r++;
      } else if (change) {
        const what = `seat change ${s} (${change.change} of seat ${change.seat})`;
        if (seatChangeHash(prev, change) !== change.hash)
          return `${what}: its hash does not match its content and the link before it (edited, dropped, duplicated or moved)`;
        if (!macMatches(key, change.hash, change.mac)) return `${what}: its signature is not this server's`;
        prev = change.hash;
        s++;
      }
    }
  };
  for (const [i, { entry, decision }] of entries.entries()) {
    const badLink = linksAt(i);
    if (badLink) return bad(badLink);
    if (entry.seq !== i) return bad(`entry ${i} carries seq ${entry.seq} (entries dropped or reordered)`);
    const hash = entryHash(prev, { ...entry, decision });
    if (hash !== entry.hash) return bad(`entry ${i}: its hash does not match its content and the previous entry (edited, dropped or reordered)`);
    if (!macMatches(key, hash, entry.mac)) return bad(`entry ${i}: its signature is not this server's`);
    prev = hash;
  }
  const badLink = linksAt(entries.length);
  if (badLink) return bad(badLink);
  const left = recoveries[r];
  if (left !== undefined) return bad(`recovery ${r} stands at seq ${left.seq}, out of order or past the log's ${entries.length} entries`);
  const leftSeat = seats[s];
  if (leftSeat !== undefined) return bad(`seat change ${s} stands at seq ${leftSeat.seq}, out of order or past the log's ${entries.length} entries`);
  return { bad: null, tip: prev };
}

/** walkChain's verdict alone: null when the chain is intact, else a message naming the first bad part. */
export function verifyChain(...args: Parameters<typeof walkChain>): string | null {
  return walkChain(...args).bad;
}
