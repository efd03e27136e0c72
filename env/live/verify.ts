import { Compile } from "typebox/compile";
import { replay, type GameRegistry } from "../../engine/core/index.ts";
import { SignedRecord } from "./protocol.ts";
import { verifyChain } from "./signing.ts";

const signedRecord = Compile(SignedRecord);

/**
 * Checks an exported table record (GET /v1/tables/:id/record) against the server's key: the
 * header and every entry must hash and sign as the server wrote them (so an edited decision, a
 * dropped, added or reordered entry fails), the record's game fields must be the header's, and the
 * game must replay to every entry's state hash and the final hash. Returns null or the first problem.
 */
export function verifySignedRecord(registry: GameRegistry, key: Buffer, doc: unknown): string | null {
  if (!signedRecord.Check(doc)) return "not a signed table record (no signed log: export it with GET /v1/tables/:id/record)";
  const { header, headerHash, headerMac, entries } = doc.signed;
  if (doc.game !== header.game || doc.version !== header.version || doc.seed !== header.seed || JSON.stringify(doc.config) !== JSON.stringify(header.config)) {
    return "the record's game, version, seed or config differ from its signed header";
  }
  if (entries.length !== doc.decisions.length) return `the record has ${doc.decisions.length} decisions but ${entries.length} signed entries`;
  const bad = verifyChain(
    key,
    header,
    headerHash,
    headerMac,
    entries.map((entry, i) => ({ entry, decision: doc.decisions[i] })),
  );
  if (bad) return bad;
  const replayed = replay(registry, {
    game: doc.game,
    version: doc.version,
    config: doc.config,
    seed: doc.seed,
    decisions: doc.decisions,
    finalHash: doc.finalHash,
  });
  if (!replayed.ok) return replayed.error.message;
  for (let i = 0; i < entries.length; i++) {
    if (replayed.value.hashes[i + 1] !== entries[i]!.stateHash) return `entry ${i}: the replayed state hash differs from the signed one`;
  }
  return null;
}
