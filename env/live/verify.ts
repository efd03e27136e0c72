import { Compile } from "typebox/compile";
import { canonicalJson, canonicalProblem, parseJsonText, replay, type GameRegistry } from "../../engine/core/index.ts";
import { SignedRecord, type SignedRecovery } from "./protocol.ts";
import { verifyEnd, walkChain } from "./signing.ts";

const signedRecord = Compile(SignedRecord);

/**
 * What checking a signed record found:
 * - `verified`: a finished game; every entry and the end marker are this server's, and the game
 *   replays to the marker's decision count, returns and final hash. `recoveries`: the signed
 *   recovery links it holds (restarts that found acknowledged decisions may be gone; empty when
 *   none did): such a game is genuine but not the one its players were told they played.
 * - `incomplete`: every entry present is this server's and replays, but the log has no end marker
 *   (`at`: how many decisions it holds). `finished` tells whether the game still replays to its
 *   end: true only for a record exported before end markers were signed (its length and result
 *   are not signed); false for a cut-short log. Neither is a verified finished game.
 * - `failed`: the record does not verify; `reason` names the first bad part.
 */
export type RecordCheck =
  | { readonly status: "verified"; readonly decisions: number; readonly recoveries: readonly SignedRecovery[] }
  | { readonly status: "incomplete"; readonly at: number; readonly finished: boolean; readonly reason: string }
  | { readonly status: "failed"; readonly reason: string };

const failed = (reason: string): RecordCheck => ({ status: "failed", reason });

/**
 * Checks an exported table record (GET /v1/tables/:id/record) against the server's key: the
 * header, every entry and the end marker must hash and sign as the server wrote them (so an
 * edited decision, a dropped, added or reordered entry, or a cut-short log fails), the record's
 * game fields must be the header's, and the game must replay to every entry's state hash and to
 * the end marker's decision count, returns and final hash.
 */
export function checkSignedRecord(registry: GameRegistry, key: Buffer, doc: unknown): RecordCheck {
  if (!signedRecord.Check(doc)) return failed("not a signed table record (no signed log: export it with GET /v1/tables/:id/record)");
  // JSON.parse reads 1e999 as Infinity, which no hash can take: refused here, not thrown while hashing.
  const problem = canonicalProblem(doc);
  if (problem !== null) return failed(`the record holds what no signed log can (${problem.replace(/^canonicalJson: /, "")})`);
  const unsigned = unsignedField(doc);
  if (unsigned !== null) return failed(`${unsigned} is not covered by any signature (the record was edited)`);
  const { header, headerHash, headerMac, entries, end } = doc.signed;
  const recoveries = doc.signed.recoveries ?? [];
  if (doc.game !== header.game || doc.version !== header.version || doc.seed !== header.seed || JSON.stringify(doc.config) !== JSON.stringify(header.config)) {
    return failed("the record's game, version, seed or config differ from its signed header");
  }
  if (entries.length !== doc.decisions.length) return failed(`the record has ${doc.decisions.length} decisions but ${entries.length} signed entries`);
  const chain = walkChain(
    key,
    header,
    headerHash,
    headerMac,
    entries.map((entry, i) => ({ entry, decision: doc.decisions[i] })),
    recoveries,
    doc.signed.seats ?? [],
  );
  if (chain.bad !== null) return failed(chain.bad);
  if (end) {
    const badEnd = verifyEnd(key, chain.tip, end);
    if (badEnd) return failed(badEnd);
    if (end.decisions !== entries.length) return failed(`the end marker signs ${end.decisions} decisions but the record has ${entries.length}`);
    if (end.finalHash !== doc.finalHash) return failed(`the record's finalHash ${doc.finalHash} is not the signed final hash ${end.finalHash}`);
  }
  const game = registry.get(doc.game);
  if (!game.ok) return failed(game.error.message);
  const replayed = replay(registry, {
    game: doc.game,
    version: doc.version,
    config: doc.config,
    seed: doc.seed,
    decisions: doc.decisions,
    finalHash: doc.finalHash,
  });
  if (!replayed.ok) return failed(replayed.error.message);
  for (const [i, entry] of entries.entries()) {
    if (replayed.value.hashes[i + 1] !== entry.stateHash) return failed(`entry ${i}: the replayed state hash differs from the signed one`);
  }
  const over = game.value.actor(replayed.value.state) === "terminal";
  if (end) {
    if (!over) return failed(`the end marker says the game ended after ${end.decisions} decisions, but it replays to an unfinished game`);
    if (canonicalJson(game.value.returns(replayed.value.state)) !== canonicalJson(end.returns))
      return failed("the replayed returns differ from the signed ones");
    return { status: "verified", decisions: entries.length, recoveries };
  }
  return over
    ? {
        status: "incomplete",
        at: entries.length,
        finished: true,
        reason: "no end marker (a record exported before end markers were signed): the game replays to its end, but its length and result are not signed",
      }
    : { status: "incomplete", at: entries.length, finished: false, reason: "no end marker and the game does not replay to its end: the log stops mid-game" };
}

/**
 * checkSignedRecord on a record file's text: a text that is not JSON (cut short, trailing bytes,
 * empty) fails, and so does one that repeats a key within an object. JSON.parse keeps the last of
 * a repeated key and another reader may keep the first, so such a file says two things at once
 * (say, two `finalHash` fields), and only one of them is what the signature covers.
 */
