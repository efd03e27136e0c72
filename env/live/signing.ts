import { createHash, createHmac, randomBytes, timingSafeEqual } from "node:crypto";
import { chmodSync, existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { canonicalJson } from "../../engine/core/index.ts";
import type { LiveEvent, LogHeader, SignedEnd, SignedEntry } from "./protocol.ts";

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

export function macMatches(key: Buffer, hash: string, mac: string): boolean {
  const want = Buffer.from(macOf(key, hash), "hex");
  const given = Buffer.from(typeof mac === "string" && /^[0-9a-f]*$/.test(mac) ? mac : "", "hex");
  return want.length === given.length && timingSafeEqual(want, given);
}

/**
 * Checks a chain: header hash and MAC, then every entry's seq, hash (recomputed from its content
 * and the previous hash) and MAC. Returns null when intact, else a message naming the first bad part.
 */
export function verifyChain(
  key: Buffer,
  header: LogHeader,
  hHash: string,
  hMac: string,
  entries: readonly { entry: SignedEntry; decision: unknown }[],
): string | null {
  if (headerHash(header) !== hHash) return "the header's hash does not match its content";
  if (!macMatches(key, hHash, hMac)) return "the header's signature is not this server's";
  let prev = hHash;
  for (const [i, { entry, decision }] of entries.entries()) {
    if (entry.seq !== i) return `entry ${i} carries seq ${entry.seq} (entries dropped or reordered)`;
    const hash = entryHash(prev, { ...entry, decision });
    if (hash !== entry.hash) return `entry ${i}: its hash does not match its content and the previous entry (edited, dropped or reordered)`;
    if (!macMatches(key, hash, entry.mac)) return `entry ${i}: its signature is not this server's`;
    prev = hash;
  }
  return null;
}