export function checkSignedRecordText(registry: GameRegistry, key: Buffer, text: string): RecordCheck {
  let doc: unknown;
  try {
    doc = parseJsonText(text);
  } catch (e) {
    return failed(`not valid JSON (a record cut short, or with bytes after it): ${(e as Error).message}`);
  }
  const repeated = repeatedKey(text);
  if (repeated !== null) return failed(`${repeated} (the record was edited: one of the two is not the signed one)`);
  return checkSignedRecord(registry, key, doc);
}

/**
 * The first key that a valid JSON text repeats within one object, as a message naming it and its
 * character offset; null when every object's keys are distinct.
 */
export function repeatedKey(text: string): string | null {
  // One frame per open object (its keys so far) or array (null); `key`: the next string is a key.
  const frames: (Set<string> | null)[] = [];
  let key = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === 0x22 /* " */) {
      let end = i + 1;
      for (;;) {
        const q = text.indexOf('"', end);
        if (q < 0) return null; // not valid JSON: JSON.parse said so first
        let backslashes = 0;
        for (let k = q - 1; text.charCodeAt(k) === 0x5c; k--) backslashes++;
        end = q + 1;
        if (backslashes % 2 === 0) break;
      }
      const keys = frames.at(-1);
      if (key && keys) {
        const name = JSON.parse(text.slice(i, end)) as string;
        if (keys.has(name)) return `the key ${JSON.stringify(name)} appears twice in one object (at character ${i})`;
        keys.add(name);
        key = false;
      }
      i = end - 1;
    } else if (c === 0x7b /* { */) {
      frames.push(new Set());
      key = true;
    } else if (c === 0x5b /* [ */) frames.push(null);
    else if (c === 0x7d /* } */ || c === 0x5d /* ] */) frames.pop();
    else if (c === 0x2c /* , */) key = frames.at(-1) instanceof Set;
  }
  return null;
}

/** The fields each part of an exported record may hold: the signed ones and the GameRecord's (the header's hash covers it whole). */
const RECORD_FIELDS = new Set(["game", "version", "config", "seed", "decisions", "finalHash", "signed"]);
const SIGNED_FIELDS = new Set(["header", "headerHash", "headerMac", "entries", "recoveries", "seats", "end"]);
const ENTRY_FIELDS = new Set(["seq", "seat", "cause", "at", "stateHash", "hash", "mac"]);

/**
 * The path of the first field of a record that no hash or signature covers, or null. The schema lets
 * such fields through (journal entries of older servers carry a label), but a field riding along in
 * a verified record would pass for the server's. Only a record with no end marker (exported before
 * end markers were signed, so never verified) may carry each entry's old label.
 */
function unsignedField(doc: SignedRecord): string | null {
  const extra = (o: object, allowed: ReadonlySet<string>) => Object.keys(o).find((k) => !allowed.has(k));
  const top = extra(doc, RECORD_FIELDS);
  if (top !== undefined) return top;
  const signed = extra(doc.signed, SIGNED_FIELDS);
  if (signed !== undefined) return `signed.${signed}`;
  for (const [i, entry] of doc.signed.entries.entries()) {
    const k = Object.keys(entry).find((f) => !ENTRY_FIELDS.has(f) && !(f === "label" && doc.signed.end === undefined));
    if (k !== undefined) return `signed.entries[${i}].${k}`;
  }
  return null;
}

/**
 * One line for a signed recovery link: how many acknowledged decisions the restart lost (a lost
 * tail, the head's count against what survived) or that it could not tell, and where play went on.
 */
export function describeRecovery(r: SignedRecovery): string {
  if (r.problem === "lost_tail" && r.expectedSeq === r.seq) {
    return `the table lost its journal's last signed lines (seat changes: joins, leaves, returns or resignations) after decision ${r.seq} on restart (journal tail lost); play went on from there`;
  }
  if (r.problem === "lost_tail" && r.expectedSeq !== undefined) {
    const n = r.expectedSeq - r.seq;
    return `the table lost ${n} acknowledged decision${n === 1 ? "" : "s"} at decision ${r.seq + 1} on restart (journal tail lost: its head promised ${r.expectedSeq}, ${r.seq} survived); play went on from there`;
  }
  const why = r.problem === "mismatch" ? "its journal's chain was not the one its head signed" : `its journal could not be checked (${r.problem})`;
  return `at decision ${r.seq + 1} a restart found ${why}: acknowledged decisions may have been lost there; play went on from there`;
}

/**
 * checkSignedRecord as one message: null for a verified finished game that lost nothing, else what
 * is wrong or missing (or, for one with a recovery link, what a restart lost).
 */
export function verifySignedRecord(registry: GameRegistry, key: Buffer, doc: unknown): string | null {
  const c = checkSignedRecord(registry, key, doc);
  if (c.status === "verified") return c.recoveries.length > 0 ? `verified, but ${c.recoveries.map(describeRecovery).join("; ")}` : null;
  return c.status === "incomplete" ? `incomplete at ${c.at}: ${c.reason}` : c.reason;
}
